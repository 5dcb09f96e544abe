#!/bin/bash
cd /tmp/ca2/unicode-segmentation/dropin
B=/tmp/ca2/target-dropin/release/deps/chars-f32ab775242dd663
for c in 0 1 0 1; do
  echo "== cpu $c"; taskset -c $c $B --bench chars/grapheme/english --out /tmp/warm-c 2>&1 | grep "chars/grapheme/english "
  python3 -c "
import json;d=json.load(open('/tmp/warm-c/results.json'))
for s in d['summaries']:
  for m in s['metrics']:
    if m['metric']=='latency_ns': print('  per process', [round(v[1]/1e6,2) for v in m['values']])"
done
