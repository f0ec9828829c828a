package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

// versionCmd is `cairn version`.
type versionCmd struct{}

// Run prints "cairn VERSION".
func (versionCmd) Run(a *app) error {
	return writeVersion(a.stdout)
}

// writeVersion writes "cairn VERSION", for cairn version and --version.
func writeVersion(w io.Writer) error {
	_, err := fmt.Fprintf(w, "cairn %s\n", version())
	return err
}

// stampedVersion is the release's version, set by the release build
// (.goreleaser.yaml: -ldflags "-X main.stampedVersion=v1.2.0"); empty in
// every other build.
var stampedVersion string

// version is the release's version a release build was stamped with, else
// the module version cairn was built at (go install …@v1.2.0), else the
// commit a build from a clone was made of, with "-dirty" when the clone had
// changes, else "devel" (go run and test builds record neither).
func version() string {
	if stampedVersion != "" {
		return stampedVersion
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return versionOf(bi)
}

// versionOf is version's reading of bi.
func versionOf(bi *debug.BuildInfo) string {
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var revision string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if revision == "" {
		return "devel"
	}
	if len(revision) > 12 {
		revision = revision[:12]
	}
	if dirty {
		revision += "-dirty"
	}
	return "devel-" + revision
}
