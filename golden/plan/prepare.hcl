# A worktree readied before its first step: local files copied from the
# checkout, then a setup script.
version     = 1
description = "Test in a worktree that has the checkout's .env and its dependencies"

worktree "test" {
  kind          = "throwaway"
  copy          = [".env", "config/**/*.local.yml"]
  setup         = <<-EOT
    go mod download
  EOT
  setup_timeout = "5m"
}

step "test" {
  worktree = "test"
  command  = "go vet ./..."
}
