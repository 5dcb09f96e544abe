#!/usr/bin/env bash
# Build costs of `compare --base-ref` / `bisect` (compare/base_ref.rs) on this machine, printed
# as figures:
#   first   `compare --base-ref $REF --package scenarios`, no commit built before (cold
#           harness-builds/: dependencies and every crate compile once)
#   second  the same command again: REF's binary comes from the per-commit cache
#   next    the same with $NEXT: the fixed worktree is checked out at NEXT and only the crates
#           whose files changed rebuild
#   fresh   the alternative the builder does not use (and the old --base-ref did): from REF's
#           build, NEXT in a new worktree of its own, built into the same kept target directory
#           (every workspace crate rebuilds: all its files are new)
# The working tree's release build is made first, so the candidate side costs only cargo's
# freshness check in every row. A name filter matching nothing stops each compare right after
# its builds (exit 2), so the times are the builds alone.
#
# Usage: scripts/build_cache_timing.sh      env: REF=HEAD~1 NEXT=HEAD~2 KEEP=1 (keep harness-builds/)
set -euo pipefail
ROOT=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
cd "$ROOT"
REF=${REF:-HEAD~1}
NEXT=${NEXT:-HEAD~2}
T=${CARGO_TARGET_DIR:-$ROOT/target}
cargo build --release -q -p harness -p scenarios
H="$T/release/harness"
[ "${KEEP:-}" = 1 ] || rm -rf "$T/harness-builds"
secs() { local s e ok=""; s=$(date +%s.%N); "$@" >/dev/null 2>&1 || ok=" (FAILED)"; e=$(date +%s.%N); echo "$(echo "$e - $s" | bc)$ok"; }
# Exit 2 (no scenario matches) is the expected end of each compare: its builds succeeded.
cmp() { secs bash -c '"$0" "$@" >/dev/null 2>&1; [ $? -eq 2 ]' "$H" compare --base-ref "$1" --package scenarios --out "$T/tmp/build-timing" no-such-scenario-matches; }
echo "commit $(git rev-parse --short HEAD), REF=$REF ($(git rev-parse --short "$REF")), NEXT=$NEXT ($(git rev-parse --short "$NEXT")), $(nproc) cores"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "first  $(cmp "$REF") s"
echo "second $(cmp "$REF") s"
echo "next   $(cmp "$NEXT") s"
# fresh: back to REF's build in the kept worktree (untimed), then NEXT in a worktree of its own
# into the same target directory, as the old per-comparison temporary worktree did.
repo=$(ls -d "$T"/harness-builds/repos/*/ | head -1)
(cd "${repo}tree" && git checkout -q --detach --force "$REF" && CARGO_TARGET_DIR="${repo}target" cargo build --release -q -p scenarios --bin scenarios)
fresh="$T/tmp/build-timing-fresh-$$"
git worktree add -q --detach "$fresh" "$NEXT"
echo "fresh  $(cd "$fresh" && secs env CARGO_TARGET_DIR="${repo}target" cargo build --release -p scenarios --bin scenarios) s"
git worktree remove --force "$fresh"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
