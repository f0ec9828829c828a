package main

import (
	"os"
	"strconv"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptCmds["mkfifo"] = makeFIFO
	scriptCmds["sparse"] = makeSparse
}

// makeFIFO is the script command "mkfifo PATH": it makes a named pipe at
// PATH, which nothing ever writes to.
func makeFIFO(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mkfifo PATH")
	}
	ts.Check(syscall.Mkfifo(ts.MkAbs(args[0]), 0o644))
}

// makeSparse is the script command "sparse PATH BYTES": it makes a file of
// BYTES zero bytes at PATH without writing them, so that a script can offer
// a file larger than cairn reads.
func makeSparse(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: sparse PATH BYTES")
	}
	n, err := strconv.ParseInt(args[1], 10, 64)
	ts.Check(err)
	f, err := os.Create(ts.MkAbs(args[0]))
	ts.Check(err)
	ts.Check(f.Truncate(n))
	ts.Check(f.Close())
}
