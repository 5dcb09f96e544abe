#!/bin/bash
# criterion's chars/scalar/{english,source_code,korean} with the environment padded by N bytes (moves the stack)
cd /tmp/us/crit
for pad in 0 512 1024 1536 2048 2560 3072 3584; do
  p=$(head -c $pad /dev/zero | tr '\0' x)
  r=$(env PADDING="$p" CRITERION_HOME=/tmp/us/ch /tmp/us/target-crit/release/deps/chars-f6e90cfff762a15e --bench --noplot --warm-up-time 0.3 --measurement-time 0.7 'chars/scalar/(english|source_code|korean)' 2>&1 | grep -A1 "scalar" | grep "time:" | sed 's/ *time://' | tr -s ' ' | cut -c1-80)
  echo "pad $pad: $(echo "$r" | tr '\n' ';')"
done
