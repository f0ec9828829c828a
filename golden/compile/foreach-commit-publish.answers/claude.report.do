# Each item's session opens an issue about its test with gh: under cairn run and the script gh
# itself, in a workflow the stand-in of its item's job, which the step's publish job replays.
test=$(jq -r . <<<"$CAIRN_ITEM")
gh label create bug --color d73a4a --force >/dev/null
url=$(gh issue create --label bug --title "Flaky $test" --body "$test fails one run in ten.")
printf 'Opened the issue about %s: #%s.\n\n<%s>.\n' "$test" "${url##*/}" "$url" >"$FAKE_MESSAGE"
