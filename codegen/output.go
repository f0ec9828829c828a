package codegen

import "github.com/cairn-dev/cairn/ir"

// outputs refuses the steps that declare an output_schema: a compiled
// script does not yet give a step its $CAIRN_OUTPUT nor check what it
// writes there, and must not run such a step as if it had no schema.
func (c *compiler) outputs() []ir.Diagnostic {
	var diags []ir.Diagnostic
	for _, stage := range c.plan.Stages {
		for _, st := range stage {
			if st.Output == nil {
				continue
			}
			r := c.at.step(st.Name)
			if s := c.at.steps[st.Name]; s != nil {
				r = or(s.Keys().OutputSchema.At(), r)
			}
			diags = append(diags, notCompilable(r, "step %q: output_schema cannot be compiled to %s yet: the script would neither give the step $CAIRN_OUTPUT nor check its output against the schema; run the process with cairn run", st.Name, c.target.name))
		}
	}
	return diags
}
