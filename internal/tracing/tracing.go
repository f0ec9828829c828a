// Package tracing exports what a run does as OpenTelemetry traces, over
// OTLP/HTTP, when the standard OTEL_* variables ask for it: a span per run,
// step, for_each item, agent session and shell, carried by the context
// (docs/design.md §7.10).
package tracing

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/cairn-dev/cairn/internal/proc"
	"github.com/cairn-dev/cairn/ir"
)

// FlushTimeout bounds how long cairn waits, as it exits, for the spans it
// has not sent yet to reach the collector: an unreachable one costs at
// most this, and what was not sent by then is lost.
const FlushTimeout = 5 * time.Second

// scope is the instrumentation scope of cairn's spans.
const scope = "github.com/cairn-dev/cairn"

// providerKey is the context key of the tracer provider Start set up.
type providerKey struct{}

// roleKey is the context key of the role As gives the next session.
type roleKey struct{}

// On reports whether env asks for traces: it names an OTLP endpoint
// (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), and
// neither OTEL_SDK_DISABLED=true nor OTEL_TRACES_EXPORTER=none turns them
// off.
func On(env []string) bool {
	if proc.Getenv(env, "OTEL_EXPORTER_OTLP_ENDPOINT") == "" && proc.Getenv(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" {
		return false
	}
	return !strings.EqualFold(proc.Getenv(env, "OTEL_SDK_DISABLED"), "true") &&
		!strings.EqualFold(proc.Getenv(env, "OTEL_TRACES_EXPORTER"), "none")
}

// Start sets up the export of traces when env asks for it (On), and
// returns ctx carrying it, and the function that flushes what is left to
// send, within FlushTimeout, and stops the export. The exporter reads its
// endpoint, headers, timeout and the service's resource from the OTEL_*
// variables itself; a TRACEPARENT (and TRACESTATE) in env makes the run a
// child of that span. When env does not ask for traces nothing is set up:
// ctx comes back as it was, every span is a no-op and the flush does
// nothing. An export that fails is told once on stderr, as a warning.
func Start(ctx context.Context, env []string, stderr io.Writer, version string) (context.Context, func()) {
	if !On(env) {
		return ctx, func() {}
	}
	var once sync.Once
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		once.Do(func() { fmt.Fprintf(stderr, "cairn: warning: %v\n", err) })
	}))
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		otel.Handle(fmt.Errorf("traces: %w", err))
		return ctx, func() {}
	}
	// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, read after cairn's
	// own, win.
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "cairn"), attribute.String("service.version", version)),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		otel.Handle(fmt.Errorf("traces: %w", err))
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	ctx = context.WithValue(ctx, providerKey{}, tp)
	if parent := proc.Getenv(env, "TRACEPARENT"); parent != "" {
		carrier := propagation.MapCarrier{"traceparent": parent, "tracestate": proc.Getenv(env, "TRACESTATE")}
		ctx = propagation.TraceContext{}.Extract(ctx, carrier)
	}
	return ctx, func() {
		// Also after an interrupt: ctx may be done, the flush is not.
		flush, cancel := context.WithTimeout(context.WithoutCancel(ctx), FlushTimeout)
		defer cancel()
		if err := tp.Shutdown(flush); err != nil {
			otel.Handle(fmt.Errorf("traces: send within %s: %w", FlushTimeout, err))
		}
	}
}

// Env is env with TRACEPARENT and TRACESTATE set to the span ctx carries,
// for a process started under it to continue the trace; env as it is when
// ctx carries no span that is exported (traces off).
func Env(ctx context.Context, env []string) []string {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() || !trace.SpanFromContext(ctx).IsRecording() {
		return env
	}
	carrier := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, carrier)
	set := []string{"TRACEPARENT=" + carrier.Get("traceparent")}
	var drop []string
	if s := carrier.Get("tracestate"); s != "" {
		set = append(set, "TRACESTATE="+s)
	} else {
		// The user's state belongs to the user's span, not to cairn's.
		drop = []string{"TRACESTATE"}
	}
	return proc.MergeEnv(env, set, drop)
}

// Span is one span of cairn's, or a no-op when traces are off.
type Span struct{ s trace.Span }

// start starts the span name under the span ctx carries (or as a root,
// with the provider Start put in ctx); with neither, traces are off and
// the span is a no-op.
func start(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, Span) {
	parent := trace.SpanFromContext(ctx)
	tp := parent.TracerProvider()
	if !parent.IsRecording() {
		p, ok := ctx.Value(providerKey{}).(trace.TracerProvider)
		if !ok {
			return ctx, Span{parent}
		}
		tp = p
	}
	ctx, s := tp.Tracer(scope).Start(ctx, name, trace.WithAttributes(attrs...))
	return ctx, Span{s}
}

// Run starts the span of a run of process: command is run, resume or
// test's run.
func Run(ctx context.Context, process, command string) (context.Context, Span) {
	return start(ctx, command+" "+process, attribute.String("cairn.process", process), attribute.String("cairn.command", command))
}

// Test starts the span of a pass of cairn test over files, the number of
// test files it found: the span of each file's case is under it.
func Test(ctx context.Context, files int) (context.Context, Span) {
	return start(ctx, "test", attribute.Int("cairn.test.files", files))
}

// TestCase starts the span of the case of the test file file, as cairn
// test names it: the run of its process is under it.
func TestCase(ctx context.Context, file string) (context.Context, Span) {
	return start(ctx, "case "+file, attribute.String("cairn.test.file", file))
}

// Step starts the span of the step named step.
func Step(ctx context.Context, step string) (context.Context, Span) {
	return start(ctx, "step "+step, attribute.String("cairn.step", step))
}

// Item starts the span of item k of a step with for_each; name is the
// item's, as its record names it (STEP[K]).
func Item(ctx context.Context, step, name string, k int) (context.Context, Span) {
	return start(ctx, "item "+name, attribute.String("cairn.step", step), attribute.Int("cairn.item", k))
}

// As is ctx with the role of the sessions started under it: judge, review
// (a review retry) or repair (a delivery's repair session); a session is a
// step's own otherwise.
func As(ctx context.Context, role string) context.Context {
	return context.WithValue(ctx, roleKey{}, role)
}

// Session starts the span of an agent session of step, its CLI harness's,
// with model and access ("" when the CLI chooses).
func Session(ctx context.Context, step, harness, model, access string) (context.Context, Span) {
	role, _ := ctx.Value(roleKey{}).(string)
	if role == "" {
		role = "session"
	}
	attrs := []attribute.KeyValue{
		attribute.String("cairn.step", step),
		attribute.String("cairn.session.role", role),
		attribute.String("cairn.harness", harness),
		attribute.String("gen_ai.operation.name", "invoke_agent"),
		attribute.String("gen_ai.agent.name", harness),
	}
	if model != "" {
		attrs = append(attrs, attribute.String("gen_ai.request.model", model))
	}
	if access != "" {
		attrs = append(attrs, attribute.String("cairn.access", access))
	}
	return start(ctx, role+" "+harness, attrs...)
}

// Shell starts the span of a bash script of step: kind is command,
// precheck, validate or setup (a worktree's).
func Shell(ctx context.Context, step, kind string) (context.Context, Span) {
	attrs := []attribute.KeyValue{attribute.String("cairn.shell", kind)}
	if step != "" {
		attrs = append(attrs, attribute.String("cairn.step", step))
	}
	return start(ctx, "shell "+kind, attrs...)
}

// Recording reports whether the span is exported: false when traces are
// off, so that what only a span needs is not computed.
func (s Span) Recording() bool { return s.s.IsRecording() }

// SetRun records the name of the run folder of a run's span.
func (s Span) SetRun(run string) {
	s.s.SetAttributes(attribute.String("cairn.run", run))
}

// SetSession records the CLI's id of a session.
func (s Span) SetSession(id string) {
	if id != "" {
		s.s.SetAttributes(attribute.String("gen_ai.conversation.id", id))
	}
}

// SetExitCode records the exit code of the process a span ran.
func (s Span) SetExitCode(code int) {
	s.s.SetAttributes(attribute.Int("process.exit.code", code))
}

// SetUsage records what u says was used: turns, tokens (the OTel GenAI
// names), and cost in US dollars, and whether that is cairn's estimate.
func (s Span) SetUsage(u ir.Usage) {
	if !s.s.IsRecording() {
		return
	}
	var attrs []attribute.KeyValue
	count := func(key string, n *int64) {
		if n != nil {
			attrs = append(attrs, attribute.Int64(key, *n))
		}
	}
	count("cairn.turns", u.Turns)
	count("gen_ai.usage.input_tokens", u.InputTokens)
	count("gen_ai.usage.output_tokens", u.OutputTokens)
	count("gen_ai.usage.cache_read.input_tokens", u.CacheReadTokens)
	count("gen_ai.usage.cache_creation.input_tokens", u.CacheWriteTokens)
	if u.CostUSD != nil {
		attrs = append(attrs, attribute.Float64("cairn.cost_usd", *u.CostUSD), attribute.Bool("cairn.cost_estimated", u.CostEstimated))
	}
	s.s.SetAttributes(attrs...)
}

// End ends the span with its outcome (a step's, a run's status) and its
// cause: its status is Error, with the cause, for a failed or interrupted
// one.
func (s Span) End(outcome, cause string) {
	if !s.s.IsRecording() {
		return
	}
	s.s.SetAttributes(attribute.String("cairn.outcome", outcome))
	if cause != "" {
		s.s.SetAttributes(attribute.String("cairn.cause", cause))
	}
	if outcome == "failed" || outcome == "interrupted" {
		s.s.SetStatus(codes.Error, cause)
	}
	s.s.End()
}
