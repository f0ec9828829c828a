package tracing

import (
	"context"
	"slices"
	"testing"
)

func TestOn(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		want bool
	}{
		{nil, false},
		{[]string{"OTEL_SERVICE_NAME=x", "OTEL_EXPORTER_OTLP_HEADERS=a=b"}, false},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT="}, false},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318"}, true},
		{[]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://localhost:4318/v1/traces"}, true},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318", "OTEL_SDK_DISABLED=true"}, false},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318", "OTEL_TRACES_EXPORTER=none"}, false},
	} {
		if got := On(tc.env); got != tc.want {
			t.Errorf("On(%q) = %v, want %v", tc.env, got, tc.want)
		}
	}
}

// TestOff holds traces off to nothing: no provider in the context, spans
// that record nothing, and an environment passed on as it was, the
// user's own trace context included.
func TestOff(t *testing.T) {
	ctx := context.Background()
	started, flush := Start(ctx, []string{"TRACEPARENT=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}, nil, "v")
	defer flush()
	if started != ctx {
		t.Fatal("Start changed the context with traces off")
	}
	ctx, run := Run(ctx, "p", "run")
	ctx, sh := Shell(ctx, "s", "command")
	if run.s.IsRecording() || sh.s.IsRecording() {
		t.Fatal("a span records with traces off")
	}
	env := []string{"A=1", "TRACEPARENT=user"}
	if got := Env(ctx, env); !slices.Equal(got, env) {
		t.Errorf("Env = %q, want %q", got, env)
	}
	sh.End("failed", "exit status 1")
	run.End("failed", "")
}
