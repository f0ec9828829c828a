package proc

import (
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// TestUnlockWhileStarting holds that a lock given back with Unlock is free
// at once, even while this process keeps starting others: each of them
// holds a copy of the lock's file from fork to exec, which Close alone
// would leave holding the lock.
func TestUnlockWhileStarting(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "lock")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				_ = exec.Command("true").Run()
			}
		}()
	}
	defer func() {
		close(stop)
		wg.Wait()
	}()
	for i := range 300 {
		f, err := Lock(path, false)
		if err != nil {
			t.Fatalf("lock %d: %v", i, err)
		}
		if err := Unlock(f); err != nil {
			t.Fatalf("unlock %d: %v", i, err)
		}
		if held, err := Held(path); err != nil || held {
			t.Fatalf("after unlock %d: held %v, %v; want free", i, held, err)
		}
	}
}
