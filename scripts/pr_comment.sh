#!/usr/bin/env bash
# Posts compare.md of a compare output directory as ONE pull-request comment, updating the
# previous one (found by a hidden marker) instead of adding another at every push.
# Usage: pr_comment.sh OUT_DIR   (needs GITHUB_REPOSITORY, PR_NUMBER and `gh` authenticated)
# Writes the body it posts to OUT_DIR/comment.md, so a run can be checked without GitHub.
set -euo pipefail
out=${1:?usage: pr_comment.sh OUT_DIR}
: "${GITHUB_REPOSITORY:?GITHUB_REPOSITORY is not set}"
: "${PR_NUMBER:?PR_NUMBER is not set (the pull request to comment on)}"
marker='<!-- harness-compare -->'
limit=65536 # GitHub refuses a longer comment body ("Body is too long")
md="$out/compare.md"
if [[ ! -f $md ]]; then
  echo "pr_comment.sh: $md does not exist (did compare run?)" >&2
  exit 2
fi
body="$marker"$'\n'"$(cat "$md")"
if ((${#body} > limit)); then
  # compare.md is meant to fit already; cut at a line and say so rather than be refused.
  note=$'\n\n_Cut to fit a GitHub comment: the full comparison is in the run\'s artifact._'
  body=$(printf '%s' "${body:0:$((limit - ${#note}))}" | sed '$d')"$note"
fi
printf '%s' "$body" >"$out/comment.md"
api="repos/$GITHUB_REPOSITORY/issues"
id=$(gh api --paginate "$api/$PR_NUMBER/comments" \
  --jq ".[] | select(.body | startswith(\"$marker\")) | .id" | head -n 1)
if [[ -n $id ]]; then
  gh api --method PATCH "$api/comments/$id" -F "body=@$out/comment.md" >/dev/null
  echo "updated comment $id"
else
  gh api --method POST "$api/$PR_NUMBER/comments" -F "body=@$out/comment.md" >/dev/null
  echo "posted a new comment"
fi
