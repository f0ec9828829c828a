// Package views renders what cairn reports: a check's diagnostics and plans
// as text, JSON, SARIF and GitHub annotations, the rules, the process files
// of `cairn list`, and the runs of `cairn status` and `cairn show`.
package views

import (
	"embed"
	"sync"
	"text/template"
)

// files are the embedded templates of this package's views.
//
//go:embed plan.txt.tmpl
var files embed.FS

// planTemplate parses plan.txt.tmpl once, on first use.
var planTemplate = sync.OnceValues(func() (*template.Template, error) {
	return template.New("plan.txt.tmpl").Funcs(styleFuncs(Style{})).ParseFS(files, "plan.txt.tmpl")
})
