#!/usr/bin/python3
"""test_functions.py -- FUNCTION libraries are state (src/functions.c): a
FUNCTION LOAD / DELETE / FLUSH / RESTORE is acknowledged only once the
document holds it, and what was acknowledged is there after SIGKILL and
after a take-over; a function's writes are one change, committed once.

Scenarios, each on its own document:
  crash     libraries loaded, replaced, deleted and restored (a FUNCTION
            DUMP payload) while FCALLs write; SIGKILL after each step; the
            restarted node has exactly the acknowledged libraries (their
            code byte for byte, FUNCTION LIST and FCALL results), and every
            acknowledged FCALL's writes (none half-applied)
  failover  two nodes: a library loaded through the follower, the broker
            SIGKILLed, the follower takes over and serves FCALL from the
            library; a FUNCTION LOAD acknowledged by the new broker is in
            the document
  busy      a script busy on the broker for 3 x broker-timeout: the follower's
            checks get -BUSY, which counts as an answer (no take-over); SCRIPT
            KILL through the follower is relayed and stops it
  document  the "functions" records are readable (jq-style: library, code);
            a document whose library does not compile is refused with a
            message naming it, and left as it was
Ports 26100-26199.
"""

import os
import signal
import sys
import tempfile
import threading
import time

import redis

sys.path.insert(0, os.path.dirname(__file__))
from casqtest import (Casq, binfo, check, finish, load_document, make_follower, pick_port,  # noqa: E402
                      run_casq_expect_exit, wait_for)

_used = set()


def port():
    p = pick_port(int(os.environ.get("FUNCTIONS_PORT_BASE", "26160")), span=40, avoid=tuple(_used))
    _used.add(p)
    return p


def lib(name, version, extra=""):
    """A library whose functions answer their version and write two keys
    (the pair must always agree: a function's writes are atomic)."""
    return (f"#!lua name={name}\n"
            f"redis.register_function('{name}_ver', function() return '{version}' end)\n"
            f"redis.register_function('{name}_pair', function(keys, args)\n"
            f"  redis.call('set', keys[1], args[1])\n"
            f"  redis.call('set', keys[2], args[1])\n"
            f"  return redis.call('incr', keys[3])\n"
            f"end)\n{extra}")


def libraries(r):
    """{name: code} from FUNCTION LIST WITHCODE."""
    out = {}
    for entry in r.execute_command("FUNCTION", "LIST", "WITHCODE"):
        d = dict(zip(entry[::2], entry[1::2]))
        out[d[b"library_name"].decode()] = d[b"library_code"].decode()
    return out


def scenario_crash():
    d = tempfile.mkdtemp(prefix="casq-fn-crash-")
    n = Casq(port(), d).start()
    expect = {}
    pairs = {}
    steps = [
        ("load a", lambda r: r.execute_command("FUNCTION", "LOAD", lib("a", 1)), lambda: expect.update(a=lib("a", 1))),
        ("load b", lambda r: r.execute_command("FUNCTION", "LOAD", lib("b", 1)), lambda: expect.update(b=lib("b", 1))),
        ("replace a", lambda r: r.execute_command("FUNCTION", "LOAD", "REPLACE", lib("a", 2)),
         lambda: expect.update(a=lib("a", 2))),
        ("delete b", lambda r: r.execute_command("FUNCTION", "DELETE", "b"), lambda: expect.pop("b")),
    ]
    lives = 0
    for what, do, note in steps:
        r = n.client()
        do(r)
        note()
        # FCALLs that write, acknowledged: each must be whole after the kill.
        for k in range(20):
            v = f"{what}-{k}"
            cnt = r.execute_command("FCALL", "a_pair", 3, "x", "y", "count", v)
            pairs[cnt] = v
        r.close()
        n.kill(signal.SIGKILL)
        lives += 1
        n.start()
        r = n.client()
        got = libraries(r)
        check(got == expect, f"crash: after '{what}' and SIGKILL the libraries are the acknowledged ones",
              f"{sorted(got)} vs {sorted(expect)}")
        check(r.execute_command("FCALL", "a_ver", 0) == str(2 if what != "load a" and what != "load b" else 1).encode(),
              f"crash: after '{what}' FCALL runs the acknowledged code")
        x, y, count = r.get("x"), r.get("y"), int(r.get("count"))
        check(x == y == pairs[count].encode(),
              f"crash: after '{what}' the last acknowledged FCALL's two writes are both there", f"{x} {y} {count}")
        r.close()

    # FUNCTION DUMP, FLUSH, then RESTORE: each acknowledged step survives.
    r = n.client()
    payload = r.execute_command("FUNCTION", "DUMP")
    r.execute_command("FUNCTION", "FLUSH")
    r.close()
    n.kill(signal.SIGKILL)
    n.start()
    r = n.client()
    check(libraries(r) == {}, "crash: an acknowledged FUNCTION FLUSH survives SIGKILL")
    check(r.execute_command("FUNCTION", "RESTORE", payload) == b"OK", "crash: RESTORE of the dump")
    r.close()
    n.kill(signal.SIGKILL)
    n.start()
    r = n.client()
    check(libraries(r) == expect, "crash: an acknowledged FUNCTION RESTORE survives SIGKILL")
    r.close()
    check(n.stop() == 0, f"crash: clean shutdown after {lives + 2} kills")

    doc = load_document(os.path.join(d, "queue.json"), merge=False)
    recs = doc.get("functions")
    check(isinstance(recs, list) and [x.get("library") for x in recs] == ["a"] and recs[0].get("code") == lib("a", 2),
          "document: \"functions\" holds the library's name and code, readable", f"{recs}")
    return d


def scenario_concurrent_kill():
    """FCALLs from several clients while the server is SIGKILLed: every
    acknowledged FCALL's two writes are in the restarted state, and no
    FCALL is half there."""
    d = tempfile.mkdtemp(prefix="casq-fn-load-")
    n = Casq(port(), d).start()
    r = n.client()
    r.execute_command("FUNCTION", "LOAD", lib("w", 1))
    r.close()
    acked = {}
    stop = threading.Event()

    def worker(i):
        c = n.client(socket_timeout=5)
        k = 0
        while not stop.is_set():
            k += 1
            try:
                c.execute_command("FCALL", "w_pair", 3, f"p{i}-{k}-a", f"p{i}-{k}-b", f"n{i}", "v")
                acked[(i, k)] = True
            except (redis.ConnectionError, redis.TimeoutError, redis.ResponseError):
                return

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    time.sleep(1.0)
    n.kill(signal.SIGKILL)
    stop.set()
    for t in threads:
        t.join()
    n.start()
    r = n.client()
    missing = [ik for ik in acked if r.get(f"p{ik[0]}-{ik[1]}-a") != b"v" or r.get(f"p{ik[0]}-{ik[1]}-b") != b"v"]
    check(acked and not missing, f"load: all {len(acked)} acknowledged FCALLs are whole after SIGKILL",
          f"missing {len(missing)}")
    half = 0
    for key in r.scan_iter(match="p*-a", count=1000):
        if r.get(key[:-1] + b"b") is None:
            half += 1
    check(half == 0, "load: no FCALL is half applied after SIGKILL", f"{half}")
    r.close()
    n.stop()


def scenario_failover():
    d = tempfile.mkdtemp(prefix="casq-fn-fo-")
    a = Casq(port(), d, "--broker-timeout", "500", logname="a.log").start()
    b = Casq(port(), d, "--broker-timeout", "500", logname="b.log").start()
    check(make_follower(a), "failover: a follows b")
    r = a.client()
    check(r.execute_command("FUNCTION", "LOAD", lib("f", 1)) == b"f", "failover: FUNCTION LOAD through the follower")
    r.execute_command("FCALL", "f_pair", 3, "x", "y", "n", "before")
    r.close()
    b.kill(signal.SIGKILL)
    took = wait_for(lambda: binfo(a)["broker_role"] == "broker", 5)
    check(took, "failover: the follower took over")
    r = a.client()
    check(wait_for(lambda: r.execute_command("FCALL", "f_ver", 0) == b"1", 5),
          "failover: the new broker serves FCALL from the library loaded before")
    check(r.get("x") == b"before", "failover: the function's acknowledged write is there")
    check(r.execute_command("FUNCTION", "LOAD", lib("g", 1)) == b"g", "failover: FUNCTION LOAD on the new broker")
    r.close()
    a.kill(signal.SIGKILL)
    c = Casq(port(), d, logname="c.log").start()
    r = c.client()
    check(sorted(libraries(r)) == ["f", "g"], "failover: a restarted node has both libraries", f"{sorted(libraries(r))}")
    r.close()
    c.stop()


def scenario_busy():
    d = tempfile.mkdtemp(prefix="casq-fn-busy-")
    a = Casq(port(), d, "--broker-timeout", "500", logname="a.log").start()
    b = Casq(port(), d, "--broker-timeout", "500", "--busy-reply-threshold", "100", logname="b.log").start()
    check(make_follower(a), "busy: a follows b")
    out = []

    def endless():
        c = b.client(socket_timeout=30)
        try:
            c.eval("local i = 0 while true do i = i + 1 end", 0)
            out.append("returned")
        except redis.ResponseError as e:
            out.append(str(e))
        c.close()

    t = threading.Thread(target=endless)
    t.start()
    time.sleep(0.5)  # the script runs past busy-reply-threshold (and broker-timeout)
    r = b.client(socket_timeout=5)
    try:
        r.ping()
        check(False, "busy: the broker answers -BUSY")
    except redis.ResponseError as e:
        check(str(e).startswith("BUSY"), "busy: the broker answers -BUSY", str(e))
    r.close()
    time.sleep(1.5)  # 3 x broker-timeout
    check(binfo(a)["broker_role"] == "follower", "busy: no take-over while the broker runs a long script")
    k = a.client(socket_timeout=5)
    check(k.execute_command("SCRIPT", "KILL") == b"OK", "busy: SCRIPT KILL through the follower")
    k.close()
    t.join(10)
    check(out and "Script killed by user with SCRIPT KILL" in out[0], "busy: the script was killed", f"{out}")
    check(binfo(b)["broker_role"] == "broker", "busy: the broker is still the broker")
    r = a.client()
    check(r.set("after", "1") and r.get("after") == b"1", "busy: writes through the follower go on")
    r.close()
    b.stop()
    a.stop()


def scenario_bad_document(d):
    path = os.path.join(d, "queue.json")
    with open(path, "rb") as f:
        good = f.read()
    import json
    doc = json.loads(good)
    doc["functions"] = [{"library": "bad", "code": "#!lua name=bad\nthis is not lua"}]
    bad = json.dumps(doc).encode()
    with open(path, "wb") as f:
        f.write(bad)
    rc, out = run_casq_expect_exit(port(), d)
    check(rc not in (0, None) and "functions[0]" in out and "Error compiling function" in out,
          "document: a library that does not compile refuses the document, naming it", out[-300:])
    with open(path, "rb") as f:
        check(f.read() == bad, "document: the refused document is left as it was")


if __name__ == "__main__":
    d = scenario_crash()
    scenario_bad_document(d)
    scenario_concurrent_kill()
    scenario_failover()
    scenario_busy()
    finish()
