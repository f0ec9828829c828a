package codegen

import (
	"bytes"
	"embed"
	"fmt"
	"strings"
	"sync"
	"text/template"
	"unicode/utf8"
)

// actionsFiles are the embedded templates of a compiled workflow (docs/design.md §9,
// --target github-actions): the workflow, the script of its last job, and
// the steps a feature adds to the jobs (budget.yml.tmpl, commit.yml.tmpl).
//
//go:embed actions/workflow.yml.tmpl actions/results.sh.tmpl actions/budget.yml.tmpl actions/issue.yml.tmpl actions/commit.yml.tmpl
//go:embed actions/publish.yml.tmpl actions/publish.sh.tmpl
var actionsFiles embed.FS

// actionsFuncs quote what a workflow holds: every value from a process file
// or the config goes through yq (a YAML string) or, in a script, q and qs
// (a bash word); a job's script goes into the workflow through indent.
var actionsFuncs = template.FuncMap{
	"yq":          YAMLQuote,
	"indent":      yamlBlock,
	"q":           BashQuote,
	"qs":          bashQuoteAll,
	"inc":         func(i int) int { return i + 1 },
	"part":        func(wf *workflow, j *workflowJob) jobPart { return jobPart{WF: wf, Job: j} },
	"publishPart": func(wf *workflow, j *publishJob) publishPart { return publishPart{WF: wf, Job: j} },
	"usdJQ":       func() string { return BashUSDJQ },
}

// jobPart is what a template of the steps a feature adds to a job renders:
// the workflow, and the job.
type jobPart struct {
	WF  *workflow
	Job *workflowJob
}

// publishPart is what the template of a publish job renders: the
// workflow, and the job.
type publishPart struct {
	WF  *workflow
	Job *publishJob
}

// actionsTemplates parses the workflow's templates once, on first use.
var actionsTemplates = sync.OnceValues(func() (*template.Template, error) {
	return template.New("workflow.yml.tmpl").Option("missingkey=error").Funcs(actionsFuncs).
		ParseFS(actionsFiles, "actions/workflow.yml.tmpl", "actions/results.sh.tmpl", "actions/budget.yml.tmpl", "actions/issue.yml.tmpl", "actions/commit.yml.tmpl",
			"actions/publish.yml.tmpl", "actions/publish.sh.tmpl")
})

// actionsWorkflow renders a compiled workflow from
// actions/workflow.yml.tmpl; data is its model.
func actionsWorkflow(data any) ([]byte, error) {
	return renderActions("workflow.yml.tmpl", data)
}

// actionsResults renders the script of a workflow's last job, which
// gathers the run's folder from the other jobs' and shows the last stage's
// results (actions/results.sh.tmpl).
func actionsResults(data any) (string, error) {
	b, err := renderActions("results.sh.tmpl", data)
	return string(b), err
}

// publishScript is the model actions/publish.sh.tmpl renders: Items is
// set when a publish job takes what the jobs of a step's items kept
// (publishJob.Items), Commits in commit mode (publishJob.Commits).
type publishScript struct {
	Items, Commits bool
}

// actionsPublish renders the script of a workflow's publish jobs
// (actions/publish.sh.tmpl).
func actionsPublish(data publishScript) (string, error) {
	b, err := renderActions("publish.sh.tmpl", data)
	return string(b), err
}

func renderActions(name string, data any) ([]byte, error) {
	t, err := actionsTemplates()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := t.ExecuteTemplate(&b, name, data); err != nil {
		return nil, fmt.Errorf("render %s: %w", name, err)
	}
	return b.Bytes(), nil
}

// YAMLQuote quotes s as a double-quoted YAML string that reads back as
// exactly s: printable ASCII as it is, everything else escaped, so that no
// YAML reader (GitHub's reads line breaks YAML 1.2 does not) sees a line
// break or a character it refuses.
func YAMLQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r >= 0x20 && r < 0x7f:
			b.WriteRune(r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			fmt.Fprintf(&b, `\U%08X`, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// YAMLBlockSafe reports the first character of text that a YAML literal
// block cannot carry as it is, and false when there is none: a control
// character other than tab and newline, a character some YAML readers take
// for a line break (U+0085, U+2028, U+2029), a byte order mark, or one that
// is no character at all.
func YAMLBlockSafe(text string) (rune, bool) {
	if !utf8.ValidString(text) {
		return utf8.RuneError, true
	}
	for _, r := range text {
		switch {
		case r == '\t' || r == '\n':
		case r < 0x20 || (r >= 0x7f && r < 0xa0) || r == 0x2028 || r == 0x2029 || r == 0xfeff:
			return r, true
		case r >= 0xd800 && r < 0xe000, r == 0xfffe, r == 0xffff:
			return r, true
		}
	}
	return 0, false
}

// yamlBlock is text as the lines of a YAML literal block (`|`), each line
// indented by n spaces (empty lines stay empty). text must start with a
// character other than a space, so that the block's indentation is read
// from its first line.
func yamlBlock(n int, text string) (string, error) {
	if text == "" || text[0] == ' ' || text[0] == '\n' {
		return "", fmt.Errorf("a YAML block cannot start with %q", text[:min(len(text), 1)])
	}
	if r, bad := YAMLBlockSafe(text); bad {
		return "", fmt.Errorf("a YAML block cannot carry the character %U", r)
	}
	pad := strings.Repeat(" ", n)
	var b strings.Builder
	for line := range strings.Lines(strings.TrimSuffix(text, "\n")) {
		if line != "\n" {
			b.WriteString(pad)
		}
		b.WriteString(line)
	}
	return b.String(), nil
}
