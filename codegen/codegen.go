// Package codegen renders a plan as shell artifacts through text/template,
// bash first (§9).
package codegen
