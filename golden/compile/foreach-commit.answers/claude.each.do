printf "%s\n" "$CAIRN_ITEM" >item.txt
