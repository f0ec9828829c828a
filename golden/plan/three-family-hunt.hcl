version     = 1
description = "Three model families hunt bugs in parallel; one judges"

worktree "claude" {
  kind = "throwaway"
}

worktree "codex" {
  kind = "throwaway"
}

worktree "gemini" {
  kind = "throwaway"
}

step "hunt-claude" {
  skill    = "bug-hunt"
  harness  = "claude"
  model    = "strong"
  effort   = "high"
  worktree = "claude"
  parallel = "hunt"
  optional = true
}

step "hunt-codex" {
  skill    = "bug-hunt"
  harness  = "codex"
  effort   = "xhigh"
  worktree = "codex"
  parallel = "hunt"
  optional = true
}

step "hunt-gemini" {
  skill    = "bug-hunt"
  harness  = "gemini"
  worktree = "gemini"
  parallel = "hunt"
  optional = true
}

step "judge" {
  description = "Keep the findings that hold up"
  skill       = "judge"
  model       = "strongest"
  access      = "read"
  max_turns   = 40
  budget_usd  = 2.50
}
