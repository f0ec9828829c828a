// Package runtime executes a plan: it walks the stages, runs steps in their
// worktrees, and records every step (§7).
package runtime
