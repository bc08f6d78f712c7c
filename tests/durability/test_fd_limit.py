#!/usr/bin/python3
"""test_fd_limit.py -- descriptor exhaustion (issue 14, fault 2).

casq runs with `ulimit -n 256` (soft and hard, so it cannot raise it) and
300 idle connections arrive. As Redis's adjustOpenFilesLimit, casq fits
maxclients to the limit at start and says so in the log, keeping
descriptors in reserve for the store; connections beyond maxclients get
`-ERR max number of clients reached`. A client connected before keeps
working and its writes are committed (the store can still create
queue.json.tmp), the server does not spin on accept, and the log stays
small.

Before the fix: casq spun at 100% CPU on accept, logged "Too many open
files" about 1.5 million times in 12 s, and every commit failed.
"""

import os
import resource
import socket
import subprocess
import sys
import tempfile
import time

import redis

sys.path.insert(0, os.path.dirname(__file__))
from casqtest import SERVER, check, finish, pick_port  # noqa: E402

PORT = int(os.environ.get("FDLIMIT_PORT", "0")) or pick_port(26170)
LIMIT = 256


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def lowered_limit():
    resource.setrlimit(resource.RLIMIT_NOFILE, (LIMIT, LIMIT))


def main():
    datadir = tempfile.mkdtemp(prefix="casq-fdlimit-")
    log = os.path.join(datadir, "casq.log")
    with open(log, "wb") as logf:
        proc = subprocess.Popen([SERVER, "--port", str(PORT), "--bind", "127.0.0.1", "--dir", datadir],
                                stdout=logf, stderr=subprocess.STDOUT, preexec_fn=lowered_limit)
    try:
        deadline = time.time() + 20
        r = None
        while time.time() < deadline:
            try:
                r = redis.Redis(port=PORT, socket_timeout=5)
                r.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        maxclients = int(r.config_get("maxclients")["maxclients"])
        check(0 < maxclients <= LIMIT - 32, "fdlimit: maxclients fitted to ulimit -n 256",
              f"maxclients {maxclients}")
        text = open(log, "rb").read().decode("utf-8", "replace")
        check("maxclients has been reduced to" in text, "fdlimit: the log says maxclients was reduced")

        try:
            r.config_set("maxclients", "10000")
            err = ""
        except redis.ResponseError as e:
            err = str(e)
        check(f"The operating system is not able to handle the specified number of clients, try with {maxclients}"
              in err and int(r.config_get("maxclients")["maxclients"]) == maxclients,
              "fdlimit: CONFIG SET maxclients beyond the limit is refused with the number that fits", err)

        r.xadd("jobs", {"n": "0"})
        cpu_before = cpu_seconds(proc.pid)
        idle = []
        refused = 0
        for _ in range(300):
            s = socket.create_connection(("127.0.0.1", PORT), timeout=5)
            idle.append(s)
        time.sleep(0.5)
        for s in idle:
            s.setblocking(False)
            try:
                data = s.recv(200)
            except BlockingIOError:
                data = b""
            if data.startswith(b"-ERR max number of clients reached"):
                refused += 1
        check(refused > 0, "fdlimit: connections beyond maxclients get -ERR max number of clients reached",
              f"{refused} refused")
        check(refused >= 300 - maxclients, "fdlimit: every connection beyond maxclients was refused",
              f"{refused} refused, maxclients {maxclients}")

        ok = 0
        for i in range(20):
            try:
                r.xadd("jobs", {"n": str(i + 1)})
                ok += 1
            except redis.RedisError as e:
                print(f"# XADD failed: {e}")
                break
        check(ok == 20, "fdlimit: writes of a connected client are committed at the limit", f"{ok}/20")
        if ok == 20:
            check(r.xlen("jobs") == 21, "fdlimit: XLEN counts every write")
        r2_ok = False
        for s in idle[:50]:
            s.close()
        time.sleep(0.3)
        try:
            r2 = redis.Redis(port=PORT, socket_timeout=5)
            r2_ok = r2.ping()
            r2.close()
        except redis.RedisError:
            pass
        check(r2_ok, "fdlimit: a new client is served once others left")
        time.sleep(2)
        cpu = cpu_seconds(proc.pid) - cpu_before
        check(cpu < 1.5, "fdlimit: no spinning on accept", f"{cpu:.2f} s CPU")
        size = os.path.getsize(log)
        check(size < 64 * 1024, "fdlimit: the log stays small", f"{size} bytes")
        for s in idle:
            s.close()
        r.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
    accept_errors_scenario()
    finish()


def accept_errors_scenario():
    """The limit lowered under a running casq (prlimit), below maxclients:
    accept() itself fails with EMFILE. casq must pause accepting and log the
    error at most every few seconds, not spin, and accept again once
    descriptors are free."""
    datadir = tempfile.mkdtemp(prefix="casq-fdlimit-accept-")
    log = os.path.join(datadir, "casq.log")
    with open(log, "wb") as logf:
        proc = subprocess.Popen([SERVER, "--port", str(PORT), "--bind", "127.0.0.1", "--dir", datadir],
                                stdout=logf, stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 20
        r = None
        while time.time() < deadline:
            try:
                r = redis.Redis(port=PORT, socket_timeout=5)
                r.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        r.xadd("jobs", {"n": "0"})
        resource.prlimit(proc.pid, resource.RLIMIT_NOFILE, (48, 48))
        cpu_before = cpu_seconds(proc.pid)
        size_before = os.path.getsize(log)
        socks = []
        for _ in range(80):
            try:
                socks.append(socket.create_connection(("127.0.0.1", PORT), timeout=5))
            except OSError:
                break
        time.sleep(3)
        cpu = cpu_seconds(proc.pid) - cpu_before
        grown = os.path.getsize(log) - size_before
        text = open(log, "rb").read().decode("utf-8", "replace")
        check(cpu < 1.0, "fdlimit[accept EMFILE]: no spinning on accept", f"{cpu:.2f} s CPU in 3 s")
        check(grown < 4096 and "Too many open files" in text,
              "fdlimit[accept EMFILE]: the error is logged, a few times at most", f"{grown} bytes of log")
        for s in socks:
            s.close()
        ok = False
        deadline = time.time() + 5
        while time.time() < deadline and not ok:
            try:
                r2 = redis.Redis(port=PORT, socket_timeout=2)
                ok = r2.ping()
                r2.close()
            except redis.RedisError:
                time.sleep(0.1)
        check(ok, "fdlimit[accept EMFILE]: clients are accepted again once descriptors are free")
        r.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()


if __name__ == "__main__":
    main()
