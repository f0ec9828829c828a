// Package views renders what cairn reports: a check's diagnostics and plans
// as text, JSON, SARIF and GitHub annotations, the rules, the process files
// of `cairn list`, and the runs of `cairn status` and `cairn show`.
package views
