package views

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/record"
)

// Graph is a process's steps as a picture: a node for each step, in file
// order, and an edge from each step to each step that waits for it. Drawn
// as Mermaid (which GitHub renders) or Graphviz DOT.
type Graph struct {
	Title string
	Nodes []GraphNode
	// Edges are pairs of node indices: the step waited for, then the one
	// that waits.
	Edges [][2]int
}

// GraphNode is one step: its name, what it runs and where, its parallel
// group, and, in a run's picture, its outcome.
type GraphNode struct {
	Name, Detail, Group string
	Outcome             record.Outcome
}

// PlanGraph is the picture of plan: each step with what it runs and
// where, and its needs.
func PlanGraph(plan *ir.Plan) Graph {
	// Only the edges are wanted: ir.NewDAG would also work out what each
	// step waits for through others, quadratic in the steps. The nodes,
	// and most steps' one need, are made room for at once.
	steps := 0
	for _, stage := range plan.Stages {
		steps += len(stage)
	}
	g := Graph{Title: plan.Process, Nodes: make([]GraphNode, 0, steps), Edges: make([][2]int, 0, steps)}
	index := make(map[string]int, steps)
	for _, stage := range plan.Stages {
		for i := range stage {
			st := &stage[i]
			k := len(g.Nodes)
			for _, n := range st.Needs {
				if j, ok := index[n]; ok {
					g.Edges = append(g.Edges, [2]int{j, k})
				}
			}
			index[st.Name] = k
			g.Nodes = append(g.Nodes, GraphNode{Name: st.Name, Detail: DescribeStep(st), Group: st.Parallel})
		}
	}
	return g
}

// RunGraph is the picture of a run: each step with its outcome and what
// it ran, and what it waited for (StepsGraph).
func RunGraph(run *record.Run) Graph {
	return StepsGraph(run.Name, run.Record.Steps)
}

// StepsGraph is the picture of a run's steps: each with its outcome, its
// actions' kinds and its worktree, and what it waited for (its recorded
// needs, else the stage before it). A compiled workflow's summary draws it
// from the steps a run starts with (record.PlanSteps).
func StepsGraph(title string, steps []record.StepRecord) Graph {
	g := Graph{Title: title}
	index := map[string]int{}
	prev, stage := []int(nil), []int(nil)
	for i, s := range steps {
		index[s.Name] = i
		var kinds []string
		for _, a := range s.Actions {
			kinds = append(kinds, string(a.Kind))
		}
		detail := strings.Join(kinds, "+")
		if s.Worktree != "" {
			detail += ", worktree " + s.Worktree
		}
		g.Nodes = append(g.Nodes, GraphNode{Name: s.Name, Detail: detail, Group: s.Parallel, Outcome: s.Outcome})
		// The stages, for a run whose steps wrote no needs: a step joins
		// the group of the step before it when both name it.
		if i == 0 || s.Parallel == "" || s.Parallel != steps[i-1].Parallel {
			prev, stage = stage, nil
		}
		stage = append(stage, i)
		if s.Needs != nil {
			for _, n := range s.Needs {
				if j, ok := index[n]; ok {
					g.Edges = append(g.Edges, [2]int{j, i})
				}
			}
			continue
		}
		for _, j := range prev {
			g.Edges = append(g.Edges, [2]int{j, i})
		}
	}
	return g
}

// outcomeStyles are the fill and stroke of a node by its outcome.
var outcomeStyles = []struct {
	outcome      record.Outcome
	fill, stroke string
}{
	{record.Succeeded, "#dafbe1", "#1a7f37"},
	{record.Failed, "#ffebe9", "#cf222e"},
	{record.Inconclusive, "#fff8c5", "#9a6700"},
	{record.Skipped, "#f6f8fa", "#8c959f"},
	{record.Cancelled, "#f6f8fa", "#8c959f"},
	{record.Interrupted, "#fff1e5", "#bc4c00"},
	{record.Running, "#ddf4ff", "#0969da"},
}

// MermaidClasses are the classDef lines of a run's picture in Mermaid,
// one for each outcome a node may have: a compiled workflow's summary
// draws its run with them.
func MermaidClasses() string {
	var b strings.Builder
	for _, s := range outcomeStyles {
		fmt.Fprintf(&b, "  classDef %s fill:%s,stroke:%s\n", s.outcome, s.fill, s.stroke)
	}
	return b.String()
}

// WriteMermaid draws g as a Mermaid flowchart, top to bottom: nodes s0, s1,
// … in file order, labelled with the step's name, what it runs and, in a
// run, its outcome (and coloured by it); a parallel group's steps in a
// subgraph.
func (g Graph) WriteMermaid(w io.Writer) error {
	styled := slices.ContainsFunc(g.Nodes, func(n GraphNode) bool { return n.Outcome != "" })
	text := g.mermaid(func(k int) string {
		if o := g.Nodes[k].Outcome; o != "" {
			return "<br/>" + mermaidText(string(o))
		}
		return ""
	}, styled)
	if styled {
		var b strings.Builder
		for i, n := range g.Nodes {
			if n.Outcome != "" && n.Outcome != record.Pending {
				fmt.Fprintf(&b, "  class s%d %s\n", i, n.Outcome)
			}
		}
		text += b.String()
	}
	_, err := io.WriteString(w, text)
	return err
}

// MermaidOutcomeSlot is what MermaidTemplate holds in node N's label where
// its outcome goes, with N for the node's index: "@oN@", which no label
// holds (mermaidText writes @ as #64;).
func MermaidOutcomeSlot(n int) string { return fmt.Sprintf("@o%d@", n) }

// MermaidTemplate is WriteMermaid's picture of g before its steps have
// ended: each node's label ends with its MermaidOutcomeSlot, where a
// compiled workflow's last job writes "<br/>OUTCOME" before adding a
// "class sN OUTCOME" line for each step that did not stay pending, so
// that the summary draws the run as `cairn show --format mermaid` does.
func (g Graph) MermaidTemplate() string {
	return g.mermaid(MermaidOutcomeSlot, true)
}

// runs are g's nodes as they are drawn: each a run [start, end) of the
// nodes of one parallel group, or a node on its own.
func (g Graph) runs() [][2]int {
	var out [][2]int
	for i := 0; i < len(g.Nodes); {
		end := i + 1
		for end < len(g.Nodes) && g.Nodes[i].Group != "" && g.Nodes[end].Group == g.Nodes[i].Group {
			end++
		}
		out = append(out, [2]int{i, end})
		i = end
	}
	return out
}

// mermaid is the flowchart of g up to its class lines: each node's label
// followed by after(k), the outcomes' classDefs when styled.
func (g Graph) mermaid(after func(k int) string, styled bool) string {
	var b strings.Builder
	b.Grow(graphBytesPerNode * len(g.Nodes))
	b.WriteString("flowchart TD\n")
	for _, run := range g.runs() {
		i, end, n := run[0], run[1], g.Nodes[run[0]]
		indent := "  "
		if end-i > 1 {
			fmt.Fprintf(&b, "  subgraph g%d[\"%s\"]\n", i, mermaidText("parallel "+n.Group))
			indent = "    "
		}
		for k := i; k < end; k++ {
			m := g.Nodes[k]
			// As "%ss%d[\"<b>%s</b><br/>%s%s\"]\n" would print it, without
			// fmt's boxing of every value on every node.
			b.WriteString(indent)
			b.WriteByte('s')
			b.WriteString(strconv.Itoa(k))
			b.WriteString("[\"<b>")
			mermaidEscaper.WriteString(&b, m.Name)
			b.WriteString("</b><br/>")
			mermaidEscaper.WriteString(&b, m.Detail)
			b.WriteString(after(k))
			b.WriteString("\"]\n")
		}
		if end-i > 1 {
			b.WriteString("  end\n")
		}
	}
	for _, e := range g.Edges {
		fmt.Fprintf(&b, "  s%d --> s%d\n", e[0], e[1])
	}
	if styled {
		b.WriteString(MermaidClasses())
	}
	return b.String()
}

// graphBytesPerNode is about what a node and its edges take in Mermaid or
// DOT, a step's name and what it runs (bench/check.sh's corpora: 81 to 84
// bytes): the room a graph's text is given at once, not grown into.
const graphBytesPerNode = 96

// mermaidText is s as Mermaid reads it inside a quoted label: its quotes,
// angle brackets, ampersands, hashes, backquotes and at signs as entity
// codes, its line breaks as spaces.
func mermaidText(s string) string {
	return mermaidEscaper.Replace(s)
}

// mermaidEscaper and dotEscaper are made once: a Replacer builds its
// tables on first use, which costs more than the labels it escapes.
var (
	mermaidEscaper = strings.NewReplacer("#", "#35;", "&", "#38;", "\"", "#quot;", "<", "#lt;", ">", "#gt;", "\r", " ", "\n", " ", "`", "#96;", "@", "#64;")
	dotEscaper     = strings.NewReplacer("\\", "\\\\", "\"", "\\\"", "\r", "", "\n", "\\n")
)

// WriteDot draws g as a Graphviz digraph, top to bottom, with the same
// nodes, labels, groups (clusters) and colours as WriteMermaid.
func (g Graph) WriteDot(w io.Writer) error {
	var b strings.Builder
	b.Grow(graphBytesPerNode * len(g.Nodes))
	fmt.Fprintf(&b, "digraph %s {\n  rankdir=TB;\n  node [shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", fontname=\"Helvetica\"];\n", dotString(g.Title))
	for _, run := range g.runs() {
		i, end, n := run[0], run[1], g.Nodes[run[0]]
		indent := "  "
		if end-i > 1 {
			fmt.Fprintf(&b, "  subgraph cluster_%d {\n    label=%s;\n    style=dashed;\n", i, dotString("parallel "+n.Group))
			indent = "    "
		}
		for k := i; k < end; k++ {
			m := g.Nodes[k]
			attrs := ""
			for _, s := range outcomeStyles {
				if m.Outcome != "" && s.outcome == m.Outcome {
					attrs = fmt.Sprintf(", fillcolor=%q, color=%q", s.fill, s.stroke)
				}
			}
			// As "%ss%d [label=%s%s];\n" would print it with the label
			// dotString(name, detail and outcome a line each), without
			// fmt's boxing of every value on every node. The escaper
			// replaces single bytes: a label escapes part by part alike.
			b.WriteString(indent)
			b.WriteByte('s')
			b.WriteString(strconv.Itoa(k))
			b.WriteString(" [label=\"")
			dotEscaper.WriteString(&b, m.Name)
			b.WriteString(`\n`)
			dotEscaper.WriteString(&b, m.Detail)
			if m.Outcome != "" {
				b.WriteString(`\n`)
				dotEscaper.WriteString(&b, string(m.Outcome))
			}
			b.WriteByte('"')
			b.WriteString(attrs)
			b.WriteString("];\n")
		}
		if end-i > 1 {
			b.WriteString("  }\n")
		}
	}
	for _, e := range g.Edges {
		fmt.Fprintf(&b, "  s%d -> s%d;\n", e[0], e[1])
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// dotString is s as a DOT quoted string: its backslashes and quotes
// escaped, its line breaks as \n (centred lines).
func dotString(s string) string {
	return "\"" + dotEscaper.Replace(s) + "\""
}

// WriteGraphs draws each plan of r on w as a picture in format, "mermaid"
// or "dot" (Graph), a blank line between two; its diagnostics go to diags
// as the text format words them, so that w holds the pictures alone.
func (r *Report) WriteGraphs(w, diags io.Writer, format string, st Style) error {
	for _, d := range r.Diagnostics {
		if err := WriteDiagnostic(diags, d, r.Sources, st); err != nil {
			return err
		}
	}
	return writeInOrder(w, len(r.Plans), func(i int, w io.Writer) error {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		return PlanGraph(r.Plans[i]).Write(w, format)
	})
}

// Write draws g in format: "mermaid" or "dot".
func (g Graph) Write(w io.Writer, format string) error {
	if format == "dot" {
		return g.WriteDot(w)
	}
	return g.WriteMermaid(w)
}
