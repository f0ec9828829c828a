# The spec session publishes issue 10, labelled spec, now.
cat >"$FAKE_GH_STATE/issues/10.json" <<JSON
{"number": 10, "title": "Export notes as PDF", "body": "Let users export their notes.", "author": "alice",
 "labels": ["spec"], "createdAt": "$(date -u +%Y-%m-%dT%H:%M:%SZ)", "comments": []}
JSON
