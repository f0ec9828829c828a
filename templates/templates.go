// Package templates holds cairn's embedded text/template files and the views
// that render a check report and a plan as text, JSON, SARIF and GitHub
// annotations.
package templates
