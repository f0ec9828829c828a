// Package machine holds a run's session steps back until the machine has
// the load and free memory the config's [resources] asks for (docs/design.md §7.9).
package machine

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/ir"
)

// resourcePoll is how often a waiting step reads the machine again.
const resourcePoll = 5 * time.Second

// machine reads the machine's load and free memory and keeps time; tests
// replace it with fake readings and a fake clock.
type machine struct {
	// load is the 1-minute load average; memAvailable the bytes of memory
	// available to new work.
	load         func() (float64, error)
	memAvailable func() (int64, error)
	now          func() time.Time
	// sleep waits d, or less when ctx is done, and returns ctx's error then.
	sleep func(ctx context.Context, d time.Duration) error
}

// thisMachine reads Linux's /proc and the real clock.
var thisMachine = machine{
	load:         procLoad,
	memAvailable: procMemAvailable,
	now:          time.Now,
	sleep: func(ctx context.Context, d time.Duration) error {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			return nil
		}
	},
}

// Wait holds a session step back while the machine is busy (docs/design.md §7.9): while
// the 1-minute load average exceeds r's MaxLoad or the memory available is
// below its MinFreeMemory, it reads them again every few seconds, telling
// progress once what it waits for. It returns when they allow the step (at
// once when r sets neither), or when r's Wait has run out or a reading
// fails: the step then starts anyway, and warn says why. It returns ctx's
// error when ctx ends first, and nil otherwise.
func Wait(ctx context.Context, r ir.PlanResources, progress, warn func(string)) error {
	return thisMachine.wait(ctx, r, progress, warn)
}

func (m machine) wait(ctx context.Context, r ir.PlanResources, progress, warn func(string)) error {
	if r.MaxLoad <= 0 && r.MinFreeMemory <= 0 {
		return nil
	}
	deadline := m.now().Add(r.Wait)
	told := ""
	for {
		short, what, err := m.shortOf(r)
		if err != nil {
			warn(fmt.Sprintf("%v; starting anyway", err))
			return nil
		}
		if short == "" {
			return nil
		}
		// Tell once what the step waits for, again only when that changes,
		// not at every new reading.
		if what != told {
			progress("waiting " + short)
			told = what
		}
		left := deadline.Sub(m.now())
		if left <= 0 {
			warn(fmt.Sprintf("waited %s %s; starting anyway", r.WaitText, short))
			return nil
		}
		if err := m.sleep(ctx, min(resourcePoll, left)); err != nil {
			return err
		}
	}
}

// shortOf reads the machine and says what it is short of, in the words of
// a wait ("for the load average to fall below 8.0 (now 11.2)"), and which
// limits those are ("load", "memory", "load memory"); "" when none.
func (m machine) shortOf(r ir.PlanResources) (short, what string, err error) {
	var words, limits []string
	if r.MaxLoad > 0 {
		load, err := m.load()
		if err != nil {
			return "", "", fmt.Errorf("read the load average: %w", err)
		}
		if load > r.MaxLoad {
			words = append(words, fmt.Sprintf("for the load average to fall below %s (now %.1f)", FormatLoad(r.MaxLoad), load))
			limits = append(limits, "load")
		}
	}
	if r.MinFreeMemory > 0 {
		avail, err := m.memAvailable()
		if err != nil {
			return "", "", fmt.Errorf("read the free memory: %w", err)
		}
		if avail < r.MinFreeMemory {
			words = append(words, fmt.Sprintf("for %s of free memory (now %s)", r.MinFreeMemoryText, formatSize(avail)))
			limits = append(limits, "memory")
		}
	}
	return strings.Join(words, " and "), strings.Join(limits, " "), nil
}

// FormatLoad writes a load limit as a user wrote it, with at least one
// decimal: 8 → "8.0", 1.75 → "1.75".
func FormatLoad(v float64) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s
}

// formatSize writes a number of bytes in the largest binary unit that keeps
// it at or above 1, with one decimal: "1.5GiB", "512.0MiB".
func formatSize(n int64) string {
	units := []string{"KiB", "MiB", "GiB", "TiB"}
	if n < 1<<10 {
		return fmt.Sprintf("%dB", n)
	}
	v, unit := float64(n)/(1<<10), units[0]
	for _, u := range units[1:] {
		if v < 1<<10 {
			break
		}
		v, unit = v/(1<<10), u
	}
	return fmt.Sprintf("%.1f%s", v, unit)
}

// procLoad reads the 1-minute load average from /proc/loadavg.
func procLoad() (float64, error) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, err
	}
	return parseLoadavg(b)
}

// parseLoadavg reads the first field of /proc/loadavg.
func parseLoadavg(b []byte) (float64, error) {
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, fmt.Errorf("/proc/loadavg is empty")
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 0, fmt.Errorf("/proc/loadavg: %w", err)
	}
	return v, nil
}

// procMemAvailable reads MemAvailable from /proc/meminfo, in bytes.
func procMemAvailable() (int64, error) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, err
	}
	return parseMeminfo(b)
}

// parseMeminfo reads the MemAvailable line of /proc/meminfo ("MemAvailable:
// 8123456 kB"), in bytes.
func parseMeminfo(b []byte) (int64, error) {
	s := bufio.NewScanner(bytes.NewReader(b))
	for s.Scan() {
		name, rest, ok := strings.Cut(s.Text(), ":")
		if !ok || name != "MemAvailable" {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			break
		}
		v, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/meminfo: MemAvailable: %w", err)
		}
		if len(f) > 1 && strings.EqualFold(f[1], "kB") {
			v *= 1024
		}
		return v, nil
	}
	return 0, fmt.Errorf("/proc/meminfo has no MemAvailable")
}
