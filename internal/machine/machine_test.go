package machine

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/ir"
)

// fakeMachine plays back readings, one per read, the last one repeated, on
// a clock that only moves when the waiting step sleeps.
type fakeMachine struct {
	loads  []float64
	mems   []int64
	clock  time.Time
	slept  []time.Duration
	cancel func() // called on the first sleep, when set
}

func (f *fakeMachine) machine() machine {
	next := func(i *int, n int) int {
		k := min(*i, n-1)
		*i++
		return k
	}
	var li, mi int
	return machine{
		load: func() (float64, error) {
			if len(f.loads) == 0 {
				return 0, errors.New("no reading")
			}
			return f.loads[next(&li, len(f.loads))], nil
		},
		memAvailable: func() (int64, error) {
			if len(f.mems) == 0 {
				return 0, errors.New("no reading")
			}
			return f.mems[next(&mi, len(f.mems))], nil
		},
		now: func() time.Time { return f.clock },
		sleep: func(ctx context.Context, d time.Duration) error {
			f.slept = append(f.slept, d)
			f.clock = f.clock.Add(d)
			if f.cancel != nil {
				f.cancel()
			}
			return ctx.Err()
		},
	}
}

// resources are limits as a plan carries them: minFree bytes written as
// minFreeText, and wait 30m when waitText is empty, as the config resolves
// it.
func resources(maxLoad float64, minFree int64, minFreeText, waitText string) ir.PlanResources {
	if waitText == "" {
		waitText = "30m"
	}
	wait, err := ir.ParseDuration(waitText)
	if err != nil {
		panic(err)
	}
	return ir.PlanResources{MaxLoad: maxLoad, MinFreeMemory: minFree, MinFreeMemoryText: minFreeText, Wait: wait, WaitText: waitText}
}

func TestWaitResources(t *testing.T) {
	const gib = 1 << 30
	for _, tc := range []struct {
		name     string
		r        ir.PlanResources
		loads    []float64
		mems     []int64
		warning  string
		progress []string
		sleeps   int
	}{
		{name: "nothing configured", r: ir.PlanResources{}},
		{name: "load fine", r: resources(8, 0, "", ""), loads: []float64{3.5}},
		{name: "memory fine", r: resources(0, 2*gib, "2GiB", ""), mems: []int64{4 * gib}},
		{
			name:     "load falls",
			r:        resources(8, 0, "", ""),
			loads:    []float64{11.23, 9.7, 7.9},
			progress: []string{"waiting for the load average to fall below 8.0 (now 11.2)"},
			sleeps:   2,
		},
		{
			name:     "memory frees",
			r:        resources(0, 2*gib, "2GiB", ""),
			mems:     []int64{gib + gib/2, 3 * gib},
			progress: []string{"waiting for 2GiB of free memory (now 1.5GiB)"},
			sleeps:   1,
		},
		{
			name:     "load stays high",
			r:        resources(8, 0, "", ""),
			loads:    []float64{11.2},
			progress: []string{"waiting for the load average to fall below 8.0 (now 11.2)"},
			warning:  "waited 30m for the load average to fall below 8.0 (now 11.2); starting anyway",
			sleeps:   int(30 * time.Minute / resourcePoll),
		},
		{
			name:     "both short, own wait",
			r:        resources(1.75, 512<<20, "512MiB", "12s"),
			loads:    []float64{2},
			mems:     []int64{100 << 20},
			progress: []string{"waiting for the load average to fall below 1.75 (now 2.0) and for 512MiB of free memory (now 100.0MiB)"},
			warning:  "waited 12s for the load average to fall below 1.75 (now 2.0) and for 512MiB of free memory (now 100.0MiB); starting anyway",
			sleeps:   3,
		},
		{
			name:     "what it waits for changes",
			r:        resources(8, gib, "1GiB", "1m"),
			loads:    []float64{9, 2},
			mems:     []int64{2 * gib, 10 << 20, 2 * gib},
			progress: []string{"waiting for the load average to fall below 8.0 (now 9.0)", "waiting for 1GiB of free memory (now 10.0MiB)"},
			sleeps:   2,
		},
		{name: "load unreadable", r: resources(8, 0, "", ""), warning: "read the load average: no reading; starting anyway"},
		{name: "memory unreadable", r: resources(0, 1e9, "1G", ""), warning: "read the free memory: no reading; starting anyway"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeMachine{loads: tc.loads, mems: tc.mems, clock: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			var progress, warnings []string
			err := f.machine().wait(context.Background(), tc.r, func(s string) { progress = append(progress, s) },
				func(s string) { warnings = append(warnings, s) })
			if err != nil {
				t.Fatalf("wait: %v", err)
			}
			// A wait that runs out, or a reading that fails, starts the step
			// anyway with one warning.
			if want := []string{tc.warning}; tc.warning == "" && len(warnings) > 0 || tc.warning != "" && !slices.Equal(warnings, want) {
				t.Errorf("warnings %q; want %q", warnings, tc.warning)
			}
			if strings.Join(progress, "|") != strings.Join(tc.progress, "|") {
				t.Errorf("progress %q; want %q", progress, tc.progress)
			}
			if len(f.slept) != tc.sleeps {
				t.Errorf("slept %d times; want %d", len(f.slept), tc.sleeps)
			}
			for _, d := range f.slept {
				if d <= 0 || d > resourcePoll {
					t.Errorf("slept %s", d)
				}
			}
		})
	}
}

func TestWaitResourcesStopped(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	f := &fakeMachine{loads: []float64{20}, cancel: cancel}
	err := f.machine().wait(ctx, resources(8, 0, "", ""), func(string) {}, func(string) {})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("wait: %v; want context.Canceled", err)
	}
}

func TestWaitResourcesThisMachine(t *testing.T) {
	// Limits no machine misses: the real readers work and nothing waits.
	if err := Wait(context.Background(), resources(1e9, 1, "1B", ""), func(string) {}, func(s string) { t.Errorf("warning: %s", s) }); err != nil {
		t.Fatal(err)
	}
}

func TestParseProc(t *testing.T) {
	if v, err := parseLoadavg([]byte("11.23 9.80 7.01 3/1204 99812\n")); err != nil || v != 11.23 {
		t.Errorf("parseLoadavg = %v, %v", v, err)
	}
	if _, err := parseLoadavg(nil); err == nil {
		t.Error("parseLoadavg accepted nothing")
	}
	meminfo := "MemTotal:       32614396 kB\nMemFree:         1034012 kB\nMemAvailable:   20480000 kB\nBuffers:          402312 kB\n"
	if v, err := parseMeminfo([]byte(meminfo)); err != nil || v != 20480000*1024 {
		t.Errorf("parseMeminfo = %v, %v", v, err)
	}
	if _, err := parseMeminfo([]byte("MemTotal: 1 kB\n")); err == nil {
		t.Error("parseMeminfo accepted a file without MemAvailable")
	}
	for n, want := range map[int64]string{512: "512B", 1536: "1.5KiB", 100 << 20: "100.0MiB", 3 << 30: "3.0GiB"} {
		if got := formatSize(n); got != want {
			t.Errorf("formatSize(%d) = %q; want %q", n, got, want)
		}
	}
}
