# The fix session changes a file on the ticket's branch.
printf '// fixed: %s\n' "$CAIRN_ISSUE_URL" >>main.go
