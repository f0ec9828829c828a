version = 1

worktree "fix" {
  kind = "throwaway"
}

worktree "docs" {
  kind = "throwaway"
}

step "triage" {
  command  = "make triage"
  worktree = "fix"
}

step "fix" {
  command  = "make fix"
  worktree = "fix"
  needs    = ["triage"]
  when     = steps.triage.outcome == 3
}

step "docs" {
  command  = "make docs"
  worktree = "docs"
  needs    = ["triage"]
  when     = steps.fix.outcome == "failed" || upper(steps.triag.outcome) == "X"
}

step "last" {
  command  = "true"
  worktree = "docs"
  needs    = ["docs", "fix"]
  when     = steps.triage.outcome
}

step "broken" {
  command  = "true"
  worktree = "docs"
  when     = "steps.last.outcome =="
}
