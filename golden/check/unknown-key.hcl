version = 1

step "test" {
  commnd = "go test ./..."
}

step "lint" {
  command = "go vet ./..."

  valdate {
    shells = ["true"]
  }
}

stpe "later" {
  command = "true"
}
