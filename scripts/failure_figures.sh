#!/usr/bin/env bash
# Regenerates the figures docs/failure-modes.md quotes from detect runs. Usage:
#   scripts/failure_figures.sh brittle        # detect on failure_demos, seed 3: verdicts, state-setters, processes, wall time
#   scripts/failure_figures.sh knob [SEEDS]   # fixture_order's 10x frozen knob: in how many seeds (default 10)
#                                             # detect localizes the shift to r_knob_setter
#   scripts/failure_figures.sh cost           # detect on sampling/ kv_cache/, seed 5: processes spent
# Wall times and the cost run's counts depend on the machine and its load; the script prints the load.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"

runs() { # DIR -> processes spent, from detect-run.json
  python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1] + "/detect-run.json"))["runs"]
print(f"{r['total']} processes ({r['isolated']} isolated, {r['shared']} shared, {r['localization']} localization)")
PY
}

case "${1:-}" in
brittle)
  cargo build -q --release -p scenarios --bin failure_demos
  start=$(date +%s.%N)
  target/release/failure_demos detect --seed 3 --no-fail --out "$out/brittle" >/dev/null
  end=$(date +%s.%N)
  python3 - "$out/brittle" <<'PY'
import json, sys
for e in json.load(open(sys.argv[1] + "/detect.json")):
    setters = ", ".join(e["state_setters"])
    print(f"{e['name']}: {e['verdict']}" + (f"; state-setters: {setters}" if setters else ""))
PY
  echo "$(runs "$out/brittle"); $(python3 -c "print(f'{$end - $start:.1f}')") s"
  ;;
knob)
  cargo build -q --release -p harness --features test-support --bin fixture_order
  found=0
  seeds=${2:-10}
  for seed in $(seq 1 "$seeds"); do
    target/release/fixture_order detect --seed "$seed" --shuffles 12 --timeout 30 --no-fail --out "$out/knob$seed" >/dev/null
    hit=$(python3 -c 'import json,sys
e=[e for e in json.load(open(sys.argv[1]+"/detect.json")) if e["name"]=="l_measure_knob"][0]
print(int(any(s["culprits"]==["r_knob_setter"] for s in e["value_shifts"])))' "$out/knob$seed")
    echo "seed $seed: knob shift localized to r_knob_setter: $hit"
    found=$((found + hit))
  done
  echo "found in $found of $seeds seeds"
  ;;
cost)
  cargo build -q --release -p scenarios --bin scenarios
  target/release/scenarios detect sampling/ kv_cache/ --seed 5 --no-fail --out "$out/cost" >/dev/null
  python3 -c 'import json,sys
d=json.load(open(sys.argv[1]+"/detect.json"))
print(len(d), "scenarios,", len([e for e in d if e["name"].startswith(("sampling/","kv_cache/"))]), "of them measurements;",
      sum(len(e["value_shifts"]) for e in d), "value shifts reported")' "$out/cost"
  runs "$out/cost"
  ;;
*)
  sed -n '2,7p' "$0"
  exit 2
  ;;
esac
