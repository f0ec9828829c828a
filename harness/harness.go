// Package harness holds the agent-CLI adapters of §8: the registry of
// built-in and custom harnesses, their argv, their final message, and their
// preflight.
package harness

// Registry is a placeholder until the registry lands.
type Registry struct{}
