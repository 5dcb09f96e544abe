#!/usr/bin/env bash
# What preloading the interposer (detect's env/cwd/file observer) costs: harness compare of the
# interpose_cost measurements without (baseline) and with (candidate) LD_PRELOAD, release builds,
# interleaved A/B pairs. Prints compare's table; results under reports/interpose-overhead/.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p harness_interpose
cargo build --release -q -p harness --example interpose_cost
cargo test --release -q -p harness --test noop_libtest --no-run 2>/dev/null
libtest=$(ls -t target/release/deps/noop_libtest-* | grep -v '\.d$' | head -1)
records=$(mktemp)
trap 'rm -f "$records"' EXIT
INTERPOSE_COST_LIBTEST="$PWD/$libtest" target/release/examples/interpose_cost compare \
  --baseline target/release/examples/interpose_cost \
  --candidate-env "LD_PRELOAD=$PWD/target/release/libharness_interpose.so" \
  --candidate-env "HARNESS_INTERPOSE_OUT=$records" \
  --runs "${RUNS:-12}" --seed "${SEED:-1}" --out reports/interpose-overhead "$@"
