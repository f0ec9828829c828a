package parse

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"

	"github.com/cairn-dev/cairn/internal/source"
	"github.com/cairn-dev/cairn/ir"
)

// The keys of a card's front matter, from CardKeys, in the order
// suggestions prefer.
var (
	cardTopKeys    = ir.KeyNames(CardKeys)
	cardGitHubKeys = ir.KeyNames(ir.SubKeys(CardKeys, "github"))
	cardStepKeys   = ir.KeyNames(ir.SubKeys(CardKeys, "steps"))
	cardPhaseKeys  = ir.KeyNames(ir.SubKeys(ir.SubKeys(CardKeys, "steps"), "run"))
	cardAgentKeys  = ir.KeyNames(ir.SubKeys(ir.SubKeys(ir.SubKeys(CardKeys, "steps"), "run"), "agents"))
)

// cardFence is the line that opens and closes a card's front matter.
const cardFence = "---"

// Card reads src, the card process file named file, into a process: the YAML
// front matter between its first two "---" lines (what follows is the card's
// body, which cairn does not read). Like TOML and HCL it returns every
// duplicate, wrong type and unknown key it finds, sorted; a YAML syntax error
// is returned alone. A card carries no version, commits as it goes (docs/design.md §7.6) and
// runs in the checkout, so its process has Commit set and no
// DefaultWorktree. Anchors, aliases, tags and merge keys are refused: a card
// is read as written.
func Card(file string, src []byte) (*ir.Process, []ir.Diagnostic) {
	src = source.Text(src)
	p := &ir.Process{
		Name:   NameOf(file),
		File:   file,
		Format: ir.Card,
		Source: src,
		Commit: ir.Field[bool]{Value: true, Set: true},
	}
	end, refusal := frontMatter(file, src)
	if refusal != nil {
		return p, []ir.Diagnostic{*refusal}
	}
	if d := cardDepth(src[:end], MaxNesting); d.over {
		return p, []ir.Diagnostic{tooDeep(file, src, d, "the front matter is nested more than %d levels deep; a card needs only a few")}
	}
	fe := &cardProcess{
		hclFile: hclFile{file: file, src: src, lines: source.LineStarts(src)},
		p:       p,
		names:   map[string]ir.Field[string]{},
	}
	f, err := parseYAML(src[:end])
	if err != nil {
		fe.parserError(err)
		return p, fe.diags
	}
	fe.document(f)
	ir.SortDiagnostics(fe.diags)
	return p, fe.diags
}

// parseYAML parses the front matter, turning a panic of the YAML parser on
// hostile input into an error: cairn never panics on a file.
func parseYAML(src []byte) (f *ast.File, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("the YAML parser failed on this front matter")
		}
	}()
	return parser.Parse(lexer.Tokenize(string(src)), 0)
}

// cardProcess fills a process from the YAML tree of a card's front matter.
type cardProcess struct {
	hclFile
	p     *ir.Process
	names map[string]ir.Field[string] // step ids seen, for duplicates
}

// frontMatter finds the front matter of src, the card named file: it
// returns the offset where its closing "---" line starts, or the refusal of
// a card without one. It looks at the lines that start with "---" only,
// and keeps nothing: a card's front matter is pre-scanned before anything
// is built of it.
func frontMatter(file string, src []byte) (int, *ir.Diagnostic) {
	end := bytes.IndexByte(src, '\n')
	first := src
	if end >= 0 {
		first = src[:end]
	}
	refuse := func(format string) (int, *ir.Diagnostic) {
		return 0, &ir.Diagnostic{Rule: ir.RuleSyntax, Severity: ir.Error,
			Message: fmt.Sprintf(format, cardFence), Range: byteRange(file, src, 0, min(1, len(first)))}
	}
	if !fenceLine(first) {
		return refuse("a card starts with YAML front matter: its first line must be %q")
	}
	for end >= 0 {
		k := bytes.Index(src[end:], []byte("\n---"))
		if k < 0 {
			break
		}
		start := end + k + 1
		end = bytes.IndexByte(src[start:], '\n')
		line := src[start:]
		if end >= 0 {
			line, end = line[:end], start+end
		}
		if fenceLine(line) {
			return start, nil
		}
	}
	return refuse("the card's front matter is never closed: end it with a %q line")
}

// fileStart is 1:1, where refusals about the file as a whole point: its
// first character, or nothing in an empty first line.
func (fe *cardProcess) fileStart() ir.Range {
	return fe.span(0, min(1, fe.lineEnd(0)))
}

// fenceLine reports whether line is a "---" line.
func fenceLine(line []byte) bool {
	return string(bytes.TrimRight(line, " \t\r")) == cardFence
}

// line returns the bytes of line n (1-based), without its newline.
func (fe *cardProcess) line(n int) []byte {
	if n < 1 || n > len(fe.lines) {
		return nil
	}
	start := fe.lines[n-1]
	end := len(fe.src)
	if n < len(fe.lines) {
		end = fe.lines[n] - 1
	}
	return fe.src[start:max(start, end)]
}

// offset returns the byte offset of a YAML position, whose column counts
// characters; a position outside the file is moved inside it.
func (fe *cardProcess) offset(p *token.Position) int {
	if p == nil || p.Line < 1 {
		return 0
	}
	if p.Line > len(fe.lines) {
		return len(fe.src)
	}
	start := fe.lines[p.Line-1]
	line := fe.line(p.Line)
	i := 0
	for col := 1; col < p.Column && i < len(line); col++ {
		_, size := utf8.DecodeRune(line[i:])
		i += size
	}
	return start + i
}

// lineEnd returns the offset where the line holding off ends.
func (fe *cardProcess) lineEnd(off int) int {
	off = clampOffset(off, fe.src)
	if i := bytes.IndexByte(fe.src[off:], '\n'); i >= 0 {
		return off + i
	}
	return len(fe.src)
}

// duplicateKey matches the parser's refusal of a key defined twice.
var duplicateKey = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^mapping key "(.*)" already defined at \[(\d+):(\d+)\]$`)
})

// parserError reports the YAML parser's refusal at its position: a key
// defined twice is a duplicate, anything else a syntax error.
func (fe *cardProcess) parserError(err error) {
	var se *yaml.SyntaxError
	if !errors.As(err, &se) || se.Token == nil {
		fe.report(ir.RuleSyntax, fe.fileStart(), nil, "%s", lowerFirst(err.Error()))
		return
	}
	start := fe.offset(se.Token.Position)
	at := fe.span(start, start+len(se.Token.Value))
	if m := duplicateKey().FindStringSubmatch(se.Message); m != nil {
		line, _ := strconv.Atoi(m[2])
		col, _ := strconv.Atoi(m[3])
		first := fe.offset(&token.Position{Line: line, Column: col})
		fe.report(ir.RuleDuplicate, at, []ir.Related{{Range: fe.span(first, first+len(m[1])), Message: "first defined here"}},
			"key %q is already defined", m[1])
		return
	}
	fe.report(ir.RuleSyntax, at, nil, "%s", lowerFirst(se.Message))
}

// document reads the front matter's one YAML document.
func (fe *cardProcess) document(f *ast.File) {
	if f == nil {
		return
	}
	var body ast.Node
	for _, doc := range f.Docs {
		if doc == nil || doc.Body == nil {
			continue
		}
		if body != nil {
			fe.report(ir.RuleSyntax, fe.nodeRange(doc.Body), nil, "a card's front matter is one YAML document")
			return
		}
		body = doc.Body
	}
	if body == nil {
		return
	}
	entries, ok := fe.mapping(body, "the front matter")
	if !ok {
		return
	}
	p := fe.p
	for _, e := range entries {
		switch e.name {
		case "description":
			p.Description = fe.string(e)
		case "run-expiry":
			p.RunExpiry = fe.duration(e, "d")
		case "failed-run-expiry":
			p.FailedRunExpiry = fe.duration(e, "d")
		case "access":
			p.Access = fe.string(e)
		case "budget-usd":
			p.Limits.BudgetUSD = fe.budget(e)
		case "daily-budget-usd":
			p.Limits.DailyBudgetUSD = fe.budget(e)
		case "github":
			fe.github(e)
		case "steps":
			fe.steps(e)
		case "version":
			// TOML and HCL files say their version; a card is read as the
			// one version cards have.
			fe.reportFixes(ir.RuleUnknownKey, e.key, fe.remove(e), "unknown key %q at the top level; a card carries no version", e.name)
		default:
			fe.unknownKey(e, entries, "at the top level", cardTopKeys)
		}
	}
}

// github reads the github: mapping, a card's [github].
func (fe *cardProcess) github(e cardEntry) {
	entries, ok := fe.mapping(e.value, `"github"`)
	if !ok {
		return
	}
	g := &fe.p.GitHub
	g.Header = e.key
	for _, ge := range entries {
		switch ge.name {
		case "runs-on":
			g.RunsOn = fe.string(ge)
		case "schedule":
			g.Schedule = fe.strings(ge)
		case "timeout-minutes":
			g.TimeoutMinutes = fe.int(ge)
		case "label":
			g.Label = fe.string(ge)
		case "push-token":
			g.PushToken = fe.string(ge)
		default:
			fe.unknownKey(ge, entries, `in "github"`, cardGitHubKeys)
		}
	}
}

// cardEntry is one key: value of a YAML mapping.
type cardEntry struct {
	name  string
	key   ir.Range
	value ast.Node
}

// mapping returns the entries of n, a mapping, refusing duplicate keys and
// keys that are not plain names; where names n in a refusal ("step
// \"intake\""). It returns false, having refused n, when n is no mapping.
func (fe *cardProcess) mapping(n ast.Node, where string) ([]cardEntry, bool) {
	if !fe.plain(n) {
		return nil, false
	}
	var pairs []*ast.MappingValueNode
	switch m := n.(type) {
	case *ast.MappingNode:
		pairs = m.Values
	case *ast.MappingValueNode:
		pairs = []*ast.MappingValueNode{m}
	default:
		fe.report(ir.RuleType, fe.nodeRange(n), nil, "%s must be a map of keys, not %s", where, describeNode(n))
		return nil, false
	}
	seen := map[string]ir.Range{}
	out := make([]cardEntry, 0, len(pairs))
	for _, mv := range pairs {
		if mv == nil || mv.Key == nil {
			continue
		}
		name, ok := fe.keyName(mv.Key)
		if !ok {
			continue
		}
		key := fe.nodeRange(mv.Key)
		if first, dup := seen[name]; dup {
			fe.report(ir.RuleDuplicate, key, []ir.Related{{Range: first, Message: "first defined here"}},
				"key %q is already defined in %s", name, where)
			continue
		}
		seen[name] = key
		out = append(out, cardEntry{name: name, key: key, value: mv.Value})
	}
	return out, true
}

// keyName returns the name of a mapping key, refusing merge keys and keys
// that are not scalars.
func (fe *cardProcess) keyName(k ast.MapKeyNode) (string, bool) {
	switch k := k.(type) {
	case *ast.StringNode:
		return k.Value, true
	case *ast.MergeKeyNode:
		fe.report(ir.RuleSyntax, fe.nodeRange(k), nil, "cards do not take YAML merge keys (<<); write the keys out")
		return "", false
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.NullNode, *ast.InfinityNode, *ast.NanNode:
		if tk := k.GetToken(); tk != nil {
			return tk.Value, true
		}
	}
	if fe.plain(k) {
		fe.report(ir.RuleType, fe.nodeRange(k), nil, "a key must be a name, not %s", describeNode(k))
	}
	return "", false
}

// plain reports whether n is written out, refusing an anchor, an alias or a
// tag: a card is read as written.
func (fe *cardProcess) plain(n ast.Node) bool {
	switch n.(type) {
	case *ast.AnchorNode, *ast.AliasNode:
		fe.report(ir.RuleSyntax, fe.nodeRange(n), nil, "cards do not take YAML anchors or aliases; write the value out")
		return false
	case *ast.TagNode:
		fe.report(ir.RuleSyntax, fe.nodeRange(n), nil, "cards do not take YAML tags; write the value plainly")
		return false
	}
	return true
}

// unknownKey refuses e's key, which is none of known, suggesting the
// closest, and offering it as a fix unless entries, the mapping e is in,
// already have that key.
func (fe *cardProcess) unknownKey(e cardEntry, entries []cardEntry, where string, known []string) {
	if s := ir.Suggest(e.name, known); s != "" {
		fe.reportFixes(ir.RuleUnknownKey, e.key, fe.rename(e, entries, s), "unknown key %q %s; did you mean %q?", e.name, where, s)
		return
	}
	fe.report(ir.RuleUnknownKey, e.key, nil, "unknown key %q %s", e.name, where)
}

// remove is the fix that deletes e, key and value, with its line; nil
// when that line holds more.
func (fe *cardProcess) remove(e cardEntry) []ir.Fix {
	r := e.key
	if e.value != nil {
		r.End = fe.valueRange(e).End
	}
	d, ok := ir.DeleteLines(fe.src, r)
	if !ok {
		return nil
	}
	return []ir.Fix{{Message: fmt.Sprintf("remove %q", e.name), Edits: []ir.Edit{d}}}
}

// rename is the fix that renames e's key to name, unless entries, the
// mapping e is in, already have a key of that name.
func (fe *cardProcess) rename(e cardEntry, entries []cardEntry, name string) []ir.Fix {
	if slices.ContainsFunc(entries, func(o cardEntry) bool { return o.name == name }) {
		return nil
	}
	return ir.Change(fe.src, e.key, e.name, name)
}

// describeNode says what n is the way type refusals do.
func describeNode(n ast.Node) string {
	switch n.(type) {
	case *ast.StringNode, *ast.LiteralNode:
		return "a string"
	case *ast.IntegerNode:
		return "an integer"
	case *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		return "a number"
	case *ast.BoolNode:
		return "a boolean"
	case *ast.NullNode, nil:
		return "an empty value"
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a map"
	case *ast.SequenceNode:
		return "a list"
	}
	return "a value"
}

// duration reads e as a string that holds a duration, refusing a number
// with the string it was likely meant to be in unit (30 and "d" give "30d"),
// rather than the number quoted.
func (fe *cardProcess) duration(e cardEntry, unit string) ir.Field[string] {
	switch e.value.(type) {
	case *ast.IntegerNode, *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		number := ""
		if _, ok := e.value.(*ast.IntegerNode); ok {
			if tk := e.value.GetToken(); tk != nil {
				number = tk.Value
			}
		}
		at := fe.valueRange(e)
		var fixes []ir.Fix
		if d := ir.DurationOf(number, unit); d != "" {
			// A card writes a duration plain, as YAML reads 30d: a string.
			fixes = replaceWith(at, d, fmt.Sprintf("write %s as %s", number, d))
		}
		fe.reportFixes(ir.RuleType, at, fixes, "%q must be a string, not %s%s", e.name, describeNode(e.value), ir.DurationHint(number, unit))
		return cardBad[string](fe, e)
	}
	return fe.string(e)
}

// typeError refuses e's value, which is not the want its key takes.
func (fe *cardProcess) typeError(e cardEntry, want string) {
	at := fe.valueRange(e)
	if want == "a string" {
		hint, fixes := fe.quoteHint(e.value, at)
		fe.reportFixes(ir.RuleType, at, fixes, "%q must be %s, not %s%s", e.name, want, describeNode(e.value), hint)
		return
	}
	fe.report(ir.RuleType, at, nil, "%q must be %s, not %s", e.name, want, describeNode(e.value))
}

// quoteHint tells how to write n, a number or a boolean YAML read from a
// word such as true, as the string it was meant to be, and gives the fix
// that quotes the word at r, where n is.
func (fe *cardProcess) quoteHint(n ast.Node, r ir.Range) (string, []ir.Fix) {
	switch n.(type) {
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
		tk := n.GetToken()
		if tk == nil || tk.Value == "" {
			return "", nil
		}
		quoted := "'" + tk.Value + "'"
		hint := "; quote it: " + quoted
		if start, end := int(r.Start.Offset), int(r.End.Offset); strings.ContainsRune(tk.Value, '\'') || end > len(fe.src) || start > end || string(fe.src[start:end]) != tk.Value {
			return hint, nil
		}
		return hint, replaceWith(r, quoted, fmt.Sprintf("write %s as %s", tk.Value, quoted))
	}
	return "", nil
}

// valueRange is the range of e's value, or its key when it has none.
func (fe *cardProcess) valueRange(e cardEntry) ir.Range {
	if e.value == nil {
		return e.key
	}
	if _, ok := e.value.(*ast.NullNode); ok && e.value.GetToken() != nil && e.value.GetToken().Value == "" {
		return e.key
	}
	return fe.nodeRange(e.value)
}

// cardBad is the field of a key whose value was refused.
func cardBad[T any](fe *cardProcess, e cardEntry) ir.Field[T] {
	return ir.Field[T]{Set: true, Bad: true, Key: e.key, Range: fe.valueRange(e)}
}

// string reads e as a string.
func (fe *cardProcess) string(e cardEntry) ir.Field[string] {
	if !fe.plain(e.value) {
		return cardBad[string](fe, e)
	}
	v, rng, spans, ok := fe.scalarString(e.value)
	if !ok {
		fe.typeError(e, "a string")
		return cardBad[string](fe, e)
	}
	return ir.Field[string]{Value: v, Set: true, Key: e.key, Range: rng, Spans: spans}
}

// int reads e as an integer.
func (fe *cardProcess) int(e cardEntry) ir.Field[int] {
	if !fe.plain(e.value) {
		return cardBad[int](fe, e)
	}
	n, ok := e.value.(*ast.IntegerNode)
	if !ok {
		fe.typeError(e, "an integer")
		return cardBad[int](fe, e)
	}
	var v int
	switch x := n.Value.(type) {
	case int64:
		if x < math.MinInt || x > math.MaxInt {
			ok = false
		}
		v = int(x)
	case uint64:
		if x > math.MaxInt {
			ok = false
		}
		v = int(x)
	default:
		ok = false
	}
	if !ok {
		fe.report(ir.RuleType, fe.nodeRange(n), nil, "%q is too large", e.name)
		return cardBad[int](fe, e)
	}
	return ir.Field[int]{Value: v, Set: true, Key: e.key, Range: fe.nodeRange(n)}
}

// budget reads e as a budget: a number, or a string ("abc", "$4", a
// quoted "4"), kept Quoted for rule invalid-value to refuse.
func (fe *cardProcess) budget(e cardEntry) ir.Field[ir.Budget] {
	if !fe.plain(e.value) {
		return cardBad[ir.Budget](fe, e)
	}
	f := ir.Field[ir.Budget]{Set: true, Key: e.key, Range: fe.valueRange(e)}
	switch n := e.value.(type) {
	case *ast.IntegerNode:
		switch x := n.Value.(type) {
		case int64:
			f.Value.USD = float64(x)
		case uint64:
			f.Value.USD = float64(x)
		}
		return f
	case *ast.FloatNode:
		f.Value.USD = n.Value
		return f
	case *ast.InfinityNode:
		f.Value.USD = n.Value
		return f
	case *ast.NanNode:
		f.Value.USD = math.NaN()
		return f
	}
	if v, rng, _, ok := fe.scalarString(e.value); ok {
		f.Value, f.Range = ir.Budget{Quoted: true, Text: v}, rng
		return f
	}
	fe.typeError(e, "a number")
	return cardBad[ir.Budget](fe, e)
}

// strings reads e as a list of strings. Each item that is not a string is
// refused at the item and kept as a Bad item; the list is then Bad too.
func (fe *cardProcess) strings(e cardEntry) ir.Strings {
	seq, ok := e.value.(*ast.SequenceNode)
	if !fe.plain(e.value) {
		return cardBad[[]ir.Field[string]](fe, e)
	}
	if !ok {
		fe.typeError(e, "a list of strings")
		return cardBad[[]ir.Field[string]](fe, e)
	}
	out := ir.Strings{Value: []ir.Field[string]{}, Set: true, Key: e.key, Range: fe.nodeRange(seq)}
	for _, item := range seq.Values {
		if !fe.plain(item) {
			out.Bad = true
			out.Value = append(out.Value, ir.Field[string]{Set: true, Bad: true, Range: fe.nodeRange(item)})
			continue
		}
		v, rng, spans, ok := fe.scalarString(item)
		if !ok {
			at := fe.nodeRange(item)
			hint, fixes := fe.quoteHint(item, at)
			fe.reportFixes(ir.RuleType, at, fixes, "items of %q must be strings, not %s%s", e.name, describeNode(item), hint)
			out.Bad = true
			out.Value = append(out.Value, ir.Field[string]{Set: true, Bad: true, Range: fe.nodeRange(item)})
			continue
		}
		out.Value = append(out.Value, ir.Field[string]{Value: v, Set: true, Range: rng, Spans: spans})
	}
	return out
}

// steps reads the steps: list.
func (fe *cardProcess) steps(e cardEntry) {
	seq, ok := e.value.(*ast.SequenceNode)
	if !fe.plain(e.value) {
		return
	}
	if !ok {
		fe.typeError(e, "a list of steps")
		return
	}
	fe.p.Steps = make([]ir.Step, 0, len(seq.Values))
	for i, item := range seq.Values {
		header := fe.nodeRange(item)
		if i < len(seq.Entries) && seq.Entries[i] != nil && seq.Entries[i].Start != nil {
			dash := fe.offset(seq.Entries[i].Start.Position)
			header = fe.span(dash, max(dash+1, int(header.End.Offset)))
			header.End = fe.pos(min(int(header.End.Offset), fe.lineEnd(dash)))
		}
		fe.step(i+1, item, header)
	}
}

func (fe *cardProcess) step(n int, item ast.Node, header ir.Range) {
	label := fmt.Sprintf("step %d", n)
	entries, ok := fe.mapping(item, label)
	if !ok {
		return
	}
	s := ir.Step{Header: header}
	for _, e := range entries {
		if e.name != "id" {
			continue
		}
		s.Name = fe.string(e)
		if !s.Name.Bad {
			label = fmt.Sprintf("step %q", s.Name.Value)
			fe.uniqueName(s.Name)
		}
	}
	for _, e := range entries {
		switch e.name {
		case "id":
		case "description":
			s.Description = fe.string(e)
		case "needs":
			s.Fill().Needs = fe.strings(e)
		case "output-schema":
			s.Fill().OutputSchema = fe.outputSchema(e)
		case "when":
			s.Fill().When = fe.string(e)
		case "for-each":
			s.Fill().ForEach = fe.string(e)
		case "precheck":
			s.Precheck = fe.phase(ir.PrecheckPhase, e, label, nil)
		case "run":
			s.Run = fe.phase(ir.RunPhase, e, label, &s.Actions)
		case "validate":
			s.Validate = fe.phase(ir.ValidatePhase, e, label, nil)
		case "name":
			// TOML and HCL steps have a name; a card's step has an id.
			fe.reportFixes(ir.RuleUnknownKey, e.key, fe.rename(e, entries, "id"), "unknown key %q in %s; a card names a step with \"id\"", e.name, label)
			s.UnknownKeys = true
		default:
			fe.unknownKey(e, entries, "in "+label, cardStepKeys)
			s.UnknownKeys = true
		}
	}
	fe.p.Steps = append(fe.p.Steps, s)
}

// uniqueName refuses a step id a previous step already has.
func (fe *cardProcess) uniqueName(name ir.Field[string]) {
	if name.Value == "" {
		return
	}
	if first, ok := fe.names[name.Value]; ok {
		fe.report(ir.RuleDuplicate, name.Range, []ir.Related{{Range: first.Range, Message: "first defined here"}},
			"step %q is already defined", name.Value)
		return
	}
	fe.names[name.Value] = name
}

// phase reads a precheck, run or validate phase. The run phase's shells and
// agents become the step's actions, shells first; the other phases take no
// agents.
func (fe *cardProcess) phase(kind ir.PhaseKind, e cardEntry, step string, actions *[]ir.Action) *ir.Phase {
	where := fmt.Sprintf("the %s of %s", kind, step)
	entries, ok := fe.mapping(e.value, where)
	if !ok {
		return nil
	}
	ph := &ir.Phase{Kind: kind, Header: e.key}
	var agents []ir.Action
	for _, kv := range entries {
		switch kv.name {
		case "shells":
			ph.Shells = fe.strings(kv)
		case "agents":
			if actions == nil {
				fe.report(ir.RuleUnknownKey, kv.key, nil, "unknown key \"agents\" in %s; agents run only in a step's run phase", where)
				continue
			}
			agents = fe.agents(kv, step)
		case "instructions":
			ph.Fill().Instructions = fe.strings(kv)
		case "whys":
			ph.Whys = fe.strings(kv)
		case "severity":
			ph.Severity = fe.string(kv)
		case "model":
			ph.Fill().Model = fe.string(kv)
		default:
			fe.unknownKey(kv, entries, "in "+where, cardPhaseKeys)
		}
	}
	if actions != nil {
		for _, sh := range ph.Shells.Value {
			*actions = append(*actions, ir.Action{Kind: ir.Command, Range: sh.Range, Script: sh})
		}
		*actions = append(*actions, agents...)
		// The run phase's shells are the step's command actions, not a
		// check of their own.
		ph.Shells = ir.Strings{}
	}
	return ph
}

// agents reads a run phase's agents: list into session actions.
func (fe *cardProcess) agents(e cardEntry, step string) []ir.Action {
	seq, ok := e.value.(*ast.SequenceNode)
	if !fe.plain(e.value) {
		return nil
	}
	if !ok {
		fe.typeError(e, "a list of agents")
		return nil
	}
	out := make([]ir.Action, 0, len(seq.Values))
	for i, item := range seq.Values {
		where := fmt.Sprintf("agent %d of %s", i+1, step)
		entries, ok := fe.mapping(item, where)
		if !ok {
			continue
		}
		a := ir.Action{Kind: ir.Session, Range: fe.nodeRange(item)}
		if i < len(seq.Entries) && seq.Entries[i] != nil && seq.Entries[i].Start != nil {
			dash := fe.offset(seq.Entries[i].Start.Position)
			a.Range = fe.span(dash, max(dash+1, int(a.Range.End.Offset)))
		}
		for _, kv := range entries {
			switch kv.name {
			case "prompt":
				a.Fill().Prompt = fe.string(kv)
			case "model":
				a.Fill().Model = fe.string(kv)
			case "access":
				a.Fill().Access = fe.string(kv)
			case "max-turns":
				a.Fill().MaxTurns = fe.int(kv)
			case "budget-usd":
				a.Fill().BudgetUSD = fe.budget(kv)
			default:
				fe.unknownKey(kv, entries, "in "+where, cardAgentKeys)
			}
		}
		if !a.Keys().Prompt.Set {
			fe.report(ir.RuleType, a.Range, nil, "%s has no \"prompt\"; an agent needs one", where)
			a.Fill().Prompt = ir.Field[string]{Set: true, Bad: true, Range: a.Range}
		}
		out = append(out, a)
	}
	return out
}
