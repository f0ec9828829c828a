package main

import (
	"fmt"
	"runtime/debug"
)

// versionCmd is `cairn version`.
type versionCmd struct{}

// Run prints "cairn VERSION".
func (versionCmd) Run(a *app) error {
	_, err := fmt.Fprintf(a.stdout, "cairn %s\n", version())
	return err
}

// version is the module version cairn was built at, or "devel".
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}
