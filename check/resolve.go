package check

import "github.com/cairn-dev/cairn/ir"

// Resolution is a placeholder until resolution lands.
type Resolution struct{}

// Repo is a placeholder until resolution lands.
type Repo struct{}

// Resolve is a placeholder until resolution lands.
func Resolve(p *ir.Process, env *Env) *Resolution { return &Resolution{} }

// BuildPlan is a placeholder until resolution lands.
func BuildPlan(p *ir.Process, r *Resolution, env *Env) *ir.Plan { return &ir.Plan{} }
