#!/usr/bin/env bash
# Issue 27 on a real crate's change: itoa's criterion bench (benches/bench.rs of itoa 1.0.19,
# on harness-criterion through the one-line switch of scripts/criterion_real_crates.sh) built
# against itoa 1.0.9's src/ (baseline) and 1.0.19's (candidate), then `compare --counters`.
# Usage: docs/explain-2026-12-05/itoa.sh   (WORK defaults to /tmp/explain-itoa)
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
work="${WORK:-/tmp/explain-itoa}"
reg=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/ | head -1)
export CARGO_TARGET_DIR="$work/target"
mkdir -p "$work"
for side in base cand; do
  dir="$work/$side"
  rm -rf "$dir" && cp -r "$reg/itoa-1.0.19" "$dir"
  if [ "$side" = base ]; then rm -rf "$dir/src" && cp -r "$reg/itoa-1.0.9/src" "$dir/src"; fi
  python3 - "$dir/Cargo.toml" "$repo/criterion-compat" <<'PY'
import re, sys
path, compat = sys.argv[1], sys.argv[2]
text = open(path).read()
header = re.search(r'^\[(?:target\.[^\n]*\.)?dev-dependencies\.criterion\]\n', text, re.M)
body_end = text.find("\n[", header.end())
body = text[header.end():body_end if body_end >= 0 else len(text)]
new = re.sub(r'^version = .*$', f'package = "harness-criterion"\nversion = "0.1"\npath = "{compat}"', body, count=1, flags=re.M)
open(path, "w").write(text[:header.end()] + new + text[header.end() + len(body):])
PY
  cp "$repo/Cargo.lock" "$dir/Cargo.lock"
  (cd "$dir" && nice -n 19 cargo bench --no-run --bench bench 2>&1 | tail -2)
  exe=$(ls -t "$CARGO_TARGET_DIR"/release/deps/bench-* | grep -v '\.d$' | head -1)
  cp "$exe" "$work/bench-$side"
done
"$repo/target/release/harness" compare --baseline "$work/bench-base" --candidate "$work/bench-cand" \
  --counters=valgrind --runs 3 --seed 1 --out "$work/compare" "$@"
