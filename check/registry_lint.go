package check

// lintRules are the rules that depend on the file alone.
var lintRules = []*Rule{}
