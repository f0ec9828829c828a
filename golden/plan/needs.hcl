version     = 1
description = "A diamond: triage, then a fix and the docs at once, then a summary"

worktree "fix" {
  kind = "throwaway"
}

worktree "docs" {
  kind = "throwaway"
}

step "triage" {
  command  = "git log -n 20 --format=%s"
  worktree = "fix"
}

step "fix" {
  prompt   = "Fix what the triage found."
  worktree = "fix"
  needs    = ["triage"]
}

step "docs" {
  command  = "ls docs"
  worktree = "docs"
  needs    = ["triage"]
}

step "summary" {
  command  = "cat \"$CAIRN_RESULTS\"/*.md"
  worktree = "docs"
  needs    = ["docs", "fix"]
  when     = steps.fix.outcome == "succeeded" || steps.docs.outcome != "failed"
}

step "notes" {
  command  = "true"
  worktree = "docs"
}
