package tomldoc

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"

	"github.com/cairn-dev/cairn/internal/source/sourcetest"
)

// TestReadTOMLDoc covers what go-toml's unstable parser accepts and TOML
// does not: each case's verdict must agree with go-toml's own decoder.
func TestReadTOMLDoc(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []string
	}{
		{"[a]\n[a]", []string{`2:2 duplicate: table "a" is already defined (related 1:2: first defined here)`}},
		{"a.b=1\n[a]", []string{`2:2 syntax: table "a" is defined by dotted keys; it cannot be defined again by a header (related 1:1: first defined here)`}},
		{"a=[]\n[[a]]", []string{`2:3 syntax: array "a" is defined by a value; [[a]] cannot add to it (related 1:1: first defined here)`}},
		{"[[a]]\n[a]", []string{`2:2 syntax: "a" is an array of tables; its items' header is [[a]] (related 1:3: first defined here)`}},
		{"[a]\n[[a]]", []string{`2:3 syntax: "a" is already defined as a table, not an array of tables (related 1:2: first defined here)`}},
		{"a = {b=1}\n[a.c]", []string{`2:2 syntax: "a" is an inline table, complete as written; a header cannot add a table to it (related 1:1: first defined here)`}},
		{"a = {b=1}\na.c = 2", []string{`2:1 syntax: "a" is an inline table, complete as written; a dotted key cannot add to it (related 1:1: first defined here)`}},
		{"[a.b.c]\n[a]\nb.d = 1", []string{`3:1 syntax: table "b" is defined by a header; a dotted key cannot add to it (related 1:4: first defined here)`}},
		{"[a]\nb.c=1\n[a.b.d]", []string{}},
		{"[a]\nb.c=1\n[a.b]", []string{`3:4 syntax: table "a.b" is defined by dotted keys; it cannot be defined again by a header (related 2:1: first defined here)`}},
		{"a = 1\na.b = 2", []string{`2:1 syntax: "a" is already defined as an integer, not a table (related 1:1: first defined here)`}},
		{"a.b = 1\na = 2", []string{`2:1 syntax: "a" is already defined as a table, not a value (related 1:1: first defined here)`}},
		{"[a.b]\n[a]\nb = 1", []string{`3:1 syntax: "b" is already defined as a table, not a value (related 1:4: first defined here)`}},
		{"[[a]]\nb=1\n[[a]]\nb=2", []string{}},
		{"[[a]]\n[a.b]\n[[a]]\n[a.b]", []string{}},
		{"a = [{b=1}]\n[a.c]", []string{`2:2 syntax: "a" is already defined as an array, not a table (related 1:1: first defined here)`}},
		{"x = {a.b = 1, a.c = 2}", []string{}},
		{"x = {a.b = 1, a = 2}", []string{`1:15 syntax: "a" is already defined as a table, not a value (related 1:6: first defined here)`}},
		{"x = {a = {b=1}, a.c = 2}", []string{`1:17 syntax: "a" is an inline table, complete as written; a dotted key cannot add to it (related 1:6: first defined here)`}},
		{"[a]\nx=1\n[b]\n[a.y]", []string{}},
		{"[a.b]\nc=1\n[a]\nd=2", []string{}},
		{"a.b.c = 1\na.b.d = 2", []string{}},
		{"a.b.c = 1\n[a.b.x]", []string{}},
		{"[a.b]\n[a.b]", []string{`2:4 duplicate: table "a.b" is already defined (related 1:4: first defined here)`}},
		{"[[a.b]]\n[a]\nb=1", []string{`3:1 syntax: "b" is already defined as a table, not a value (related 1:5: first defined here)`}},
		{"[[a.b]]\n[a.b]", []string{`2:4 syntax: "a.b" is an array of tables; its items' header is [[a.b]] (related 1:5: first defined here)`}},
		{"a = [1]\n[a]", []string{`2:2 syntax: "a" is already defined as an array, not a table (related 1:1: first defined here)`}},
		{"[a]\nb = 1\n[a.b]", []string{`3:4 syntax: "a.b" is already defined as an integer, not a table (related 2:1: first defined here)`}},
		{"[a]\nb = {}\n[a.b]", []string{`3:4 syntax: "a.b" is an inline table, complete as written; it cannot be defined again by a header (related 2:1: first defined here)`}},
		{"a = {}\na = {}", []string{`2:1 duplicate: key "a" is already defined in this table (related 1:1: first defined here)`}},
		{"x = [[1], {a=1, a=2}]", []string{`1:17 duplicate: key "a" is already defined in this table (related 1:12: first defined here)`}},
		{"[a.b]\n[[a]]", []string{`2:3 syntax: "a" is already defined as a table, not an array of tables (related 1:2: first defined here)`}},
		{"[a]\n[a.b]\n[a]", []string{`3:2 duplicate: table "a" is already defined (related 1:2: first defined here)`}},
		{"a.b = 1\n[a.b]", []string{`2:4 syntax: "a.b" is already defined as an integer, not a table (related 1:3: first defined here)`}},
		{"a.b.c = 1\n[a.b]", []string{`2:4 syntax: table "a.b" is defined by dotted keys; it cannot be defined again by a header (related 1:3: first defined here)`}},
		{"t = 1979-05-27T07:32:00.5-07:00", []string{}},
		{"t = 1979-05-27 07:32", []string{}},
		{"t = 1979-05-27T24:00:00", []string{`1:5 syntax: invalid time 1979-05-27T24:00:00: no such time`}},
		{"t = 07:32:60", []string{`1:5 syntax: invalid time 07:32:60: no such time`}},
		{"f = 1e-400", []string{}},
		{"f = 1e400", []string{`1:5 syntax: float 1e400 is out of range`}},
		{"i = -9223372036854775808", []string{}},
		{"i = 9223372036854775808", []string{`1:5 syntax: integer 9223372036854775808 does not fit in 64 bits`}},
		{"i = 0x7fffffffffffffff", []string{}},
		{"i = 0xffffffffffffffff", []string{`1:5 syntax: integer 0xffffffffffffffff does not fit in 64 bits`}},
		{"t = 2024-02-29", []string{}},
		{"t = 2023-02-29", []string{`1:5 syntax: invalid date 2023-02-29: no such day`}},
		{"t = 1979-05-27T07:32:00+24:00", []string{`1:5 syntax: invalid date-time 1979-05-27T07:32:00+24:00: invalid time zone "+24:00"`}},
		{"t=07:32.5", []string{`1:3 syntax: invalid time 07:32.5: unexpected ".5"`}},
		{"x = [1, [2, [3]], {a = [4]}]\ny = 1", []string{}},
		{"a = { b = 1 } \nb = [ { c = 1 }, { c = 2 } ]", []string{}},
		{"k = \"\\u00e9\" \"x\"", []string{`1:14 syntax: expected newline but got U+0022 '"'`}},
	} {
		src := []byte(tc.src)
		doc, diags := ReadTOMLDoc("x.toml", src)
		sourcetest.CheckDiagnostics(t, "x.toml", src, diags)
		checkTable(t, src, doc.Root)
		if got := sourcetest.DiagLines(diags); !slices.Equal(got, tc.want) {
			t.Errorf("%q:\ngot\n\t%s\nwant\n\t%s", tc.src, strings.Join(got, "\n\t"), strings.Join(tc.want, "\n\t"))
		}
		var v any
		if err := toml.Unmarshal(src, &v); (err == nil) != (len(tc.want) == 0) {
			t.Errorf("%q: go-toml says %v", tc.src, err)
		}
	}
}

func TestReadTOMLDocTree(t *testing.T) {
	src := "a.b = 1\n[t]\nx = [1, \"s\", 2.5, true, 1979-05-27]\n[[arr]]\nk = 1\n[[arr]]\nk = 2\n[arr.sub]\n"
	doc, diags := ReadTOMLDoc("x.toml", []byte(src))
	if len(diags) > 0 {
		t.Fatal(sourcetest.DiagLines(diags))
	}
	root := doc.Root
	if keys := []string{root.Entries[0].Key, root.Entries[1].Key, root.Entries[2].Key}; !slices.Equal(keys, []string{"a", "t", "arr"}) {
		t.Errorf("keys %v", keys)
	}
	if a := root.Get("a").Value; a.Kind != KindTable || a.Table.Def != TOMLDotted || a.Table.Get("b").Value.Int != 1 {
		t.Errorf("a: %+v", a)
	}
	x := root.Get("t").Value.Table.Get("x").Value
	var kinds []string
	for _, item := range x.Items {
		kinds = append(kinds, item.Kind.String())
	}
	if want := []string{"an integer", "a string", "a float", "a boolean", "a date-time"}; !slices.Equal(kinds, want) {
		t.Errorf("kinds %v; want %v", kinds, want)
	}
	if sourcetest.Span(x.Range) != "3:5-3:36" {
		t.Errorf("array range %s", sourcetest.Span(x.Range))
	}
	arr := root.Get("arr").Value
	if !arr.TablesArray || len(arr.Items) != 2 || sourcetest.Span(arr.Items[1].Table.Header) != "6:1-6:8" {
		t.Errorf("arr: %+v", arr)
	}
	if sub := arr.Items[1].Table.Get("sub"); sub == nil || sourcetest.Span(sub.Value.Table.Header) != "8:1-8:10" {
		t.Errorf("arr.sub: %+v", sub)
	}
	if root.Get("missing") != nil || (*TOMLTable)(nil).Get("x") != nil {
		t.Error("Get of a missing key")
	}
}

// TestReadTOMLDocItems: each item of the array is handed over once complete,
// with what later headers (after another table's) added to it, and the
// document keeps nil in its place; other arrays of tables stay.
func TestReadTOMLDocItems(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []string
	}{
		{"[[s]]\nk = 1\n[[s]]\nk = 2\n[other]\n[s.sub]\nx = 3\n[[o]]\n", []string{"0: k", "1: k sub"}},
		{"[[s]]\nk = 1\n[[s]]\nk = 2\n[[s]]\nk = ", []string{"0: k", "1: k", "2: "}},
		{"[a]\n[[a.s]]\n[[s]]\n", []string{"0: "}},
		{"s = [{k = 1}]\n", nil},
		{"[[s]]\nk = [1, 2]\n[s.t]\na.b = 1\n[[s]]\nk = [3]\nx = {y = 1}\n[o]\n[s.t]\n[[s]]\n[[s.u]]\n", []string{"0: k t", "1: k x t", "2: u"}},
	} {
		var got []string
		doc, _ := ReadTOMLDocItems("x.toml", []byte(tc.src), "s", func(i int, item *TOMLValue) {
			var keys []string
			for _, e := range item.Table.Entries {
				keys = append(keys, e.Key)
			}
			got = append(got, fmt.Sprintf("%d: %s", i, strings.Join(keys, " ")))
		})
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: items %q; want %q", tc.src, got, tc.want)
		}
		if whole, diags := ReadTOMLDoc("x.toml", []byte(tc.src)); whole.Root.Get("s").Value.TablesArray {
			checkItems(t, "x.toml", []byte(tc.src), "s", whole, diags)
		}
		if s := doc.Root.Get("s"); s != nil && s.Value.TablesArray {
			for i, item := range s.Value.Items {
				if item != nil {
					t.Errorf("%q: the document holds item %d still", tc.src, i)
				}
			}
		}
		if a := doc.Root.Get("a"); a != nil && a.Value.Table.Get("s").Value.Items[0] == nil {
			t.Errorf("%q: a.s's item went", tc.src)
		}
	}
}
