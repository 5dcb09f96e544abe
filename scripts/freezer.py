#!/usr/bin/env python3
"""Stop (SIGSTOP) every process on the machine outside one process tree, again every second, so
processes started meanwhile are stopped too; the pids stopped are appended to LOG for the caller
to continue (SIGCONT). Kept running: the tree of ROOT_PID, pid 1, kernel threads, and processes
started with AGREEMENT_KEEP=1 in their environment. Used by scripts/quiet.sh and
scripts/criterion_agreement.sh. Usage: freezer.py ROOT_PID LOG (runs until killed)"""
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
