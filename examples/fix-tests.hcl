# Run the tests; when any fail, a session fixes the code until they pass (with up to two review
# retries), in your own working tree: read its fix with `git diff`, then keep it or drop it. It is
# written in HCL, with the keys of a TOML process in blocks (README: "The same process in HCL"):
# heredocs for scripts and prompts, and $${NAME} for the shell's ${NAME}. The commands are a Go
# repository's: put your own in their place.
#
#   cairn run examples/fix-tests.hcl
version     = 1
description = "Run the tests; when they fail, fix the code until they pass"

worktree "work" {
  kind = "checkout" # your own working tree, refused when it has uncommitted changes
}

step "test" {
  description = "Run the tests; what fails is the next step's to fix"
  worktree    = "work"
  timeout     = "15m"
  env         = { GOFLAGS = "-count=1" }
  # A failing test is the next step's work, not a reason to stop here: the
  # script succeeds either way, and what the tests printed is its result.
  command = <<-EOT
    go test ./... 2>&1 | tail -n 100 || true
  EOT
}

step "fix" {
  description = "Make the failing tests pass"
  worktree    = "work"
  prompt      = <<-EOT
    The earlier result is the output of `go test ./...` in this working tree.
    Find why each failing test fails and fix the code. Change a test only
    when it is plainly wrong, and say so. End with a few lines on what you
    changed and why.
  EOT
  effort      = "high"
  max_turns   = 40
  timeout     = "30m"
  env         = { GOFLAGS = "-count=1" }

  precheck {
    # go test starts a line with FAIL for each package that fails.
    shells = ["grep -q '^FAIL' \"$${CAIRN_RESULTS}/test.md\" || exit $CHECK_SKIP"]
    whys   = ["Every test passes: there is nothing to fix"]
  }

  validate {
    shells   = ["go vet ./...", "go test ./..."]
    whys     = ["The fix is done when vet finds nothing and every test passes"]
    severity = "review" # send the agent back with what failed, at most twice
  }
}
