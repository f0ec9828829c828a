package ir

// DAG is a plan's steps in file order with what each waits for: the graph
// cairn run walks and the compiled targets schedule by.
type DAG struct {
	Steps []*PlanStep
	// Stage is each step's stage; Needs the steps it needs; Above those it
	// waits for directly or not, in file order (indices into Steps).
	Stage []int
	Needs [][]int
	Above [][]int
}

// NewDAG is plan's DAG. Its steps point into plan.
func NewDAG(plan *Plan) *DAG {
	d := &DAG{}
	index := map[string]int{}
	for k, stage := range plan.Stages {
		for i := range stage {
			index[stage[i].Name] = len(d.Steps)
			d.Steps = append(d.Steps, &stage[i])
			d.Stage = append(d.Stage, k)
		}
	}
	d.Needs = make([][]int, len(d.Steps))
	d.Above = make([][]int, len(d.Steps))
	for i, st := range d.Steps {
		seen := make([]bool, i)
		for _, n := range st.Needs {
			j, ok := index[n]
			if !ok || j >= i {
				continue
			}
			d.Needs[i] = append(d.Needs[i], j)
			seen[j] = true
			for _, a := range d.Above[j] {
				seen[a] = true
			}
		}
		for j, ok := range seen {
			if ok {
				d.Above[i] = append(d.Above[i], j)
			}
		}
	}
	return d
}

// WritesNeeds reports whether a step of p writes its needs: a process
// that writes none runs stage by stage.
func (p *Plan) WritesNeeds() bool {
	for _, stage := range p.Stages {
		for _, s := range stage {
			if s.NeedsWritten {
				return true
			}
		}
	}
	return false
}
