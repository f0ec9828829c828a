printf "%s\n" "$CAIRN_ITEM" >part.json
head -n 1 .cairn-issue.md >>part.json
