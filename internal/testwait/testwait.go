// Package testwait is how long a test waits for what it waits on: a
// process to end, a file to appear, a lock to be let go, a reply. Tests
// wait on the event itself and give up only after Patience, so that a
// machine loaded many times over slows a test down but never fails it.
// Only tests import it.
package testwait

import (
	"context"
	"time"
)

// Patience is how long a test waits for what happens at once on an idle
// machine before it fails: long enough for a 2-core machine shared with
// many other builds, short enough that a hang fails its test, saying what
// it waited for, well before go test's own 10-minute limit ends the whole
// package's run. TestNoShortWaits holds every test to it.
const Patience = 2 * time.Minute

// poll is how often Until asks again.
const poll = 10 * time.Millisecond

// Until reports whether cond held within Patience: it asks at once, then
// every 10ms. It is for what no event tells of, such as a process that is
// not the test's child ending.
func Until(cond func() bool) bool {
	deadline := time.Now().Add(Patience)
	for !cond() {
		if time.Now().After(deadline) {
			return cond()
		}
		time.Sleep(poll)
	}
	return true
}

// After delivers once Patience has passed: a test's select waits on it
// beside the event it waits for.
func After() <-chan time.Time {
	return time.After(Patience)
}

// Context is parent, ended once Patience has passed: for a test that hands
// its wait to something that takes a context.
func Context(parent context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(parent, Patience)
}
