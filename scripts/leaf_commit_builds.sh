#!/usr/bin/env bash
# Per-commit build time of `bisect` / `compare --base-ref` (compare/base_ref.rs's Builder) over
# 8 commits that each touch only `engine` (a comment line in engine/src/lib.rs), on a clone of
# this repository: what cargo rebuilds now that the harness reads the commit at run time
# instead of embedding it (issue 26). The first build (cold: dependencies and every crate) is
# printed apart; then each commit's build in the kept worktree and target directory.
# A name filter matching nothing stops each compare right after its builds (exit 2).
#
# Usage: scripts/leaf_commit_builds.sh     env: WORK (default /tmp/leaf-commit-builds)
set -euo pipefail
ROOT=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
WORK=${WORK:-/tmp/leaf-commit-builds}
rm -rf "$WORK" && mkdir -p "$WORK"
cargo build --release -q -p harness --manifest-path "$ROOT/Cargo.toml"
H="${CARGO_TARGET_DIR:-$ROOT/target}/release/harness"
git clone -q "$ROOT" "$WORK/repo"
cd "$WORK/repo"
base=$(git rev-parse HEAD)
for i in 1 2 3 4 5 6 7 8; do
  echo "// leaf commit $i: engine only" >>engine/src/lib.rs
  git -c user.name=t -c user.email=t@t commit -qam "leaf commit $i: engine only"
done
export CARGO_TARGET_DIR="$WORK/target"
secs() { local s e; s=$(date +%s.%N); "$@" || true; e=$(date +%s.%N); echo "$e - $s" | bc; }
build() { # REF -> the seconds of its build (the working tree's is fresh after the first)
  secs bash -c '"$0" compare --base-ref "$1" --package scenarios --out "$2" no-such-scenario-matches >"$2.log" 2>&1; [ $? -eq 2 ]' \
    "$H" "$1" "$WORK/out-$(git rev-parse --short "$1")"
}
echo "commit $(git -C "$ROOT" rev-parse --short HEAD), $(nproc) cores, $(rustc --version), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "cold (base $(git rev-parse --short "$base"), dependencies and every crate, and the working tree): $(build "$base") s"
for i in 7 6 5 4 3 2 1 0; do
  c=$(git rev-parse "HEAD~$i")
  # What the build compiled: cargo's "Compiling" lines in the commit's build log.
  s=$(build "$c")
  log=$(ls "$CARGO_TARGET_DIR"/harness-builds/*/"$c"/scenarios/scenarios.build.log 2>/dev/null | head -1)
  crates=$(grep -o 'Compiling [a-z_-]*' "$log" 2>/dev/null | awk '{print $2}' | tr '\n' ' ')
  echo "$(git log -1 --format=%s "$c") ($(git rev-parse --short "$c")): $s s; compiled: ${crates:-nothing}; load $(cut -d' ' -f1 /proc/loadavg)"
done
