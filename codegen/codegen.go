// Package codegen compiles a plan into an artifact that does what `cairn
// run` does without cairn: one Target per kind, in a registry that `cairn
// compile --target` looks up; a bash script (docs/design.md §9), and a GitHub Actions
// workflow whose jobs run that script's steps, rendered through
// text/template.
package codegen
