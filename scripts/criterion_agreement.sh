#!/usr/bin/env bash
# Agreement with criterion on real crates (issue 25): each crate's criterion benches built twice,
# with criterion 0.5 and with harness-criterion (the one-line dependency switch), and run back to
# back on this machine, bench binary by bench binary: criterion first
# (`--warm-up-time W --measurement-time M --noplot`), then the drop-in with its defaults
# (`--bench`, as `cargo bench` runs it). scripts/criterion_agreement.py joins the ids and writes
# the table: criterion's median against ours, the ratio, and our status (a flagged row gives
# its reason).
#
# Usage: scripts/criterion_agreement.sh [CRATE ...]   (default: bytecount unicode-segmentation dary_heap)
# Env: WORK (default /tmp/criterion-agreement), W=0.5 M=1 (criterion's seconds), OUT (default
# docs/criterion-agreement-<date>), DARY_SIZES (dary_heap's sizes, default up to 100 000: its
# 1 000 000 and 10 000 000 take criterion minutes per id to set up).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${WORK:-/tmp/criterion-agreement}"
out="${OUT:-$repo/docs/criterion-agreement-$(date +%F)}"
W="${W:-0.5}" M="${M:-1}"
DARY_SIZES="${DARY_SIZES:-10, 100, 1_000, 10_000, 100_000}"
crates=("$@")
[ ${#crates[@]} -gt 0 ] || crates=(bytecount unicode-segmentation dary_heap)
mkdir -p "$work" "$out"

fetch_crate() { # NAME VERSION -> prints the registry source directory
  mkdir -p "$work/dl/src" && : > "$work/dl/src/lib.rs"
  printf '[package]\nname = "dl"\nversion = "0.0.0"\nedition = "2021"\n[dependencies]\n%s = "=%s"\n' "$1" "$2" > "$work/dl/Cargo.toml"
  rm -f "$work/dl/Cargo.lock" && cargo fetch -q --manifest-path "$work/dl/Cargo.toml"
  ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/"$1-$2" | head -1
}

# The criterion dependency, in either spelling (`criterion = "0.5"` or a [..criterion] table),
# as criterion 0.5 (side crit) or harness-criterion (side dropin).
switch() { # MANIFEST SIDE
  python3 - "$1" "$2" "$repo/criterion-compat" <<'PY'
import re, sys
path, side, compat = sys.argv[1:]
text = open(path).read()
if side == "crit":
    want = 'version = "0.5"'
else:
    want = f'package = "harness-criterion"\nversion = "0.1"\npath = "{compat}"'
table = re.search(r'^\[(?:target\.[^\n]*\.)?dev-dependencies\.criterion\]\n', text, re.M)
if table:
    end = text.find("\n[", table.end())
    body = text[table.end():end if end >= 0 else len(text)]
    new = re.sub(r'^version = .*$', want, body, count=1, flags=re.M)
    text = text[:table.end()] + new + text[table.end() + len(body):]
else:
    inline = want.replace("\n", ", ")
    text, n = re.subn(r'^criterion = .*$', f'criterion = {{ {inline} }}', text, count=1, flags=re.M)
    assert n == 1, "no criterion dependency"
open(path, "w").write(text)
PY
}

prepare() { # CRATE -> sets $src (crate dir inside the copy) per side under $work/$CRATE/{crit,dropin}
  local crate=$1 base
  case $crate in
    bytecount) base=$(fetch_crate bytecount 0.6.9) ;;
    unicode-segmentation) base=$(fetch_crate unicode-segmentation 1.12.0) ;;
    dary_heap)
      base="$work/dary_heap-src"
      if [ ! -d "$base" ]; then
        git clone -q --depth 1 https://github.com/hanmertens/dary_heap "$base" 2>/dev/null ||
          git clone -q /work/.mirror/hanmertens+dary_heap/repo "$base"
      fi ;;
    *) echo "unknown crate $crate" >&2; exit 2 ;;
  esac
  for side in crit dropin; do
    rm -rf "${work:?}/$crate/$side" && mkdir -p "$work/$crate" && cp -r "$base" "$work/$crate/$side"
    local dir="$work/$crate/$side"
    [ "$crate" = dary_heap ] && dir="$dir/criterion" &&
      sed -i "s/for &i in &\[10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000\]/for \&i in \&[$DARY_SIZES]/" "$dir/dary_heap.rs"
    switch "$dir/Cargo.toml" "$side"
  done
}

bench_exes() { # DIR SIDE -> bench executables, one a line
  (cd "$1" && CARGO_TARGET_DIR="$work/target-$2" cargo bench --no-run --message-format json 2>/dev/null) |
    python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and "bench" in m["target"]["kind"] and m.get("executable"):
        print(m["executable"])'
}

host="$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(rustc --version)"
for crate in "${crates[@]}"; do
  prepare "$crate"
  crit="$work/$crate/crit" dropin="$work/$crate/dropin"
  [ "$crate" = dary_heap ] && crit="$crit/criterion" dropin="$dropin/criterion"
  mapfile -t cexes < <(bench_exes "$crit" crit)
  mapfile -t dexes < <(bench_exes "$dropin" dropin)
  echo "== $crate: ${#cexes[@]} bench binaries; $host; load $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$out/$crate.log"
  rm -rf "$work/$crate/criterion-home" "$work/$crate/ours"
  for i in "${!cexes[@]}"; do
    name=$(basename "${cexes[$i]}" | sed 's/-[0-9a-f]*$//')
    # The drop-in's binary of the same bench target.
    dexe=$(printf '%s\n' "${dexes[@]}" | grep "/$name-" | head -1)
    start=$(date +%s)
    (cd "$crit" && CRITERION_HOME="$work/$crate/criterion-home" /usr/bin/time -f "criterion $name peak_rss_kb %M wall_s %e" \
      "${cexes[$i]}" --bench --noplot --warm-up-time "$W" --measurement-time "$M" >"$out/$crate-$name-criterion.txt" 2>&1) \
      2>>"$out/$crate.log" || echo "criterion $name exited $?" | tee -a "$out/$crate.log"
    mid=$(date +%s)
    (cd "$dropin" && /usr/bin/time -f "dropin $name peak_rss_kb %M wall_s %e" \
      "$dexe" --bench --out "$work/$crate/ours/$name" >"$out/$crate-$name-dropin.txt" 2>&1) \
      2>>"$out/$crate.log" || echo "drop-in $name exited $?" | tee -a "$out/$crate.log"
    echo "$name: criterion $((mid - start)) s, drop-in $(($(date +%s) - mid)) s" | tee -a "$out/$crate.log"
  done
  python3 "$repo/scripts/criterion_agreement.py" "$crate" "$work/$crate/criterion-home" "$work/$crate/ours" \
    >"$out/$crate.md"
  tail -5 "$out/$crate.md"
done
