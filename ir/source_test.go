package ir

import (
	"encoding/json"
	"testing"
	"unsafe"
)

// TestRangeSize holds the size of a range, which every key and value of a
// file carries twice: the memory bar of a 10,000-step file depends on it.
func TestRangeSize(t *testing.T) {
	t.Parallel()
	if got := unsafe.Sizeof(Pos{}); got != 12 {
		t.Errorf("Pos is %d bytes; want 12", got)
	}
	if got := unsafe.Sizeof(Range{}); got != 40 {
		t.Errorf("Range is %d bytes; want 40", got)
	}
}

// TestPosJSON holds what a position looks like in JSON: a line and a column,
// no offset.
func TestPosJSON(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(Pos{Line: 12, Column: 3, Offset: 400})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"line":12,"column":3}`; got != want {
		t.Errorf("json of a Pos: %s; want %s", got, want)
	}
}
