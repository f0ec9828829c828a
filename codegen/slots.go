package codegen

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/harness"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/step/prompts"
)

// A slot stands, in text rendered at compile time (a session's prompt, a
// harness's argv), for a value known only when the script runs: a
// worktree's path, a result file, the directive. Its marker holds NUL
// bytes, which no value of a process file can (a bash word cannot hold
// one), so a marker found in rendered text is always the slot's.
type slot struct {
	marker string
	// Var is the script's variable holding the value.
	Var string
}

// The script's variables that slots stand for (bash/script.sh.tmpl).
const (
	varWorktree  = "step_dir"
	varResult    = "step_result"
	varSkill     = "skill_path"
	varDirective = "directive_trim"
	varDate      = "today"
	varMessage   = "last_message"
	varFiles     = "session_files"
	varBudget    = "budget_left"
	varSize      = "prompt_size"
	// The step's and its process's names, a session's inline prompt and
	// its skill's name, and what its prompt says of the directive.
	varStep          = "step"
	varProcess       = "process"
	varPrompt        = "step_prompt"
	varSkillName     = "skill_name"
	varDirectivePart = "prompt_directive"
	// The issue's url, in a run on an issue.
	varIssueURL = "issue_url"
	// The item, JSON, of a step with for_each.
	varItem = "item_json"
)

// itemSlot, as a session's Item, says that its step has for_each:
// sessionPrompt puts the slot of the item in its place.
const itemSlot = "\x00item\x00"

// issueSlot, as a session's IssueURL and IssueFile, says that the script
// runs on an issue: sessionPrompt puts the slots of its url and of its
// file in the step's worktree in their place.
const issueSlot = "\x00issue\x00"

// slotSet is a set of slots, one per variable. Two sets with different
// markers render the same text into the same words, unless a template did
// more with a value than insert it.
type slotSet map[string]slot

// newSlots returns the slots of vars, their markers told apart by tag.
func newSlots(tag string, vars ...string) slotSet {
	s := slotSet{}
	for i, v := range vars {
		s[v] = slot{marker: fmt.Sprintf("\x00%s%d\x00", tag, i), Var: v}
	}
	return s
}

// marker is the marker of v's slot.
func (s slotSet) marker(v string) string { return s[v].marker }

// errStray is the error of rendered text that holds part of a marker: a
// template that cut or changed a value rather than insert it.
var errStray = errors.New("a value known only at run time was changed, not inserted")

// word splits rendered text at the markers of s into a script word.
func (s slotSet) word(text string) (BashWord, error) {
	var w BashWord
	for text != "" {
		at, which := -1, slot{}
		for _, sl := range s {
			if i := strings.Index(text, sl.marker); i >= 0 && (at < 0 || i < at) {
				at, which = i, sl
			}
		}
		if at < 0 {
			break
		}
		if at > 0 {
			w = append(w, BashPiece{Text: text[:at]})
		}
		w = append(w, BashPiece{Var: which.Var})
		text = text[at+len(which.marker):]
	}
	if strings.ContainsRune(text, 0) {
		return nil, errStray
	}
	if text != "" {
		w = append(w, BashPiece{Text: text})
	}
	for _, p := range w {
		if strings.ContainsRune(p.Text, 0) {
			return nil, errStray
		}
	}
	return w, nil
}

// sameWords reports whether a and b are the same words.
func sameWords(a, b []BashWord) bool {
	return slices.EqualFunc(a, b, func(x, y BashWord) bool { return slices.Equal(x, y) })
}

// sessionCommand is a session's command as script words: its argv, the
// variables set over the step's environment (NAME=VALUE words, which env
// applies before it starts the argv), and the files written first into the
// session's folder.
type sessionCommand struct {
	Argv, Env []BashWord
	Files     []harness.File
	Settings  *harness.Settings
}

// budgetSentinels stand, in a command rendered at compile time, for what a
// session may still spend, which the script knows only as it starts the
// session: one for each set of markers, amounts no budget comes near, whose
// digits name them.
var budgetSentinels = map[string]float64{"a": 271828.182845904, "bb": 314159.265358979}

// harnessCommand is the command of a session on h as script words:
// h.Command (the code `cairn run` starts sessions with) given inv, the
// session's resolved model, effort, access and max turns, with the
// worktree, the message file and the session's folder as slots (the
// prompt goes on the CLI's stdin, as in cairn run). It is rendered with two sets of markers, and the two must give the
// same words: a custom harness whose command template does more with a
// value than insert it cannot be compiled.
//
// budgeted is the command of the session given what it may still spend,
// $budget_left, as the script gives it when a budget is over the session;
// nil when h's CLI takes no budget (its command is the same).
func harnessCommand(h *harness.Harness, inv harness.Invocation) (cmd sessionCommand, budgeted *sessionCommand, err error) {
	vars := []string{varWorktree, varMessage, varFiles, varBudget, varSession}
	render := func(tag string, withBudget bool) (sessionCommand, error) {
		s := newSlots(tag, vars...)
		inv := inv
		if inv.Resume != "" {
			inv.Resume = s.marker(varSession)
		}
		inv.Worktree, inv.OutputFile, inv.FilesDir = s.marker(varWorktree), s.marker(varMessage), s.marker(varFiles)
		inv.BudgetUSD = 0
		budget := ""
		if withBudget {
			inv.BudgetUSD = budgetSentinels[tag]
			// As claude's --max-budget-usd takes it, and the script
			// writes $budget_left.
			budget = strconv.FormatFloat(inv.BudgetUSD, 'f', -1, 64)
		}
		cmd, err := h.Command(inv)
		if err != nil {
			return sessionCommand{}, err
		}
		if len(cmd.Argv) == 0 || cmd.Argv[0] == "" {
			return sessionCommand{}, fmt.Errorf("harness %q has no command", h.Name)
		}
		sc := sessionCommand{Files: cmd.Files, Settings: cmd.Settings}
		for _, list := range []struct {
			from []string
			into *[]BashWord
		}{{cmd.Argv, &sc.Argv}, {cmd.Env, &sc.Env}} {
			for _, a := range list.from {
				if budget != "" {
					a = strings.ReplaceAll(a, budget, s.marker(varBudget))
				}
				w, err := s.word(a)
				if err != nil {
					return sessionCommand{}, err
				}
				*list.into = append(*list.into, w)
			}
		}
		for _, f := range cmd.Files {
			if strings.ContainsRune(f.Name+f.Text, 0) || strings.ContainsRune(f.Name, '/') {
				return sessionCommand{}, fmt.Errorf("harness %q: a file of its session is named %q", h.Name, f.Name)
			}
		}
		if st := cmd.Settings; st != nil {
			if strings.ContainsRune(st.Var+st.Dir+st.Set, 0) {
				return sessionCommand{}, fmt.Errorf("harness %q: its settings hold a NUL", h.Name)
			}
			for _, name := range append([]string{st.File}, append(st.Links, st.Keep...)...) {
				if name == "" || strings.ContainsAny(name, "/\x00") {
					return sessionCommand{}, fmt.Errorf("harness %q: an entry of its settings folder is named %q", h.Name, name)
				}
			}
		}
		return sc, nil
	}
	// twice renders the command with both sets of markers, which must
	// give the same words.
	twice := func(withBudget bool) (sessionCommand, error) {
		a, err := render("a", withBudget)
		if err != nil {
			return sessionCommand{}, err
		}
		b, err := render("bb", withBudget)
		if err != nil {
			return sessionCommand{}, err
		}
		if !sameCommand(a, b) {
			return sessionCommand{}, errStray
		}
		return a, nil
	}
	if cmd, err = twice(false); err != nil {
		return sessionCommand{}, nil, err
	}
	withBudget, err := twice(true)
	if err != nil {
		return sessionCommand{}, nil, err
	}
	if sameCommand(cmd, withBudget) {
		return cmd, nil, nil
	}
	if !slices.Equal(cmd.Files, withBudget.Files) || !sameSettings(cmd.Settings, withBudget.Settings) {
		return sessionCommand{}, nil, fmt.Errorf("harness %q: the files of its session depend on its budget", h.Name)
	}
	return cmd, &withBudget, nil
}

// sameCommand reports whether a and b are the same command.
func sameCommand(a, b sessionCommand) bool {
	return sameWords(a.Argv, b.Argv) && sameWords(a.Env, b.Env) && slices.Equal(a.Files, b.Files) && sameSettings(a.Settings, b.Settings)
}

// sameSettings reports whether a and b are the same settings, or both none.
func sameSettings(a, b *harness.Settings) bool {
	return a == nil && b == nil || a != nil && b != nil && a.Var == b.Var && a.Dir == b.Dir && a.File == b.File &&
		a.Set == b.Set && slices.Equal(a.Links, b.Links) && slices.Equal(a.Keep, b.Keep)
}

// promptWords are a session's prompt as the script composes it: Intro, then,
// when earlier steps left results, Head and each result as STEP + Mid +
// PATH, joined by Join, then Tail; then Outro. Directive is what the prompt
// says of a directive, which it holds where the slot $prompt_directive is
// when the run has one. The step's and process's names, its inline prompt
// and its skill's name are slots too: sessions alike but for those have the
// same words, which the script composes with one function.
type promptWords struct {
	Intro, Head, Mid, Join, Tail, Outro, Directive BashWord
}

// reads reports whether a part of w reads the script's variable v.
func (w promptWords) reads(v string) bool {
	for _, part := range []BashWord{w.Intro, w.Head, w.Mid, w.Join, w.Tail, w.Outro, w.Directive} {
		if slices.ContainsFunc(part, func(p BashPiece) bool { return p.Var == v }) {
			return true
		}
	}
	return false
}

// earlierSlots are the slots of the earlier results a prompt is rendered
// with: their steps' names and their result files' paths.
func earlierSlots(n int) []prompts.EarlierResult {
	out := make([]prompts.EarlierResult, n)
	for i := range out {
		out[i] = prompts.EarlierResult{Step: fmt.Sprintf("\x00S%d\x00", i), Path: fmt.Sprintf("\x00P%d\x00", i)}
	}
	return out
}

// sessionPrompt renders a session's prompt through prompts.SessionPrompt
// (as `cairn run` does) for the script to compose at run time, from d (the
// step, its process, its inline prompt and skill, its worktree's kind): with
// the step's and process's names, the inline prompt and the skill's name,
// the worktree, the skill file (withSkill), the result file, the directive
// and the date as slots, with and without a directive, and with no, one,
// two and three earlier results, from which the parts are taken. It fails
// when the renderings do not compose (the template says the directive in
// more than one place, or lists the earlier results in a form the script
// cannot rebuild).
func sessionPrompt(d prompts.SessionData, withSkill bool) (promptWords, error) {
	s := newSlots("v", varWorktree, varResult, varSkill, varDirective, varDate, varStep, varProcess, varPrompt, varSkillName, varDirectivePart, varIssueURL, varItem)
	if d.Item == itemSlot {
		d.Item = s.marker(varItem)
	}
	if d.IssueURL == issueSlot {
		d.IssueURL, d.IssueFile = s.marker(varIssueURL), s.marker(varWorktree)+"/"+ir.IssueFile
	}
	d.Step, d.Process = s.marker(varStep), s.marker(varProcess)
	if strings.TrimSpace(d.Prompt) != "" {
		d.Prompt = s.marker(varPrompt)
	}
	if d.Skill != "" {
		d.Skill = s.marker(varSkillName)
	}
	d.WorktreePath = s.marker(varWorktree)
	d.ResultFile = s.marker(varResult)
	d.Date = s.marker(varDate)
	d.SkillPath = ""
	if withSkill {
		d.SkillPath = s.marker(varSkill)
	}
	render := func(n int, directive bool) (string, error) {
		d.Earlier = earlierSlots(n)
		if n == 0 {
			d.Earlier = nil
		}
		d.Directive = ""
		if directive {
			d.Directive = s.marker(varDirective)
		}
		return prompts.SessionPrompt(d)
	}
	// r[n] is the prompt with n earlier results, its directive's stretch
	// replaced by the slot of prompt_directive.
	var r [4]string
	var directive string
	for n := range r {
		without, err := render(n, false)
		if err != nil {
			return promptWords{}, err
		}
		with, err := render(n, true)
		if err != nil {
			return promptWords{}, err
		}
		at, text, ok := insertion(without, with)
		if !ok || n > 0 && text != directive {
			return promptWords{}, errors.New("the session prompt does not say the directive in one place")
		}
		directive = text
		r[n] = without[:at] + s.marker(varDirectivePart) + without[at:]
	}
	e := earlierSlots(3)
	s1 := strings.Index(r[1], e[0].Step)
	p1 := strings.Index(r[1], e[0].Path)
	if s1 < 0 || p1 < s1 {
		return promptWords{}, errors.New("the session prompt does not list an earlier result as its step and then its path")
	}
	head := r[1][:s1]
	mid := r[1][s1+len(e[0].Step) : p1]
	tail := r[1][p1+len(e[0].Path):]
	rest := r[2][p1+len(e[0].Path):]
	s2 := strings.Index(rest, e[1].Step)
	if s2 < 0 {
		return promptWords{}, errors.New("the session prompt does not list a second earlier result")
	}
	join := rest[:s2]
	compose := func(n int) string {
		var b strings.Builder
		b.WriteString(head)
		for i := range n {
			if i > 0 {
				b.WriteString(join)
			}
			b.WriteString(e[i].Step + mid + e[i].Path)
		}
		b.WriteString(tail)
		return b.String()
	}
	for n := 1; n <= 3; n++ {
		if compose(n) != r[n] {
			return promptWords{}, fmt.Errorf("the session prompt with %d earlier results is not its head, the results and its tail", n)
		}
	}
	// The prompt with no earlier result is the start of the head and the
	// end of the tail: what the two share with it is said once.
	cut, ok := split(r[0], head, tail)
	if !ok {
		return promptWords{}, errors.New("the session prompt with no earlier result is not the start of its head and the end of its tail")
	}
	intro, outro := r[0][:cut], r[0][cut:]
	var w promptWords
	for _, part := range []struct {
		text string
		into *BashWord
	}{
		{intro, &w.Intro}, {head[len(intro):], &w.Head}, {mid, &w.Mid}, {join, &w.Join},
		{tail[:len(tail)-len(outro)], &w.Tail}, {outro, &w.Outro}, {directive, &w.Directive},
	} {
		var err error
		if *part.into, err = s.word(part.text); err != nil {
			return promptWords{}, err
		}
	}
	for _, fixed := range []BashWord{w.Mid, w.Join} {
		for _, p := range fixed {
			if p.Var != "" {
				return promptWords{}, errors.New("the session prompt's list of earlier results holds a value known only at run time")
			}
		}
	}
	return w, nil
}

// insertion finds with as without with one stretch of text inserted, at
// its latest place that cuts no slot's marker: it returns where in without
// and the text.
func insertion(without, with string) (at int, text string, ok bool) {
	n := len(with) - len(without)
	if n < 0 {
		return 0, "", false
	}
	// with is without[:at] + text + without[at:] for every at from the
	// first past what the two do not end alike to the last of what they
	// start alike.
	for at = commonPrefix(with, without); at >= len(without)-commonSuffix(with, without) && at >= 0; at-- {
		if !inMarker(without, at) {
			return at, with[at : at+n], true
		}
	}
	return 0, "", false
}

// split finds the latest cut of whole such that whole[:cut] starts head and
// whole[cut:] ends tail, cutting no slot's marker.
func split(whole, head, tail string) (int, bool) {
	for cut := min(commonPrefix(whole, head), len(whole)); cut >= len(whole)-commonSuffix(whole, tail) && cut >= 0; cut-- {
		if !inMarker(whole, cut) {
			return cut, true
		}
	}
	return 0, false
}

// commonPrefix is how many bytes a and b start alike with.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// commonSuffix is how many bytes a and b end alike with.
func commonSuffix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}

// inMarker reports whether text cut at i would cut a slot's marker: a
// marker's bytes lie between two NULs.
func inMarker(text string, i int) bool {
	return strings.Count(text[:i], "\x00")%2 == 1
}
