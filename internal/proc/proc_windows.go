package proc

import (
	"context"
	"errors"
)

// ErrUnsupported is why Run starts nothing on Windows: cairn checks,
// compiles and serves editors there, and runs processes only where it can
// stop what they start (process groups, Unix signals).
var ErrUnsupported = errors.New("cairn runs no process on windows: check, compile, schema and lsp work there; run processes on linux or macos")

// Run starts nothing on Windows (ErrUnsupported).
func (p *Proc) Run(context.Context) (Result, error) {
	return Result{ExitCode: -1}, ErrUnsupported
}

// EnvStepToken names the variable that carries a step's token.
const EnvStepToken = "CAIRN_STEP_TOKEN"

// How a run's groups are found to be ended (Groups.Method).
const (
	MethodCgroup = "cgroup"
	MethodToken  = "token"
)

// BootID is empty on Windows, where no group is recorded.
func BootID() string { return "" }

// Groups keeps nothing on Windows, where Run starts no process.
type Groups struct{}

// NewGroups keeps nothing on Windows.
func NewGroups(string) *Groups { return &Groups{} }

// Method is MethodToken on Windows.
func (g *Groups) Method() string { return MethodToken }

// Err is nil on Windows: nothing is kept.
func (g *Groups) Err() error { return nil }

// EndGroups ends nothing on Windows, where no run left a group.
func EndGroups(string) (int, error) { return 0, nil }

// Terminate stops nothing on Windows (ErrUnsupported).
func Terminate(int) error { return ErrUnsupported }
