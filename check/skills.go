package check

import (
	"context"

	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/skills"
)

// FindSkill finds a session step's skill as skills.Finder.Find does, with
// env's home, directory and repository at its base branch, once per name
// for the invocation; ctx ends the git that reads the repository.
func FindSkill(ctx context.Context, env *Env, name string) (ir.PlanSkill, error) {
	f := lookupOnce(env, "skill-finder", func() *skills.Finder {
		return &skills.Finder{Home: env.Home, Dir: env.Dir, Repo: env.Repo, Base: wantedBase(env.Config)}
	})
	return f.Find(ctx, name)
}
