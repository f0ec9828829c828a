version          = 1
default_worktree = "main"

worktree "scratch" {
  kind = "throwaway"
}

step "build" {
  command  = "make"
  worktree = "scrach"
}
