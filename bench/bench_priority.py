#!/usr/bin/python3
"""bench_priority.py -- XREADGROUP on a priority group vs a plain group,
and the memory of the priority index (issue 10, docs/priority.md).

A benchmark, not a test: it asserts nothing, it prints figures.

  bench/bench_priority.py            # ENTRIES=1000000 REPEAT=5 CLIENTS=20

One casq (release build, state in /dev/shm so a commit's fsync is free and
the figures show the delivery path, not the disk) holds, for each COUNT c
of 1, 10 and 100, a stream of min(ENTRIES, 20000 c) entries: half high
(priority 9) then half normal. Each round runs the same redis-benchmark
load on fresh groups at 0, one after the other: plain, FAIR, plain,
STRICT, plain (the priority kinds' order rotating from round to round),
each reading the whole stream (so a priority group pays for classifying
every entry once, as it does in real use):

    XREADGROUP GROUP <g> c COUNT <c> NOACK STREAMS q<c> >

(NOACK: the PEL's commit cost is the same for every kind and would hide
the delivery path). Printed for each kind: requests/s, the median of its
runs, and for a priority kind the median over the rounds of its
requests/s divided by the mean of the plain runs just before and after
it (seconds apart: a drift of the machine's load cancels, which a ratio
of medians over the whole benchmark does not); the server's CPU time per
delivered entry (user+system from /proc, the best run: background load
only ever adds) and its ratio plain/priority. Goal: >= 0.9x for both.

Memory: INFO used_memory before and after a priority group indexes every
entry of the stream as undelivered (XINFO GROUPS classifies them all),
divided by the entries, for FAIR and STRICT (goal: <= 24 bytes per
undelivered entry).

Knobs (environment): ENTRIES, REPEAT, CLIENTS, COUNTS="1 10 100",
KINDS="fair strict" (the plain group always runs), CASQ_BIN (default
build/release/casq-server), PORT (default 30800).
"""

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import redis

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
CASQ_BIN = os.environ.get("CASQ_BIN", os.path.join(ROOT, "build", "release", "casq-server"))
ENTRIES = int(os.environ.get("ENTRIES", "1000000"))
REPEAT = int(os.environ.get("REPEAT", "5"))
CLIENTS = int(os.environ.get("CLIENTS", "20"))
COUNTS = [int(x) for x in os.environ.get("COUNTS", "1 10 100").split()]
KINDS = ["plain"] + [k for k in os.environ.get("KINDS", "fair strict").split() if k != "plain"]
GROUP_ARGS = {"plain": [], "fair": ["PRIORITY", "FAIR"], "strict": ["PRIORITY", "STRICT"]}
PORT = int(os.environ.get("PORT", "30800"))


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def bench(port, *cmd, n):
    out = subprocess.run(["redis-benchmark", "-p", str(port), "-n", str(n), "-c", str(CLIENTS), "-q", *cmd],
                         capture_output=True, text=True, check=True).stdout
    # "XREADGROUP ...: 12345.67 requests per second, p50=..."
    line = [x for x in out.replace("\r", "\n").splitlines() if "requests per second" in x][-1]
    return float(line.split(":")[1].split("requests")[0])


def main():
    base = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    work = tempfile.mkdtemp(prefix="casq-bench-prio-", dir=base)
    binary = os.path.join(work, "casq-server")
    shutil.copy(CASQ_BIN, binary)
    proc = subprocess.Popen([binary, "--port", str(PORT), "--bind", "127.0.0.1", "--dir", work],
                            stdout=open(os.path.join(work, "log"), "wb"), stderr=subprocess.STDOUT)
    try:
        r = redis.Redis(port=PORT, socket_timeout=120)
        for _ in range(200):
            try:
                r.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        t = time.time()
        sizes = {}
        for count in COUNTS:
            half = min(ENTRIES, 20000 * count) // 2
            sizes[count] = 2 * half
            for prio in ("9", "1"):
                subprocess.run(["redis-benchmark", "-p", str(PORT), "-n", str(half), "-c", "50", "-P", "50", "-q",
                                "XADD", f"q{count}", "*", "priority", prio, "job", "payload-of-a-job"],
                               capture_output=True, check=True)
        print(f"streams: {sizes} entries, pushed in {time.time() - t:.1f} s")
        # Let the entries be sealed into segments first: until then every
        # commit writes them all, which would swamp the comparison.
        deadline = time.time() + 30
        while time.time() < deadline:
            r.set("settle", "x")
            if int(r.info("all").get("root_bytes_last", 0)) < 256 * 1024:
                break
            time.sleep(0.2)
        big = max(COUNTS)

        # Memory of the index: every entry undelivered in one priority group.
        for kind in ("fair", "strict"):
            m0 = r.info("memory")["used_memory"]
            r.execute_command("XGROUP", "CREATE", f"q{big}", "memprobe", "0", *GROUP_ARGS[kind])
            lag = None
            for g in r.execute_command("XINFO", "GROUPS", f"q{big}"):
                d = dict(zip(g[::2], g[1::2]))
                if d[b"name"] == b"memprobe":
                    lag = d[b"lag"]
            m1 = r.info("memory")["used_memory"]
            print(f"memory, {kind}: {m1 - m0} bytes for {lag} undelivered entries = "
                  f"{(m1 - m0) / max(lag, 1):.2f} bytes/entry (goal <= 24)")
            r.execute_command("XGROUP", "DESTROY", f"q{big}", "memprobe")

        print(f"\nXREADGROUP ... COUNT c NOACK, {CLIENTS} clients, {REPEAT} rounds of plain, prio, plain, prio, "
              f"plain: requests/s median; ratio: the median over the rounds of each priority run's requests/s "
              f"over the mean of the plain runs before and after it; CPU: us per entry, best run")
        others = [k for k in KINDS if k != "plain"]
        head = f"{'COUNT':>5} {'plain rps':>10}"
        for k in others:
            head += f" {k + ' rps':>11} {'ratio':>6}"
        head += f" {'plain us':>9}"
        for k in others:
            head += f" {k + ' us':>10} {'ratio':>6}"
        print(head)
        gid = 0
        for count in COUNTS:
            n = sizes[count] // count
            rps = {k: [] for k in KINDS}
            cpu = {k: [] for k in KINDS}
            paired = {k: [] for k in others}

            def run(kind):
                nonlocal gid
                gid += 1
                g = f"{kind}{gid}"
                r.execute_command("XGROUP", "CREATE", f"q{count}", g, "0", *GROUP_ARGS[kind])
                c0 = cpu_seconds(proc.pid)
                x = bench(PORT, "XREADGROUP", "GROUP", g, "c", "COUNT", str(count), "NOACK", "STREAMS", f"q{count}",
                          ">", n=n)
                c1 = cpu_seconds(proc.pid)
                r.execute_command("XGROUP", "DESTROY", f"q{count}", g)
                rps[kind].append(x)
                cpu[kind].append((c1 - c0) * 1e6 / (n * count))
                return x

            for rnd in range(REPEAT):
                # Each priority run between two plain runs, compared with
                # their mean (a drift of the load cancels); the priority
                # kinds' order rotating from round to round.
                order = others[rnd % len(others):] + others[:rnd % len(others)]
                before = run("plain")
                for kind in order:
                    x = run(kind)
                    after = run("plain")
                    paired[kind].append(2 * x / (before + after))
                    before = after
            line = f"{count:>5} {statistics.median(rps['plain']):>10.0f}"
            for k in others:
                line += f" {statistics.median(rps[k]):>11.0f} {statistics.median(paired[k]):>6.2f}"
            pc = min(cpu["plain"])
            line += f" {pc:>9.2f}"
            for k in others:
                # CPU: the best round of each (background load only ever adds).
                line += f" {min(cpu[k]):>10.2f} {pc / min(cpu[k]):>6.2f}"
            print(line, flush=True)
        print("\nratios: priority/plain for requests/s, plain/priority for CPU (goal: >= 0.9 for both)")
    finally:
        proc.terminate()
        proc.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
