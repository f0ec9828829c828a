version     = 1
description = "Typed outputs in the plan"

step "scan" {
  command       = "echo '{\"count\": 2}' > \"$CAIRN_OUTPUT\""
  output_schema = { type = "object", required = ["count"], properties = { count = { type = "integer", minimum = 0 } } }
}

step "triage" {
  prompt        = "Triage."
  harness       = "gemini"
  output_schema = { type = "object", properties = { severity = { enum = ["low", "high"] } } }
}
