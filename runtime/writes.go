package runtime

// failWith is how a run that was ending with status and runErr ends when
// err, a write of its record, a result or a patch that failed, comes to
// light at its end: failed (an interrupted run stays interrupted), with err
// as its cause when it has none yet, else err shown as a warning.
func (r *run) failWith(status Status, runErr, err error) (Status, error) {
	if status != StatusInterrupted {
		status = StatusFailed
	}
	if runErr == nil {
		return status, err
	}
	r.warn(err)
	return status, runErr
}
