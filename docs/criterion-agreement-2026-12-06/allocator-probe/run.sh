#!/usr/bin/env bash
# dary_heap's `append` input (two std BinaryHeaps from 100 000 shuffled u32, split at I) timed
# one call a sample (`one`) or in batches of 30 (`batch`), in a fresh process (glibc's default
# malloc thresholds), after one freed 16 MiB block (WARM=1: what harness's allocator settle does),
# and with trimming and mmap turned off by mallopt (TRIM=...). Median of 300 samples, per call.
# Usage: docs/criterion-agreement-2026-12-06/allocator-probe/run.sh > probe.txt
set -euo pipefail
cd "$(dirname "$0")"
CARGO_TARGET_DIR=/tmp/allocator-probe cargo build --release -q
exe=/tmp/allocator-probe/release/exp
echo "# $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in 2500 25000 50000; do
  for mode in one batch; do
    echo "fresh    $($exe $mode $i)"
    echo "settled  $(WARM=1 $exe $mode $i)"
    echo "no trim  $(TRIM=268435456 $exe $mode $i)"
  done
done
