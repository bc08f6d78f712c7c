#!/usr/bin/python3
"""bullmq.py -- BullMQ (npm `bullmq`, pinned in package.json; all of it Lua
run by EVALSHA) end to end against redis-server and casq, outcomes
compared, then a SIGKILL of casq in the middle of a load.

    /usr/bin/python3 tests/integration/bullmq.py

1. `node bullmq.js scenarios PORT` on a redis-server with appendfsync
   always (which proves the checks are real) and on casq: Queue + Worker
   with concurrency, delayed, prioritized, retries with exponential
   backoff, a job scheduler, flows, a rate limiter, QueueEvents and the
   events stream, removeOnComplete / removeOnFail, pause and getJobCounts.
   Each run's checks count, and casq's `OUTCOME` lines must equal
   redis-server's.
2. casq only: `node bullmq.js crash PORT` adds and processes jobs; once
   some are added and some completed, casq is killed with SIGKILL and
   started again on the same directory and port. Every job whose add was
   acknowledged must be there and complete; none whose completion was
   acknowledged may run again.

Installs bullmq with npm (package-lock.json) when it is missing. Ends
with `N passed, N failed`.
"""
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import casqtest  # noqa: E402

NODE_TIMEOUT = 120


def ensure_bullmq(t):
    nm = os.path.join(HERE, "node_modules")
    if all(os.path.exists(os.path.join(nm, p, "package.json")) for p in ("bullmq", "ioredis")):
        return True
    npm = shutil.which("npm")
    if not npm:
        return t.check("npm is installed (tests/install-deps.sh installs it)", False)
    print("# installing bullmq and ioredis with npm into %s" % nm)
    p = subprocess.run([npm, "ci", "--prefix", HERE, "--no-audit", "--no-fund"], capture_output=True, timeout=600)
    return t.check("npm ci installs bullmq", p.returncode == 0, (p.stdout + p.stderr).decode("latin-1")[-2000:])


def count_node(t, lines, rc, stderr, what):
    """Adds the node run's own `N passed, N failed` to t; prints its lines."""
    m = None
    for line in lines:
        mm = re.fullmatch(r"(\d+) passed, (\d+) failed", line)
        if mm:
            m = mm
        elif not line.startswith(("OUTCOME ", "PROGRESS ")):
            print(line)
    if m:
        t.passed += int(m.group(1))
        t.failed += int(m.group(2))
        if int(m.group(2)):
            t.failures.append("%s: %s node check(s), see above" % (what, m.group(2)))
    t.check("%s: node exits 0 with a summary line" % what, rc == 0 and m is not None, stderr[-2000:])


def scenarios(srv, t):
    what = "scenarios on %s" % srv.kind
    print("# %s (port %d)" % (what, srv.port))
    try:
        p = subprocess.run(["node", os.path.join(HERE, "bullmq.js"), "scenarios", str(srv.port)],
                           capture_output=True, timeout=NODE_TIMEOUT)
    except subprocess.TimeoutExpired:
        t.check("%s end within %d s" % (what, NODE_TIMEOUT), False)
        return None
    lines = p.stdout.decode("utf-8", "replace").rstrip("\n").split("\n")
    count_node(t, lines, p.returncode, p.stderr.decode("utf-8", "replace"), what)
    out = {}
    for line in lines:
        if line.startswith("OUTCOME "):
            o = json.loads(line[len("OUTCOME "):])
            out[o.pop("scenario")] = o
    return out


def compare(outs, t):
    a, b = outs.get("redis"), outs.get("casq")
    if a is None or b is None:
        return
    for name in sorted(set(a) | set(b)):
        t.eq("%s: casq's outcome is redis-server's" % name, a.get(name), b.get(name))


def crash(srv, t):
    """casq only: a BullMQ load through a SIGKILL of casq."""
    print("# crash: BullMQ load through a SIGKILL of casq (port %d)" % srv.port)
    node = subprocess.Popen(["node", os.path.join(HERE, "bullmq.js"), "crash", str(srv.port)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines = queue.Queue()

    def reader():
        for raw in node.stdout:
            lines.put(raw.decode("utf-8", "replace").rstrip("\n"))
        lines.put(None)
    threading.Thread(target=reader, daemon=True).start()
    seen = []
    killed = False
    deadline = time.time() + NODE_TIMEOUT
    while time.time() < deadline:
        try:
            line = lines.get(timeout=max(0.1, deadline - time.time()))
        except queue.Empty:
            break
        if line is None:
            break
        seen.append(line)
        if not killed and line.startswith("PROGRESS "):
            p = json.loads(line[len("PROGRESS "):])
            # Mid-load: some jobs done, many more being added and run.
            if p["acked"] >= 200 and p["completed"] >= 80:
                print("# SIGKILL with %d adds and %d completions acknowledged" % (p["acked"], p["completed"]))
                killed = True
                ok = t.check("crash: casq restarts on its data directory after SIGKILL", srv.kill_and_restart(),
                             casqtest.tail(srv.log()))
                if ok:
                    node.stdin.write(b"RESTARTED\n")
                    node.stdin.flush()
    else:
        t.check("crash: the load ends within %d s" % NODE_TIMEOUT, False)
    if node.poll() is None:
        node.kill()
    rc = node.wait()
    t.check("crash: the load reached the point of the kill", killed,
            "\n".join([line for line in seen if line.startswith("PROGRESS ")][-3:]))
    count_node(t, seen, rc, node.stderr.read().decode("utf-8", "replace"), "crash")


def main():
    t = casqtest.Results("bullmq")
    if not ensure_bullmq(t):
        return t.finish()
    print("# node %s, bullmq %s" % (
        subprocess.run(["node", "--version"], capture_output=True).stdout.decode().strip(),
        json.load(open(os.path.join(HERE, "node_modules", "bullmq", "package.json")))["version"]))
    servers = {}
    outs = {}
    try:
        for kind in ("redis", "casq"):
            # redis-server as durable as casq: every write fsynced.
            args = ["--appendonly", "yes", "--appendfsync", "always"] if kind == "redis" else []
            try:
                servers[kind] = casqtest.Server(args=args, kind=kind).start()
            except Exception as e:  # reported, and the summary still printed
                t.check("%s starts" % kind, False, str(e))
                return t.finish()
            o = scenarios(servers[kind], t)
            if o is not None:
                outs[kind] = o
        compare(outs, t)
        servers["redis"].stop(t)
        del servers["redis"]
        crash(servers["casq"], t)
        t.check("casq still alive", servers["casq"].alive())
    finally:
        for s in servers.values():
            s.stop(t)
    return t.finish()


if __name__ == "__main__":
    sys.exit(main())
