#!/usr/bin/env bash
# Real crates' criterion benchmarks on harness-criterion: each crate's published source from
# crates.io, unmodified except its criterion dependency line, under `cargo test --benches` and
# `cargo bench`. Usage: scripts/criterion_real_crates.sh [NAME@VERSION ...]
# Work (sources, shared target dir, run directories) goes to $WORK (default
# ${TMPDIR:-/tmp}/criterion-real-crates), outside this workspace so each crate is its own root.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${WORK:-${TMPDIR:-/tmp}/criterion-real-crates}"
crates=("$@")
[ ${#crates[@]} -gt 0 ] || crates=(itoa@1.0.19 ryu@1.0.23 semver@1.0.28 crc32fast@1.5.6 base64@0.22.1)
mkdir -p "$work/dl/src"
export CARGO_TARGET_DIR="$work/target"
: > "$work/dl/src/lib.rs"
for spec in "${crates[@]}"; do
  name="${spec%@*}" version="${spec#*@}"
  # Fetch the published package with cargo itself: a throwaway crate that depends on it.
  printf '[package]\nname = "dl"\nversion = "0.0.0"\nedition = "2021"\n[dependencies]\n%s = "=%s"\n' \
    "$name" "$version" > "$work/dl/Cargo.toml"
  rm -f "$work/dl/Cargo.lock"
  cargo fetch -q --manifest-path "$work/dl/Cargo.toml"
  src=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/"$name-$version" | head -1)
  dir="$work/$name-$version"
  rm -rf "$dir" && cp -r "$src" "$dir"
  # The one-line switch: criterion's dependency table now names harness-criterion.
  python3 - "$dir/Cargo.toml" "$repo/criterion-compat" <<'PY'
import re, sys
path, compat = sys.argv[1], sys.argv[2]
text = open(path).read()
header = re.search(r'^\[(?:target\.[^\n]*\.)?dev-dependencies\.criterion\]\n', text, re.M)
assert header, "no [dev-dependencies.criterion] table"
body_end = text.find("\n[", header.end())
body = text[header.end():body_end if body_end >= 0 else len(text)]
new = re.sub(r'^version = .*$', f'package = "harness-criterion"\nversion = "0.1"\npath = "{compat}"', body, count=1, flags=re.M)
open(path, "w").write(text[:header.end()] + new + text[header.end() + len(body):])
PY
  cp "$repo/Cargo.lock" "$dir/Cargo.lock"
  echo "== $spec: cargo test --benches"
  if (cd "$dir" && cargo test -q --benches 2>&1 | tail -4); then test_ok=yes; else test_ok=no; fi
  echo "== $spec: cargo bench --bench '*' -- --repeat 3 --iterations 5"
  if (cd "$dir" && cargo bench -q --bench '*' -- --repeat 3 --iterations 5 --warmup 2 --out "$work/$name-$version-run" >"$work/$name-$version-bench.txt" 2>&1); then bench_ok=yes; else bench_ok=no; fi
  tail -3 "$work/$name-$version-bench.txt"
  echo "== $spec: test --benches ok: $test_ok, bench ok: $bench_ok, table in $work/$name-$version-bench.txt"
done
