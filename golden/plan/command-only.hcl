version     = 1
description = "Format, vet and test, with no agent"
run_expiry  = "7d"

worktree "build" {
  kind = "throwaway"
}

step "fmt" {
  command  = "test -z \"$(gofmt -l .)\""
  worktree = "build"
}

step "vet" {
  command  = "go vet ./..."
  worktree = "build"
  timeout  = "10m"
}

step "test" {
  description = "Run every test twice"
  command     = <<-EOT
    go test -count=1 ./...
    go test -race -count=1 ./...
  EOT
  worktree    = "build"
  timeout     = "30m"
  optional    = true
  env         = { GOFLAGS = "-mod=mod", CGO_ENABLED = "1" }
}
