package step

import (
	"errors"
	"io"
	"os"
	"time"
)

// fileOutPoll is how often a fileOut copies what its file got.
const fileOutPoll = 20 * time.Millisecond

// fileOut is where an agent CLI writes its stdout: a file, not a pipe. A
// CLI on Node that ends with process.exit loses what it still had queued
// for a pipe: Gemini CLI, given a prompt of 200 KB, dropped everything
// after its echo of the prompt, its answer included, in about one session
// in two, and exited 0. Node writes to a file synchronously. What the file
// gets is copied to w (the trace) every fileOutPoll, and to its end once
// the CLI has ended (close): too late for a turn watcher, whose CLI writes
// to a pipe.
type fileOut struct {
	// File is the CLI's stdout.
	File  *os.File
	r     *os.File
	w     io.Writer
	done  chan struct{}
	ended chan struct{}
}

// newFileOut makes a fileOut in dir ("" for the system's temporary folder)
// copying to w. The file is removed at once where the system lets an open
// file go, else by close.
func newFileOut(dir string, w io.Writer) (*fileOut, error) {
	f, err := os.CreateTemp(dir, ".stdout-*")
	if err != nil {
		return nil, err
	}
	r, err := os.Open(f.Name())
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	_ = os.Remove(f.Name())
	o := &fileOut{File: f, r: r, w: w, done: make(chan struct{}), ended: make(chan struct{})}
	go o.copy()
	return o, nil
}

// copy copies what the file gets to w until close, then what is left.
func (o *fileOut) copy() {
	defer close(o.ended)
	buf := make([]byte, 64<<10)
	for {
		n, err := o.r.Read(buf)
		if n > 0 {
			_, _ = o.w.Write(buf[:n])
		}
		switch {
		case err == nil:
			continue
		case !errors.Is(err, io.EOF):
			return
		}
		select {
		case <-o.done:
			_, _ = io.CopyBuffer(o.w, o.r, buf)
			return
		case <-time.After(fileOutPoll):
		}
	}
}

// close copies what is left once the CLI has ended, and removes the file.
func (o *fileOut) close() {
	close(o.done)
	<-o.ended
	name := o.File.Name()
	o.File.Close()
	o.r.Close()
	// Gone already, but where the system keeps an open file.
	_ = os.Remove(name)
}
