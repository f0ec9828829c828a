version = 1

github {
  # HCL's own "${" is interpolation: "$${{" is a literal "${{".
  runs_on  = "\t$${{ matrix.os }}"
  schedule = ["0 3 * * $${{ vars.DAY }}"]
}

step "hello" {
  command = "echo hello"
}
