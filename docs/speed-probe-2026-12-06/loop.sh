#!/bin/bash
# 100 fresh processes of the probe program, one after another (run under scripts/quiet.sh).
for i in $(seq 1 100); do "${PROBE:-target/release/probe}"; done > probe-out.txt
