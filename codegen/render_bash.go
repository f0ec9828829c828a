package codegen

import (
	"bytes"
	"embed"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"text/template"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/expr"
	"github.com/cairn-dev/cairn/step"
	"mvdan.cc/sh/v3/syntax"
)

// bashFiles are the embedded templates of compiled scripts (docs/design.md §9): the
// script, the features of its runtime (features), and the parts of it that
// differ in a workflow's job.
//
//go:embed bash/*.sh.tmpl
var bashFiles embed.FS

// outboxGH is the gh a workflow's sessions that may publish run
// (bash/outbox.sh.tmpl).
//
//go:embed bash/outbox-gh.bash
var outboxGH string

// BashPiece is a stretch of one word of a compiled script: literal text,
// quoted when rendered, or, when Var is set, the value of the script's
// variable of that name, known only when the script runs (a worktree's
// path, a result file).
type BashPiece struct {
	Text string
	Var  string
}

// BashWord is one word of a compiled script, made of pieces.
type BashWord []BashPiece

// bashVarName is what a variable a BashPiece names must look like.
var bashVarName = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// bashFuncs are the functions bash/script.sh.tmpl quotes data with: every value
// from a process file, the config or a skill goes through q or word, so
// that it is data in the script and never code.
var bashFuncs = template.FuncMap{
	"q":        BashQuote,
	"qs":       bashQuoteAll,
	"word":     bashWord,
	"words":    bashWords,
	"usdJQ":    func() string { return BashUSDJQ },
	"outboxGH": func() string { return outboxGH },
	// jqExprDefs are the jq functions every when's and for_each's
	// program calls (expr.JQDefs), held once.
	"jqExprDefs": func() string { return expr.JQDefs },
	// saveWorkPrefix is the subject of a step's Save work commit, up to
	// the step's name.
	"saveWorkPrefix": func() string { return step.SaveWorkSubject("") },
}

// BashUSDJQ is the jq with which a compiled script words amounts of US
// dollars as cairn does, and keeps its budgets (runtime/budget.go): plain, a
// number as strconv.FormatFloat(x, 'f', -1, 64) writes it (claude's
// --max-budget-usd); usd, ir.FormatUSD; spent_text($budget),
// ir.FormatSpent; floor_usd, an amount kept to a trillionth of a dollar
// then floored to a billionth; sum_usd($a; $b), a sum of costs, kept to a
// trillionth; share_of($left; $held; $waiting), a parallel group's
// member's share of what its budget has left; spent_cause, the cause of a
// budget {what, limit, spent, share} that was spent (share marks a member's
// share of the run's); tightest, of such budgets, the one with the least
// left, the first on a tie but for a share, which gives way to the budget
// after it; passed, the first that was spent past, a share only when no
// other was. fixed($d) is FormatFloat(x, 'f', $d, 64) for x from 0, but for
// the rare amount whose digit past the $d-th lies within a rounding error
// of a 5.
const BashUSDJQ = `def zeros($n): [range($n)] | map("0") | add // "";
def plain:
  (. + 0 | tostring) as $s
  | ($s | capture("^(?<m>-?)(?<i>[0-9]+)([.](?<f>[0-9]+))?([eE](?<e>[-+]?[0-9]+))?$")) as $c
  | if ($c.e // "") == "" then $s
    else ($c.i + ($c.f // "")) as $d | (($c.i | length) + ($c.e | ltrimstr("+") | tonumber)) as $p
      | $c.m + (if $p <= 0 then "0." + zeros(-$p) + $d
                elif $p >= ($d | length) then $d + zeros($p - ($d | length))
                else $d[:$p] + "." + $d[$p:] end)
    end;
def usd:
  plain | (if test("[.]") then . + zeros([2 - (split(".")[1] | length), 0] | max) else . + ".00" end) | "$" + .;
def fixed($d):
  (. * pow(10; $d)) as $x | ($x | floor) as $n | ($x - $n) as $r
  | (if $r > 0.5 or ($r == 0.5 and $n % 2 == 1) then $n + 1 else $n end | plain) as $t
  | (zeros($d + 1 - ($t | length)) + $t) as $t
  | $t[:($t | length) - $d] + "." + $t[($t | length) - $d:];
def spent_text($budget):
  . as $s | ($s - $budget > 1e-9) as $over
  | first((range(2; 12) as $d | $s | fixed($d) | select(tonumber > $budget or ($over | not) and tonumber >= $budget) | "$" + .), ($s | usd));
def floor_usd: ((. * 1e12 | round) / 1000 | floor) / 1e9;
def sum_usd($a; $b): (($a + $b) * 1e12 | round) / 1e12;
def share_of($left; $held; $waiting): ($left - $held) / ([$waiting, 1] | max) | floor_usd | if . <= 0 then 0 else . end;
def spent_cause: . as $q
  | if ($q.share // false) and $q.limit < 1e-9 then "no \($q.what) left: the steps running beside it hold the rest"
    else "\($q.what) spent: \($q.spent | spent_text($q.limit)) of \($q.limit | usd)" end;
def tightest: reduce .[] as $q (null;
  if . == null or $q.limit - $q.spent < .limit - .spent or ($q.limit - $q.spent == .limit - .spent and (.share // false)) then $q
  else . end);
def passed: [.[] | select(.spent > .limit and ((.share // false) | not))][0] // [.[] | select(.spent > .limit)][0];`

// bashTemplate parses the templates of bash/ once, on first use. Besides
// bashFuncs, script.sh.tmpl calls feature, which renders a feature's
// template with the script, and session, which pairs a step with one of its
// sessions for template "session".
var bashTemplate = sync.OnceValues(func() (*template.Template, error) {
	var t *template.Template
	funcs := template.FuncMap{
		"feature": func(name string, s *script) (string, error) {
			var b strings.Builder
			if err := t.ExecuteTemplate(&b, name+".sh.tmpl", s); err != nil {
				return "", err
			}
			return strings.Trim(b.String(), "\n"), nil
		},
		"session": func(st *scriptStep, sess *scriptSession) sessionCall { return sessionCall{Step: st, Session: sess} },
	}
	t, err := template.New("script.sh.tmpl").Option("missingkey=error").Funcs(bashFuncs).Funcs(funcs).ParseFS(bashFiles, "bash/*.sh.tmpl")
	if err != nil {
		return nil, err
	}
	for _, f := range features {
		if t.Lookup(f.name+".sh.tmpl") == nil {
			return nil, fmt.Errorf("feature %q has no template bash/%s.sh.tmpl", f.name, f.name)
		}
	}
	return t, nil
})

// sessionCall is what template "session" renders: a session action of a
// step.
type sessionCall struct {
	Step    *scriptStep
	Session *scriptSession
}

// BashQuote quotes s as one bash word that expands to exactly s
// (mvdan.cc/sh's syntax.Quote), always in quotes: a bare word that names a
// command (a process called diff) would read as one where it is assigned
// (shellcheck SC2209). A string holding a NUL byte cannot be a bash word,
// and fails.
//
// Where syntax.Quote writes a non-printable character as \uXXXX or
// \UXXXXXXXX inside $'…', bash expands it only in a UTF-8 locale (in the C
// locale it stays as written); such escapes are rewritten as the \xHH bytes
// of the character's UTF-8, which bash expands the same in every locale.
func BashQuote(s string) (string, error) {
	q, err := syntax.Quote(s, syntax.LangBash)
	if err != nil {
		return "", fmt.Errorf("quote %q for bash: %w", s, err)
	}
	if q == s {
		// syntax.Quote leaves alone only a word with no character a
		// quote would change, and no single quote.
		return "'" + s + "'", nil
	}
	if !strings.HasPrefix(q, "$'") || !strings.ContainsAny(q, "uU") {
		return q, nil
	}
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		c := q[i]
		if c != '\\' || i+1 >= len(q) {
			b.WriteByte(c)
			continue
		}
		width := map[byte]int{'u': 4, 'U': 8}[q[i+1]]
		if width == 0 || i+2+width > len(q) {
			b.WriteString(q[i : i+2])
			i++
			continue
		}
		r, err := strconv.ParseUint(q[i+2:i+2+width], 16, 32)
		if err != nil || !utf8.ValidRune(rune(r)) {
			return "", fmt.Errorf("quote %q for bash: unexpected escape %q", s, q[i:i+2+width])
		}
		for _, by := range []byte(string(rune(r))) {
			fmt.Fprintf(&b, "\\x%02x", by)
		}
		i += 1 + width
	}
	return b.String(), nil
}

// bashQuoteAll quotes each of ss and joins them with spaces.
func bashQuoteAll(ss []string) (string, error) {
	out := make([]string, 0, len(ss))
	for _, s := range ss {
		q, err := BashQuote(s)
		if err != nil {
			return "", err
		}
		out = append(out, q)
	}
	return strings.Join(out, " "), nil
}

// bashWord renders w as one bash word: its literal pieces quoted, its
// variables expanded inside double quotes, so that neither splits nor
// globs.
func bashWord(w BashWord) (string, error) {
	if len(w) == 0 {
		return "''", nil
	}
	var b strings.Builder
	for _, p := range w {
		if p.Var != "" {
			if !bashVarName.MatchString(p.Var) {
				return "", fmt.Errorf("invalid script variable %q", p.Var)
			}
			b.WriteString(`"${` + p.Var + `}"`)
			continue
		}
		if p.Text == "" {
			continue
		}
		q, err := BashQuote(p.Text)
		if err != nil {
			return "", err
		}
		b.WriteString(q)
	}
	if b.Len() == 0 {
		return "''", nil
	}
	return b.String(), nil
}

// bashWords renders ws as bash words separated by spaces.
func bashWords(ws []BashWord) (string, error) {
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		s, err := bashWord(w)
		if err != nil {
			return "", err
		}
		out = append(out, s)
	}
	return strings.Join(out, " "), nil
}

// bashScript renders a compiled script from bash/script.sh.tmpl, with the
// features its model s uses.
func bashScript(s *script) ([]byte, error) {
	t, err := bashTemplate()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, s); err != nil {
		return nil, fmt.Errorf("render the script: %w", err)
	}
	return dropComments(b.Bytes())
}

// dropComments removes from a rendered script the lines that hold only a
// comment after its first command: the templates' comments are for who
// reads the templates; the script keeps its header (what it is, its
// usage, its needs) and shellcheck's directives.
func dropComments(src []byte) ([]byte, error) {
	f, err := syntax.NewParser(syntax.KeepComments(true), syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(src), "")
	if err != nil {
		return nil, fmt.Errorf("parse the rendered script: %w", err)
	}
	var first uint
	if len(f.Stmts) > 0 {
		first = f.Stmts[0].Pos().Line()
	}
	drop := map[uint]bool{}
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.Comment); ok && c.Pos().Line() > first && !strings.HasPrefix(strings.TrimSpace(c.Text), "shellcheck ") {
			drop[c.Pos().Line()] = true
		}
		return true
	})
	var b bytes.Buffer
	line := uint(0)
	for l := range bytes.Lines(src) {
		line++
		if drop[line] && bytes.HasPrefix(bytes.TrimLeft(l, " \t"), []byte("#")) {
			continue
		}
		b.Write(l)
	}
	return b.Bytes(), nil
}
