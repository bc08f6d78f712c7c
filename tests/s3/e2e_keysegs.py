#!/usr/bin/python3
"""e2e_keysegs.py -- key segments (docs/state-format.md "Key segments") on
a real S3 server, through the fault-injecting proxy: what
tests/durability/test_key_segments.py proves on the file store.

casq runs with tiny segments (segment-seal-bytes 4kb, segment-max-bytes
32kb) and key-seal-quiet 50 ms, so that quiet keys are sealed into objects
under <key>.segments/, rewritten and dropped many times in a few seconds:

  1. sealing: strings (some with a TTL), hashes, lists, sets, sorted sets
     in two databases get sealed; the root object names key segments and
     holds few keys; the root merged with its segments (e2e_lib.Doc) holds
     every key once; changes to sealed keys, then a restart: every key,
     value and expiry time as before.
  2. faults on segment requests only (the proxy's only_path): 500 and 503
     on segment PUTs, PUTs applied but answered with a reset or a 500
     (unknown outcomes), a PUT stalled past s3-request-timeout, 503 and
     dropped replies on segment DELETEs, then a restart with 503s on
     segment GETs and one GET stalled past the request timeout -- while
     writers SET/HSET/DEL sealed keys: no acknowledged write lost
     (checked through a client and in the object), every fault fired,
     sealing went on.
  3. two nodes: writers on both (the follower relays) while the broker
     seals, rewrites and deletes garbage; the broker is SIGKILLed while a
     key segment is being written (twice): the follower loads the root and
     its key segments, takes over and seals in its turn; the killed node
     restarts; no acknowledged write lost (on both nodes and in the
     object), no node refused a root, and after the sweep every object
     under the prefix is named by the root.
  4. a missing and a corrupt key segment: casq refuses to start, names the
     segment, and writes (and deletes) nothing; put back, it loads.
  5. SIGKILLs at random moments (5) while writers change sealed keys and
     casq seals, rewrites and deletes: no acknowledged write lost; after
     the sweep every object under the prefix is named by the root.
  6. a node whose GETs take 150 ms starts while the broker seals, rewrites
     and deletes garbage under writers: it loads the root and its key
     segments (again after each lost start-up CAS), never refuses the
     state, and nothing acknowledged is lost.

Usage: e2e_keysegs.py [seal damaged faults crash nodes loader ...]

Needs the environment of tests/s3/run_e2e.sh. Ends with `N passed, N failed`.
"""
import json
import random
import re
import sys
import threading
import time

import redis

import e2e_lib as E
from e2e_lib import UNKNOWN, pinfo, wait_for  # noqa: E402
from casqtest import change_sealed_keys, client_snapshot  # noqa: E402 (tests/durability, on the path e2e_lib set)

ARGS = ["--segment-seal-bytes", "4kb", "--segment-max-bytes", "32kb", "--key-seal-quiet", "50"]
NKEYS = 300


def sealed(casq, inline_max=50):
    i = pinfo(casq)
    return i["key_segments"] > 0 and i["keys_inline"] < inline_max and not i["key_segments_seal_in_progress"]


def populate(r, n, tag=""):
    p = r.pipeline(transaction=False)
    for i in range(n):
        p.set("s:%d" % i, "value-%s%d-" % (tag, i) + "x" * (i % 40))
        if i % 7 == 0:
            p.pexpire("s:%d" % i, 3600_000 + i)
        p.hset("h:%d" % i, mapping={"f%d" % j: "v%d.%d" % (i, j) for j in range(i % 9 + 1)})
        if i % 3 == 0:
            p.rpush("l:%d" % i, *["e%d" % j for j in range(i % 5 + 1)])
        if i % 4 == 0:
            p.sadd("set:%d" % i, *[str(j * i) for j in range(i % 6 + 1)])
            p.sadd("bin:%d" % i, b"\x00\xff" + bytes([i % 256]))
        if i % 5 == 0:
            p.zadd("z:%d" % i, {"m%d" % j: j * 1.5 for j in range(i % 4 + 1)})
    p.xadd("jobs", {"n": "1"})
    p.execute()


def snapshot(port, dbs=(0, 3)):
    return client_snapshot(port, dbs)


def check_doc(res, label, key, snap):
    """The root object merged with its key segments holds every key the
    client sees, once, and the same strings."""
    doc, _ = E.load_doc(key)
    res.check("%s: the root names key segments" % label,
              doc is not None and any(d.get("segments") for d in json.loads(doc.raw)["databases"]))
    res.check("%s: no key both in the root and in a segment" % label, not doc.dup_keys, repr(doc.dup_keys[:3]))
    want = {(db, k) for (db, k) in snap}
    have = set(doc.keys)
    res.check("%s: root + key segments hold exactly the %d keys a client sees" % (label, len(want)),
              want == have, "missing %r, extra %r" % (sorted(want - have)[:3], sorted(have - want)[:3]))
    bad = [(db, k) for (db, k), (t, v, _) in snap.items() if t == "string" and doc.string(k, db) != v]
    res.check("%s: every string's bytes in the object are the client's" % label, not bad, repr(bad[:3]))
    return doc


# ------------------------------------------------------------------------
# 1. Sealing, changes, restart
# ------------------------------------------------------------------------

def seal_change_restart(res):
    key = E.unique_key("keyseg")
    E.fault(reset=True)
    casq = E.Casq(key, extra=ARGS, name="casq[seal]")
    try:
        casq.start()
        r = casq.client()
        populate(r, NKEYS)
        populate(casq.client(db=3), NKEYS // 3, tag="db3-")
        res.check("keys are sealed into key segments on S3", wait_for(lambda: sealed(casq), 30),
                  repr({k: v for k, v in pinfo(casq).items() if "key" in k}))
        res.check("the root object is small once its keys are sealed",
                  wait_for(lambda: pinfo(casq)["root_bytes_last"] < 8192, 10),
                  "root_bytes_last %s" % pinfo(casq)["root_bytes_last"])
        objs = E.s3_list(key + ".segments/")
        doc, _ = E.load_doc(key)
        named = E.segment_names(json.loads(doc.raw))
        prefix = key + ".segments/"
        res.check("every key segment the root names is an object under %s (%d named, %d objects)"
                  % (prefix, len(named), len(objs)), named and named <= {o[len(prefix):] for o in objs})
        check_doc(res, "sealed", key, snapshot(casq.port))

        r3 = casq.client(db=3)
        change_sealed_keys(r, r3)
        before = snapshot(casq.port)
        res.check("changed keys are sealed again", wait_for(lambda: sealed(casq), 30))
        res.check("sealing again changes nothing a client sees", snapshot(casq.port) == before)
        res.check("casq stops cleanly", casq.stop() == 0 and casq.log_is_clean(), E.tail(casq.log()))
        check_doc(res, "changed", key, before)
        casq.start()
        after = snapshot(casq.port)
        diff = [k for k in set(before) | set(after) if before.get(k) != after.get(k)]
        res.check("after a restart every one of %d keys is as before" % len(before), not diff,
                  "%d differ, e.g. %r" % (len(diff), diff[:3]))
        i = pinfo(casq)
        res.check("the restarted server loads keys from their S3 segments (key_segments %s, keys_inline %s)"
                  % (i["key_segments"], i["keys_inline"]), i["key_segments"] > 0 and i["keys_inline"] < 50)
        res.check("casq stops cleanly after the restart", casq.stop() == 0 and casq.log_is_clean(),
                  E.tail(casq.log()))
        return key
    finally:
        casq.cleanup()


# ------------------------------------------------------------------------
# Writers with an exact record of what was acknowledged
# ------------------------------------------------------------------------

class KeyWriter(threading.Thread):
    """SET s:<i> / HSET h:<i> w / DEL s:<i> on its own share of the keys
    (i % nwriters == n), so each key's writes are in order. For each key:
    the values it may hold now ({last acknowledged} after an ack; plus the
    value in flight after an error, whose outcome is unknown)."""

    def __init__(self, port_fn, n, nwriters, nkeys=NKEYS, pause=0.0):
        super().__init__(daemon=True)
        self.port_fn = port_fn
        self.keys = [i for i in range(nkeys) if i % nwriters == n]
        self.rng = random.Random(n * 7919 + int(time.time()))
        self.stop_flag = threading.Event()
        self.hold = threading.Event()   # set: no writes until cleared
        self.pause = pause
        self.possible = {}   # (kind, i) -> set of values (None: absent)
        self.acks = 0
        self.errors = 0
        self.samples = []

    def run(self):
        conn = None
        seq = 0
        while not self.stop_flag.is_set():
            if self.hold.is_set():
                time.sleep(0.01)
                continue
            if conn is None:
                conn = redis.Redis(host="127.0.0.1", port=self.port_fn(), socket_timeout=30,
                                   socket_connect_timeout=2)
            i = self.rng.choice(self.keys)
            op = self.rng.random()
            seq += 1
            val = ("w-%d-%d" % (seq, self.rng.randrange(1 << 30))).encode()
            try:
                if op < 0.1:
                    slot, val = ("s", i), None
                    conn.delete("s:%d" % i)
                elif op < 0.6:
                    slot = ("s", i)
                    conn.set("s:%d" % i, val)
                else:
                    slot = ("h", i)
                    conn.hset("h:%d" % i, "w", val)
            except UNKNOWN as e:
                self.errors += 1
                if len(self.samples) < 3:
                    self.samples.append(repr(e)[:120])
                if slot in self.possible:
                    # Unknown outcome: the old value or this one. (A key
                    # with no acknowledged write yet is not checked: its
                    # value before the test is not recorded.)
                    self.possible[slot].add(val)
                try:
                    conn.close()
                except Exception:
                    pass
                conn = None
                time.sleep(0.05)
                continue
            self.possible[slot] = {val}
            self.acks += 1
            if self.pause:
                time.sleep(self.pause)
        if conn is not None:
            conn.close()

    def stop(self):
        self.stop_flag.set()


def check_writers(res, label, port, writers, doc=None):
    """Every key holds one of the values it may hold; in the object too."""
    c = redis.Redis(port=port, socket_timeout=20)
    wrong, wrong_doc, n = [], [], 0
    for w in writers:
        for (kind, i), vals in w.possible.items():
            n += 1
            got = c.get("s:%d" % i) if kind == "s" else c.hget("h:%d" % i, "w")
            if got not in vals:
                wrong.append(((kind, i), vals, got))
            if doc is not None and kind == "s" and doc.string("s:%d" % i) not in vals:
                wrong_doc.append(((kind, i), vals, doc.string("s:%d" % i)))
    c.close()
    acks = sum(w.acks for w in writers)
    res.check("%s: every acknowledged write holds (%d keys written, %d acknowledged writes)" % (label, n, acks),
              not wrong and acks > 0, "%d wrong, e.g. %r" % (len(wrong), wrong[:3]))
    if doc is not None:
        res.check("%s: the object (root + key segments) holds every acknowledged string" % label,
                  not wrong_doc, "%d wrong, e.g. %r" % (len(wrong_doc), wrong_doc[:3]))


# ------------------------------------------------------------------------
# 2. Faults on segment PUT / GET / DELETE
# ------------------------------------------------------------------------

SEG = ".segments/"
SEG_FAULTS = [
    ("500 on segment PUTs", {"fail_puts": 2, "fail_status": 500}, "injected_fail_puts"),
    ("503 on segment PUTs", {"fail_puts": 2, "fail_status": 503}, "injected_fail_puts"),
    ("segment PUT applied, connection reset (unknown outcome)", {"drop_puts": 2}, "injected_drop_puts"),
    ("segment PUT applied, then 500 (unknown outcome)", {"error_after_apply": 2}, "injected_error_after_apply"),
    ("segment PUT stalled past the request timeout", {"stall_puts": 1, "stall_ms": 1500}, "injected_stall_puts"),
    ("503 on segment DELETEs", {"fail_deletes": 2}, "injected_fail_deletes"),
    ("segment DELETE applied, reply dropped", {"drop_deletes": 2}, "injected_drop_deletes"),
]


def seg_faults(res):
    key = E.unique_key("keyseg-faults")
    E.fault(reset=True)
    E.applied_clear()
    casq = E.Casq(key, extra=ARGS + ["--segment-gc-grace", "0", "--broker-timeout", "400",
                                     "--s3-request-timeout", "1000"],
                  name="casq[faults]")
    writers = []
    try:
        casq.start()
        populate(casq.client(), NKEYS)
        res.check("faults: keys sealed before the faults", wait_for(lambda: sealed(casq), 30))
        writers = [KeyWriter(lambda: casq.port, n, 4, pause=0.005) for n in range(4)]
        for w in writers:
            w.start()
        sealed0 = pinfo(casq)["key_segments_sealed"]
        for name, settings, counter in SEG_FAULTS:
            t = time.time()
            E.fault(only_path=SEG, **settings)
            fired = wait_for(lambda: E.proxy_state()["counters"].get(counter, 0) >= 1
                             and E.proxy_state()["settings"].get(counter[len("injected_"):], 0) == 0, 8)
            res.check("faults: %s: fired (%s=%s in %.1f s)"
                      % (name, counter, E.proxy_state()["counters"].get(counter), time.time() - t), fired)
            E.fault(reset=True)   # clears the fault and its counters: the next one counts alone
        time.sleep(0.5)
        for w in writers:
            w.stop()
        for w in writers:
            w.join(60)
        i = pinfo(casq)
        res.check("faults: key segments were sealed during the faults (%d -> %d), deleted %s"
                  % (sealed0, i["key_segments_sealed"], i.get("segments_deleted")),
                  i["key_segments_sealed"] > sealed0)
        res.check("faults: writes went on (%d acknowledged, %d errors %s)"
                  % (sum(w.acks for w in writers), sum(w.errors for w in writers),
                     [s for w in writers for s in w.samples][:2]), sum(w.acks for w in writers) > 100)
        check_writers(res, "faults", casq.port, writers)
        res.check("faults: casq stops cleanly", casq.stop() == 0 and casq.log_is_clean(), E.tail(casq.log()))
        doc, _ = E.load_doc(key)
        # A restart whose segment GETs first get 503s.
        E.fault(reset=True)
        E.fault(only_path=SEG, fail_gets=3, stall_gets=1, stall_ms=1500)
        casq.start()
        c = E.proxy_state()["counters"]
        res.check("faults: load retried segment GETs after 503s and a GET past the request timeout "
                  "(injected_fail_gets=%s, injected_stall_gets=%s, seg_gets=%s)"
                  % (c.get("injected_fail_gets"), c.get("injected_stall_gets"), c.get("seg_gets")),
                  c.get("injected_fail_gets", 0) == 3 and c.get("injected_stall_gets", 0) == 1)
        check_writers(res, "faults, after a restart through failing GETs", casq.port, writers, doc)
        E.check_applied_order(res, "faults", [r for r in E.applied(key) if SEG not in r["path"]])
        res.check("faults: casq stops cleanly after the restart", casq.stop() == 0 and casq.log_is_clean(),
                  E.tail(casq.log()))
    finally:
        for w in writers:
            w.stop()
        E.fault(reset=True)
        casq.cleanup()


# ------------------------------------------------------------------------
# 3. A follower loading while the broker seals; take-overs mid-seal
# ------------------------------------------------------------------------

def role(casq):
    try:
        return pinfo(casq).get("broker_role")
    except UNKNOWN:
        return None


def two_nodes(res):
    key = E.unique_key("keyseg-nodes")
    E.fault(reset=True)
    E.applied_clear()
    E.fault(put_delay_ms=15)   # a segment PUT in flight long enough to be killed in
    extra = ARGS + ["--segment-gc-grace", "0", "--broker-timeout", "400"]
    a = E.Casq(key, extra=extra, name="A")
    b = E.Casq(key, extra=extra, name="B")
    nodes = [a, b]
    writers = []
    try:
        a.start()
        populate(a.client(), NKEYS)
        res.check("nodes: keys sealed", wait_for(lambda: sealed(a), 30))
        b.start()   # takes over; A follows
        res.check("nodes: B took over at start-up, A follows",
                  wait_for(lambda: role(b) == "broker" and role(a) == "follower", 10))
        pick = [0]

        def port():
            pick[0] += 1
            return nodes[pick[0] % 2].port

        writers = [KeyWriter(port, n, 4, pause=0.003) for n in range(4)]
        for w in writers:
            w.start()
        takeovers, mid_seal = 0, 0
        for _ in range(2):
            time.sleep(1.0)
            broker = next((n for n in nodes if role(n) == "broker"), None)
            follower = next((n for n in nodes if n is not broker), None)
            if broker is None:
                continue
            # Kill it while it writes a key segment (a seal is in flight).
            caught = wait_for(lambda: pinfo(broker)["key_segments_seal_in_progress"] == 1, 3)
            mid_seal += caught
            broker.kill9()
            if wait_for(lambda: role(follower) == "broker", 10):
                takeovers += 1
            # A restart next to a busy S3 broker loses its start-up CAS to
            # it (e2e_takeover.py's busy_broker): restart while writes hold.
            for w in writers:
                w.hold.set()
            time.sleep(0.3)
            broker.start()   # takes over at start-up; the other follows
            for w in writers:
                w.hold.clear()
        time.sleep(1.0)
        for w in writers:
            w.stop()
        for w in writers:
            w.join(60)
        res.check("nodes: the follower took over after each SIGKILL (%d of 2)" % takeovers, takeovers == 2)
        res.check("nodes: SIGKILLs landed while a key segment was being written (%d of 2)" % mid_seal,
                  mid_seal >= 1)
        broker = next((n for n in nodes if role(n) == "broker"), None)
        res.check("nodes: one broker at the end", broker is not None)
        if broker is None:
            return
        # The new broker seals in its turn: fresh keys, quiet at once.
        before = pinfo(broker)["key_segments_sealed"]
        p = broker.client().pipeline(transaction=False)
        for n in range(200):
            p.set("after:%d" % n, "y" * 100)
        p.execute()
        ok = wait_for(lambda: pinfo(broker)["key_segments_sealed"] > before and sealed(broker), 10)
        i = pinfo(broker)
        res.check("nodes: the last broker seals in its turn (key_segments_sealed %d -> %s, keys_inline %s)"
                  % (before, i["key_segments_sealed"], i["keys_inline"]), ok)
        res.check("nodes: writes went on (%d acknowledged, %d errors)"
                  % (sum(w.acks for w in writers), sum(w.errors for w in writers)),
                  sum(w.acks for w in writers) > 100)
        check_writers(res, "nodes", broker.port, writers)
        follower = next(n for n in nodes if n is not broker)
        check_writers(res, "nodes, read on the follower", follower.port, writers)
        logs = a.log() + b.log()
        res.check("nodes: no node refused a root", "refuses to start" not in logs and "Fatal" not in logs,
                  E.tail(logs))
        print("# nodes: roots read again after a missing segment: %d" % logs.count("reading the root again"))
        # Garbage and orphans: once swept, every object is named.
        prefix = key + ".segments/"

        def only_named():
            body, _ = E.s3_get(key)
            named = E.segment_names(json.loads(body))
            objs = {o[len(prefix):] for o in E.s3_list(prefix)}
            only_named.last = (sorted(objs - named)[:3], sorted(named - objs)[:3])
            return objs == named

        only_named.last = None
        res.check("nodes: after the sweep every object under the prefix is named by the root",
                  wait_for(only_named, 20), "extra, missing: %r" % (only_named.last,))
        for n in nodes:
            rc = n.stop()
            res.check("nodes: %s stops (rc=%s) without sanitizer/assert reports" % (n.name, rc),
                      rc is not None and n.log_is_clean(), E.tail(n.log()))
        doc, _ = E.load_doc(key)
        check_object_strings(res, writers, doc)
    finally:
        for w in writers:
            w.stop()
        E.fault(reset=True)
        a.cleanup()
        b.cleanup()


def loader(res):
    """A node whose S3 GETs take 150 ms starts -- loads the root and its
    key segments -- while the broker seals, rewrites and deletes garbage
    (grace: its minimum, 2 x broker-timeout + load) under writers. A
    segment deleted meanwhile makes it read the root again; it may then
    take over or, next to a busy broker, lose its start-up CAS (see
    e2e_takeover.py's busy_broker); it never refuses the state."""
    key = E.unique_key("keyseg-loader")
    E.fault(reset=True)
    extra = ARGS + ["--segment-gc-grace", "0", "--broker-timeout", "400"]
    a = E.Casq(key, extra=extra, name="A")
    c = E.Casq(key, extra=extra, name="C")
    writers = []
    try:
        a.start()
        populate(a.client(), NKEYS)
        res.check("loader: keys sealed", wait_for(lambda: sealed(a), 30))
        writers = [KeyWriter(lambda: a.port, n, 4) for n in range(4)]
        for w in writers:
            w.start()
        time.sleep(0.5)
        before = pinfo(a)
        E.fault(get_delay_ms=150)
        c.spawn()
        started = c.wait_ready(60)
        E.fault(get_delay_ms=0)
        after = pinfo(a) if a.alive() and role(a) == "broker" else None
        for w in writers:
            w.stop()
        for w in writers:
            w.join(60)
        log = c.log()
        outcome = ("C took over" if started else
                   ([l.split(" # ", 1)[-1] for l in log.splitlines() if "Fatal" in l] or ["?"])[-1])
        print("# loader: %s; roots read again after a missing segment: %d; broker meanwhile: sealed %s -> %s, "
              "deleted %s -> %s" % (outcome, log.count("reading the root again"), before["key_segments_sealed"],
                                    after and after["key_segments_sealed"], before.get("segments_deleted"),
                                    after and after.get("segments_deleted")))
        res.check("loader: C took over or lost its start-up CAS to the busy broker, never refused the state",
                  started or "lost the CAS" in log, E.tail(log))
        res.check("loader: C's load never found a segment missing or corrupt for good",
                  "is missing from the store" not in log and "corrupt" not in log, E.tail(log))
        loads = [int(m) for m in re.findall(r"State document: .*\((\d+) keys", log)]
        res.check("loader: C loaded the root with its key segments (%d loads, %s keys)" % (len(loads), loads[-1:]),
                  loads and max(loads) > NKEYS * 2)
        broker = c if started else a
        check_writers(res, "loader", broker.port, writers)
        for n in (a, c):
            if n.alive():
                rc = n.stop()
                res.check("loader: %s stops (rc=%s) without sanitizer/assert reports" % (n.name, rc),
                          rc is not None and n.log_is_clean(), E.tail(n.log()))
    finally:
        for w in writers:
            w.stop()
        E.fault(reset=True)
        a.cleanup()
        c.cleanup()


def crash(res, kills=5):
    """SIGKILLs at random moments (PUT latency 5-40 ms, drawn per round)
    while writers change sealed keys and casq seals, rewrites and deletes:
    no acknowledged write lost, and after the sweep only named objects."""
    key = E.unique_key("keyseg-crash")
    E.fault(reset=True)
    casq = E.Casq(key, extra=ARGS + ["--segment-gc-grace", "0", "--broker-timeout", "400"], name="casq[crash]")
    writers = []
    rng = random.Random()
    try:
        casq.start()
        populate(casq.client(), NKEYS)
        res.check("crash: keys sealed", wait_for(lambda: sealed(casq), 30))
        writers = [KeyWriter(lambda: casq.port, n, 4, pause=0.002) for n in range(4)]
        for w in writers:
            w.start()
        sealed_n = mid_seal = 0
        for _ in range(kills):
            E.fault(put_delay_ms=rng.randint(5, 40))
            time.sleep(rng.uniform(0.3, 1.0))
            try:
                i = pinfo(casq)
                sealed_n += i["key_segments_sealed"]
                mid_seal += i["key_segments_seal_in_progress"]
            except UNKNOWN:
                pass
            casq.kill9()
            casq.start()
        for w in writers:
            w.stop()
        for w in writers:
            w.join(60)
        print("# crash: %d SIGKILLs, %d of them while a key segment was being written; %d key segments "
              "sealed between them" % (kills, mid_seal, sealed_n))
        res.check("crash: key segments were sealed between the SIGKILLs (%d)" % sealed_n, sealed_n > 0)
        check_writers(res, "crash", casq.port, writers)
        prefix = key + ".segments/"

        def only_named():
            body, _ = E.s3_get(key)
            named = E.segment_names(json.loads(body))
            objs = {o[len(prefix):] for o in E.s3_list(prefix)}
            only_named.last = (sorted(objs - named)[:3], sorted(named - objs)[:3])
            return objs == named

        only_named.last = None
        res.check("crash: after the sweep every object under the prefix is named by the root",
                  wait_for(only_named, 20), "extra, missing: %r" % (only_named.last,))
        res.check("crash: casq stops cleanly", casq.stop() == 0 and casq.log_is_clean(), E.tail(casq.log()))
    finally:
        for w in writers:
            w.stop()
        E.fault(reset=True)
        casq.cleanup()


def check_object_strings(res, writers, doc):
    wrong = [((k, i), v, doc.string("s:%d" % i)) for w in writers for (k, i), v in w.possible.items()
             if k == "s" and doc.string("s:%d" % i) not in v]
    res.check("nodes: the object (root + key segments) holds every acknowledged string", not wrong,
              "%d wrong, e.g. %r" % (len(wrong), wrong[:3]))


# ------------------------------------------------------------------------
# 4. Missing and corrupt key segments
# ------------------------------------------------------------------------

def damaged(res, key):
    """A missing and a corrupt key segment: casq refuses to start, names
    the segment, and writes (and deletes) nothing; put back, it loads."""
    body, _ = E.s3_get(key)
    rec = next(s for d in json.loads(body)["databases"] for s in d.get("segments", []))
    E.check_damaged_segment(res, key, rec["name"], "key", ARGS, lambda casq: casq.client().dbsize() > NKEYS)

def main():
    res = E.Results("s3 e2e key segments")
    wanted = sys.argv[1:]
    key = None

    def want(n):
        return not wanted or n in wanted

    if want("seal") or want("damaged"):
        t = time.time()
        keybox = []
        res.run("seal, change, restart", lambda: keybox.append(seal_change_restart(res)))
        key = keybox[0] if keybox else None
        print("# seal: %.1f s" % (time.time() - t))
    if want("damaged") and key:
        t = time.time()
        res.run("missing / corrupt key segment", damaged, res, key)
        print("# damaged: %.1f s" % (time.time() - t))
    if want("faults"):
        t = time.time()
        res.run("faults on segment requests", seg_faults, res)
        print("# faults: %.1f s" % (time.time() - t))
    if want("crash"):
        t = time.time()
        res.run("SIGKILLs while sealing", crash, res)
        print("# crash: %.1f s" % (time.time() - t))
    if want("nodes"):
        t = time.time()
        res.run("follower and take-overs mid-seal", two_nodes, res)
        print("# nodes: %.1f s" % (time.time() - t))
    if want("loader"):
        t = time.time()
        res.run("a node loading while the broker seals", loader, res)
        print("# loader: %.1f s" % (time.time() - t))
    return res.finish()


if __name__ == "__main__":
    sys.exit(main())
