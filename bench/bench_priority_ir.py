#!/usr/bin/python3
"""bench_priority_ir.py -- instructions XREADGROUP executes per delivered
entry on a FAIR priority group and on a plain group, counted by
valgrind's callgrind (issue 10, docs/priority.md), for a plain group and
FAIR and STRICT priority groups.

A benchmark, not a test: it asserts nothing, it prints figures.

  bench/bench_priority_ir.py          # ENTRIES=60000 COUNT=100
  KINDS="plain fair" KEEP=/tmp/ir bench/bench_priority_ir.py

bench_priority.py measures requests/s and CPU time, which on a shared
machine swing by 15-30% from run to run; an instruction count does not
depend on the load, so it shows a change of a few percent in the
delivery path. It is not a time (cache misses and branch costs are not
in it): use it to compare versions of the code, bench_priority.py for
throughput.

For each kind, a casq under callgrind (collecting only inside
xreadCommand, i.e. the command's own work: not the commit, not the
network) holds ENTRIES entries, half priority 9 then half priority 1,
and a group at 0 reads them all with XREADGROUP ... COUNT c NOACK.
Printed: instructions per delivered entry for each kind and its ratio
to the plain group's (goal: <= 1.11 for FAIR and STRICT).

Knobs (environment): ENTRIES, COUNT, KINDS (default "plain fair
strict"), LAYOUT ("blocks": half priority 9 then half 1, the
default; "mixed": the same entries shuffled; "levels": priorities 0 to 9
in random order), NOACK (default 1; 0: the deliveries enter the PELs),
KEEP (a directory: the callgrind.out.<kind> files are kept
there for callgrind_annotate), CASQ_BIN (default
build/release/casq-server), PORT (default 30890).
"""

import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

import redis

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
CASQ_BIN = os.environ.get("CASQ_BIN", os.path.join(ROOT, "build", "release", "casq-server"))
ENTRIES = int(os.environ.get("ENTRIES", "60000"))
COUNT = int(os.environ.get("COUNT", "100"))
PORT = int(os.environ.get("PORT", "30890"))
KINDS = os.environ.get("KINDS", "plain fair strict").split()
KEEP = os.environ.get("KEEP")
LAYOUT = os.environ.get("LAYOUT", "blocks")
NOACK = os.environ.get("NOACK", "1") != "0"
GROUP_ARGS = {"plain": [], "fair": ["PRIORITY", "FAIR"], "strict": ["PRIORITY", "STRICT"]}


def instructions(kind):
    work = tempfile.mkdtemp(prefix="casq-bench-ir-")
    out = os.path.join(work, "callgrind.out")
    binary = os.path.join(work, "casq-server")
    shutil.copy(CASQ_BIN, binary)
    proc = subprocess.Popen(["valgrind", "--tool=callgrind", "--collect-atstart=no",
                             "--toggle-collect=xreadCommand", f"--callgrind-out-file={out}",
                             binary, "--port", str(PORT), "--bind", "127.0.0.1", "--dir", work],
                            stdout=open(os.path.join(work, "log"), "wb"), stderr=subprocess.STDOUT)
    try:
        r = redis.Redis(port=PORT, socket_timeout=600)
        for _ in range(600):
            try:
                r.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.1)
        if LAYOUT == "levels":
            prios = [str(i % 10) for i in range(ENTRIES)]
        else:
            prios = ["9"] * (ENTRIES // 2) + ["1"] * (ENTRIES // 2)
        if LAYOUT in ("mixed", "levels"):
            random.Random(1).shuffle(prios)
        pipe = r.pipeline(transaction=False)
        for i, prio in enumerate(prios):
            pipe.execute_command("XADD", "q", "*", "priority", prio, "job", "payload-of-a-job")
            if i % 1000 == 999:
                pipe.execute()
        pipe.execute()
        r.execute_command("XGROUP", "CREATE", "q", "g", "0", *GROUP_ARGS[kind])
        delivered = 0
        while True:
            rep = r.execute_command("XREADGROUP", "GROUP", "g", "c", "COUNT", str(COUNT), *(["NOACK"] if NOACK else []),
                                    "STREAMS", "q", ">")
            if not rep:
                break
            delivered += len(rep[0][1])
        r.close()
    finally:
        proc.terminate()
        proc.wait()
    totals = subprocess.run(["callgrind_annotate", out], capture_output=True, text=True).stdout
    if KEEP:
        os.makedirs(KEEP, exist_ok=True)
        shutil.copy(out, os.path.join(KEEP, f"callgrind.out.{kind}"))
    shutil.rmtree(work, ignore_errors=True)
    m = re.search(r"([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS", totals)
    return int(m.group(1).replace(",", "")), delivered


def main():
    res = {}
    for kind in KINDS:
        ir, n = instructions(kind)
        res[kind] = ir / max(n, 1)
        print(f"{kind:>8}: {ir} instructions in XREADGROUP for {n} entries = {res[kind]:.0f} per entry")
    for kind in KINDS:
        if kind != "plain" and "plain" in res:
            print(f"{kind}/plain: {res[kind] / res['plain']:.3f} (COUNT {COUNT}, {ENTRIES} entries, {LAYOUT}, {'NOACK' if NOACK else 'pending entries'})")


if __name__ == "__main__":
    sys.exit(main())
