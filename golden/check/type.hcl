version = 1

limits = {
  repair_cap = 2
}

step "review" {
  prompt    = "Review the change."
  max_turns = "thirty"
  optional  = "yes"
  timeout   = 90

  env {
    GOFLAGS = "-count=1"
  }
}

step {
  command = "true"
}
