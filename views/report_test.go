package views

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/ir"
)

func rng(file string, line, col, endLine, endCol int32) ir.Range {
	return ir.Range{File: file, Start: ir.Pos{Line: line, Column: col}, End: ir.Pos{Line: endLine, Column: endCol}}
}

func TestWriteDiagnostic(t *testing.T) {
	long := strings.Repeat("0123456789", 40)
	src := []byte("version = 1\n\tcommnd = \"x\"\nname = \"ünï\" # é\n" + long + "\n")
	for _, tc := range []struct {
		name string
		d    ir.Diagnostic
		want string
	}{{
		name: "tab before the range stays a tab",
		d: ir.Diagnostic{Rule: "unknown-key", Severity: ir.Error, Message: `unknown key "commnd"`,
			Range: rng("a.toml", 2, 2, 2, 8)},
		want: "a.toml:2:2: error: unknown key \"commnd\" [unknown-key]\n" +
			"   2 | \tcommnd = \"x\"\n" +
			"     | \t^~~~~~\n",
	}, {
		name: "columns count runes",
		d: ir.Diagnostic{Rule: "x", Severity: ir.Warning, Message: "m",
			Range:   rng("a.toml", 3, 9, 3, 14),
			Related: []ir.Related{{Range: rng("a.toml", 1, 1, 1, 8), Message: "first defined here"}}},
		want: "a.toml:3:9: warning: m [x]\n" +
			"   3 | name = \"ünï\" # é\n" +
			"     |         ^~~~~\n" +
			"a.toml:1:1: note: first defined here\n",
	}, {
		name: "a range past its line runs to the line's end",
		d: ir.Diagnostic{Rule: "x", Severity: ir.Note, Message: "m",
			Range: rng("a.toml", 1, 9, 4, 1)},
		want: "a.toml:1:9: note: m [x]\n" +
			"   1 | version = 1\n" +
			"     |         ^~~\n",
	}, {
		name: "a long line is quoted around the range",
		d: ir.Diagnostic{Rule: "x", Severity: ir.Error, Message: "m",
			Range: rng("a.toml", 4, 101, 4, 106)},
		want: "a.toml:4:101: error: m [x]\n" +
			"   4 | …" + long[40:240] + "…\n" +
			"     | " + strings.Repeat(" ", 61) + "^~~~~\n",
	}, {
		name: "no file",
		d:    ir.Diagnostic{Rule: "invalid-value", Severity: ir.Error, Message: `issue "x": bad`},
		want: "cairn: error: issue \"x\": bad [invalid-value]\n",
	}, {
		name: "a file but no position",
		d:    ir.Diagnostic{Rule: "syntax", Severity: ir.Error, Message: "cannot read", Range: ir.Range{File: "b.toml"}},
		want: "b.toml: error: cannot read [syntax]\n",
	}, {
		name: "a line past the file's end quotes nothing",
		d:    ir.Diagnostic{Rule: "x", Severity: ir.Error, Message: "m", Range: rng("a.toml", 9, 1, 9, 2)},
		want: "a.toml:9:1: error: m [x]\n",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := WriteDiagnostic(&b, tc.d, map[string][]byte{"a.toml": src}, Style{}); err != nil {
				t.Fatal(err)
			}
			if got := b.String(); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// TestWriteDiagnosticLongLine: a line of a mebibyte (a file nested a
// million brackets deep on one line, a string of megabytes) is quoted
// around the range only, cut with an ellipsis at each end it does not
// reach, with the caret under the range's first character, where the whole
// line was quoted, with a tilde under each of its characters. Columns count
// characters: multi-byte ones, tabs and a run of bytes that is no UTF-8
// before the range keep the caret in place.
func TestWriteDiagnosticLongLine(t *testing.T) {
	const size = 1 << 20
	for _, tc := range []struct {
		name   string
		before string // the line up to the range
		after  string // from the range on
		cut    string // "<", ">" or "<>": the ends the quote cuts
	}{
		{"near the start", "a = ", strings.Repeat("[", size), ">"},
		{"in the middle", "a = " + strings.Repeat("é\t[", size/6), "X" + strings.Repeat("]", size/2), "<>"},
		{"bytes that are no UTF-8", "a = \"" + strings.Repeat("\xff\xfe x", size/8), "X\"", "<"},
		{"at the end", strings.Repeat("[", size), "", "<"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line := tc.before + tc.after
			col := int32(utf8.RuneCountInString(strings.ToValidUTF8(tc.before, "\uFFFD"))) + 1
			src := []byte("version = 1\n" + line + "\nsteps = []\n")
			d := ir.Diagnostic{Rule: "syntax", Severity: ir.Error, Message: "m", Range: rng("a.hcl", 2, col, 3, 1)}
			var b strings.Builder
			if err := WriteDiagnostic(&b, d, map[string][]byte{"a.hcl": src}, Style{}); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if len(out) > 1024 {
				t.Fatalf("the excerpt of a %d-byte line is %d bytes; want under 1 KiB:\n%.300s", len(line), len(out), out)
			}
			lines := strings.Split(out, "\n")
			if len(lines) != 4 || lines[3] != "" {
				t.Fatalf("want a message, a quote and a marker:\n%s", out)
			}
			quote, ok1 := strings.CutPrefix(lines[1], "   2 | ")
			marker, ok2 := strings.CutPrefix(lines[2], "     | ")
			if !ok1 || !ok2 {
				t.Fatalf("no gutter:\n%s", out)
			}
			if got := strings.HasPrefix(quote, "…"); got != strings.Contains(tc.cut, "<") {
				t.Errorf("the quote starts with an ellipsis: %v; want %v\n%s", got, !got, quote)
			}
			if got := strings.HasSuffix(quote, "…"); got != strings.Contains(tc.cut, ">") {
				t.Errorf("the quote ends with an ellipsis: %v; want %v\n%s", got, !got, quote)
			}
			pad := strings.TrimRight(marker, "^~")
			if strings.Trim(pad, " \t") != "" || !strings.HasPrefix(marker[len(pad):], "^") {
				t.Fatalf("the marker is no padding and a caret: %q", marker)
			}
			q := []rune(quote)
			at := utf8.RuneCountInString(pad)
			for i, c := range pad {
				if want := q[utf8.RuneCountInString(pad[:i])]; (c == '\t') != (want == '\t') {
					t.Errorf("the padding has %q under %q; a tab is under a tab only", c, want)
					break
				}
			}
			want := []rune(strings.ToValidUTF8(tc.after, "\uFFFD"))
			switch {
			case len(want) == 0 && at != len(q):
				t.Errorf("the caret is under %q; want it past the end of the line", q[at:])
			case len(want) > 0 && (at >= len(q) || q[at] != want[0]):
				t.Errorf("the caret is at %d of %q; want it under %q", at, quote, want[0])
			}
			if tildes := len(marker) - len(pad) - 1; tildes > 0 && at+1+tildes > len(q) || strings.HasSuffix(quote, "…") && at+1+tildes != len(q)-1 {
				t.Errorf("%d tildes after the caret at %d of a quote of %d characters; want them to run to its end", tildes, at, len(q))
			}
		})
	}
}

func TestWriteDiagnosticColor(t *testing.T) {
	var b strings.Builder
	d := ir.Diagnostic{Rule: "x", Severity: ir.Error, Message: "m", Range: rng("a.toml", 1, 1, 1, 2)}
	if err := WriteDiagnostic(&b, d, map[string][]byte{"a.toml": []byte("v\n")}, Style{Color: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), ansiRed+"error:"+ansiReset) {
		t.Errorf("no red error in %q", b.String())
	}
}

func TestSummary(t *testing.T) {
	for _, tc := range []struct {
		r    Report
		want string
	}{
		{Report{Files: 1}, "no problems in 1 file"},
		{Report{Files: 3, Diagnostics: []ir.Diagnostic{{Severity: ir.Error}, {Severity: ir.Warning}, {Severity: ir.Error}}}, "2 errors, 1 warning in 3 files"},
		{Report{Files: 0, Diagnostics: []ir.Diagnostic{{Severity: ir.Note}}}, "1 note in 0 files"},
	} {
		if got := tc.r.Summary(); got != tc.want {
			t.Errorf("Summary() = %q; want %q", got, tc.want)
		}
	}
}

func TestWriteGitHub(t *testing.T) {
	r := &Report{Diagnostics: []ir.Diagnostic{
		{Rule: "unknown-key", Severity: ir.Error, Message: "100% wrong\nreally",
			Range:   rng("dir,1/a:b.toml", 2, 3, 2, 9),
			Related: []ir.Related{{Range: rng("dir,1/a:b.toml", 1, 1, 1, 2), Message: "here"}}},
		{Rule: "unused-worktree", Severity: ir.Warning, Message: "w", Range: rng("a.toml", 1, 1, 1, 2)},
		{Rule: "n", Severity: ir.Note, Message: "n\r"},
	}}
	var b strings.Builder
	if err := r.WriteGitHub(&b); err != nil {
		t.Fatal(err)
	}
	want := "::error file=dir%2C1/a%3Ab.toml,line=2,col=3,endLine=2,endColumn=9,title=unknown-key::100%25 wrong%0Areally%0Adir,1/a:b.toml:1:1: note: here\n" +
		"::warning file=a.toml,line=1,col=1,endLine=1,endColumn=2,title=unused-worktree::w\n" +
		"::notice title=n::n%0D\n"
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestWriteSARIF(t *testing.T) {
	r := &Report{Diagnostics: []ir.Diagnostic{
		{Rule: "duplicate", Severity: ir.Error, Message: "twice", Range: rng("a.toml", 5, 1, 5, 10),
			Related: []ir.Related{{Range: rng("a.toml", 2, 1, 2, 10), Message: "first defined here"}}},
		{Rule: "unused-worktree", Severity: ir.Warning, Message: "unused", Range: rng("a.toml", 3, 1, 3, 4)},
		{Rule: "invalid-value", Severity: ir.Error, Message: "no file"},
	}}
	tool := Tool{Version: "v1.2.3", Rules: []Rule{
		{ID: "duplicate", Severity: ir.Error, Lint: true, Doc: "a key defined twice"},
		{ID: "invalid-value", Severity: ir.Error, Lint: true, Doc: "a value outside its enum"},
		{ID: "unused-worktree", Severity: ir.Warning, Doc: "a worktree no step uses"},
	}}
	var b bytes.Buffer
	if err := r.WriteSARIF(&b, tool, true); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Schema  string `json:"$schema"`
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name           string `json:"name"`
					Version        string `json:"version"`
					InformationURI string `json:"informationUri"`
					Rules          []struct {
						ID                   string `json:"id"`
						ShortDescription     struct{ Text string }
						DefaultConfiguration struct{ Level string }
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex *int   `json:"ruleIndex"`
				Level     string `json:"level"`
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine, StartColumn, EndLine, EndColumn int }
					} `json:"physicalLocation"`
				} `json:"locations"`
				RelatedLocations []struct {
					Message struct{ Text string }
				} `json:"relatedLocations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if log.Schema != SARIFSchema || log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("header: %q %q %d runs", log.Schema, log.Version, len(log.Runs))
	}
	run := log.Runs[0]
	d := run.Tool.Driver
	if d.Name != "cairn" || d.Version != "v1.2.3" || d.InformationURI == "" || len(d.Rules) != 3 {
		t.Fatalf("driver: %+v", d)
	}
	if d.Rules[2].ID != "unused-worktree" || d.Rules[2].DefaultConfiguration.Level != "warning" || d.Rules[2].ShortDescription.Text == "" {
		t.Errorf("rule: %+v", d.Rules[2])
	}
	if len(run.Results) != 3 {
		t.Fatalf("%d results", len(run.Results))
	}
	dup := run.Results[0]
	if dup.RuleID != "duplicate" || dup.RuleIndex == nil || *dup.RuleIndex != 0 || dup.Level != "error" || dup.Message.Text != "twice" {
		t.Errorf("result: %+v", dup)
	}
	loc := dup.Locations[0].PhysicalLocation
	if loc.ArtifactLocation.URI != "a.toml" || loc.Region.StartLine != 5 || loc.Region.StartColumn != 1 || loc.Region.EndLine != 5 || loc.Region.EndColumn != 10 {
		t.Errorf("location: %+v", loc)
	}
	if len(dup.RelatedLocations) != 1 || dup.RelatedLocations[0].Message.Text != "first defined here" {
		t.Errorf("related: %+v", dup.RelatedLocations)
	}
	if w := run.Results[1]; w.Level != "warning" || *w.RuleIndex != 2 {
		t.Errorf("warning: %+v", w)
	}
	if nf := run.Results[2]; len(nf.Locations) != 0 || *nf.RuleIndex != 1 {
		t.Errorf("no-file result: %+v", nf)
	}
}

func TestWriteJSONArrays(t *testing.T) {
	r := &Report{Plans: []*ir.Plan{{Process: "p", Stages: [][]ir.PlanStep{{{Name: "s", Validate: &ir.PlanPhase{}}}}}}}
	var b bytes.Buffer
	if err := r.WriteJSON(&b, true); err != nil {
		t.Fatal(err)
	}
	// A phase a step does not have is null; no list is.
	if strings.Contains(strings.ReplaceAll(b.String(), `"precheck": null`, ""), "null") {
		t.Errorf("null in\n%s", b.String())
	}
	empty := &Report{}
	b.Reset()
	if err := empty.WriteJSON(&b, true); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(strings.Fields(b.String()), ""), `{"version":1,"diagnostics":[],"plans":[]}`; got != want {
		t.Errorf("empty report: %s; want %s", got, want)
	}
}

// TestWriteJSONStreamed holds the compact document, its plans written by
// the appenders, to the bytes the encoder makes of the whole, with strings
// that look like JSON.
func TestWriteJSONStreamed(t *testing.T) {
	tricky := `"stages":null,"harnesses":[]} <&>`
	step := func(name string) ir.PlanStep {
		return ir.PlanStep{Name: name, Description: tricky, Actions: []ir.PlanAction{{Kind: ir.Command, Command: tricky + "\n\x01é"}},
			Validate: &ir.PlanPhase{Shells: []string{tricky}}}
	}
	r := &Report{
		Diagnostics: []ir.Diagnostic{{Range: rng("a.toml", 1, 2, 1, 3), Severity: ir.Error, Rule: "r", Message: tricky}},
		Plans: []*ir.Plan{
			{Process: "empty", File: "e.toml"},
			{Process: tricky, File: "p.toml", Description: tricky, Repair: &ir.PlanAction{Kind: ir.Session, Prompt: tricky},
				Worktrees: []ir.PlanWorktree{{Name: "w"}},
				Stages:    [][]ir.PlanStep{{step("a"), step("b")}, {step("c")}, {}},
				Harnesses: []ir.HarnessStatus{{Name: tricky, OK: true, Detail: tricky}}},
		},
	}
	var got bytes.Buffer
	if err := r.WriteJSON(&got, false); err != nil {
		t.Fatal(err)
	}
	want, err := EncodedJSON(r)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want) {
		t.Errorf("streamed:\n%s\nwhole:\n%s", got.String(), want)
	}
}

func TestWritePlan(t *testing.T) {
	p := &ir.Plan{
		Process: "hunt", File: "hunt.toml", Format: ir.TOML, Description: "Hunt, then judge",
		Issue: "42", RunExpiry: "30d", FailedRunExpiry: "90d",
		Limits: ir.PlanLimits{
			RepairCap:      ir.IntSetting{Value: 2, Source: ir.FromFile},
			Merge:          ir.Setting{Value: "false", Source: ir.FromDefault},
			ProtectedPaths: []string{"migrations/**"},
		},
		Worktrees: []ir.PlanWorktree{
			{Name: "a", Kind: ir.Throwaway, Base: "main"},
			{Name: "fix", Kind: ir.IssueBranch, Base: "main", Branch: "cairn/42-fix"},
		},
		Stages: [][]ir.PlanStep{
			{
				{Name: "hunt-claude", Worktree: "a", Parallel: "hunt", Optional: true, Timeout: "45m",
					Env: []ir.PlanEnv{{Name: "GOFLAGS", Value: "-count=1"}, {Name: "MSG", Value: "two words"}},
					Actions: []ir.PlanAction{{Kind: ir.Session,
						Skill:    &ir.PlanSkill{Name: "bug-hunt", Path: ".agents/skills/bug-hunt/SKILL.md", Source: ir.SkillRepo},
						Harness:  &ir.Setting{Value: "claude", Source: ir.FromStep},
						Model:    &ir.Setting{Value: "opus", Source: ir.FromStep, Tier: "strong"},
						Effort:   &ir.Setting{Source: ir.FromDefault},
						MaxTurns: &ir.IntSetting{Value: 30, Source: ir.FromStep}}},
					Precheck: &ir.PlanPhase{Shells: []string{"test -d inbox || exit $CHECK_SKIP"}, Whys: []string{"no inbox"}}},
				{Name: "hunt-codex", Worktree: "a", Parallel: "hunt",
					Actions: []ir.PlanAction{{Kind: ir.Session, Prompt: "Find bugs.\nReport them.",
						Harness: &ir.Setting{Value: "codex", Source: ir.FromFlag}}}},
			},
			{{Name: "test", Description: "Run the tests", Worktree: "fix",
				Actions: []ir.PlanAction{{Kind: ir.Command, Command: "go test ./..."}},
				Validate: &ir.PlanPhase{Shells: []string{"go vet ./..."}, Instructions: []string{"Names a file."},
					Severity: "review", Model: &ir.Setting{Value: "sonnet", Source: ir.FromDefault, Tier: "balanced"}}}},
			{{Name: "deliver", Worktree: "fix", Actions: []ir.PlanAction{{Kind: ir.Catalogue, Catalogue: ir.Delivery}}}},
		},
		Harnesses: []ir.HarnessStatus{
			{Name: "claude", OK: true, Checked: true, Detail: "2.1.328 (Claude Code)"},
			{Name: "codex", Checked: true, Detail: `"codex" is not on PATH`},
			{Name: "gemini", Detail: "not checked (--no-preflight)"},
		},
	}
	var b strings.Builder
	if err := WritePlan(&b, p, true, Style{}); err != nil {
		t.Fatal(err)
	}
	want := `process hunt (hunt.toml)
  Hunt, then judge
  repository  none (not in a git repository: repository skills are not looked up)
  issue       42
  repair cap  2 (file)
  self-merge  forbidden by the file
  merge       no (default)
  protected   migrations/**
  expiry      30d, failed runs 90d

worktrees
  a    throwaway     from main
  fix  issue-branch  from main, branch cairn/42-fix

stage 1: parallel group "hunt", 2 steps run together
  step hunt-claude
    worktree a, optional, timeout 45m
    session    skill bug-hunt: .agents/skills/bug-hunt/SKILL.md (repo)
      harness    claude (step)
      model      opus (step, tier strong)
      effort     (harness default)
      max turns  30 (step)
    precheck   1 shell, 1 why
      $ test -d inbox || exit $CHECK_SKIP
    env        GOFLAGS=-count=1 MSG="two words"
  step hunt-codex
    worktree a
    session    prompt: Find bugs. (+1 more line)
      harness    codex (flag)

stage 2: test
  step test: Run the tests
    worktree fix
    command    go test ./...
    validate   1 shell, 1 instruction; severity review; judge model sonnet (default, tier balanced)
      $ go vet ./...
      - Names a file.

stage 3: deliver
  step deliver
    worktree fix
    catalogue  delivery

harnesses
  claude  ok 2.1.328 (Claude Code)
  codex   cannot start: "codex" is not on PATH
  gemini  not checked (--no-preflight)
`
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestWriteSARIFFixes holds a fix as SARIF spells it: a replacement per
// edit, grouped by file, an insertion as an empty region and a deletion
// with no inserted content.
func TestWriteSARIFFixes(t *testing.T) {
	ins := rng("a.toml", 1, 1, 1, 1)
	r := &Report{Diagnostics: []ir.Diagnostic{
		{Rule: "invalid-name", Severity: ir.Error, Message: "bad", Range: rng("a.toml", 4, 12, 4, 16), Fixes: []ir.Fix{{
			Message: "rename it",
			Edits: []ir.Edit{
				{Range: rng("a.toml", 4, 12, 4, 16), NewText: "work"},
				ir.Insert("a.toml", ins.Start, "version = 1\n"),
				{Range: rng("a.toml", 7, 1, 8, 1)},
			},
		}}},
	}}
	var b bytes.Buffer
	if err := r.WriteSARIF(&b, Tool{}, false); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				Fixes []struct {
					Description     struct{ Text string }
					ArtifactChanges []struct {
						ArtifactLocation struct{ URI string }
						Replacements     []struct {
							DeletedRegion   struct{ StartLine, StartColumn, EndLine, EndColumn int }
							InsertedContent *struct{ Text string }
						}
					}
				}
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	fixes := log.Runs[0].Results[0].Fixes
	if len(fixes) != 1 || fixes[0].Description.Text != "rename it" || len(fixes[0].ArtifactChanges) != 1 {
		t.Fatalf("fixes: %+v", fixes)
	}
	c := fixes[0].ArtifactChanges[0]
	if c.ArtifactLocation.URI != "a.toml" || len(c.Replacements) != 3 {
		t.Fatalf("change: %+v", c)
	}
	type region = struct{ StartLine, StartColumn, EndLine, EndColumn int }
	for i, want := range []struct {
		region region
		text   *string
	}{
		{region{4, 12, 4, 16}, ptr("work")},
		{region{1, 1, 1, 1}, ptr("version = 1\n")},
		{region{7, 1, 8, 1}, nil},
	} {
		got := c.Replacements[i]
		if got.DeletedRegion != want.region || (got.InsertedContent == nil) != (want.text == nil) ||
			got.InsertedContent != nil && got.InsertedContent.Text != *want.text {
			t.Errorf("replacement %d: %+v; want %+v", i, got, want)
		}
	}
	if !strings.Contains(b.String(), `"deletedRegion":{"startLine":7,"startColumn":1,"endLine":8,"endColumn":1}}`) {
		t.Errorf("a deletion has inserted content: %s", b.String())
	}
}

func ptr(s string) *string { return &s }
