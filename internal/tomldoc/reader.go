package tomldoc

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/ir"
)

// TOMLReader reads the entries of a TOMLDoc into ir fields, collecting the
// refusals of values of the wrong type and of unknown keys on the way. The
// process front-end and the config reader share it, so that both refuse alike.
type TOMLReader struct {
	// Src is the text the entries were read from (the TOMLDoc's), which
	// fixes are written against.
	Src   []byte
	Diags []ir.Diagnostic
}

// Report records an error of rule at r.
func (r *TOMLReader) Report(rule string, at ir.Range, related []ir.Related, format string, args ...any) {
	r.Diags = append(r.Diags, ir.Diagnostic{
		Rule:     rule,
		Severity: ir.Error,
		Message:  fmt.Sprintf(format, args...),
		Range:    at,
		Related:  related,
	})
}

// ReportFixes records an error of rule at r that fixes resolve.
func (r *TOMLReader) ReportFixes(rule string, at ir.Range, fixes []ir.Fix, format string, args ...any) {
	r.Diags = append(r.Diags, ir.Diagnostic{
		Rule:     rule,
		Severity: ir.Error,
		Message:  fmt.Sprintf(format, args...),
		Range:    at,
		Fixes:    fixes,
	})
}

// UnknownKey refuses e's key, which is none of known, at the key: where says
// where it is ("in step \"test\""), and a known key close to it is
// suggested. t is the table e is in: the suggestion is offered as a fix
// unless t already has that key.
func (r *TOMLReader) UnknownKey(t *TOMLTable, e *TOMLEntry, where string, known []string) {
	r.UnknownKeySuggest(t, e, where, ir.Suggest(e.Key, known))
}

// UnknownKeySuggest refuses e's key like UnknownKey, suggesting suggestion
// unless it is empty.
func (r *TOMLReader) UnknownKeySuggest(t *TOMLTable, e *TOMLEntry, where, suggestion string) {
	if suggestion == "" {
		r.Report(ir.RuleUnknownKey, e.KeyRange, nil, "unknown key %q %s", e.Key, where)
		return
	}
	var fixes []ir.Fix
	if t.Get(suggestion) == nil {
		fixes = r.rename(e, suggestion)
	}
	r.ReportFixes(ir.RuleUnknownKey, e.KeyRange, fixes, "unknown key %q %s; did you mean %q?", e.Key, where, suggestion)
}

// rename is the fix that renames e's key to name: where the key is
// written, and, for an array of tables, in the [[header]] of each of its
// items, which all name it. It is nil when any of them cannot be changed
// in place, and when an item has tables of its own under [headers] that
// name the key too ([step.validate]).
func (r *TOMLReader) rename(e *TOMLEntry, name string) []ir.Fix {
	fixes := ir.Change(r.Src, e.KeyRange, e.Key, name)
	if fixes == nil || !e.Value.TablesArray {
		if !writtenOnce(e.Value) {
			return nil
		}
		return fixes
	}
	if slices.ContainsFunc(e.Value.Items, func(item *TOMLValue) bool { return item != nil && item.Table != nil && hasHeaders(item.Table) }) {
		return nil
	}
	written := string(r.Src[e.KeyRange.Start.Offset:e.KeyRange.End.Offset])
	edits := fixes[0].Edits
	for _, item := range e.Value.Items {
		if item == nil || item.Table == nil || item.Table.Header == e.Value.Range {
			continue
		}
		at, ok := headerKey(r.Src, item.Table.Header, written)
		if !ok {
			return nil
		}
		edit, ok := ir.ChangeEdit(r.Src, at, e.Key, name)
		if !ok {
			return nil
		}
		edits = append(edits, edit)
	}
	fixes[0].Edits = edits
	return fixes
}

// writtenOnce reports whether the key whose value v is is written once in
// the file: a value, an inline table, a table under its own [header] with
// no [header] of a table in it, or a table a dotted key or a header made
// on the way to one thing so written ([a.b], a.b = 1). Each dotted key and
// header that goes through a table writes its key again.
func writtenOnce(v *TOMLValue) bool {
	if v.Kind != KindTable || v.TablesArray {
		return !v.TablesArray
	}
	switch v.Table.Def {
	case TOMLHeader:
		return !hasHeaders(v.Table)
	case TOMLImplicit, TOMLDotted:
		return len(v.Table.Entries) == 1 && writtenOnce(v.Table.Entries[0].Value)
	}
	return true
}

// hasHeaders reports whether t has a table defined by a header of its own.
func hasHeaders(t *TOMLTable) bool {
	for _, e := range t.Entries {
		if v := e.Value; v.TablesArray || v.Kind == KindTable && (v.Table.Def == TOMLHeader || v.Table.Def == TOMLImplicit) {
			return true
		}
	}
	return false
}

// headerKey is the range of the key written last in the [[header]] h:
// after its brackets, or a dot, and blanks.
func headerKey(src []byte, h ir.Range, written string) (ir.Range, bool) {
	start, end := int(h.Start.Offset), int(h.End.Offset)
	if start < 0 || end > len(src) || start > end || h.Start.Line != h.End.Line {
		return ir.Range{}, false
	}
	text := string(src[start:end])
	j := strings.LastIndex(text, written)
	if j < 0 || strings.Trim(text[j+len(written):], "] \t") != "" {
		return ir.Range{}, false
	}
	if before := strings.TrimRight(text[:j], " \t"); !strings.HasSuffix(before, "[") && !strings.HasSuffix(before, ".") {
		return ir.Range{}, false
	}
	at := h
	at.Start.Offset += int32(j)
	at.Start.Column += int32(utf8.RuneCountInString(text[:j]))
	at.End = at.Start
	at.End.Offset += int32(len(written))
	at.End.Column += int32(utf8.RuneCountInString(written))
	return at, true
}

// Enum refuses f, a string set and read, unless its value is one of
// allowed: what names it ("worktree kind"), and a value close to it is
// suggested, and offered as a fix.
func (r *TOMLReader) Enum(f ir.Field[string], what string, allowed []string) {
	if !f.Set || f.Bad || slices.Contains(allowed, f.Value) {
		return
	}
	s := ir.Suggest(f.Value, allowed)
	r.ReportFixes(ir.RuleInvalidValue, f.Range, ir.Change(r.Src, f.Range, f.Value, s),
		"invalid %s %q; expected %s%s", what, f.Value, ir.OneOf(allowed), ir.Meant(s))
}

// TypeError refuses e's value, which is not the want ("a string") its key
// takes, at the value.
func (r *TOMLReader) TypeError(e *TOMLEntry, want string) {
	r.Report(ir.RuleType, e.Value.Range, nil, "%q must be %s, not %s", e.Key, want, Describe(e.Value))
}

// Describe says what v is the way type refusals do: "a string", "an array
// of tables".
func Describe(v *TOMLValue) string {
	if v.TablesArray {
		return "an array of tables"
	}
	return v.Kind.String()
}

// bad is the field of a key whose value was refused.
func bad[T any](e *TOMLEntry) ir.Field[T] {
	return ir.Field[T]{Set: true, Bad: true, Key: e.KeyRange, Range: e.Value.Range}
}

// String reads e as a string.
func (r *TOMLReader) String(e *TOMLEntry) ir.Field[string] {
	if e.Value.Kind != KindString {
		r.TypeError(e, "a string")
		return bad[string](e)
	}
	return ir.Field[string]{Value: e.Value.Str, Set: true, Key: e.KeyRange, Range: e.Value.Range, Spans: e.Value.Spans}
}

// Duration reads e as a string that holds a duration, refusing a number
// with the string it was likely meant to be in unit (30 and "s" give "30s").
func (r *TOMLReader) Duration(e *TOMLEntry, unit string) ir.Field[string] {
	switch e.Value.Kind {
	case KindInteger:
		number := strconv.FormatInt(e.Value.Int, 10)
		var fixes []ir.Fix
		if d := ir.DurationOf(number, unit); d != "" {
			fixes = []ir.Fix{{Message: fmt.Sprintf("write %s as %q", number, d), Edits: []ir.Edit{{Range: e.Value.Range, NewText: strconv.Quote(d)}}}}
		}
		r.ReportFixes(ir.RuleType, e.Value.Range, fixes, "%q must be a string, not %s%s", e.Key, Describe(e.Value), ir.DurationHint(number, unit))
		return bad[string](e)
	case KindFloat:
		r.Report(ir.RuleType, e.Value.Range, nil, "%q must be a string, not %s%s", e.Key, Describe(e.Value), ir.DurationHint("", unit))
		return bad[string](e)
	}
	return r.String(e)
}

// Int reads e as an integer.
func (r *TOMLReader) Int(e *TOMLEntry) ir.Field[int] {
	if e.Value.Kind != KindInteger {
		r.TypeError(e, "an integer")
		return bad[int](e)
	}
	if e.Value.Int < math.MinInt || e.Value.Int > math.MaxInt {
		r.Report(ir.RuleType, e.Value.Range, nil, "%q is too large", e.Key)
		return bad[int](e)
	}
	return ir.Field[int]{Value: int(e.Value.Int), Set: true, Key: e.KeyRange, Range: e.Value.Range}
}

// Float reads e as a number: a float, or an integer taken as one.
func (r *TOMLReader) Float(e *TOMLEntry) ir.Field[float64] {
	switch e.Value.Kind {
	case KindFloat:
		return ir.Field[float64]{Value: e.Value.Float, Set: true, Key: e.KeyRange, Range: e.Value.Range}
	case KindInteger:
		return ir.Field[float64]{Value: float64(e.Value.Int), Set: true, Key: e.KeyRange, Range: e.Value.Range}
	}
	r.TypeError(e, "a number")
	return bad[float64](e)
}

// Budget reads e as a budget: a number (a float, or an integer taken as
// one), or a string, kept Quoted for rule invalid-value to refuse.
func (r *TOMLReader) Budget(e *TOMLEntry) ir.Field[ir.Budget] {
	switch e.Value.Kind {
	case KindFloat:
		return ir.Field[ir.Budget]{Value: ir.Budget{USD: e.Value.Float}, Set: true, Key: e.KeyRange, Range: e.Value.Range}
	case KindInteger:
		return ir.Field[ir.Budget]{Value: ir.Budget{USD: float64(e.Value.Int)}, Set: true, Key: e.KeyRange, Range: e.Value.Range}
	case KindString:
		return ir.Field[ir.Budget]{Value: ir.Budget{Quoted: true, Text: e.Value.Str}, Set: true, Key: e.KeyRange, Range: e.Value.Range}
	}
	r.TypeError(e, "a number")
	return bad[ir.Budget](e)
}

// Bool reads e as a boolean.
func (r *TOMLReader) Bool(e *TOMLEntry) ir.Field[bool] {
	if e.Value.Kind != KindBool {
		r.TypeError(e, "a boolean")
		return bad[bool](e)
	}
	return ir.Field[bool]{Value: e.Value.Bool, Set: true, Key: e.KeyRange, Range: e.Value.Range}
}

// Strings reads e as an array of strings. Each item that is not a string is
// refused at the item and kept as a Bad item; the list is then Bad too.
func (r *TOMLReader) Strings(e *TOMLEntry) ir.Strings {
	if e.Value.Kind != KindArray || e.Value.TablesArray {
		r.TypeError(e, "an array of strings")
		return bad[[]ir.Field[string]](e)
	}
	out := ir.Strings{Value: make([]ir.Field[string], 0, len(e.Value.Items)), Set: true, Key: e.KeyRange, Range: e.Value.Range}
	for _, item := range e.Value.Items {
		if item.Kind != KindString {
			r.Report(ir.RuleType, item.Range, nil, "items of %q must be strings, not %s", e.Key, Describe(item))
			out.Bad = true
			out.Value = append(out.Value, ir.Field[string]{Set: true, Bad: true, Range: item.Range})
			continue
		}
		out.Value = append(out.Value, ir.Field[string]{Value: item.Str, Set: true, Range: item.Range, Spans: item.Spans})
	}
	return out
}

// Table reads e as a table; it returns nil, having refused the value, when e
// is something else.
func (r *TOMLReader) Table(e *TOMLEntry) *TOMLTable {
	if e.Value.Kind != KindTable {
		r.TypeError(e, "a table")
		return nil
	}
	return e.Value.Table
}

// StringTable reads e as a table of strings, NAME = "value", in file order.
// A value that is not a string is refused at the value and left out.
func (r *TOMLReader) StringTable(e *TOMLEntry) ir.Field[[]ir.Pair] {
	t := r.Table(e)
	if t == nil {
		return bad[[]ir.Pair](e)
	}
	out := ir.Field[[]ir.Pair]{Value: make([]ir.Pair, 0, len(t.Entries)), Set: true, Key: e.KeyRange, Range: e.Value.Range}
	for _, kv := range t.Entries {
		if kv.Value.Kind != KindString {
			r.Report(ir.RuleType, kv.Value.Range, nil, "%q in %q must be a string, not %s", kv.Key, e.Key, Describe(kv.Value))
			out.Bad = true
			continue
		}
		out.Value = append(out.Value, ir.Pair{Name: kv.Key, Field: r.String(kv)})
	}
	return out
}

// HeaderOf returns where rules about the table of e point: its [header]
// when it has one, else its key.
func HeaderOf(e *TOMLEntry) ir.Range {
	if v := e.Value; v.Kind == KindTable && v.Table.Def == TOMLHeader && v.Table.Header.IsValid() {
		return v.Table.Header
	}
	return e.KeyRange
}
