# args: --issue 7
version     = 1
description = "Triage the inbox, then fix on the issue's branch"
access      = "write"

limits {
  repair_cap      = 2
  protected_paths = ["migrations/**"]
}

worktree "fix" {
  kind = "issue-branch"
}

step "triage" {
  skill   = "triage"
  harness = "codex"
  model   = "strong"

  precheck {
    shells = ["[ -n \"$(ls inbox 2>/dev/null)\" ] || exit $CHECK_SKIP"]
    whys   = ["Nothing in the inbox: nothing to triage"]
  }

  validate {
    shells   = ["test -s triage.md"]
    whys     = ["Triage that writes nothing cannot be read"]
    severity = "warn"
  }
}

step "fix" {
  skill    = "review"
  worktree = "fix"
  effort   = "high"

  validate {
    shells = ["go test ./..."]
    instructions = [
      "Every change comes with a test that fails without it.",
      "No file under migrations/ changes.",
    ]
    whys     = ["A fix without a test comes back", "Migrations are reviewed by a person"]
    severity = "review"
    model    = "strong"
  }
}

step "deliver" {
  catalogue = "delivery"
  worktree  = "fix"
}
