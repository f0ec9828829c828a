package harness

// KeyVariables are the environment variables in which the built-in CLIs
// read an API key or a login token: each of Keys' Env and the others their
// providers document (codex's OPENAI_API_KEY, gemini's GOOGLE_API_KEY,
// claude's token variables). They reach a session's CLI alone: a step's
// shells (its commands, precheck and validate) run without those the user's
// environment holds, in `cairn run`, in a compiled script and in a
// workflow, so that what a shell prints, which the run folder keeps, cannot
// show one. A key the step's own env sets is given as written. A custom
// harness's CLI may read others, which cairn cannot know.
var KeyVariables = []string{
	"ANTHROPIC_API_KEY",
	"ANTHROPIC_AUTH_TOKEN",
	"CLAUDE_CODE_OAUTH_TOKEN",
	"CODEX_API_KEY",
	"OPENAI_API_KEY",
	"GEMINI_API_KEY",
	"GOOGLE_API_KEY",
	"GOOGLE_GENERATIVE_AI_API_KEY",
	"OPENROUTER_API_KEY",
}
