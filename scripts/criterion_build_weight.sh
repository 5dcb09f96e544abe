#!/usr/bin/env bash
# Build weight of the drop-in against criterion on one published crate: the crate's source from
# crates.io twice, unmodified (its own criterion) and with its criterion dependency switched to
# harness-criterion; per side the packages a bench build compiles (`cargo tree`) and the wall
# time of a cold `cargo bench --no-run` in a fresh CARGO_TARGET_DIR (sources fetched first, so
# no download is timed). Rounds alternate the order (ABBA) so a load change hits both sides.
# Then, unless J1=0, one cold `cargo bench --no-run -j1 --timings` per side: the sum of its unit
# times (unit-seconds) depends far less on other builds than wall time does, and the units are
# listed largest first. Output beside the printed lines: $OUT (default $WORK/out): <crate>-<side>-units-j1.txt.
# Usage: scripts/criterion_build_weight.sh [NAME@VERSION] [ROUNDS]   (default unicode-segmentation@1.12.0 2)
# Several crates, one command: for c in unicode-segmentation@1.12.0 bytecount@0.6.9; do ...; done
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
spec="${1:-unicode-segmentation@1.12.0}" rounds="${2:-2}"
name="${spec%@*}" version="${spec#*@}"
work="${WORK:-${TMPDIR:-/tmp}/criterion-build-weight}"
out="${OUT:-$work/out}"
mkdir -p "$out"
mkdir -p "$work/dl/src" && : > "$work/dl/src/lib.rs"
printf '[package]\nname = "dl"\nversion = "0.0.0"\nedition = "2021"\n[dependencies]\n%s = "=%s"\n' "$name" "$version" > "$work/dl/Cargo.toml"
rm -f "$work/dl/Cargo.lock" && cargo fetch -q --manifest-path "$work/dl/Cargo.toml"
src=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/"$name-$version" | head -1)
for side in criterion dropin; do rm -rf "${work:?}/$side" && cp -r "$src" "$work/$side"; done
# The one-line switch, as scripts/criterion_real_crates.sh makes it.
python3 - "$work/dropin/Cargo.toml" "$repo/criterion-compat" <<'PY'
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
cp "$repo/Cargo.lock" "$work/dropin/Cargo.lock"
for side in criterion dropin; do cargo fetch -q --manifest-path "$work/$side/Cargo.toml"; done
count() { # packages in the bench build (normal+build edges, plus the crate's dev-dependencies)
  (cd "$work/$1" && cargo tree -q -e normal,build,dev --prefix none | sed 's/ (\*)//; s/ (proc-macro)//' | sort -u | wc -l)
}
lib() { # packages under the criterion dependency alone
  (cd "$work/$1" && cargo tree -q -e normal,build,dev --prefix none -p "$2" | sed 's/ (\*)//; s/ (proc-macro)//' | sort -u | wc -l)
}
crit=$(cd "$work/criterion" && cargo tree -q -e dev --depth 1 --prefix none | grep '^criterion ' | head -1 | awk '{print $1"@"substr($2,2)}')
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(rustc --version)"
echo "packages: criterion side $(count criterion) ($crit alone: $(lib criterion "$crit")), drop-in side $(count dropin) (harness-criterion alone: $(lib dropin harness-criterion))"
build() {
  rm -rf "$work/target-$1"
  local t0 t1
  t0=$(date +%s.%N)
  (cd "$work/$1" && CARGO_TARGET_DIR="$work/target-$1" cargo bench -q --no-run >"$work/$1-build.log" 2>&1) || { echo "$1: build failed, see $work/$1-build.log"; exit 1; }
  t1=$(date +%s.%N)
  printf '%s: cold cargo bench --no-run %.1f s (load before %s)\n' "$1" "$(echo "$t1 - $t0" | bc)" "$2"
  rm -rf "$work/target-$1"
}
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) = 1 ]; then order="criterion dropin"; else order="dropin criterion"; fi
  for side in $order; do build "$side" "$(cut -d' ' -f1 /proc/loadavg)"; done
done
[ "${J1:-1}" = 0 ] && exit 0
units() { # SIDE: one cold -j1 build with --timings; its units, largest first, into $out
  rm -rf "$work/target-$1"
  (cd "$work/$1" && CARGO_TARGET_DIR="$work/target-$1" cargo bench -q --no-run -j1 --timings >"$work/$1-build.log" 2>&1) || { echo "$1: -j1 build failed, see $work/$1-build.log"; exit 1; }
  python3 - "$work/target-$1/cargo-timings/cargo-timing.html" "$1" "$name@$version" "$out/$name-$1-units-j1.txt" <<'PY'
import json, re, sys
html, side, spec, dest = sys.argv[1:]
units = json.loads(re.search(r"const UNIT_DATA = (\[.*?\]);", open(html).read(), re.S).group(1))
units.sort(key=lambda u: -u["duration"])
total = sum(u["duration"] for u in units)
lines = [f"# {spec}, {side} side: cold cargo bench --no-run -j1 --timings (scripts/criterion_build_weight.sh)",
         f"total unit seconds: {total:.1f} ({len(units)} units)"]
lines += [f"{u['duration']:7.1f}  {u['name']} {u['version']} {u['target'].strip()}" for u in units]
open(dest, "w").write("\n".join(lines) + "\n")
print(f"{side}: -j1 unit-seconds {total:.1f} ({len(units)} units; largest: " +
      ", ".join(f"{u['name']} {u['duration']:.1f}" for u in units[:4]) + f"; list in {dest})")
PY
  rm -rf "$work/target-$1"
}
for side in criterion dropin; do units "$side"; done
