#!/usr/bin/env bash
# Run one command with every other process on the machine stopped (SIGSTOP) and continued after:
# on a shared 2-core machine a build on the other core moves a measurement 2-3x, on one side
# only. A freezer loop, not a snapshot, so processes started meanwhile are stopped too. Kept
# running: this script's own tree, pid 1, kernel threads, and processes started with
# AGREEMENT_KEEP=1 in their environment (a shell watching the run).
# Usage: scripts/quiet.sh COMMAND [ARGS...]
set -euo pipefail
log=$(mktemp)
python3 - "$$" "$log" <<'PY' &
import os, signal, sys, time
me, log = int(sys.argv[1]), sys.argv[2]
own = os.getpid()
def ppid(pid):
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])
while True:
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        pid = int(name)
        try:
            if pid in (1, own) or ppid(pid) == 2 or b"AGREEMENT_KEEP=1" in open(f"/proc/{pid}/environ", "rb").read():
                continue
            p, ours = pid, False
            while p > 1:
                if p == me:
                    ours = True
                    break
                p = ppid(p)
            if not ours:
                os.kill(pid, signal.SIGSTOP)
                with open(log, "a") as f:
                    f.write(f"{pid}\n")
        except (OSError, ValueError, IndexError):
            pass
    time.sleep(1)
PY
freezer=$!
resume() {
  kill "$freezer" 2>/dev/null || true
  sort -u "$log" | xargs -r kill -CONT 2>/dev/null || true
  rm -f "$log"
}
trap resume EXIT
sleep 2
echo "quiet: paused $(sort -u "$log" | wc -l) other processes; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
"$@"
