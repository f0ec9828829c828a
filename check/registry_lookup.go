package check

// lookupRules are the rules about finding processes and skills.
var lookupRules = []*Rule{
	ruleAmbiguousProcess,
	ruleProcessCycle,
	ruleSkillEscapes,
	ruleSkillNotFound,
	ruleUnknownProcess,
}
