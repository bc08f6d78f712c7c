#!/usr/bin/python3
"""bench_claim.py -- the cost of XREADGROUP ... CLAIM's ordering (longest
idle first) on a large pending entries list.

A benchmark, not a test: it asserts nothing, it prints figures.

  bench/bench_claim.py               # PELS="1000 100000" READS=300 REPEAT=3

For each PEL size P, one casq (state in /dev/shm, so a commit's fsync is
free and the figures show the command, not the disk) and one redis-server
(no persistence) get a stream of P entries, all delivered to one consumer
and so pending, with delivery times that decrease as the IDs grow (XCLAIM
... TIME ... JUSTID in chunks of 1000: the oldest entries have the highest
IDs, the worst order for a walk in ID order). Then, one client, READS
times each, interleaved with redis:

  idle-10   casq: XREADGROUP GROUP g w COUNT 10 CLAIM 0 STREAMS s >
            (the 10 longest idle of P, claimed; they become the youngest)
            redis 7.2 has no CLAIM: XAUTOCLAIM s g w 0 <cursor> COUNT 10,
            the closest command (claims 10 in ID order, O(COUNT))
  none-idle casq: XREADGROUP GROUP g w COUNT 10 CLAIM 100000000 STREAMS s >
            (nothing idle enough, nothing new: nil, no commit)
            redis: XPENDING s g IDLE 100000000 - + 10 (finds nothing, O(P))
  xclaim-10 both: XCLAIM s g w 0 <10 IDs> JUSTID (10 given IDs, O(10)):
            what any write of 10 pending entries costs at this PEL size,
            casq's commit included

Printed: server CPU time per request (user+system from /proc, best of
REPEAT rounds: background load only ever adds), and casq/redis.

Knobs (environment): PELS, READS, REPEAT, CASQ_BIN (default
src/casq-server), PORT (default 32100; casq PORT, redis PORT+1).
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time

import redis

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
CASQ_BIN = os.environ.get("CASQ_BIN", os.path.join(ROOT, "src", "casq-server"))
PELS = [int(x) for x in os.environ.get("PELS", "1000 100000").split()]
READS = int(os.environ.get("READS", "300"))
REPEAT = int(os.environ.get("REPEAT", "3"))
PORT = int(os.environ.get("PORT", "32100"))


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_ready(port, proc):
    for _ in range(200):
        if proc.poll() is not None:
            sys.exit(f"server on port {port} exited")
        try:
            redis.Redis(port=port).ping()
            return
        except redis.ConnectionError:
            time.sleep(0.05)
    sys.exit(f"server on port {port} did not start")


def fill(r, p):
    """s: p entries, all pending for alice, delivery times decreasing as
    the IDs grow (chunks of 1000 share one)."""
    r.delete("s")
    pipe = r.pipeline(transaction=False)
    for i in range(1, p + 1):
        pipe.execute_command("XADD", "s", f"{i}-0", "f", "v")
        if i % 1000 == 0:
            pipe.execute()
    pipe.execute()
    r.execute_command("XGROUP", "CREATE", "s", "g", "0")
    r.execute_command("XREADGROUP", "GROUP", "g", "alice", "COUNT", p, "STREAMS", "s", ">")
    now = int(r.execute_command("TIME")[0]) * 1000
    for c in range(0, p, 1000):
        ids = [f"{i}-0" for i in range(c + 1, min(p, c + 1000) + 1)]
        t = now - 10_000_000 + (p - c)  # older for higher IDs
        r.execute_command("XCLAIM", "s", "g", "alice", 0, *ids, "TIME", t, "JUSTID")


def per_request_us(r, pid, cmd):
    before = cpu_seconds(pid)
    for _ in range(READS):
        cmd(r)
    return (cpu_seconds(pid) - before) / READS * 1e6


def main():
    shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
    d = tempfile.mkdtemp(prefix="bench-claim-", dir=shm)
    casq = subprocess.Popen([CASQ_BIN, "--port", str(PORT), "--bind", "127.0.0.1", "--dir", d,
                             "--stream-id-mode", "liberal"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    red = subprocess.Popen(["redis-server", "--port", str(PORT + 1), "--bind", "127.0.0.1", "--save", "",
                            "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_ready(PORT, casq)
        wait_ready(PORT + 1, red)
        rc, rr = redis.Redis(port=PORT), redis.Redis(port=PORT + 1)
        for r in (rc, rr):
            r.response_callbacks.clear()  # raw replies: no parsing cost in the loop
        print(f"{'PEL':>8} {'op':<10} {'casq us/req':>12} {'redis us/req':>13} {'casq/redis':>11}")
        for p in PELS:
            fill(rc, p)
            fill(rr, p)
            cursor = ["0-0"]

            def redis_autoclaim(r):
                rep = r.execute_command("XAUTOCLAIM", "s", "g", "w", 0, cursor[0], "COUNT", 10, "JUSTID")
                cursor[0] = rep[0]

            nxt = {}

            def xclaim10(r):
                i = nxt.get(id(r), 0)
                nxt[id(r)] = (i + 10) % (p - 10)
                r.execute_command("XCLAIM", "s", "g", "w", 0, *[f"{i + k + 1}-0" for k in range(10)], "JUSTID")

            ops = [
                ("idle-10",
                 lambda r: r.execute_command("XREADGROUP", "GROUP", "g", "w", "COUNT", 10, "CLAIM", 0,
                                             "STREAMS", "s", ">"),
                 redis_autoclaim),
                ("none-idle",
                 lambda r: r.execute_command("XREADGROUP", "GROUP", "g", "w", "COUNT", 10, "CLAIM", 100000000,
                                             "STREAMS", "s", ">"),
                 lambda r: r.execute_command("XPENDING", "s", "g", "IDLE", 100000000, "-", "+", 10)),
                ("xclaim-10", xclaim10, xclaim10),
            ]
            for name, casq_cmd, redis_cmd in ops:
                bc = br = None
                for _ in range(REPEAT):
                    c = per_request_us(rc, casq.pid, casq_cmd)
                    x = per_request_us(rr, red.pid, redis_cmd)
                    bc = c if bc is None else min(bc, c)
                    br = x if br is None else min(br, x)
                ratio = bc / br if br else float("inf")
                print(f"{p:>8} {name:<10} {bc:>12.1f} {br:>13.1f} {ratio:>11.2f}", flush=True)
    finally:
        for proc in (casq, red):
            proc.terminate()
            proc.wait()
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
