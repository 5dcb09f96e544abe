#!/usr/bin/env bash
# One benchmark id, criterion and the drop-in in alternation (issue 25): does the drop-in's
# number follow criterion's from round to round (the machine's speed changed: both tools see
# it), or stay a fixed ratio away (the method differs)? Uses the builds of
# scripts/criterion_agreement.sh (run it with BUILD_ONLY=1 and the same WORK first).
#
# Usage: scripts/criterion_alternation.sh CRATE BENCH ID [ROUNDS]   (ROUNDS default 20)
# Env: WORK (default /tmp/criterion-agreement), W=0.5 M=1 (criterion's seconds), DROPIN_ARGS
# (default `--repeat 5`: a short run, one snapshot of the machine, as before --min-time).
# Prints one line a round: the time, criterion's median, the drop-in's centre, their ratio, the
# drop-in's verdict and its per-process centres.
set -euo pipefail
crate=$1 bench=$2 id=$3 rounds=${4:-20}
work="${WORK:-/tmp/criterion-agreement}"
W="${W:-0.5}" M="${M:-1}"
read -r -a dropin_args <<<"${DROPIN_ARGS:---repeat 5}"
crit="$work/$crate/crit" dropin="$work/$crate/dropin"
[ "$crate" = dary_heap ] && crit="$crit/criterion" dropin="$dropin/criterion"
exe() { find "$work/target-$1/release/deps" -maxdepth 1 -type f -executable -name "$bench-*" | head -1; }
cexe=$(exe crit) dexe=$(exe dropin)
[ -n "$cexe" ] && [ -n "$dexe" ] || { echo "no $bench binary under $work/target-{crit,dropin}" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# $crate $bench '$id': $rounds rounds; criterion --warm-up-time $W --measurement-time $M; drop-in ${dropin_args[*]}"
echo "# $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%FT%TZ)"
for r in $(seq 1 "$rounds"); do
  rm -rf "$tmp"/*
  (cd "$crit" && CRITERION_HOME="$tmp/crit" "$cexe" --bench --noplot --warm-up-time "$W" --measurement-time "$M" --exact "$id" >/dev/null 2>&1)
  (cd "$dropin" && "$dexe" --bench --exact "$id" "${dropin_args[@]}" --out "$tmp/ours" >/dev/null 2>&1) || true
  python3 - "$tmp" "$id" "$r" <<'PY'
import glob, json, os, sys, time
tmp, want, r = sys.argv[1:]
crit = None
for b in glob.glob(os.path.join(tmp, "crit", "**", "new", "benchmark.json"), recursive=True):
    if json.load(open(b))["full_id"] == want:
        crit = json.load(open(os.path.join(os.path.dirname(b), "estimates.json")))["median"]["point_estimate"]
res = json.load(open(os.path.join(tmp, "ours", "results.json")))
s = next(s for s in res["summaries"] if s["scenario"] == want)
m = next(m for m in s["metrics"] if m["metric"] == "latency_ns")
per = [run["metrics"] for run in res["runs"] if run["scenario"] == want and not run.get("counted_by")]
vals = [next(x["value"] for x in ms if x["name"] == "latency_ns") for ms in per if ms]
ours = m["center_value"]
ratio = f"{ours / crit:.2f}" if crit else "-"
print(f"{r:>3} {time.strftime('%H:%M:%S', time.gmtime())} criterion {crit or 0:10.1f} ns  drop-in {ours:10.1f} ns  "
      f"ratio {ratio}  {s['verdict']:<8} per process {[round(v, 1) for v in vals]}", flush=True)
PY
done
