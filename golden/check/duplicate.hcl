version = 1

worktree "a" {
  kind = "throwaway"
}

worktree "a" {
  kind = "checkout"
}

step "build" {
  command  = "make"
  worktree = "a"
}

step "build" {
  command  = "make test"
  command  = "make check"
  worktree = "a"
}
