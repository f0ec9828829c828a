// Package templates holds cairn's embedded text/template files and the views
// that render a check report and a plan as text, JSON, SARIF and GitHub
// annotations.
package templates

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
