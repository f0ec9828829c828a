version = 1

step "build" {
  command = "make
}
