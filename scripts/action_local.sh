#!/usr/bin/env bash
# Runs action.yml's comment step locally: a fake GITHUB_* environment and a fake `gh` on PATH
# that records each request (and answers the comment listing from FAKE_GH_COMMENTS, a JSON
# array). Usage: action_local.sh OUT_DIR (a compare output directory holding compare.md).
# Prints the recorded requests; the body posted is OUT_DIR/comment.md.
set -euo pipefail
out=${1:?usage: action_local.sh OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT
cat >"$fake/gh" <<'GH'
#!/usr/bin/env bash
# Fake gh: records argv; `--jq` listings answer from FAKE_GH_COMMENTS through jq-less python.
printf '%s\n' "$*" >>"$FAKE_GH_LOG"
if [[ " $* " == *" --jq "* ]]; then
  printf '%s' "${FAKE_GH_COMMENTS:-[]}" | python3 -c '
import json, sys
for c in json.load(sys.stdin):
    if c["body"].startswith("<!-- harness-compare -->"):
        print(c["id"])'
fi
GH
chmod +x "$fake/gh"
export FAKE_GH_LOG="$out/gh-requests.log"
: >"$FAKE_GH_LOG"
export PATH="$fake:$PATH" GITHUB_REPOSITORY=example/repo PR_NUMBER=7 GITHUB_SHA=0123abc
export GITHUB_EVENT_NAME=pull_request GITHUB_BASE_REF=main
"$here/pr_comment.sh" "$out"
cat "$FAKE_GH_LOG"
