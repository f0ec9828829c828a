version     = 1
description = upper("review")

worktree "build" {
  kind = throwaway
}

step "test" {
  command  = "go test ./... && echo ${HOME}"
  worktree = "build"
  timeout  = var.timeout
  env      = { GOFLAGS = "-count=${count}", CGO_ENABLED = true ? "1" : "0" }
}

step "report" {
  prompt = <<-EOT
    Summarise the run.
    %{ if verbose }Name every test.%{ endif }
  EOT
}
