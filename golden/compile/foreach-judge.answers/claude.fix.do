printf "%s\n" "$CAIRN_ITEM" > ticket.json
