#!/usr/bin/env bash
cd /work/main
export WORK=/tmp/ca3
scripts/criterion_alternation.sh dary_heap dary_heap 'make_heap/DaryHeap<3>/1000' 15 > /tmp/alt/make_heap3.txt 2>&1
scripts/criterion_alternation.sh dary_heap dary_heap 'extend/DaryHeap<4>/25000' 15 > /tmp/alt/extend4.txt 2>&1
scripts/criterion_alternation.sh dary_heap dary_heap 'push/DaryHeap<4>/1000' 15 > /tmp/alt/push4.txt 2>&1
scripts/criterion_alternation.sh unicode-segmentation chars 'chars/grapheme/english' 15 > /tmp/alt/grapheme.txt 2>&1
