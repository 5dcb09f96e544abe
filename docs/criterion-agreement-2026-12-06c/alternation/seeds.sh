#!/usr/bin/env bash
cd /tmp/ca3/unicode-segmentation/dropin
B=$(ls /tmp/ca3/target-dropin/release/deps/chars-* | grep -v '\.d$' | head -1)
for s in 1 2 3 4 1 2 3 4 1 2 3 4 1 2 3 4; do
  rm -rf /tmp/alt/o; $B --bench --exact chars/grapheme/english --repeat 5 --seed $s --out /tmp/alt/o >/dev/null 2>&1
  python3 -c "
import json;d=json.load(open('/tmp/alt/o/results.json'))
v=[next(x['value'] for x in r['metrics'] if x['name']=='latency_ns') for r in d['runs']]
print('seed $s', [round(x/1e3) for x in v])"
done
