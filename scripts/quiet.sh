#!/usr/bin/env bash
# Run one command with every other process on the machine stopped (SIGSTOP) and continued after:
# on a shared 2-core machine a build on the other core moves a measurement 2-3x, on one side
# only. A freezer loop, not a snapshot, so processes started meanwhile are stopped too. Kept
# running: this script's own tree, pid 1, kernel threads, and processes started with
# AGREEMENT_KEEP=1 in their environment (a shell watching the run).
# Usage: scripts/quiet.sh COMMAND [ARGS...]
set -euo pipefail
# One freezer at a time: two would stop each other. The lock is taken before freezing, so a
# second caller waits (stopped by the first freezer meanwhile) and starts after it.
exec 9>"${TMPDIR:-/tmp}/harness-freezer.lock"
flock 9
log=$(mktemp)
python3 "$(dirname "$0")/freezer.py" "$$" "$log" &
freezer=$!
resume() {
  kill "$freezer" 2>/dev/null || true
  sort -u "$log" | xargs -r kill -CONT 2>/dev/null || true
  rm -f "$log"
}
trap resume EXIT
sleep 2
echo "quiet: paused $(sort -u "$log" | wc -l) other processes; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
"$@"
