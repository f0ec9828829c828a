package views

import (
	"bytes"
	"io"
	"runtime"
	"sync"
)

// writeInOrder writes the n pieces render makes to w, in order, while
// making up to twice GOMAXPROCS of them ahead of the writing, each on a
// goroutine of its own: the text or the pictures of hundreds of plans are
// rendered on every core, and only the pieces not yet written are held.
// render must be safe to call at once for different pieces. The first
// error, of a render or a write, ends it; what is rendered after is
// dropped.
func writeInOrder(w io.Writer, n int, render func(i int, w io.Writer) error) error {
	ahead := 2 * runtime.GOMAXPROCS(0)
	if n <= 1 || ahead <= 2 {
		for i := range n {
			if err := render(i, w); err != nil {
				return err
			}
		}
		return nil
	}
	type piece struct {
		b    *bytes.Buffer
		err  error
		done chan struct{}
	}
	// A piece's buffer, once written out, holds a later one: no more
	// buffers are made than pieces are ahead.
	buffers := sync.Pool{New: func() any { return new(bytes.Buffer) }}
	pieces := make([]*piece, n)
	for i := range pieces {
		pieces[i] = &piece{done: make(chan struct{})}
	}
	slots := make(chan struct{}, ahead)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for i := range n {
			select {
			case slots <- struct{}{}:
			case <-stop:
				return
			}
			go func() {
				p := pieces[i]
				p.b = buffers.Get().(*bytes.Buffer)
				p.err = render(i, p.b)
				close(p.done)
			}()
		}
	}()
	for i := range n {
		p := pieces[i]
		<-p.done
		pieces[i] = nil
		<-slots
		if p.err != nil {
			return p.err
		}
		if _, err := w.Write(p.b.Bytes()); err != nil {
			return err
		}
		p.b.Reset()
		buffers.Put(p.b)
	}
	return nil
}
