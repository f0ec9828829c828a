# The report session opens an issue with gh: under cairn run and the
# script gh itself, in a workflow the stand-in its job's publish job replays.
gh label create bug --color d73a4a --force >/dev/null
url=$(gh issue create --label bug --title "Flaky test" --body "TestSync fails one run in ten.")
printf 'Opened the issue.\n\n<%s>.\n' "$url" >"$FAKE_MESSAGE"
