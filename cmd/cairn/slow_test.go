package main

import (
	"flag"
	"regexp"
	"testing"
)

// slowSuites is whether the slow suites run: the lints of the golden
// scripts and workflows by shellcheck and actionlint, the variants of
// TestCompileDifferential beyond each case as it is, and
// TestActDifferential. They take most of the package's time and hold the
// compiled targets to what the rest of the suite already holds `cairn
// run` to; `go test -tags slow` runs them (slow_tag_test.go), as .ci/run
// does.
var slowSuites bool

// slowName is what the name of a test with a slow suite matches: .ci/run
// runs those tests (-run 'Differential|Golden') with the tag.
var slowName = regexp.MustCompile(`Differential|Golden`)

// slowSuite skips t, saying how to run it, unless the slow suites run.
func slowSuite(t *testing.T) {
	t.Helper()
	if !slowName.MatchString(t.Name()) {
		t.Fatalf("%s is a slow suite, but .ci/run runs only the tests whose names match %s", t.Name(), slowName)
	}
	if !slowSuites {
		t.Skip("a slow suite: `go test -tags slow ./cmd/cairn` runs it, as .ci/run does")
	}
}

// slowOnly is set by -slow-only: the slow suites run in a pass of their
// own, after one that ran the rest of the package (.ci/run's, with the
// race detector), and the tests their names bring along that are not
// slow (fastSuite) are skipped rather than run again.
var slowOnly = flag.Bool("slow-only", false, "with -tags slow, run the slow suites alone: a pass without the tag ran the rest")

// fastSuite skips t when only the slow suites run (-slow-only).
func fastSuite(t *testing.T) {
	t.Helper()
	if *slowOnly {
		t.Skip("not a slow suite, and -slow-only: the pass without the tag runs it")
	}
}
