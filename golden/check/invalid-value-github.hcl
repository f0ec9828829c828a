version = 1

github {
  runs_on         = ""
  schedule        = ["0 3 * * 7", "61 * * * *"]
  timeout_minutes = -5
  push_token      = "my-token"
}

step "hello" {
  command = "echo hello"
}
