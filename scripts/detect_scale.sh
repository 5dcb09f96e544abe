#!/usr/bin/env bash
# The figures of docs/detect-scale.md (issue 21): detect against 20 random libtest orders of the
# same binaries, OD precision/recall, flaky recall and culprits against the old schedule, a
# scaling table of generated binaries, and two real crates before and after.
#
#   scripts/detect_scale.sh [OUT] [corpus|scale|crates|family|bad ...]   (default: all five)
#
# `family` (issue 29): 8 tests that each install a process-global once, 20 independent ones.
# `bad` (issue 29): a binary whose tests all fail alone, a test that hangs only after one
# predecessor, N/2 polluters with one victim each (BAD_SIZES, BAD_TIMEOUT: scripts/detect_scale.py).
# Issue 29's figures, in one command (release build; 5 seeds, medians of per-seed ratios):
#   SEEDS="1 2 3 4 5" scripts/detect_scale.sh docs/detect-scale-2026-12-06 family corpus bad
#
# OUT defaults to docs/detect-scale-<today>/. The old side is the harness of BASE (default
# main), built from `git archive` into target/detect-scale-base/ unless OLD_HARNESS names one.
# `crates` needs DOTENVY_DIR and INTERNMENT_DIR (checkouts; built here with `cargo test
# --no-run`; INTERNMENT_FEATURES defaults to "arc", which brings the 35 s test). SEEDS, SIZES
# and OLD_UP_TO are passed on to scripts/detect_scale.py.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${1:-docs/detect-scale-$(date -u +%F)}
shift || true
WHAT=${*:-corpus scale crates family bad}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

cargo build --release --quiet -p harness -p harness_interpose
export NEW=$ROOT/target/release/harness

if [ -z "${OLD_HARNESS:-}" ]; then
    BASE=${BASE:-main}
    src=$ROOT/target/detect-scale-base/src
    rm -rf "$src" && mkdir -p "$src"
    git archive "$BASE" | tar -x -C "$src"
    (cd "$src" && CARGO_TARGET_DIR=$ROOT/target/detect-scale-base/target cargo build --release --quiet -p harness -p harness_interpose)
    OLD_HARNESS=$ROOT/target/detect-scale-base/target/release/harness
fi
export OLD=$OLD_HARNESS

# The test binaries cargo built, by target name.
test_bins() {
    cargo test --no-run --message-format=json "$@" 2>/dev/null |
        python3 -c 'import json,sys
for l in sys.stdin:
    m=json.loads(l)
    if m.get("reason")=="compiler-artifact" and m.get("executable") and m["profile"]["test"]: print(m["executable"])'
}
# Those that list at least one test (a proc-macro crate's test binary needs libstd at run time).
with_tests() {
    while read -r b; do
        if n=$("$b" --list --format terse 2>/dev/null | grep -c ': test$') && [ "$n" -gt 0 ]; then echo "$b"; fi
    done
}
export FIXTURE_PLANTED=$(test_bins -p harness --test fixture_planted | grep fixture_planted)
export FIXTURE_MECHANISM=$(test_bins -p harness --test fixture_mechanism | grep fixture_mechanism)
export GEN_DIR=$ROOT/target/detect-scale-gen
mkdir -p "$GEN_DIR"

{
    echo "# $(date -u +%FT%TZ) new: $(git rev-parse --short HEAD) (this tree), old: ${BASE:-$OLD}"
    echo "# $(uname -srm), $(nproc) cores, $(rustc -V)"
    echo "# uptime at start: $(uptime)"
} > "$OUT/host.txt"

for what in $WHAT; do
    case $what in
        crates)
            export DOTENVY_BINS=$(cd "$DOTENVY_DIR" && test_bins --workspace | with_tests | tr '\n' ' ')
            export INTERNMENT_BINS=$(cd "$INTERNMENT_DIR" && test_bins --features "${INTERNMENT_FEATURES:-arc}" | with_tests | tr '\n' ' ')
            export DOTENVY_CWD=$DOTENVY_DIR/dotenvy INTERNMENT_CWD=$INTERNMENT_DIR
            ;;
    esac
    python3 scripts/detect_scale.py "$what" "$OUT"
done
