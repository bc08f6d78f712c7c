#!/usr/bin/python3
"""python_client.py -- a pusher/worker session with redis-py (Debian's
python3-redis) against casq, unchanged client code.

    /usr/bin/python3 tests/integration/python_client.py
    CASQ_SERVER=redis /usr/bin/python3 tests/integration/python_client.py

Covers: basic commands, XADD -> XREADGROUP BLOCK -> XACK with a worker
thread woken by a pusher, XAUTOCLAIM of a dead worker's jobs, heartbeats
(XCLAIM JUSTID), pipelines, MULTI/EXEC and WATCH, binary values, many
concurrent connections, exact error strings, and RESP3 through HELLO 3.
redis-py 4.3 has no RESP3 parser (protocol=3 arrived in redis-py 5), so
RESP3 is checked with a raw socket. Ends with `N passed, N failed`.
"""
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import casqtest  # noqa: E402

import redis  # noqa: E402

KIND = os.environ.get("CASQ_SERVER", "casq")


def session_basics(r, t):
    t.eq("PING", True, r.ping())
    t.eq("ECHO binary", b"a\x00b\xff", r.echo(b"a\x00b\xff"))
    r.delete("s")
    ids = [r.xadd("s", {"job": str(i), "payload": "x" * i}) for i in range(5)]
    t.check("XADD * returns increasing IDs", ids == sorted(ids, key=lambda x: tuple(map(int, x.split(b"-")))),
            repr(ids))
    t.eq("XLEN", 5, r.xlen("s"))
    entries = r.xrange("s")
    t.eq("XRANGE ids", ids, [e[0] for e in entries])
    t.eq("XRANGE fields", {b"job": b"3", b"payload": b"xxx"}, entries[3][1])
    t.eq("XREVRANGE COUNT 2", ids[::-1][:2], [e[0] for e in r.xrevrange("s", count=2)])
    t.eq("TYPE stream", b"stream", r.type("s"))
    t.eq("EXISTS", 1, r.exists("s"))
    bin_value = bytes(range(256))
    bid = r.xadd("s", {b"bin\x00key": bin_value})
    t.eq("binary field and value round trip", [(bid, {b"bin\x00key": bin_value})], r.xrange("s", bid, bid))
    t.eq("XDEL", 1, r.xdel("s", bid))
    t.check("EXPIRE then TTL", r.expire("s", 100) and 0 < r.ttl("s") <= 100, r.ttl("s"))
    t.eq("PERSIST", True, r.persist("s"))
    t.eq("DEL", 1, r.delete("s"))
    t.eq("XLEN of missing key", 0, r.xlen("s"))


def session_errors(r, t):
    def err_of(fn):
        try:
            fn()
        except redis.ResponseError as e:
            return str(e)
        return None
    t.eq("unknown command error", "unknown command 'NOSUCHCMD', with args beginning with: 'a' ",
         err_of(lambda: r.execute_command("NOSUCHCMD", "a")))
    t.eq("wrong arity error", "wrong number of arguments for 'xlen' command",
         err_of(lambda: r.execute_command("XLEN")))
    r.delete("e")
    t.eq("XREADGROUP without group", "NOGROUP No such key 'e' or consumer group 'g' in XREADGROUP with GROUP option",
         err_of(lambda: r.xreadgroup("g", "c", {"e": ">"})))
    r.xadd("e", {"f": "v"})
    t.eq("XGROUP CREATE twice", "BUSYGROUP Consumer Group name already exists",
         err_of(lambda: [r.xgroup_create("e", "g", "0"), r.xgroup_create("e", "g", "0")]))
    t.eq("XADD with an ID not above the top",
         "The ID specified in XADD is equal or smaller than the target stream top item",
         err_of(lambda: r.xadd("e", {"f": "v"}, id="1")))
    if KIND == "casq":  # HyperLogLogs are not implemented: their commands are unknown
        t.eq("PFADD is an unknown command",
             "unknown command 'PFADD', with args beginning with: 'k' 'v' ",
             err_of(lambda: r.execute_command("PFADD", "k", "v")))
    r.set("s", "v")
    t.eq("WRONGTYPE from a stream command on a string",
         "WRONGTYPE Operation against a key holding the wrong kind of value", err_of(lambda: r.xlen("s")))
    r.delete("s")
    r.delete("e")


def worker_loop(pool, stream, group, name, want, got, stop):
    r = redis.Redis(connection_pool=pool)
    while len(got) < want and not stop.is_set():
        resp = r.xreadgroup(group, name, {stream: ">"}, count=10, block=2000)
        for _, entries in resp or []:
            for eid, fields in entries:
                got.append((eid, fields))
                r.xack(stream, group, eid)


def session_push_work(pool, t):
    r = redis.Redis(connection_pool=pool)
    r.delete("jobs")
    t.eq("XGROUP CREATE MKSTREAM", True, r.xgroup_create("jobs", "workers", id="$", mkstream=True))

    # A worker blocked on an empty stream is woken by the pusher's XADD.
    woke = []

    def blocked_reader():
        rr = redis.Redis(connection_pool=pool)
        woke.append(rr.xreadgroup("workers", "w0", {"jobs": ">"}, count=1, block=0))
    th = threading.Thread(target=blocked_reader)
    th.start()
    deadline = time.time() + 20
    while time.time() < deadline and r.info("clients").get("blocked_clients", 0) < 1:
        time.sleep(0.01)
    t.eq("worker is blocked in XREADGROUP BLOCK 0", 1, r.info("clients").get("blocked_clients"))
    first = r.xadd("jobs", {"n": "first"})
    th.join(30)
    t.check("XADD wakes the blocked worker", not th.is_alive() and woke and woke[0][0][1][0][0] == first, repr(woke))
    t.eq("XACK of the woken job", 1, r.xack("jobs", "workers", first))

    # Two workers drain 500 jobs pushed by a pusher, acking each.
    n = 500
    got1, got2, stop = [], [], threading.Event()
    workers = [threading.Thread(target=worker_loop, args=(pool, "jobs", "workers", "w1", n, got1, stop)),
               threading.Thread(target=worker_loop, args=(pool, "jobs", "workers", "w2", n, got2, stop))]
    for w in workers:
        w.start()
    pushed = [r.xadd("jobs", {"n": str(i)}) for i in range(n)]
    deadline = time.time() + 60
    while time.time() < deadline and len(got1) + len(got2) < n:
        time.sleep(0.02)
    stop.set()
    for w in workers:
        w.join(30)
    done = sorted(e[0] for e in got1 + got2)
    t.eq("every pushed job was delivered exactly once", sorted(pushed), done)
    t.eq("job payloads intact", {str(i).encode() for i in range(n)}, {e[1][b"n"] for e in got1 + got2})
    t.eq("XPENDING summary is empty after XACK", 0, r.xpending("jobs", "workers")["pending"])
    groups = r.xinfo_groups("jobs")
    t.eq("XINFO GROUPS last-delivered-id", pushed[-1], groups[0]["last-delivered-id"])
    t.eq("XINFO GROUPS pending", 0, groups[0]["pending"])


def session_dead_worker(pool, t):
    r = redis.Redis(connection_pool=pool)
    r.delete("q")
    r.xgroup_create("q", "g", id="0", mkstream=True)
    ids = [r.xadd("q", {"job": str(i)}) for i in range(6)]
    # Worker "dead" takes 4 jobs and vanishes without acking.
    dead = redis.Redis(connection_pool=redis.ConnectionPool(host=pool.connection_kwargs["host"],
                                                              port=pool.connection_kwargs["port"]))
    taken = dead.xreadgroup("g", "dead", {"q": ">"}, count=4)
    t.eq("dead worker got 4 jobs", ids[:4], [e[0] for e in taken[0][1]])
    dead.connection_pool.disconnect()
    p = r.xpending("q", "g")
    t.eq("XPENDING summary lists the dead worker", (4, ids[0], ids[3], [{"name": b"dead", "pending": 4}]),
         (p["pending"], p["min"], p["max"], p["consumers"]))
    time.sleep(0.05)
    # A live worker takes over the jobs idle for at least 20 ms.
    nxt, claimed = r.xautoclaim("q", "g", "alive", min_idle_time=20, start_id="0-0", count=3)[:2]
    t.eq("XAUTOCLAIM claims the first 3", ids[:3], [e[0] for e in claimed])
    t.eq("XAUTOCLAIM cursor points at the next pending", ids[3], nxt)
    nxt, claimed = r.xautoclaim("q", "g", "alive", min_idle_time=20, start_id=nxt, count=3)[:2]
    t.eq("XAUTOCLAIM claims the rest", [ids[3]], [e[0] for e in claimed])
    t.eq("XAUTOCLAIM cursor wraps to 0-0", b"0-0", nxt)
    detail = r.xpending_range("q", "g", "-", "+", 10)
    t.eq("claimed jobs belong to the live worker, delivered twice", [(i, b"alive", 2) for i in ids[:4]],
         [(d["message_id"], d["consumer"], d["times_delivered"]) for d in detail])
    # Heartbeat: the owner refreshes its claim with XCLAIM JUSTID (idle 0).
    hb = r.xclaim("q", "g", "alive", 0, ids[:2], justid=True)
    t.eq("heartbeat XCLAIM JUSTID returns the IDs", ids[:2], hb)
    detail = r.xpending_range("q", "g", "-", "+", 10)
    t.eq("JUSTID does not count as a delivery", [2, 2, 2, 2], [d["times_delivered"] for d in detail])
    # The remaining two jobs are read by the live worker normally.
    rest = r.xreadgroup("g", "alive", {"q": ">"}, count=10)
    t.eq("remaining jobs delivered", ids[4:], [e[0] for e in rest[0][1]])
    t.eq("XACK everything", 6, r.xack("q", "g", *ids))
    t.eq("nothing pending", 0, r.xpending("q", "g")["pending"])
    consumers = sorted(c["name"] for c in r.xinfo_consumers("q", "g"))
    t.eq("XINFO CONSUMERS", [b"alive", b"dead"], consumers)
    t.eq("XGROUP DELCONSUMER of the dead worker", 0, r.xgroup_delconsumer("q", "g", "dead"))


def session_pipelines(pool, t):
    r = redis.Redis(connection_pool=pool)
    r.delete("p")
    pipe = r.pipeline(transaction=False)
    for i in range(1000):
        pipe.xadd("p", {"i": str(i)})
    pipe.xlen("p")
    res = pipe.execute()
    t.eq("pipeline of 1000 XADD + XLEN", 1000, res[-1])
    t.eq("pipelined IDs are unique", 1000, len(set(res[:-1])))

    tx = r.pipeline(transaction=True)
    tx.xadd("p", {"i": "tx"})
    tx.xlen("p")
    tx.xtrim("p", maxlen=10, approximate=False)
    tx.xlen("p")
    res = tx.execute()
    t.eq("MULTI/EXEC results", [1001, 991, 10], res[1:])

    # WATCH: a change by another client aborts the transaction.
    other = redis.Redis(connection_pool=pool)
    with r.pipeline() as w:
        w.watch("p")
        other.xadd("p", {"i": "intruder"})
        w.multi()
        w.xadd("p", {"i": "mine"})
        try:
            w.execute()
            aborted = False
        except redis.WatchError:
            aborted = True
    t.check("WATCH aborts EXEC after a concurrent XADD", aborted)
    t.eq("the aborted XADD did not happen", 11, r.xlen("p"))

    # An error inside MULTI is reported per command, the rest runs.
    tx = r.pipeline(transaction=True)
    tx.xadd("p", {"i": "ok"})
    tx.execute_command("XGROUP", "CREATE", "nokey", "g", "$")
    tx.xlen("p")
    res = tx.execute(raise_on_error=False)
    t.check("EXEC runs past a failing command", isinstance(res[1], redis.ResponseError) and res[2] == 12, repr(res))


def session_concurrency(pool, t):
    r = redis.Redis(connection_pool=pool)
    r.delete("c")
    errors = []

    def pusher(k):
        try:
            c = redis.Redis(host=pool.connection_kwargs["host"], port=pool.connection_kwargs["port"])
            for i in range(200):
                c.xadd("c", {"k": str(k), "i": str(i)})
            c.close()
        except Exception as e:  # recorded, then asserted below
            errors.append(repr(e))
    ths = [threading.Thread(target=pusher, args=(k,)) for k in range(20)]
    for th in ths:
        th.start()
    for th in ths:
        th.join(120)
    t.eq("20 concurrent connections x 200 XADD: no errors", [], errors)
    t.eq("... all 4000 entries present", 4000, r.xlen("c"))
    per = {}
    for _, f in r.xrange("c"):
        per.setdefault(f[b"k"], []).append(int(f[b"i"]))
    t.check("... each connection's entries in its order", all(v == list(range(200)) for v in per.values()))


def session_resp3(port, t):
    s = casqtest.raw_connect(port)
    s.sendall(b"HELLO 3\r\n")
    hello = casqtest.read_exact_replies(s, 1)[0]
    t.check("HELLO 3 returns a map with proto 3", hello.startswith(b"%") and b"$5\r\nproto\r\n:3\r\n" in hello,
            hello[:200])
    s.sendall(b"*4\r\n$4\r\nXADD\r\n$2\r\nr3\r\n$1\r\n*\r\n$1\r\nf\r\n")
    (reply,) = casqtest.read_exact_replies(s, 1)
    t.check("XADD needs an even field list in RESP3 too", reply.startswith(b"-ERR wrong number of arguments"), reply)
    s.sendall(b"DEL r3\r\nXLEN r3\r\nXRANGE r3 - +\r\nXINFO STREAM nosuch\r\n")
    got = casqtest.read_exact_replies(s, 4)
    t.eq("RESP3 replies", [b":0\r\n", b":0\r\n", b"*0\r\n", b"-ERR no such key\r\n"], got)
    s.close()


def main():
    t = casqtest.Results("python3-redis")
    srv = casqtest.Server().start()
    try:
        print("# redis-py %s against %s on port %d" % (redis.__version__, srv.kind, srv.port))
        pool = redis.ConnectionPool(host="127.0.0.1", port=srv.port, db=0, socket_timeout=60)
        r = redis.Redis(connection_pool=pool)
        r.flushall()
        for name, fn, args in [("basics", session_basics, (r, t)),
                               ("errors", session_errors, (r, t)),
                               ("push/work", session_push_work, (pool, t)),
                               ("dead worker", session_dead_worker, (pool, t)),
                               ("pipelines", session_pipelines, (pool, t)),
                               ("concurrency", session_concurrency, (pool, t)),
                               ("resp3", session_resp3, (srv.port, t))]:
            t.run(name, fn, *args)
        t.check("server still alive", srv.alive())
        pool.disconnect()
    finally:
        srv.stop(t)
    return t.finish()


if __name__ == "__main__":
    sys.exit(main())
