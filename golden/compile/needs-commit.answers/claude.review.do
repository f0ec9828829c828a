echo "notes for review" > notes.txt
