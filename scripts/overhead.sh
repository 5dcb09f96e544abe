#!/usr/bin/env bash
# The harness's own per-run overhead beside a bare re-exec and cargo-nextest, same 200 no-op
# tests, same run, release builds. Prints per-test milliseconds with 95% intervals.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p harness --features test-support --bins --example overhead
cargo test --release -q -p harness --test noop_libtest --no-run 2>/dev/null
libtest=$(ls -t target/release/deps/noop_libtest-* | grep -v '\.d$' | head -1)
nextest=""
if cargo nextest --version >/dev/null 2>&1; then nextest="$PWD"; fi
target/release/examples/overhead target/release/fixture_noop "$libtest" target/release/harness $nextest
