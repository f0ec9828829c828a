package tomldoc

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/cairn-dev/cairn/internal/source"
	"github.com/cairn-dev/cairn/internal/source/sourcetest"
	"github.com/cairn-dev/cairn/ir"
)

// fuzzSeeds are the corners of TOML: dotted keys and headers that define a
// table twice or in two ways, escapes, numbers and dates that do not fit.
var fuzzSeeds = []string{
	`a.b.c = 1
[a.d]
[x]
y = 2020-01-02T03:04:05Z
z = 12:30:00
w = 1979-05-27
f = [1.5e3, -inf, nan, 0x_ff]
`,
	`[a]
[a]`,
	`a.b = 1
[a]`,
	`a = []
[[a]]`,
	`t = { a = 1, a = 2 }`,
	`a = 1
a.b = 2`,
	`s = "é\\x41\e\U0001F600"`,
	`i = 99999999999999999999`,
	`d = 2021-02-30`,
	`"quoted key" = 'literal'
'lit.key'.x = """"two quotes"""""`,
	`[[s]]
k = [1, [2, "x"]]
t = {a.b = 1}
[s.sub]
[[s.sub.arr]]
x = 1
[[s]]
k = 2
[other]
o = 1
[s.v]
w = ["a\tb", 'c']
[[s]]
a.b.c = 1
[[s.arr]]
[[o]]
p = 1
[[s]]
[s]`,
}

func FuzzReadTOMLDoc(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		const file = "fuzz.toml"
		doc, diags := ReadTOMLDoc(file, src)
		// Positions are in the text the reader read: no byte order
		// mark, CRLF read as LF.
		src = source.Text(src)
		sourcetest.CheckDiagnostics(t, file, src, diags)
		checkTable(t, src, doc.Root)
		checkStringsDecode(t, src)
		for _, e := range doc.Root.Entries {
			if e.Value.TablesArray {
				checkItems(t, file, src, e.Key, doc, diags)
			}
		}

		// go-toml's decoder is the reference for what TOML accepts.
		var v any
		err := toml.Unmarshal(src, &v)
		refused := false
		for _, d := range diags {
			refused = refused || d.Rule == ir.RuleSyntax || d.Rule == ir.RuleDuplicate
		}
		if (err != nil) != refused {
			t.Errorf("go-toml says %v; ReadTOMLDoc says %v", err, diags)
		}
	})
}

// checkTable asserts that every key and value of t points inside src and
// that every string's spans map its bytes back to the file.
func checkTable(t *testing.T, src []byte, tbl *TOMLTable) {
	t.Helper()
	for _, e := range tbl.Entries {
		sourcetest.CheckRange(t, src, e.KeyRange, "key "+e.Key)
		checkValue(t, src, e.Value)
	}
}

func checkValue(t *testing.T, src []byte, v *TOMLValue) {
	t.Helper()
	sourcetest.CheckRange(t, src, v.Range, "value")
	switch v.Kind {
	case KindTable:
		checkTable(t, src, v.Table)
	case KindArray:
		for _, item := range v.Items {
			checkValue(t, src, item)
		}
	case KindString:
		sourcetest.CheckSpans(t, src, v.Str, v.Spans)
	}
}

// checkStringsDecode asserts that decodeString agrees with go-toml's parser
// on every string of src.
func checkStringsDecode(t *testing.T, src []byte) {
	t.Helper()
	var p unstable.Parser
	p.Reset(src)
	for p.NextExpression() {
		walkStrings(p.Expression(), func(n *unstable.Node) {
			raw := p.Raw(n.Raw)
			if got, _ := decodeString(raw); got != string(n.Data) {
				t.Errorf("decodeString(%q) = %q; go-toml says %q", raw, got, n.Data)
			}
		})
	}
}

func walkStrings(n *unstable.Node, f func(*unstable.Node)) {
	if n.Kind == unstable.String {
		f(n)
	}
	it := n.Children()
	for it.Next() {
		walkStrings(it.Node(), f)
	}
}

// checkItems asserts that reading src with its top-level array of tables
// array handed over item by item gives what ReadTOMLDoc gave (doc, diags):
// the same items, each as done sees it, though their nodes are reused.
func checkItems(t *testing.T, file string, src []byte, array string, doc *TOMLDoc, diags []ir.Diagnostic) {
	t.Helper()
	items := doc.Root.Get(array).Value.Items
	n := 0
	rest, got := ReadTOMLDocItems(file, src, array, func(i int, item *TOMLValue) {
		if i != n || i >= len(items) {
			t.Fatalf("item %d handed over after %d of %d", i, n, len(items))
		}
		n++
		if g, w := dumpValue(item), dumpValue(items[i]); g != w {
			t.Errorf("item %d of %q:\n%s\nwant\n%s", i, array, g, w)
		}
	})
	// What the document keeps besides the items.
	root := &TOMLValue{Kind: KindTable, Table: doc.Root}
	if g, w := dumpValue(&TOMLValue{Kind: KindTable, Table: rest.Root}), dumpValue(root); g != w {
		t.Errorf("document read by items of %q:\n%s\nwant\n%s", array, g, w)
	}
	if n != len(items) {
		t.Errorf("%d items of %q handed over; want %d", n, array, len(items))
	}
	if g, w := sourcetest.DiagLines(got), sourcetest.DiagLines(diags); !slices.Equal(g, w) {
		t.Errorf("diagnostics reading %q by items:\n%q\nwant\n%q", array, g, w)
	}
}

// dumpValue writes v out whole, ranges and spans included.
func dumpValue(v *TOMLValue) string {
	var b strings.Builder
	var dump func(v *TOMLValue, indent string)
	dump = func(v *TOMLValue, indent string) {
		fmt.Fprintf(&b, "%s%v %v %q %v %v %v %v %v", indent, v.Kind, v.Range, v.Str, v.Spans, v.Int, v.Float, v.Bool, v.TablesArray)
		if t := v.Table; t != nil {
			fmt.Fprintf(&b, " table %v %v", t.Def, t.Header)
			for _, e := range t.Entries {
				fmt.Fprintf(&b, "\n%s%q %v =\n", indent+" ", e.Key, e.KeyRange)
				dump(e.Value, indent+"  ")
			}
		}
		for _, item := range v.Items {
			b.WriteString("\n")
			if item == nil || v.TablesArray && indent == "  " {
				// An item of a top-level array of tables, which
				// goes to done.
				b.WriteString(indent + " item")
				continue
			}
			dump(item, indent+" ")
		}
	}
	dump(v, "")
	return b.String()
}
