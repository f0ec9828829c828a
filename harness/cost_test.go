package harness

import "testing"

func TestReportsCost(t *testing.T) {
	r := testRegistry()
	for name, want := range map[string]bool{"claude": true, "opencode": true, "codex": false, "gemini": false, "mybot": false} {
		h, _ := r.Lookup(name)
		if got := h.ReportsCost(); got != want {
			t.Errorf("%s: ReportsCost() = %v; want %v", name, got, want)
		}
	}
}
