version = 1

worktree "a" {
  kind = "throwaway"
}

step "triage" {
  command  = "true"
  worktree = "a"
}

step "fix" {
  command  = "make fix"
  worktree = "a"
  needs    = ["triag", "fix", "later"]
}

step "docs" {
  command  = "make docs"
  worktree = "a"
  needs    = ["triage"]
}

step "later" {
  command  = "true"
  worktree = "a"
  needs    = ["docs", 3]
}

step "review" {
  prompt   = "Review the docs."
  worktree = "a"
  needs    = ["docs"]
}

step "deliver" {
  command  = "true"
  worktree = "a"
  needs    = ["docs"]
}
