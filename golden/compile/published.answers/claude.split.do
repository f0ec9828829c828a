# The split session opens tickets 11 and 12 and lists them in the spec.
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
for n in 11 12; do
  cat >"$FAKE_GH_STATE/issues/$n.json" <<JSON
{"number": $n, "title": "Ticket $n of the spec", "body": "Part of #10.", "author": "alice", "labels": [], "createdAt": "$now", "comments": []}
JSON
done
cat >"$FAKE_GH_STATE/issues/10.json" <<JSON
{"number": 10, "title": "Export notes as PDF", "body": "Let users export their notes.\n\n- [ ] #11 Render\n- [ ] #12 Download\n- [x] #13 Done already\n",
 "author": "alice", "labels": ["spec"], "createdAt": "$now", "comments": []}
JSON
