version = 1

step "build" {
  command = <<-EOT
    for f in *.go; do
      gofmt -l "$f"
    done
    if [ -f Makefile ]; then
      make (
    fi
  EOT
}

step "test" {
  command = "echo \"ok\" && go test ./... |"

  validate {
    shells = [
      "true",
      "case x in",
    ]
  }
}
