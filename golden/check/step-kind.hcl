version = 1

step "nothing" {
  description = "does nothing"
}

step "both" {
  skill   = "cairn-bug-hunt"
  command = "make"
}
