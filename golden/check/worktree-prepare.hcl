# Mistakes in worktrees' copy and setup: each refused at its own position.
version = 1

worktree "mine" {
  kind = "checkout"
  copy = [".env"]
}

worktree "scratch" {
  kind  = "throwaway"
  copy  = [".env", "../secrets/*.key", "/etc/passwd", "config/[a-"]
  setup = <<-EOT
    npm ci
    if [ -f .env ]; then
      echo ready
  EOT
  setup_timeout = "soon"
}

step "look" {
  worktree = "scratch"
  command  = "cat .env"
}

step "edit" {
  worktree = "mine"
  command  = "true"
}
