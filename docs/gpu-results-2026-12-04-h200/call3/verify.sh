#!/bin/bash
# Issue 22 verification, call 3 (gpu helper). Run from the repo root on the device; all output in $OUT/r.tgz.
B=./target-gpu/scenarios
R=$OUT/r; mkdir -p $R
q() { nvidia-smi --query-gpu=clocks.sm,clocks_event_reasons.active,temperature.gpu,power.draw,pstate --format=csv,noheader; }
{ date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; q; uptime; } > $R/start.txt 2>&1
# Idle start against warm start: one process each, no warm-up, default threshold (75%).
echo "before idle-start process: $(q)" >> $R/idle_vs_warm.txt
$B cuda/bandwidth/memcpy_dtod_32mib cuda/bandwidth/read_32mib --repeat 1 --warmup 0 --seed 11 --out $R/idle_start > $R/idle_start.txt 2>&1
echo "before warm-start process: $(q)" >> $R/idle_vs_warm.txt
$B cuda/bandwidth/memcpy_dtod_32mib cuda/bandwidth/read_32mib --repeat 1 --warmup 0 --seed 11 --out $R/warm_start > $R/warm_start.txt 2>&1
# Read flush against memset flush, hot against cold, 8 MiB to 256 MiB.
./target-gpu/gpu_probe > $R/gpu_probe.txt 2>&1
# The whole cuda/ suite, 6 processes per measurement.
timeout 240 $B cuda/ --repeat 6 --seed 20261204 --out $R/run > $R/run.txt 2>&1; echo "rc=$?" >> $R/run.txt
# The discard rule at a threshold the clocks straddle (99.9% of the default): discards and the warning.
timeout 60 $B cuda/bandwidth/memcpy_dtod_4gib cuda/bandwidth/read_4gib --repeat 2 --seed 5 --throttle-threshold 99.9 --out $R/threshold_99_9 > $R/threshold_99_9.txt 2>&1; echo "rc=$?" >> $R/threshold_99_9.txt
# --lock-gpu-clocks as a non-root user: refused before anything runs (no clock is changed).
cp $B /tmp/s && chmod 755 /tmp/s
setpriv --reuid=65534 --regid=65534 --clear-groups /tmp/s cuda/bandwidth/fill --lock-gpu-clocks max --out /tmp/lockx > $R/lock_refusal_nonroot.txt 2>&1; echo "rc=$?" >> $R/lock_refusal_nonroot.txt
# A/A compare of the cold-timed scenarios: the same binary on both sides.
timeout 200 $B compare --baseline $B cuda/bandwidth cuda/kv --runs 4 --null-control 0 --seed 20261204 --out $R/aa > $R/aa.txt 2>&1; echo "rc=$?" >> $R/aa.txt
{ date -u +%FT%TZ; q; uptime; } > $R/end.txt 2>&1
cd $OUT && tar czf r.tgz r && rm -rf r
tar xzf r.tgz -O r/gpu_probe.txt | grep -v idle_start
tar xzf r.tgz -O r/run.txt | grep -E "gbytes|latency|discarded|runs:|gpu at|rc=" | grep -v "  -  " | head -90
tar xzf r.tgz -O r/threshold_99_9.txt r/idle_vs_warm.txt | grep -E "warning|discarded and|before|rc="
tar xzf r.tgz -O r/aa.txt | grep -E "regressed,|rc="
