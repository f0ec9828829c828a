// Package codegen compiles a plan into an artifact that does what `cairn
// run` does without cairn: one Target per kind, in a registry that `cairn
// compile --target` looks up; bash first (§9), rendered through
// text/template.
package codegen
