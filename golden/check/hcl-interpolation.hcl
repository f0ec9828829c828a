version = 1

step "clean" {
  # In HCL, ${…} is interpolation: the shell's own ${HOME} is written $${HOME}.
  command = "rm -rf ${HOME}/.cache/build"
}

step "kept" {
  command = "rm -rf $${HOME}/.cache/build"
}
