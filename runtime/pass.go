package runtime

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/internal/proc"
	"github.com/cairn-dev/cairn/worktree"
)

// PassLock is the one Pass a repository may have running on this machine
// at a time (docs/design.md §7.8), held by the cairn running it. It is a flock on
// $CAIRN_HOME/locks/pass-HASH.lock, which the kernel releases when its holder
// dies, so a crashed Pass never blocks the next.
type PassLock struct {
	mu     sync.Mutex
	file   *os.File
	holder PassHolder
}

// PassHolder is who holds a repository's Pass, as its lock file says.
type PassHolder struct {
	PID int `json:"pid"`
	// Run is the holder's run folder name; empty until it has one.
	Run   string    `json:"run"`
	Since time.Time `json:"since"`
	Repo  string    `json:"repo"`
}

// PassLockPath is the lock file of repo's Pass under home: pass- and the
// first 16 hex digits of the sha256 of repo (the realpath of its git common
// dir).
func PassLockPath(home, repo string) string {
	sum := sha256.Sum256([]byte(repo))
	return filepath.Join(home, worktree.LocksDir, "pass-"+hex.EncodeToString(sum[:])[:16]+".lock")
}

// AcquirePass takes repo's Pass without waiting. When another live process
// holds it, the lock is nil and the holder is who does, as far as its lock
// file says (its run is empty when it has not named one yet).
func AcquirePass(home, repo string) (*PassLock, *PassHolder, error) {
	path := PassLockPath(home, repo)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, nil, fmt.Errorf("take the pass lock: %w", err)
	}
	f, err := proc.Lock(path, false)
	if errors.Is(err, proc.ErrWouldBlock) {
		h := readHolder(path)
		return nil, &h, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("take the pass lock: %w", err)
	}
	l := &PassLock{file: f, holder: PassHolder{PID: os.Getpid(), Since: time.Now().UTC(), Repo: repo}}
	if err := l.write(); err != nil {
		proc.Unlock(f)
		return nil, nil, err
	}
	return l, nil, nil
}

// readHolder reads the holder a lock file names; a file being written, or
// empty, names nobody.
func readHolder(path string) PassHolder {
	var h PassHolder
	f, err := os.Open(path)
	if err != nil {
		return h
	}
	defer f.Close()
	// The holder writes its line over the old one and then cuts the file
	// to it: the first JSON value is the newest, whatever follows.
	_ = json.NewDecoder(f).Decode(&h)
	return h
}

// SetRun names the holder's run in the lock file, for the message of a Pass
// skipped because of it.
func (l *PassLock) SetRun(name string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.file == nil {
		return errors.New("the pass lock was released")
	}
	l.holder.Run = name
	return l.write()
}

// write puts the holder's line at the start of the lock file, then cuts the
// file to it. The caller holds l.mu, or is the only one to know l.
func (l *PassLock) write() error {
	b, err := json.Marshal(l.holder)
	if err != nil {
		return fmt.Errorf("write the pass lock: %w", err)
	}
	b = append(b, '\n')
	if _, err := l.file.WriteAt(b, 0); err != nil {
		return fmt.Errorf("write the pass lock: %w", err)
	}
	if err := l.file.Truncate(int64(len(b))); err != nil {
		return fmt.Errorf("write the pass lock: %w", err)
	}
	return nil
}

// Release gives the Pass back. Releasing twice does nothing.
func (l *PassLock) Release() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.file == nil {
		return nil
	}
	// The file stays: removing a locked file lets two processes lock two
	// different files of one name. Emptied, it names nobody.
	terr := l.file.Truncate(0)
	cerr := proc.Unlock(l.file)
	l.file = nil
	if err := errors.Join(terr, cerr); err != nil {
		return fmt.Errorf("release the pass lock: %w", err)
	}
	return nil
}
