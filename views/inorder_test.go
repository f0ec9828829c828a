package views

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
)

// TestWriteInOrder holds writeInOrder to the order of its pieces, however
// their renders interleave, and to the first error.
func TestWriteInOrder(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, n := range []int{0, 1, 7, 100} {
		var b strings.Builder
		err := writeInOrder(&b, n, func(i int, w io.Writer) error {
			_, err := fmt.Fprintf(w, "%d.", i)
			return err
		})
		var want strings.Builder
		for i := range n {
			fmt.Fprintf(&want, "%d.", i)
		}
		if err != nil || b.String() != want.String() {
			t.Errorf("%d pieces: %q, %v; want %q", n, b.String(), err, want.String())
		}
	}
	bad := errors.New("bad piece")
	var b strings.Builder
	err := writeInOrder(&b, 50, func(i int, w io.Writer) error {
		if i == 3 {
			return bad
		}
		_, err := fmt.Fprintf(w, "%d.", i)
		return err
	})
	if !errors.Is(err, bad) || b.String() != "0.1.2." {
		t.Errorf("got %q, %v; want the pieces before the bad one, and its error", b.String(), err)
	}
}
