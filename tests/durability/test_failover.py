#!/usr/bin/python3
"""test_failover.py -- several casq processes on one document: followers
forward every command to the broker byte for byte, and take over when it
stops answering for broker-timeout (design.md §5; src/broker.c).

A follower exists when a node learns that another one took over: start X,
start Y (Y takes over at start-up), then X's next write fails its CAS and X
reloads as Y's follower (make_follower below).

Scenarios, each on its own document:
  forward   replies through a follower equal the broker's, byte for byte
            (streams and groups, errors, pipelining, RESP3, MULTI/EXEC,
            WATCH, CLIENT SETNAME, SELECT, blocking XREADGROUP woken by an
            XADD sent to the broker directly)
  kill      SIGKILL the broker under load: a follower takes over within
            broker-timeout + a margin, the pusher (connected to the
            follower) reconnects and goes on, and every acknowledged XADD
            is in the document (read back by a restarted node)
  stop      SIGSTOP the broker: a follower takes over; SIGCONT: the old
            broker's next write fails with an error (never OK), then it
            forwards to the new broker
  auth      requirepass: AUTH replayed, the health check authenticates,
            CLIENT REPLY SKIP/OFF/ON through a follower
  down      no broker to reach and no take-over possible (long
            broker-timeout): a clear -TRYAGAIN at once, no hang -- for a
            dead broker and for an unusable address
Ports 27600-27699.
"""

import os
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time

import redis

sys.path.insert(0, os.path.dirname(__file__))
from casqtest import binfo, Casq, check, document_streams, finish, load_document, make_follower, pick_port, stream_entries, wait_for  # noqa: E402

BROKER_TIMEOUT_MS = 500
_used_ports = set()


def port():
    p = pick_port(int(os.environ.get("FAILOVER_PORT_BASE", "27600")), span=100, avoid=tuple(_used_ports))
    _used_ports.add(p)
    return p


def node(datadir, name, *args, timeout=BROKER_TIMEOUT_MS):
    return Casq(port(), datadir, "--broker-timeout", str(timeout), *args, logname=f"{name}.log")








# ------------------------------------------------------------------------
# A raw RESP connection: exact reply bytes
# ------------------------------------------------------------------------
class Raw:
    def __init__(self, p, timeout=10):
        self.s = socket.create_connection(("127.0.0.1", p), timeout=timeout)
        self.f = self.s.makefile("rb")

    @staticmethod
    def encode(*args):
        out = b"*%d\r\n" % len(args)
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out += b"$%d\r\n%s\r\n" % (len(a), a)
        return out

    def send(self, *cmds):
        self.s.sendall(b"".join(self.encode(*c) for c in cmds))

    def _reply(self, out):
        line = self.f.readline()
        if not line:
            raise ConnectionError("closed")
        out.append(line)
        t, rest = line[:1], line[1:-2]
        if t in b"+-:_#,(":
            return
        if t in b"$=!":
            n = int(rest)
            if n >= 0:
                out.append(self.f.read(n + 2))
            return
        if t in b"*~>%|":
            n = int(rest)
            if t in b"%|":
                n *= 2
            for _ in range(max(n, 0) + (t == b"|")):
                self._reply(out)
            return
        raise ValueError(f"not RESP: {line!r}")

    def reply(self):
        """The raw bytes of one complete reply."""
        out = []
        self._reply(out)
        return b"".join(out)

    def call(self, *cmds):
        self.send(*cmds)
        return [self.reply() for _ in cmds]

    def close(self):
        self.f.close()
        self.s.close()


# Deterministic: explicit ms IDs, no idle times.
SEQUENCE = [
    ("XADD", "s", "1000", "a", "1"),
    ("XADD", "s", "2000", "b", b"\x00\xff"),
    ("XADD", "s", "1500", "c", "3"),  # error: ID too small
    ("XGROUP", "CREATE", "s", "g", "0"),
    ("XREADGROUP", "GROUP", "g", "c1", "COUNT", "10", "STREAMS", "s", ">"),
    ("XACK", "s", "g", "1000-0"),
    ("XPENDING", "s", "g"),
    ("XINFO", "GROUPS", "s"),
    ("XINFO", "STREAM", "s"),
    ("XLEN", "s"),
    ("XRANGE", "s", "-", "+"),
    ("XREAD", "COUNT", "1", "STREAMS", "s", "0"),
    ("FOO", "bar"),
    ("XADD", "s"),
    ("EXISTS", "s", "nokey"),
    ("TYPE", "s"),
    ("MULTI",),
    ("XADD", "s", "3000", "m", "1"),
    ("XLEN", "s"),
    ("EXEC",),
    ("WATCH", "s"),
    ("MULTI",),
    ("XLEN", "s"),
    ("EXEC",),
    ("CLIENT", "GETNAME"),
]


def run_sequence(p, db, resp3=False, pipeline=False, name=None):
    r = Raw(p)
    head = []
    if resp3:
        head.append(("HELLO", "3"))
    if name:
        head.append(("CLIENT", "SETNAME", name))
    head.append(("SELECT", str(db)))
    r.call(*head)  # answered locally by a follower: the id in HELLO differs
    cmds = SEQUENCE
    out = r.call(*cmds) if pipeline else [r.call(c)[0] for c in cmds]
    r.close()
    return out


def scenario_forward():
    d = tempfile.mkdtemp(prefix="casq-fo-fwd-")
    # Not about failover: a broker-timeout no slow machine reaches.
    a = node(d, "a", timeout=10000).start()
    b = node(d, "b", timeout=10000).start()
    check(make_follower(a), "forward: the first node follows the second after its write conflicts")
    check(wait_for(lambda: binfo(a)["broker_link"] == "up" and binfo(a)["broker_checks"] > 0, 5)
          and binfo(a)["broker_address"] == f"127.0.0.1:{b.port}",
          "forward: INFO broker on the follower names the broker, its health-check link is up", f"{binfo(a)}")

    # redis-py through the follower, against the broker's own view.
    ra, rb = a.client(), b.client()
    eid = ra.xadd(b"jobs", {b"f": b"v"})
    ra.xgroup_create(b"jobs", b"grp", id="0")
    got = ra.xreadgroup(b"grp", b"w1", {b"jobs": ">"}, count=10)
    check(got == [[b"jobs", [(eid, {b"f": b"v"})]]], "forward: XADD, XGROUP CREATE, XREADGROUP via the follower",
          f"{got}")
    check(ra.xpending(b"jobs", b"grp")["pending"] == 1 == rb.xpending(b"jobs", b"grp")["pending"],
          "forward: XPENDING via the follower is the broker's")
    check(ra.xack(b"jobs", b"grp", eid) == 1 and rb.xpending(b"jobs", b"grp")["pending"] == 0,
          "forward: XACK via the follower lands on the broker")
    check(ra.xinfo_stream(b"jobs")["length"] == 1 and rb.xrange(b"jobs") == [(eid, {b"f": b"v"})],
          "forward: XINFO via the follower; the entry is on the broker")
    # Byte for byte: the same sequence via the follower (db 2..) and on the
    # broker directly (db 8..).
    variants = [("RESP2", {}), ("RESP3", {"resp3": True}), ("pipelined", {"pipeline": True}),
                ("RESP3 pipelined, named", {"resp3": True, "pipeline": True, "name": "w-7"})]
    for i, (label, kw) in enumerate(variants):
        via = run_sequence(a.port, 2 + i, **kw)
        direct = run_sequence(b.port, 8 + i, **kw)
        diff = [(SEQUENCE[j], via[j], direct[j]) for j in range(len(via)) if via[j] != direct[j]]
        if kw.get("resp3"):  # the broker speaks RESP3 to it: maps, not arrays
            xinfo = via[SEQUENCE.index(("XINFO", "STREAM", "s"))]
            check(xinfo.startswith(b"%"), f"forward: {label}: the broker answers the relayed connection in RESP3",
                  f"{xinfo[:20]!r}")
        check(not diff, f"forward: {label}: {len(SEQUENCE)} replies via the follower equal the broker's, "
                        "byte for byte", f"{diff[:2]}")
    rb2 = b.client(db=2)
    check(rb2.xlen(b"s") == 3, "forward: SELECT then XADD via the follower landed in that db on the broker",
          f"{rb2.xlen(b's')}")
    check(rb.xlen(b"s") == 0, "forward: ... and not in db 0")
    rb2.close()
    named = run_sequence(a.port, 12, name="w-9")[-1]
    check(named == b"$3\r\nw-9\r\n", "forward: CLIENT SETNAME before the switch is the broker's too", f"{named!r}")

    # SELECT 1 with redis-py (a fresh connection)
    ra1 = a.client(db=1)
    eid1 = ra1.xadd(b"db1key", {b"x": b"1"})
    check(b.client(db=1).xrange(b"db1key") == [(eid1, {b"x": b"1"})] and rb.exists(b"db1key") == 0,
          "forward: SELECT 1 then XADD via the follower lands in db 1")

    # Blocking XREADGROUP via the follower, woken by an XADD on the broker.
    rb.xgroup_create(b"blk", b"g", id="$", mkstream=True)
    res = {}

    def blocked():
        try:
            rr = a.client(socket_timeout=20)
            res["r"] = rr.xreadgroup(b"g", b"c", {b"blk": ">"}, block=10000)
            rr.close()
        except Exception as e:  # noqa: BLE001
            res["e"] = repr(e)

    t = threading.Thread(target=blocked)
    t.start()
    check(wait_for(lambda: rb.info("clients")["blocked_clients"] == 1, 5),
          "forward: XREADGROUP BLOCK via the follower blocks on the broker")
    t0 = time.time()
    wid = rb.xadd(b"blk", {b"w": b"1"})
    t.join(10)
    check(res.get("r") == [[b"blk", [(wid, {b"w": b"1"})]]] and time.time() - t0 < 2,
          "forward: ... and an XADD on the broker wakes it", f"{res}")

    # A pipeline through redis-py.
    p = ra.pipeline(transaction=True)
    p.xadd(b"tx", {b"a": b"1"}, id="5")
    p.xlen(b"tx")
    check(p.execute() == [b"5-0", 1], "forward: MULTI/EXEC (redis-py transaction) via the follower")

    # Backpressure: a client that does not read makes the follower stop
    # reading the broker (its FIFO holds at most a few MB), then all of
    # the reply arrives, byte for byte.
    p = rb.pipeline(transaction=False)
    for _ in range(10000):
        p.xadd(b"big", {b"v": b"x" * 2000})
    p.execute()
    d_ = Raw(b.port)
    want = d_.call(("XRANGE", "big", "-", "+"))[0]
    d_.close()
    r = Raw(a.port)
    r.send(("XLEN", "big"), ("XRANGE", "big", "-", "+"))
    before, deadline = -1, time.time() + 10
    while time.time() < deadline:  # until the follower stops reading
        time.sleep(0.3)
        seen = binfo(a)["relayed_bytes_from_broker"]
        if seen == before and seen > 0:
            break
        before = seen
    r.reply()
    got = r.reply()
    r.close()
    check(got == want, f"forward: a {len(want) >> 20} MB reply through the follower is the broker's, byte for byte")
    total = binfo(a)["relayed_bytes_from_broker"]
    check(before < len(want) - (4 << 20) and total - before > (4 << 20),
          "forward: ... and while the client did not read, the follower stopped reading the broker",
          f"{before} {total} {len(want)}")

    info = binfo(a)
    check(info["relayed_connections_total"] >= 8 and info["broker_role"] == "follower",
          "forward: INFO broker counts the relayed connections", f"{info['relayed_connections_total']}")
    # The follower still answers for itself.
    check(ra.ping() and a.client().info("server")["process_id"] == a.proc.pid,
          "forward: a fresh connection's PING and INFO are the follower's own")
    for r in (ra, rb):
        r.close()
    check(b.stop() == 0 and a.stop() == 0, "forward: both nodes shut down cleanly")
    shutil.rmtree(d, ignore_errors=True)


def scenario_kill():
    d = tempfile.mkdtemp(prefix="casq-fo-kill-")
    doc = os.path.join(d, "queue.json")
    a = node(d, "a").start()
    b = node(d, "b").start()
    check(make_follower(a), "kill: a follows b")
    acked = {}
    errors = []
    stop = threading.Event()
    after_kill = [0]
    killed = threading.Event()

    def pusher(i):
        r = a.client(socket_timeout=5)
        n = 0
        while not stop.is_set():
            n += 1
            f = {b"p": f"{i}-{n}".encode()}
            try:
                eid = r.xadd(b"jobs", f)
            except (redis.ResponseError, redis.ConnectionError, redis.TimeoutError) as e:
                errors.append(str(e))
                r.close()
                r = a.client(socket_timeout=5)  # reconnect and go on
                time.sleep(0.01)
                continue
            acked[eid] = f
            if killed.is_set():
                after_kill[0] += 1
        r.close()

    threads = [threading.Thread(target=pusher, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    time.sleep(0.7)
    before = len(acked)
    t_kill = time.time()
    b.kill(signal.SIGKILL)
    killed.set()
    took = wait_for(lambda: binfo(a)["broker_role"] == "broker", 5)
    elapsed = time.time() - t_kill
    check(took and elapsed < BROKER_TIMEOUT_MS / 1000 + 1.5,
          f"kill: the follower took over {elapsed * 1000:.0f} ms after SIGKILL (broker-timeout {BROKER_TIMEOUT_MS} ms)")
    time.sleep(0.7)
    stop.set()
    for t in threads:
        t.join()
    check(before > 0 and after_kill[0] > 0,
          f"kill: the pushers (via the follower) went on: {before} acked before, {after_kill[0]} after")
    odd = [e for e in errors if "TRYAGAIN" not in e and "loading" not in e.lower() and "onnection" not in e
           and "closed" not in e.lower()]
    check(not odd, "kill: the pushers saw only TRYAGAIN/LOADING/connection errors", f"{odd[:3]}")
    info = binfo(a)
    check(info["takeovers"] == 1 and info["broker_epoch"] == 3, "kill: INFO broker counts the take-over (epoch 3)",
          f"{info['takeovers']} {info['broker_epoch']}")
    check(a.stop() == 0, "kill: the new broker shuts down cleanly")
    s = document_streams(load_document(doc)).get(b"jobs")
    on_disk = {e[0].encode(): e[1] for e in stream_entries(s)} if s else {}
    lost = [eid for eid, f in acked.items() if on_disk.get(eid) != [x for kv in f.items() for x in kv]]
    check(not lost, f"kill: all {len(acked)} acknowledged XADDs are in the document", f"lost {len(lost)}")
    c = node(d, "c").start()
    present = {eid for eid, _ in c.client().xrange(b"jobs")}
    check(set(acked) <= present, "kill: ... and in a node restarted on it")
    check(c.stop() == 0, "kill: restarted node shuts down cleanly")
    shutil.rmtree(d, ignore_errors=True)


def scenario_stop():
    d = tempfile.mkdtemp(prefix="casq-fo-stop-")
    a = node(d, "a").start()
    b = node(d, "b").start()
    c = node(d, "c").start()  # c is the broker; a and b follow it
    check(make_follower(a) and make_follower(b), "stop: two followers of one broker")
    rc = c.client()
    rc.xadd(b"s", {b"k": b"0"})
    # A client relayed by a to c, blocked there: when c is found dead, its
    # connection is closed (it reconnects), it does not hang.
    relayed = {}

    def blocked_reader():
        rr = a.client(socket_timeout=30)
        try:
            relayed["reply"] = rr.xread({b"s": "$"}, block=0)
        except Exception as e:  # noqa: BLE001
            relayed["error"] = type(e).__name__
            relayed["t"] = time.time()
        rr.close()

    reader = threading.Thread(target=blocked_reader)
    reader.start()
    check(wait_for(lambda: rc.info("clients")["blocked_clients"] == 1, 5), "stop: a relayed client blocks on c")
    time.sleep(0.3)  # idle broker: no commit holding the store when stopped
    t0 = time.time()
    c.proc.send_signal(signal.SIGSTOP)
    try:
        took = wait_for(lambda: any(binfo(x)["broker_role"] == "broker" for x in (a, b)), 5)
        elapsed = time.time() - t0
        check(took, f"stop: a follower took over from the stopped broker ({elapsed * 1000:.0f} ms)")
        reader.join(5)
        check(relayed.get("error") == "ConnectionError" and relayed["t"] - t0 < BROKER_TIMEOUT_MS / 1000 + 1.5,
              "stop: the connection relayed to the stopped broker is closed, not left hanging", f"{relayed}")
        new, other = (a, b) if binfo(a)["broker_role"] == "broker" else (b, a)
        check(wait_for(lambda: binfo(other)["broker_role"] == "follower"
                       and binfo(other)["broker_address"] == f"127.0.0.1:{new.port}", 5),
              "stop: the other follower follows the new broker")
        ro = other.client()
        eid = None
        # A broker that just took over answers -TRYAGAIN ("not executed")
        # until the store confirms its lease: a client retries.
        for _ in range(50):
            try:
                eid = ro.xadd(b"s", {b"k": b"1"})
                break
            except redis.ResponseError as e:
                if not str(e).startswith("TRYAGAIN"):
                    raise
                time.sleep(0.1)
        check(eid is not None and new.client().xrange(b"s")[-1][0] == eid,
              "stop: writes via the other follower reach the new broker")
    finally:
        c.proc.send_signal(signal.SIGCONT)
    # The old broker wakes up believing it is the broker.
    outcome = None
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            rc.xadd(b"s", {b"k": b"stale"})
            outcome = "OK"
            break
        except redis.ResponseError as e:
            outcome = str(e)
            break
        except (redis.BusyLoadingError, redis.ConnectionError, redis.TimeoutError):
            time.sleep(0.05)
    # Either it learnt first that it was replaced (it asks the store as
    # soon as it runs again) and relayed the write to the new broker, or
    # the write was refused: never acknowledged from the stale state.
    check(outcome == "OK" or (outcome is not None and outcome.startswith("TRYAGAIN")),
          "stop: after SIGCONT the old broker's next write is relayed or fails with an error", f"{outcome}")
    check(wait_for(lambda: binfo(c)["broker_role"] == "follower", 5), "stop: ... and it steps down")
    rc2 = c.client()
    eid = rc2.xadd(b"s", {b"k": b"2"})
    entries = new.client().xrange(b"s")
    stale_stored = any(f == {b"k": b"stale"} for _, f in entries)
    check(entries[-1][0] == eid and stale_stored == (outcome == "OK"),
          "stop: then it forwards writes to the new broker; the stale write is stored iff it was acknowledged",
          f"outcome {outcome}, stored {stale_stored}")
    for x in (a, b, c):
        check(x.stop() == 0, f"stop: node on {x.port} shuts down cleanly")
    shutil.rmtree(d, ignore_errors=True)


def scenario_down():
    # A dead broker, and a follower that may not take over for a long time.
    d = tempfile.mkdtemp(prefix="casq-fo-down-")
    f = node(d, "f", timeout=600000).start()
    g = node(d, "g").start()
    check(make_follower(f), "down: f follows g")
    g.kill(signal.SIGKILL)
    r = f.client(socket_timeout=5)
    t0 = time.time()
    try:
        r.xadd(b"s", {b"a": b"1"})
        err = "OK"
    except redis.ResponseError as e:
        err = str(e)
    check(err.startswith("TRYAGAIN") and "cannot connect" in err and "not executed" in err and time.time() - t0 < 2,
          "down: a write via a follower whose broker is dead gets a clear -TRYAGAIN at once", err)
    print(f"#   {err}")
    t0 = time.time()
    try:
        r.xread({b"s": "$"}, block=0)
        err = "no error"
    except redis.ResponseError as e:
        err = str(e)
    check(err.startswith("TRYAGAIN") and time.time() - t0 < 2, "down: ... so does a blocking read (no hang)", err)
    check(r.ping() and r.xadd is not None, "down: the connection stays usable (PING)")
    r.close()
    check(f.stop() == 0, "down: the follower shuts down cleanly")
    shutil.rmtree(d, ignore_errors=True)

    # A broker record whose address cannot be used.
    d = tempfile.mkdtemp(prefix="casq-fo-addr-")
    f = node(d, "f", timeout=600000).start()
    h = node(d, "h", "--broker-announce-address", "nowhere").start()
    check(make_follower(f), "down: f follows h, which announces an unusable address")
    r = f.client(socket_timeout=5)
    t0 = time.time()
    try:
        r.xlen(b"s")
        err = "OK"
    except redis.ResponseError as e:
        err = str(e)
    check(err.startswith("TRYAGAIN") and "nowhere" in err and time.time() - t0 < 2,
          "down: a command via a follower of an unusable broker address gets a clear -TRYAGAIN", err)
    r.close()
    for x in (f, h):
        x.stop()
    shutil.rmtree(d, ignore_errors=True)


def scenario_auth():
    # requirepass: the follower replays AUTH to the broker; CLIENT REPLY.
    d = tempfile.mkdtemp(prefix="casq-fo-auth-")
    pw = "pass word"
    a = node(d, "a", "--requirepass", pw, timeout=1000)
    b = node(d, "b", "--requirepass", pw, timeout=1000)
    for n in (a, b):
        n.start(wait=False)
        check(wait_for(lambda: redis.Redis(port=n.port, password=pw, socket_timeout=2).ping(), 10),
              f"auth: node on {n.port} is up")
    ra = redis.Redis(port=a.port, password=pw, socket_timeout=5)
    for _ in range(200):
        if redis.Redis(port=a.port, password=pw).info("broker")["broker_role"] == "follower":
            break
        try:
            ra.xadd(b"probe", {b"p": b"1"})
        except (redis.ResponseError, redis.BusyLoadingError):
            pass
        time.sleep(0.02)
    # Issue 14, fault 11: the follower checks its own requirepass before
    # relaying anything; the broker never sees the unauthenticated command.
    r = Raw(a.port)
    got = r.call(("XLEN", "s"))
    check(got == [b"-NOAUTH Authentication required.\r\n"], "auth: unauthenticated, NOAUTH", f"{got}")
    got = r.call(("XADD", "s", "*", "f", "v"))
    check(got == [b"-NOAUTH Authentication required.\r\n"], "auth: unauthenticated write, NOAUTH", f"{got}")
    r.close()
    es = redis.Redis(port=b.port, password=pw).info("errorstats").get("errorstat_NOAUTH", "count=0")
    noauth = es.get("count") if isinstance(es, dict) else int(str(es).split("count=")[1].split(",")[0])
    check(noauth == 0, "auth: the follower answered NOAUTH itself (nothing relayed to the broker)", f"{noauth}")
    es = redis.Redis(port=a.port, password=pw).info("errorstats").get("errorstat_NOAUTH", "count=0")
    noauth = es.get("count") if isinstance(es, dict) else int(str(es).split("count=")[1].split(",")[0])
    check(noauth == 2, "auth: ... the follower counted both NOAUTH replies", f"{noauth}")
    r = Raw(a.port)
    r.send(("AUTH", pw), ("CLIENT", "REPLY", "SKIP"), ("XADD", "s", "7", "f", "v"), ("XLEN", "s"),
           ("CLIENT", "REPLY", "OFF"), ("XADD", "s", "8", "f", "v"), ("CLIENT", "REPLY", "ON"), ("XLEN", "s"))
    got = [r.reply() for _ in range(4)]
    check(got == [b"+OK\r\n", b":1\r\n", b"+OK\r\n", b":2\r\n"],
          "auth: AUTH, CLIENT REPLY SKIP/OFF/ON through the follower", f"{got}")
    r.close()
    time.sleep(2.5)  # 2.5 x broker-timeout
    info = redis.Redis(port=a.port, password=pw).info("broker")
    check(info["broker_role"] == "follower" and info["broker_link"] == "up" and info["takeover_attempts"] == 0
          and info["broker_checks"] >= 5, "auth: the health check keeps contact; no take-over from a live broker",
          f"{info}")
    es = redis.Redis(port=b.port, password=pw).info("errorstats").get("errorstat_NOAUTH", "count=0")
    noauth = es.get("count") if isinstance(es, dict) else int(str(es).split("count=")[1].split(",")[0])
    check(noauth == 0, "auth: ... and it authenticates (the broker saw no NOAUTH)", f"{noauth}")
    ra.close()
    a.stop()
    b.stop()
    shutil.rmtree(d, ignore_errors=True)


def scenario_acl():
    # ACL users through a follower: its own rules first (-NOPERM here, the
    # broker sees nothing), then AUTH <user> <pass> to the broker, which
    # applies its rules to everything relayed.
    d = tempfile.mkdtemp(prefix="casq-fo-acl-")
    a = node(d, "a", timeout=1000)
    b = node(d, "b", timeout=1000)
    for n in (a, b):
        n.start(wait=False)
        check(wait_for(lambda: redis.Redis(port=n.port, socket_timeout=2).ping(), 10), f"acl: node on {n.port} is up")
    check(make_follower(a), "acl: a follows b")
    for n in (a, b):
        r = n.client()
        r.execute_command("ACL", "SETUSER", "worker", "on", ">wpw", "+@stream", "+ping", "~jobs:*")
        r.close()
    r = a.client()
    r.execute_command("ACL", "SETUSER", "onlyhere", "on", ">opw", "+@all", "~*")
    r.close()

    def noperm_count(n):
        es = n.client().info("errorstats").get("errorstat_NOPERM", "count=0")
        return es.get("count") if isinstance(es, dict) else int(str(es).split("count=")[1].split(",")[0])

    w = redis.Redis(port=a.port, username="worker", password="wpw", socket_timeout=5)
    got = []
    try:
        w.xadd(b"other", {b"f": b"v"})
    except redis.ResponseError as e:
        got.append(str(e))
    check(got == ["No permissions to access a key"], "acl: the follower refuses a key outside ~jobs:*", f"{got}")
    check(noperm_count(b) == 0, "acl: ... without relaying it to the broker")
    eid = w.xadd(b"jobs:1", {b"f": b"v"})
    check(b.client().xlen(b"jobs:1") == 1, "acl: an allowed write is relayed and lands on the broker", f"{eid}")
    try:
        w.xadd(b"other", {b"f": b"v"})
        check(False, "acl: after the switch, the broker applies the user's rules")
    except redis.ResponseError as e:
        check("permissions" in str(e) and noperm_count(b) == 1,
              "acl: after the switch, the broker applies the user's rules", str(e))
    w.close()
    o = redis.Redis(port=a.port, username="onlyhere", password="opw", socket_timeout=5)
    try:
        o.xadd(b"jobs:2", {b"f": b"v"})
        check(False, "acl: a user the broker does not know is not relayed as someone else")
    except redis.ResponseError as e:
        check(b.client().exists(b"jobs:2") == 0,
              "acl: a user the broker does not know is not relayed as someone else", str(e))
    o.close()
    a.stop()
    b.stop()
    shutil.rmtree(d, ignore_errors=True)


def main():
    only = sys.argv[1:]
    for name, fn in [("forward", scenario_forward), ("auth", scenario_auth), ("acl", scenario_acl), ("kill", scenario_kill),
                     ("stop", scenario_stop), ("down", scenario_down)]:
        if not only or name in only:
            t0 = time.time()
            fn()
            print(f"#   {name}: {time.time() - t0:.1f} s", flush=True)
    finish()


if __name__ == "__main__":
    main()
