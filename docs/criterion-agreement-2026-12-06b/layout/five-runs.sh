#!/bin/bash
cd /tmp/us/crit
for i in 1 2 3 4 5; do
  r=$(CRITERION_HOME=/tmp/us/ch /tmp/us/target-crit/release/deps/chars-f6e90cfff762a15e --bench --noplot --warm-up-time 0.3 --measurement-time 0.7 'chars/scalar/(english|source_code|korean)' 2>&1 | grep "time:" | tr -s ' ' | cut -c1-60)
  echo "run $i pad 0: $(echo "$r" | tr '\n' ';')"
done
