// Package templates holds the embedded text/template files of cairn's
// compiled artifacts: the bash script and the GitHub Actions workflow.
package templates
