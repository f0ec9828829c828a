package runtime

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cairn-dev/cairn/record"
)

// failWith is how a run that was ending with status and runErr ends when
// err, a write of its record, a result or a patch that failed, comes to
// light at its end: failed (an interrupted run stays interrupted), with err
// as its cause when it has none yet, else err shown as a warning.
func (r *run) failWith(status record.Status, runErr, err error) (record.Status, error) {
	if status != record.StatusInterrupted {
		status = record.StatusFailed
	}
	if runErr == nil {
		return status, err
	}
	r.warn(err)
	return status, runErr
}

// clearMessageFile removes what an earlier attempt left at path, the file a
// session's CLI writes its final message to, which must not pass for this
// session's. For a CLI that writes one (codex -o) it makes an empty file
// there, its owner's only: the CLI writes into it and keeps its mode,
// whatever its umask.
func clearMessageFile(path string, writes bool) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if !writes {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}

// keepPrivate makes the file at path its owner's only again, when there is
// one: a CLI that replaced it made the new one by its umask.
func keepPrivate(path string) error {
	if err := os.Chmod(path, 0o600); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// causeOf is err's message as a record's cause; "" for no error.
func causeOf(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
