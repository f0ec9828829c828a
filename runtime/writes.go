package runtime

import (
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

// causeOf is err's message as a record's cause; "" for no error.
func causeOf(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
