#!/usr/bin/env bash
# Agreement with criterion on real crates (issue 25): each crate's criterion benches built twice,
# with criterion 0.5 and with harness-criterion (the one-line dependency switch), and run back to
# back on this machine, bench binary by bench binary: criterion first, each id in its own process
# (`--exact ID --warm-up-time W --measurement-time M --noplot`) between two readings of the
# harness's speed probe, CRITERION_RUNS times, and up to CRITERION_MAX_RUNS for ids none of whose
# runs met the machine at full speed; then the drop-in with its defaults (`--bench`, as
# `cargo bench` runs it). scripts/criterion_agreement.py joins the ids and writes the table:
# criterion's reference (the median of its runs at full speed, by the drop-in's own rule)
# against ours, the ratio, and our status (a flagged row gives its reason). Peak RSS and wall
# time of each side are in CRATE.log, the probe readings of criterion's runs in
# CRATE-reference-probes.csv and of the drop-in's processes in CRATE-dropin-probes.csv.
#
# Usage: scripts/criterion_agreement.sh [CRATE ...]   (default: bytecount unicode-segmentation dary_heap)
# Env: WORK (default /tmp/criterion-agreement), W=0.5 M=1 (criterion's seconds), CRITERION_RUNS=3,
# CRITERION_MAX_RUNS=5, PIN_CPU=1 (the CPU criterion and its probes share), OUT (default
# docs/criterion-agreement-<date>); BYTECOUNT_COUNTS (bytecount's own COUNTS variable: its sizes,
# default 0,10,100,1000,10000,100000,1000000 of its 45), DARY_SIZES (dary_heap's, default
# 10, 1_000, 100_000 of its 7: 1 000 000 and 10 000 000 take criterion minutes an id to set up),
# DARY_MERGE_SIZES (append's and extend's second heap, default 2_500, 25_000, 50_000 of its 20).
# BUILD_ONLY=1: build both sides and print the bench executables, run nothing.
# PAUSE_OTHERS=1: every other process is stopped (SIGSTOP) while the benchmarks run and
# continued after (see pause below), so builds elsewhere on a small machine do not share its
# cores with one side only: on 2 cores a build on the other core made criterion's bytecount
# numbers 2-3x the drop-in's, and the drop-in's dary_heap 1.5-2x criterion's, with neither
# side flagging it.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${WORK:-/tmp/criterion-agreement}"
out="${OUT:-$repo/docs/criterion-agreement-$(date +%F)}"
W="${W:-0.5}" M="${M:-1}"
# Criterion runs per id: one criterion process is one draw of the code's layout and of the
# machine's speed, so the reference is the median of several, with their range beside it.
CRITERION_RUNS="${CRITERION_RUNS:-3}" CRITERION_MAX_RUNS="${CRITERION_MAX_RUNS:-5}"
PIN_CPU="${PIN_CPU:-1}"
DARY_SIZES="${DARY_SIZES:-10, 1_000, 100_000}"
DARY_MERGE_SIZES="${DARY_MERGE_SIZES:-2_500, 25_000, 50_000}"
export COUNTS="${BYTECOUNT_COUNTS:-0,10,100,1000,10000,100000,1000000}"
crates=("$@")
[ ${#crates[@]} -gt 0 ] || crates=(bytecount unicode-segmentation dary_heap)
mkdir -p "$work" "$out"
out=$(cd "$out" && pwd) # the benchmarks run from each crate's directory

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

clone() { # OWNER/NAME -> a clone of its default branch (or of a local mirror, offline)
  local dir="$work/src-${1#*/}"
  if [ ! -d "$dir" ]; then
    git clone -q --depth 1 "https://github.com/$1" "$dir" 2>/dev/null ||
      git clone -q "/work/.mirror/${1/\//+}/repo" "$dir"
  fi
  echo "$dir"
}

# A freezer loop, not a snapshot: processes started after the pause (a new build, a test's
# valgrind child in a temp directory) are stopped too. It stops every process outside this
# script's own tree, except pid 1, kernel threads and processes started with AGREEMENT_KEEP=1 in
# their environment (a shell watching the run).
freezer=
pause() {
  [ "${PAUSE_OTHERS:-0}" = 1 ] || return 0
  : >"$work/paused.pids"
  # One freezer at a time (scripts/quiet.sh takes the same lock): two would stop each other.
  exec 9>"${TMPDIR:-/tmp}/harness-freezer.lock"
  flock 9
  python3 "$repo/scripts/freezer.py" "$$" "$work/paused.pids" &
  freezer=$!
  sleep 2
  echo "paused $(sort -u "$work/paused.pids" | wc -l) other processes"
}
resume() {
  [ -n "$freezer" ] || return 0
  kill "$freezer" 2>/dev/null || true
  freezer=
  sort -u "$work/paused.pids" | xargs -r kill -CONT 2>/dev/null || true
  exec 9>&-
}
trap resume EXIT

# One criterion run of each id given, each in its own process (`--exact ID`) between two
# speed-probe readings (harness's examples/speed_probe.rs), all three pinned to one CPU so the
# probe reads the core criterion ran on: a criterion run that met a slowed machine is then known,
# by the rule the drop-in's processes are judged by (scripts/criterion_agreement.py).
reference() { # CRATE BENCH RUN EXE ID...
  local crate=$1 name=$2 r=$3 exe=$4 suffix start end
  shift 4
  suffix=$([ "$r" = 1 ] && echo "" || echo "-run$r")
  for id in "$@"; do
    start=$(taskset -c "$PIN_CPU" "$probe")
    (cd "$crit" && CRITERION_HOME="$work/$crate/criterion-home-$r" /usr/bin/time -f "criterion$suffix $name $id peak_rss_kb %M wall_s %e" \
      taskset -c "$PIN_CPU" "$exe" --bench --noplot --warm-up-time "$W" --measurement-time "$M" --exact "$id" \
      >>"$out/$crate-$name-criterion$suffix.txt" 2>&1) 2>>"$out/$crate.log" ||
      echo "criterion $name $id exited $?" | tee -a "$out/$crate.log"
    end=$(taskset -c "$PIN_CPU" "$probe")
    printf '%s,"%s",%s,%s,%s\n' "$name" "${id//\"/\"\"}" "$r" "$start" "$end" >>"$out/$crate-reference-probes.csv"
  done
}

prepare() { # CRATE -> sets $src (crate dir inside the copy) per side under $work/$CRATE/{crit,dropin}
  local crate=$1 base
  case $crate in
    bytecount) base=$(fetch_crate bytecount 0.6.9) ;;
    # The published packages lack the benches' inputs (unicode-segmentation's texts) or the
    # benches (dary_heap's criterion/ crate): the repositories have them.
    unicode-segmentation) base=$(clone unicode-rs/unicode-segmentation) ;;
    dary_heap) base=$(clone hanmertens/dary_heap) ;;
    *) echo "unknown crate $crate" >&2; exit 2 ;;
  esac
  for side in crit dropin; do
    rm -rf "${work:?}/$crate/$side" && mkdir -p "$work/$crate" && cp -r "$base" "$work/$crate/$side"
    local dir="$work/$crate/$side"
    [ "$crate" = dary_heap ] && dir="$dir/criterion" &&
      sed -i -e "s/for &i in &\[10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000\]/for \&i in \&[$DARY_SIZES]/" \
        -e "s/for i in (step..=base as usize \/ 2).step_by(step)/for i in [$DARY_MERGE_SIZES]/" "$dir/dary_heap.rs"
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

cargo build -q --release --manifest-path "$repo/Cargo.toml" -p harness --example speed_probe
probe="$repo/target/release/examples/speed_probe"
host="$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(rustc --version)"
declare -A cexes_of dexes_of
for crate in "${crates[@]}"; do # every build first: nothing compiles while benchmarks run
  prepare "$crate"
  crit="$work/$crate/crit" dropin="$work/$crate/dropin"
  [ "$crate" = dary_heap ] && crit="$crit/criterion" dropin="$dropin/criterion"
  cexes_of[$crate]=$(bench_exes "$crit" crit)
  dexes_of[$crate]=$(bench_exes "$dropin" dropin)
  [ "${BUILD_ONLY:-0}" = 1 ] && printf '%s\n' "${cexes_of[$crate]}" "${dexes_of[$crate]}"
done
[ "${BUILD_ONLY:-0}" = 1 ] && exit 0
for crate in "${crates[@]}"; do
  crit="$work/$crate/crit" dropin="$work/$crate/dropin"
  [ "$crate" = dary_heap ] && crit="$crit/criterion" dropin="$dropin/criterion"
  mapfile -t cexes <<<"${cexes_of[$crate]}"
  mapfile -t dexes <<<"${dexes_of[$crate]}"
  pause
  echo "== $crate: ${#cexes[@]} bench binaries; $host; load $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$out/$crate.log"
  rm -rf "$work/$crate"/criterion-home* "$work/$crate/ours"
  echo 'bench,id,run,probe_start_ns,probe_end_ns' >"$out/$crate-reference-probes.csv"
  for i in "${!cexes[@]}"; do
    name=$(basename "${cexes[$i]}" | sed 's/-[0-9a-f]*$//')
    # The drop-in's binary of the same bench target.
    dexe=$(printf '%s\n' "${dexes[@]}" | grep "/$name-" | head -1)
    start=$(date +%s)
    mapfile -t ids < <(cd "$crit" && "${cexes[$i]}" --bench --list 2>/dev/null | sed -n 's/: benchmark$//p')
    for r in $(seq 1 "$CRITERION_RUNS"); do
      reference "$crate" "$name" "$r" "${cexes[$i]}" "${ids[@]}"
    done
    # More runs (up to CRITERION_MAX_RUNS) of the ids none of whose runs met the machine at full
    # speed so far, so the reference is the machine's as the drop-in's is.
    for r in $(seq $((CRITERION_RUNS + 1)) "$CRITERION_MAX_RUNS"); do
      mapfile -t slow < <(python3 "$repo/scripts/criterion_agreement.py" --slowed-ids "$out/$crate-reference-probes.csv" "$name")
      [ ${#slow[@]} -gt 0 ] || break
      reference "$crate" "$name" "$r" "${cexes[$i]}" "${slow[@]}"
    done
    mid=$(date +%s)
    (cd "$dropin" && /usr/bin/time -f "dropin $name peak_rss_kb %M wall_s %e" \
      "$dexe" --bench --out "$work/$crate/ours/$name" >"$out/$crate-$name-dropin.txt" 2>&1) \
      2>>"$out/$crate.log" || echo "drop-in $name exited $?" | tee -a "$out/$crate.log"
    echo "$name: criterion $((mid - start)) s, drop-in $(($(date +%s) - mid)) s, load $(cut -d' ' -f1 /proc/loadavg)" | tee -a "$out/$crate.log"
  done
  resume
  # The full speed the crate's drop-in binaries remembered for each other (run/speed_memory.rs):
  # `ours` is removed above, so each crate starts with none.
  cp "$work/$crate/ours/.harness-full-speed.json" "$out/$crate-full-speed.json" 2>/dev/null || true
  python3 "$repo/scripts/criterion_agreement.py" --dropin-probes "$crate" "$work/$crate/ours" >"$out/$crate-dropin-probes.csv"
  python3 "$repo/scripts/criterion_agreement.py" "$crate" "$work/$crate/ours" "$out/$crate-reference-probes.csv" "$work/$crate"/criterion-home-* \
    >"$out/$crate.md"
  tail -3 "$out/$crate.md"
done
