package textedit

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/source"
	"github.com/cairn-dev/cairn/ir"
)

// at is the position of the first occurrence of word in text, the file as
// the front-ends read it, and of its end.
func at(t *testing.T, text, word string) ir.Range {
	t.Helper()
	i := strings.Index(text, word)
	if i < 0 {
		t.Fatalf("no %q in %q", word, text)
	}
	pos := func(off int) ir.Pos {
		p := ir.Pos{Line: 1, Column: 1, Offset: int32(off)}
		for _, c := range text[:off] {
			if c == '\n' {
				p.Line, p.Column = p.Line+1, 1
			} else {
				p.Column++
			}
		}
		return p
	}
	return ir.Range{File: "f", Start: pos(i), End: pos(i + len(word))}
}

func TestApply(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, raw string
		edits     func(text string) []ir.Edit
		want      string
	}{
		{
			name: "one change",
			raw:  "[[steps]]\ncommnd = \"x\"\n",
			edits: func(text string) []ir.Edit {
				return []ir.Edit{{Range: at(t, text, "commnd"), NewText: "command"}}
			},
			want: "[[steps]]\ncommand = \"x\"\n",
		},
		{
			name: "a byte order mark and CRLF kept",
			raw:  "\xef\xbb\xbfa = \"thrwaway\"\r\nb = \"x\"\r\n",
			edits: func(text string) []ir.Edit {
				r := at(t, text, "thrwaway")
				return []ir.Edit{{Range: r, NewText: "throwaway"}, ir.Insert("f", ir.Pos{Line: 1, Column: 1}, "version = 1\n")}
			},
			want: "\xef\xbb\xbfversion = 1\r\na = \"throwaway\"\r\nb = \"x\"\r\n",
		},
		{
			name: "a deleted line with its CRLF",
			raw:  "a = 1\r\neffort = \"high\"\r\nb = 2\r\n",
			edits: func(text string) []ir.Edit {
				r := at(t, text, "effort = \"high\"\n")
				return []ir.Edit{{Range: r}}
			},
			want: "a = 1\r\nb = 2\r\n",
		},
		{
			name: "wide characters before the edit",
			raw:  "# é😀\r\nx = \"clade\" # ü\n",
			edits: func(text string) []ir.Edit {
				return []ir.Edit{{Range: at(t, text, "clade"), NewText: "claude"}}
			},
			want: "# é😀\r\nx = \"claude\" # ü\n",
		},
		{
			name: "the same edit twice",
			raw:  "parallel = \"A\"\n",
			edits: func(text string) []ir.Edit {
				e := ir.Edit{Range: at(t, text, "A"), NewText: "a"}
				return []ir.Edit{e, e}
			},
			want: "parallel = \"a\"\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := string(source.Text([]byte(tc.raw)))
			got, err := Apply([]byte(tc.raw), tc.edits(text))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got %q; want %q", got, tc.want)
			}
		})
	}
}

// TestApplyRefuses holds that edits that cannot be made as they are meant
// are refused whole, the file untouched.
func TestApplyRefuses(t *testing.T) {
	t.Parallel()
	raw := "a = \"xyz\"\nb = 2\n"
	r := at(t, raw, "xyz")
	stale := r
	stale.Start.Offset, stale.End.Offset = 0, 3
	for _, tc := range []struct {
		name  string
		edits []ir.Edit
		err   string
	}{
		{"overlapping", []ir.Edit{{Range: r, NewText: "1"}, {Range: at(t, raw, "yz\""), NewText: "2"}}, "two edits overlap"},
		{"two insertions at one place", []ir.Edit{ir.Insert("f", r.Start, "1"), ir.Insert("f", r.Start, "2")}, "two edits overlap"},
		{"past the line's end", []ir.Edit{{Range: ir.Range{Start: ir.Pos{Line: 2, Column: 9, Offset: 18}, End: ir.Pos{Line: 2, Column: 9, Offset: 18}}}}, "the file has no position 2:9"},
		{"past the last line", []ir.Edit{{Range: ir.Range{Start: ir.Pos{Line: 7, Column: 1}, End: ir.Pos{Line: 7, Column: 1}}}}, "the file has no position 7:1"},
		{"offsets that disagree with the positions", []ir.Edit{{Range: stale, NewText: "q"}}, "an edit at 1:6 does not match the file's text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Apply([]byte(raw), tc.edits)
			if err == nil || err.Error() != tc.err {
				t.Errorf("Apply: %q, %v; want the error %q", got, err, tc.err)
			}
		})
	}
}
