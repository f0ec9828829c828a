package ir

import "testing"

// apply applies one edit to src by its offsets, checking that its
// positions agree with them.
func apply(t *testing.T, src string, e Edit) string {
	t.Helper()
	for _, p := range []Pos{e.Range.Start, e.Range.End} {
		line, col := int32(1), int32(1)
		for _, c := range src[:p.Offset] {
			if c == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
		if p.Line != line || p.Column != col {
			t.Errorf("%+v: offset %d is %d:%d", p, p.Offset, line, col)
		}
	}
	return src[:e.Range.Start.Offset] + e.NewText + src[e.Range.End.Offset:]
}

// rangeOf is the range of the first occurrence of word in src.
func rangeOf(t *testing.T, src, word string) Range {
	t.Helper()
	for i := 0; i+len(word) <= len(src); i++ {
		if src[i:i+len(word)] != word {
			continue
		}
		pos := func(off int) Pos {
			p := Pos{Line: 1, Column: 1, Offset: int32(off)}
			for _, c := range src[:off] {
				if c == '\n' {
					p.Line, p.Column = p.Line+1, 1
				} else {
					p.Column++
				}
			}
			return p
		}
		return Range{File: "f", Start: pos(i), End: pos(i + len(word))}
	}
	t.Fatalf("no %q in %q", word, src)
	return Range{}
}

func TestChange(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, src, at, old, want, out string
	}{
		{"bare TOML key", "[[steps]]\ncommnd = \"x\"\n", "commnd", "commnd", "command", "[[steps]]\ncommand = \"x\"\n"},
		{"quoted TOML key", "\"commnd\" = \"x\"\n", `"commnd"`, "commnd", "command", "\"command\" = \"x\"\n"},
		{"basic string", "kind = \"thrwaway\"\n", `"thrwaway"`, "thrwaway", "throwaway", "kind = \"throwaway\"\n"},
		{"literal string", "kind = 'thrwaway'\n", `'thrwaway'`, "thrwaway", "throwaway", "kind = 'throwaway'\n"},
		{"plain YAML scalar", "model: balancd\n", "balancd", "balancd", "balanced", "model: balanced\n"},
		{"after wide characters", "# é😀\nx = \"clade\" # ü\n", `"clade"`, "clade", "claude", "# é😀\nx = \"claude\" # ü\n"},
		{"a dotted name", "skill = \"rv\"\n", `"rv"`, "rv", "cairn-review.v2", "skill = \"cairn-review.v2\"\n"},
		{"an escaped string", "kind = \"thr\\u0077away\"\n", `"thr\u0077away"`, "thrwaway", "throwaway", ""},
		{"a multi-line string", "kind = \"\"\"thrwaway\"\"\"\n", `"""thrwaway"""`, "thrwaway", "throwaway", ""},
		{"mismatched quotes", "kind = \"thrwaway'\n", `"thrwaway'`, "thrwaway", "throwaway", ""},
		{"a want that needs quoting", "x = \"a\"\n", `"a"`, "a", `a"b`, ""},
		{"a template opener", "x = \"a\"\n", `"a"`, "a", "${a}", ""},
		{"a bare word YAML reads as a boolean", "x: tru\n", "tru", "tru", "true", ""},
		{"a bare word YAML reads as a number", "x: 1x\n", "1x", "1x", "12", ""},
		{"a bare word ending in a colon", "x: ab\n", "ab", "ab", "ab:", ""},
		{"no suggestion", "x = \"a\"\n", `"a"`, "a", "", ""},
		{"the same word", "x = \"a\"\n", `"a"`, "a", "a", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fixes := Change([]byte(tc.src), rangeOf(t, tc.src, tc.at), tc.old, tc.want)
			if tc.out == "" {
				if fixes != nil {
					t.Fatalf("a fix: %+v", fixes)
				}
				return
			}
			if len(fixes) != 1 || len(fixes[0].Edits) != 1 {
				t.Fatalf("fixes %+v; want one of one edit", fixes)
			}
			if got := apply(t, tc.src, fixes[0].Edits[0]); got != tc.out {
				t.Errorf("fixed: %q; want %q", got, tc.out)
			}
			if want := `change "` + tc.old + `" to "` + tc.want + `"`; fixes[0].Message != want {
				t.Errorf("message %q; want %q", fixes[0].Message, want)
			}
		})
	}
}

// TestChangeOutside holds that a range that does not fit the text gives
// no fix.
func TestChangeOutside(t *testing.T) {
	t.Parallel()
	src := []byte("a = 1\n")
	for _, r := range []Range{
		{},
		{Start: Pos{Line: 1, Column: 1, Offset: 4}, End: Pos{Line: 1, Column: 1, Offset: 2}},
		{Start: Pos{Line: 1, Column: 1, Offset: 4}, End: Pos{Line: 1, Column: 9, Offset: 40}},
	} {
		if fixes := Change(src, r, "1", "2"); fixes != nil {
			t.Errorf("%+v: fix %+v", r, fixes)
		}
	}
}

func TestDeleteLines(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, src, at, out string
	}{
		{"a line", "[[steps]]\n  effort = \"high\"\nname = \"x\"\n", `effort = "high"`, "[[steps]]\nname = \"x\"\n"},
		{"with a comment", "a = 1\neffort = \"high\" # too much\nb = 2\n", `effort = "high"`, "a = 1\nb = 2\n"},
		{"with an HCL comment", "a = 1\neffort = \"high\" // too much\n", `effort = "high"`, "a = 1\n"},
		{"the last line, without a newline", "a = 1\n\teffort = \"high\"  ", `effort = "high"`, "a = 1\n"},
		{"a block over lines", "a: 1\nversion:\n  x: 2\nb: 3\n", "version:\n  x: 2", "a: 1\nb: 3\n"},
		{"more after it", "x = { effort = \"high\", model = \"m\" }\n", `effort = "high"`, ""},
		{"more before it", "a = 1; effort = \"high\"\n", `effort = "high"`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, ok := DeleteLines([]byte(tc.src), rangeOf(t, tc.src, tc.at))
			if tc.out == "" {
				if ok {
					t.Fatalf("an edit: %+v", e)
				}
				return
			}
			if !ok {
				t.Fatal("no edit")
			}
			if got := apply(t, tc.src, e); got != tc.out {
				t.Errorf("fixed: %q; want %q", got, tc.out)
			}
		})
	}
}
