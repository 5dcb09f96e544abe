#!/usr/bin/env bash
# What --allocs costs a `run`, and whether it moves the wall-time rows: `fixture_allocs run alloc/`
# (7 measurements, --repeat 5) with and without --allocs, alternating, ROUNDS times each. Prints
# each run's wall seconds and, per scenario, latency_ns of the last pair. The counting processes
# are extra processes (3 a measurement by default); the timed processes are the same ones.
# Usage: scripts/allocs_overhead.sh [ROUNDS]   (debug build of fixture_allocs and the preload)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
nice -n 19 cargo build -q -p harness --features test-support --bin fixture_allocs
nice -n 19 cargo build -q -p harness_interpose
bin=target/debug/fixture_allocs
export HARNESS_INTERPOSE_LIB=$PWD/target/debug/libharness_interpose.so
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# $(date -u +%FT%TZ) $(uname -srm); $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $bin run alloc/ --repeat 5 --seed S [--allocs], $rounds rounds, alternating"
for r in $(seq 1 "$rounds"); do
  for mode in plain allocs; do
    flag=(); [ "$mode" = allocs ] && flag=(--allocs)
    s=$(date +%s.%N)
    "$bin" run alloc/ --repeat 5 --seed "$r" --out "$tmp/$mode-$r" "${flag[@]}" >/dev/null 2>&1
    e=$(date +%s.%N)
    printf 'round %d %-6s wall_s %.3f processes %s\n' "$r" "$mode" "$(echo "$e - $s" | bc)" \
      "$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['runs']))" "$tmp/$mode-$r/results.json")"
  done
done
echo "# latency_ns centre (ns) per scenario, round $rounds: plain vs --allocs"
python3 - "$tmp/plain-$rounds/results.json" "$tmp/allocs-$rounds/results.json" <<'PY'
import json, sys
def lat(p):
    return {s["scenario"]: m["center_value"] for s in json.load(open(p))["summaries"]
            for m in s["metrics"] if m["metric"] == "latency_ns"}
a, b = lat(sys.argv[1]), lat(sys.argv[2])
for k in sorted(a):
    print(f"{k:20s} {a[k]:10.1f} {b.get(k, float('nan')):10.1f}")
PY
