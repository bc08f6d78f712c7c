#!/usr/bin/python3
"""e2e_chunksegs.py -- chunk segments (docs/state-format.md "Chunk
segments") on a real S3 server, through the fault-injecting proxy: what
tests/durability/test_chunk_segments.py proves on the file store.

casq runs with small segments (segment-seal-bytes 4kb) and key-seal-quiet
50 ms, so that the quiet middle of a big list or sorted set is sealed into
objects under <key>.segments/ within a second:

  1. seal: a 30,000-element list queue, a 10,000-member sorted set and a
     list of binary elements get chunk segments; the root object is small
     and names them (top-level "chunk_segments", {"segment","from","to"}
     references in the values); every segment it names is an object under
     the prefix; the root merged with its segments (e2e_lib.Doc) holds
     exactly what LRANGE / ZRANGE WITHSCORES return.
  2. faults (on the node of 1): pushers RPUSH unique jobs and a worker
     LPOPs them while segment PUTs get 503s, or are applied and answered
     with a connection reset or a 500 (unknown outcomes: the create-only
     PUT is then retried on an object that exists), or stall past
     s3-request-timeout (and land late): every fault fired,
     sealing went on, every acknowledged push is in the list or was
     popped, no acknowledged pop came back, each pusher's order is kept,
     and the object (root + segments) holds what a client sees.
  3. drain (on the node of 1): popping most of the queue leaves its
     segments mostly dead: they are unsealed, their live chunks sealed
     anew, and the old objects deleted (through 503s and a dropped reply
     on segment DELETEs); the object holds what a client
     sees; a restart, whose segment GETs get 503s and one stalls past
     s3-request-timeout, loads the rewritten segments and keeps them
     sealed. Then a missing and a corrupt chunk segment: casq refuses to
     start, names it, and writes nothing; put back, it loads.
  4. nodes: A is broker with sealed chunks; B starts and takes over, so it
     loads the chunk segments from S3 and keeps them sealed (its INFO
     chunk_segments_chunks); pushers and workers go through both nodes
     (the follower relays); the broker is SIGKILLed while a chunk segment
     is being written, the follower takes over (and keeps the chunks
     sealed), the killed node restarts and takes over at start-up. Then:
     no acknowledged push lost (allowing for pops in flight at the kill),
     no acknowledged pop came back, each pusher's order kept, no node
     refused a root, the object holds what a client sees, and after the
     sweep (by a node started afterwards: see sweep_after_restart) every
     object under the prefix is named by the root.
  5. loader: a node whose S3 GETs take 150 ms starts while the broker,
     drained from the head, unseals segments, seals their live chunks
     anew and deletes the old ones: it loads the root and its chunk
     segments, takes over (or loses its start-up CAS to the busy broker),
     never refuses the state, keeps the chunks sealed; nothing
     acknowledged is lost and only named objects are left.

CHUNKSEG_KILLS (default 1) sets how many times the broker is SIGKILLed in 4.

Usage: e2e_chunksegs.py [seal faults nodes loader]   (seal runs 1 and 3;
faults runs 1, 2 and 3)

Needs the environment of tests/s3/run_e2e.sh. Ends with `N passed, N failed`.
"""
import json
import os
import sys
import threading
import time

import redis

import e2e_lib as E
from e2e_lib import UNKNOWN, pinfo, wait_for  # noqa: E402
from casqtest import client_snapshot  # noqa: E402 (tests/durability, on the path e2e_lib set)

ARGS = ["--segment-seal-bytes", "4kb", "--key-seal-quiet", "50"]
NQUEUE = 30000
NZSET = 10000
POP_COUNT = 7
SEG = ".segments/"
KILLS = int(os.environ.get("CHUNKSEG_KILLS", "1"))   # SIGKILLs mid-seal in the two-node scenario


def chunk_info(casq):
    try:
        return {k: v for k, v in pinfo(casq).items() if k.startswith("chunk_segments") or k == "root_bytes_last"}
    except UNKNOWN as e:
        return repr(e)


def sealed(casq, chunks=200):
    i = pinfo(casq)
    return i["chunk_segments_chunks"] > chunks and not i["chunk_segments_seal_in_progress"]


def role(casq):
    try:
        return pinfo(casq).get("broker_role")
    except UNKNOWN:
        return None


def job(tag, n):
    # Fixed-width numbers: a pusher's jobs sort in their push order.
    return "%s-%08d-%s" % (tag, n, "p" * (n % 13))


def tag_of(j):
    return j.split("-", 1)[0]


def populate(r, queue=True, binary=True):
    """The backlog (tag b) and the delayed jobs: JSON well over 64 KB each."""
    p = r.pipeline(transaction=False)
    for i in range(0, NQUEUE if queue else 0, 1000):
        p.rpush("queue", *[job("b", j) for j in range(i, i + 1000)])
    for i in range(0, NZSET, 1000):
        p.zadd("delayed", {"job-%06d" % j: 1_700_000_000_000 + j * 7 + (0.25 if j % 3 else 0)
                           for j in range(i, i + 1000)})
    if binary:
        p.rpush("bin", *[b"\x00\xff" + bytes([j % 256]) * (j % 5) for j in range(6000)])
    p.execute()


# ------------------------------------------------------------------------
# The object against the client's view
# ------------------------------------------------------------------------

def references(root, key):
    """The chunk references ({"segment","from","to"}) in key's value."""
    for d in root.get("databases", []):
        for k in d.get("keys", []):
            if E.bytestr(k["key"]) == key.encode():
                return [i for t in ("list", "zset") for i in k.get(t, []) if isinstance(i, dict) and "segment" in i]
    return []


def doc_value(doc, key):
    k = doc.keys.get((0, key.encode()))
    if k is None:
        return None
    if k["type"] == "list":
        return [E.bytestr(i) for i in k["list"]]
    if k["type"] == "zset":
        return [(E.bytestr(m), float(s)) for m, s in k["zset"]]
    return k["type"]


def client_value(r, key):
    t = r.type(key).decode()
    if t == "list":
        return r.lrange(key, 0, -1)
    if t == "zset":
        return r.zrange(key, 0, -1, withscores=True)
    return None


def load_doc_settled(casq, key):
    """The root and its segments, read while no seal is in flight (a
    segment read between the root and a sweep may be gone: read again)."""
    for _ in range(5):
        wait_for(lambda: not pinfo(casq)["chunk_segments_seal_in_progress"], 5)
        try:
            return E.load_doc(key)[0]
        except RuntimeError as e:
            last = e
            time.sleep(0.1)
    raise last


def check_object(res, label, casq, key, names):
    """Root + chunk segments == the client's view of each value."""
    doc = load_doc_settled(casq, key)
    r = casq.client()
    for name in names:
        want = client_value(r, name)
        got = doc_value(doc, name)
        res.check("%s: %s in the root merged with its chunk segments is what a client sees (%d items)"
                  % (label, name, len(want or [])), want is not None and got == want,
                  "client %d items, object %s" % (len(want or []), len(got) if isinstance(got, list) else got))
    r.close()
    return doc


def only_named_check(res, label, key, timeout=20):
    prefix = key + SEG

    def only_named():
        body, _ = E.s3_get(key)
        named = E.segment_names(json.loads(body))
        objs = {o[len(prefix):] for o in E.s3_list(prefix)}
        only_named.last = (len(objs), sorted(objs - named)[:3], sorted(named - objs)[:3])
        return objs == named

    only_named.last = None
    res.check("%s: after the sweep every object under the prefix is named by the root" % label,
              wait_for(only_named, timeout), "objects, extra, missing: %r" % (only_named.last,))


def sweep_after_restart(res, label, key):
    """Orphans of a take-over (a segment the old broker was writing when it
    died or lost the root) are younger than the grace period at the new
    broker's first sweep, and the next sweep is a minute away (segment.c:
    at most one LIST a minute): a node started now sweeps them at once."""
    casq = E.Casq(key, extra=ARGS + ["--segment-gc-grace", "0", "--broker-timeout", "400"],
                  name="casq[%s sweep]" % label)
    try:
        casq.start()
        only_named_check(res, label, key, timeout=10)
        res.check("%s: the sweeping node stops cleanly" % label, casq.stop() == 0 and casq.log_is_clean(),
                  E.tail(casq.log()))
    finally:
        casq.cleanup()


# ------------------------------------------------------------------------
# Pushers and workers with an exact record of what was acknowledged
# ------------------------------------------------------------------------

class QueueClient(threading.Thread):
    """kind "push": RPUSHes `batch` unique jobs <tag>-<n> (n rising) per
    call; kind "pop": LPOP 7; kind "zadd": ZADDs a new member <tag>-<n>
    into the middle of the sorted set (its chunk leaves its segment).
    Records what was acknowledged; an error is an unknown outcome (a push
    may be in the list, a pop may have taken up to 7 jobs nobody saw),
    counted in `unknown` unless the command was never sent (no
    connection); then reconnect (port_fn picks the node)."""

    def __init__(self, port_fn, kind, tag, batch=8, pause=0.002, count=POP_COUNT, max_ops=None):
        super().__init__(daemon=True)
        self.max_ops = max_ops   # then idle
        self.port_fn = port_fn
        self.kind = kind
        self.tag = tag
        self.batch = batch
        self.count = count
        self.pause = pause
        self.stop_flag = threading.Event()
        self.hold = threading.Event()
        self.pushed = []
        self.popped = []
        self.zadded = {}   # member -> score
        self.errors = 0
        self.unknown = 0
        self.samples = []
        self.seq = 0

    def run(self):
        conn = None
        while not self.stop_flag.is_set():
            if self.hold.is_set() or self.max_ops == 0:
                time.sleep(0.01)
                continue
            if self.max_ops:
                self.max_ops -= 1
            if conn is None:
                conn = redis.Redis(host="127.0.0.1", port=self.port_fn(), socket_timeout=15,
                                   socket_connect_timeout=2)
            try:
                if self.kind == "push":
                    jobs = [job(self.tag, self.seq + i) for i in range(self.batch)]
                    self.seq += self.batch
                    conn.rpush("queue", *jobs)
                    self.pushed += jobs
                elif self.kind == "zadd":
                    member = "%s-%08d" % (self.tag, self.seq)
                    score = 1_700_000_000_000 + (self.seq * 7919) % (NZSET * 7) + 0.5
                    self.seq += 1
                    conn.zadd("delayed", {member: score})
                    self.zadded[member] = score
                else:
                    got = conn.lpop("queue", self.count)
                    self.popped += [g.decode() for g in got or []]
                    if not got:
                        time.sleep(0.01)
            except UNKNOWN as e:
                self.errors += 1
                if "connecting to" not in str(e):
                    self.unknown += 1
                if len(self.samples) < 3:
                    self.samples.append(repr(e)[:120])
                try:
                    conn.close()
                except Exception:
                    pass
                conn = None
                time.sleep(0.05)
                continue
            if self.pause:
                time.sleep(self.pause)
        if conn is not None:
            conn.close()

    def stop(self):
        self.stop_flag.set()


def stop_clients(clients):
    for c in clients:
        c.stop()
    for c in clients:
        if c.ident is not None:
            c.join(60)


def check_queue(res, label, port, clients, extra_pushed=()):
    """Every acknowledged push is in the list or was popped (a pop with an
    unknown outcome may have taken up to 7 jobs from the head, each before
    every job of its pusher still there); no acknowledged pop came back;
    no job twice; each pusher's jobs in its push order, the backlog first."""
    c = redis.Redis(port=port, socket_timeout=30)
    now = [v.decode() for v in c.lrange("queue", 0, -1)]
    c.close()
    pushed = [job("b", j) for j in range(NQUEUE)] + list(extra_pushed)
    for q in clients:
        pushed += q.pushed
    popped = [j for q in clients for j in q.popped]
    pop_errors = sum(q.unknown for q in clients if q.kind == "pop")
    pop_bound = sum(q.unknown * q.count for q in clients if q.kind == "pop")
    present, popped_set = set(now), set(popped)
    first = {}
    for j in now:
        first.setdefault(tag_of(j), j)
    missing = [j for j in pushed if j not in present and j not in popped_set]
    unseen = [j for j in missing if j < first.get(tag_of(j), "~")]
    lost = [j for j in missing if j >= first.get(tag_of(j), "~")]
    npush = len(pushed) - NQUEUE
    res.check("%s: every acknowledged push (%d backlog + %d pushed) is in the list or was popped "
              "(%d popped, %d taken by %d pops with unknown outcome, at most %d)"
              % (label, NQUEUE, npush, len(popped), len(unseen), pop_errors, pop_bound),
              npush > 0 and popped and not lost and len(unseen) <= pop_bound,
              "%d lost, e.g. %r; %d unseen" % (len(lost), lost[:3], len(unseen)))
    back = [j for j in now if j in popped_set]
    res.check("%s: no acknowledged pop came back" % label, not back, "%d, e.g. %r" % (len(back), back[:3]))
    res.check("%s: no job twice in the list or popped twice" % label,
              len(now) == len(present) and len(popped) == len(popped_set),
              "list %d/%d, popped %d/%d" % (len(now), len(present), len(popped), len(popped_set)))
    unordered = [t for t in first if [j for j in now if tag_of(j) == t] != sorted(j for j in now if tag_of(j) == t)]
    nb = sum(1 for j in now if tag_of(j) == "b")
    res.check("%s: the list keeps each pusher's order, the backlog first (%d jobs now)" % (label, len(now)),
              not unordered and all(tag_of(j) == "b" for j in now[:nb]), repr(unordered))
    zadded = {m: sc for q in clients for m, sc in q.zadded.items()}
    if any(q.kind == "zadd" for q in clients):
        c = redis.Redis(port=port, socket_timeout=30)
        zs = {m.decode(): sc for m, sc in c.zrange("delayed", 0, -1, withscores=True)}
        c.close()
        wrong = [m for m, sc in zadded.items() if zs.get(m) != sc]
        orig = sum(1 for m in zs if m.startswith("job-"))
        res.check("%s: every acknowledged ZADD (%d) is in the sorted set with its score, the %d members "
                  "before them too" % (label, len(zadded), NZSET), zadded and not wrong and orig == NZSET,
                  "%d wrong, e.g. %r; %d original members" % (len(wrong), wrong[:3], orig))


# ------------------------------------------------------------------------
# 1. Sealing, and 2. faults on segment PUTs
# ------------------------------------------------------------------------

SEG_FAULTS = [
    ("503 on segment PUTs", {"fail_puts": 2, "fail_status": 503}, "injected_fail_puts"),
    ("segment PUT applied, connection reset (unknown outcome)", {"drop_puts": 1}, "injected_drop_puts"),
    ("segment PUT applied, then 500 (unknown outcome)", {"error_after_apply": 1}, "injected_error_after_apply"),
    ("segment PUT stalled past the request timeout (lands late)", {"stall_puts": 1, "stall_ms": 1500},
     "injected_stall_puts"),
]


def seal(res, faults):
    key = E.unique_key("chunkseg")
    E.fault(reset=True)
    casq = E.Casq(key, extra=ARGS + ["--segment-gc-grace", "0", "--broker-timeout", "400",
                                     "--s3-request-timeout", "1000"], name="casq[seal]")
    try:
        casq.start()
        t = time.time()
        populate(casq.client())
        res.check("seal: chunks of the list queue, the sorted set and the binary list are sealed on S3",
                  wait_for(lambda: sealed(casq, 300), 20), repr(chunk_info(casq)))
        print("# seal: populated and sealed in %.1f s: %r" % (time.time() - t, chunk_info(casq)))
        res.check("seal: the root holds the values' ends and references only (root_bytes_last < 40000)",
                  wait_for(lambda: pinfo(casq)["root_bytes_last"] < 40000, 10), repr(chunk_info(casq)))
        i = pinfo(casq)
        res.check("seal: a big list or sorted set is never sealed whole in a key segment",
                  i["key_segments_keys"] == 0, "key_segments_keys %s" % i["key_segments_keys"])
        body, _ = E.s3_get(key)
        root = json.loads(body)
        res.check("seal: the root object on S3 is small (%d bytes)" % len(body), len(body) < 40000)
        refs = {k: len(references(root, k)) for k in ("queue", "delayed", "bin")}
        res.check("seal: the root names chunk segments at the top level (%d) and each value references them %r"
                  % (len(root.get("chunk_segments", [])), refs),
                  root.get("chunk_segments") and all(refs.values()))
        prefix = key + SEG
        objs = {o[len(prefix):] for o in E.s3_list(prefix)}
        named = {s["name"] for s in root.get("chunk_segments", [])}
        res.check("seal: every chunk segment the root names is an object under %s (%d named, %d objects)"
                  % (prefix, len(named), len(objs)), named and named <= objs)
        check_object(res, "seal", casq, key, ("queue", "delayed", "bin"))
        if faults:
            seg_faults(res, casq, key)
        drain_restart(res, casq, key)
        damaged(res, key)
    finally:
        E.fault(reset=True)
        casq.cleanup()


def no_sparse_segment(key):
    """No chunk segment the root names has few live chunks
    (docs/state-format.md "Chunk segments", Rewrites)."""
    body, _ = E.s3_get(key)
    return all(c["live_count"] * 8 >= c["count"]
               and 2 * (c["bytes"] * c["live_count"] // c["count"]) >= 64 * 6 * len(c["gone"])
               for c in json.loads(body).get("chunk_segments", []))


def drain_restart(res, casq, key):
    """Draining most of the queue and deleting the sorted set and the
    binary list leaves segments dead or with few live chunks: they are
    dropped or unsealed (their live chunks sealed anew), the old objects
    deleted; a restart loads the segments and keeps them sealed."""
    r = casq.client()
    i0 = pinfo(casq)
    # The first deletes of the old segments fail: 503s, and one applied
    # whose reply is dropped.
    E.fault(reset=True)
    E.fault(only_path=SEG, fail_deletes=2, drop_deletes=1)
    # The queue stays well over 64 KB of JSON (its chunks may be sealed).
    while r.llen("queue") > 8000:
        r.lpop("queue", 2000)
    r.delete("bin", "delayed")

    def settled():
        i = pinfo(casq)
        changed = (i["chunk_segments_unsealed"] > i0["chunk_segments_unsealed"]
                   or i["chunk_segments"] < i0["chunk_segments"])
        return changed and sealed(casq, 20) and no_sparse_segment(key)

    res.check("drain: segments left dead are dropped, those left with few live chunks unsealed and their "
              "chunks sealed anew (%r)" % (chunk_info(casq),), wait_for(settled, 10))
    check_object(res, "drain", casq, key, ("queue",))
    only_named_check(res, "drain", key)
    c = E.proxy_state()["counters"]
    E.fault(reset=True)
    res.check("drain: the old segments were deleted through 503s and a dropped reply (%s 503s, %s dropped, "
              "%s segment DELETEs)" % (c.get("injected_fail_deletes"), c.get("injected_drop_deletes"),
                                       c.get("seg_deletes")),
              c.get("injected_fail_deletes", 0) == 2 and c.get("injected_drop_deletes", 0) == 1)
    before = client_snapshot(casq.port, (0,))
    res.check("drain: casq stops cleanly", casq.stop() == 0 and casq.log_is_clean(), E.tail(casq.log()))
    # The restart's segment GETs first get 503s, then one stalls past
    # s3-request-timeout.
    E.fault(reset=True)
    E.fault(only_path=SEG, fail_gets=3, stall_gets=1, stall_ms=1500)
    casq.start()
    c = E.proxy_state()["counters"]
    E.fault(reset=True)
    res.check("drain: the load retried segment GETs after 503s and a GET past the request timeout "
              "(%s 503s, %s stalled, %s segment GETs)"
              % (c.get("injected_fail_gets"), c.get("injected_stall_gets"), c.get("seg_gets")),
              c.get("injected_fail_gets", 0) == 3 and c.get("injected_stall_gets", 0) == 1)
    after = client_snapshot(casq.port, (0,))
    res.check("drain: after a restart every value is as before (%d keys)" % len(before), before == after,
              "differ: %r" % [k for k in set(before) | set(after) if before.get(k) != after.get(k)][:3])
    i = pinfo(casq)
    res.check("drain: the restarted node loads the rewritten chunk segments and keeps them sealed "
              "(chunk_segments_chunks %d)" % i["chunk_segments_chunks"], i["chunk_segments_chunks"] > 20)
    res.check("drain: casq stops cleanly after the restart", casq.stop() == 0 and casq.log_is_clean(),
              E.tail(casq.log()))


def damaged(res, key):
    """A missing and a corrupt chunk segment: casq refuses to start, names
    the segment, and writes (and deletes) nothing; put back, it loads, its
    chunks sealed."""
    body, _ = E.s3_get(key)
    name = json.loads(body)["chunk_segments"][0]["name"]
    E.check_damaged_segment(res, key, name, "chunk", ARGS,
                            lambda casq: casq.client().llen("queue") > 0 and pinfo(casq)["chunk_segments_chunks"] > 0)

def seg_faults(res, casq, key):
    """2. Faults on segment PUTs while chunks are sealed, under pushers, a
    worker and a ZADD writer on casq (sealed by seal())."""
    E.applied_clear()
    clients = [QueueClient(lambda: casq.port, "push", "c%d" % n) for n in range(2)]
    clients.append(QueueClient(lambda: casq.port, "pop", "w0"))
    clients.append(QueueClient(lambda: casq.port, "zadd", "z0", pause=0.01))
    try:
        for q in clients:
            q.start()
        bulk, bulk_n = [], 0
        r = casq.client()
        sealed0 = pinfo(casq)["chunk_segments_sealed"]
        for name, settings, counter in SEG_FAULTS:
            t = time.time()
            before = pinfo(casq)["chunk_segments_sealed"]
            E.fault(only_path=SEG, **settings)
            # Fresh chunks in the middle: quiet at once, sealed within ms.
            jobs = [job("d", bulk_n + j) for j in range(1500)]
            bulk_n += len(jobs)
            r.rpush("queue", *jobs)
            bulk += jobs
            r.rpush("queue", *[job("d", bulk_n + j) for j in range(10)])   # the tail: not sealed
            bulk += [job("d", bulk_n + j) for j in range(10)]
            bulk_n += 10
            fired = wait_for(lambda: E.proxy_state()["counters"].get(counter, 0) >= 1
                             and E.proxy_state()["settings"].get(counter[len("injected_"):], 0) == 0, 8)
            res.check("faults: %s: fired (%s=%s in %.1f s)"
                      % (name, counter, E.proxy_state()["counters"].get(counter), time.time() - t), fired)
            E.fault(reset=True)
            ok = wait_for(lambda: pinfo(casq)["chunk_segments_sealed"] > before and sealed(casq, 300), 10)
            i = pinfo(casq)
            res.check("faults: %s: the chunks were sealed all the same (sealed %d -> %d, seal errors %d)"
                      % (name, before, i["chunk_segments_sealed"], i["chunk_segments_seal_errors"]), ok)
            print("#   client errors so far: %d" % sum(q.errors for q in clients))
        after_faults = pinfo(casq)["chunk_segments_sealed"]
        jobs = [job("d", bulk_n + j) for j in range(1500)]
        r.rpush("queue", *jobs)
        bulk += jobs
        res.check("faults: sealing goes on after the faults (sealed %d before them, %d after)"
                  % (sealed0, after_faults),
                  wait_for(lambda: pinfo(casq)["chunk_segments_sealed"] > after_faults, 10), repr(chunk_info(casq)))
        time.sleep(0.3)
        stop_clients(clients)
        i = pinfo(casq)
        print("# faults: %r; client errors %s" % (chunk_info(casq), [s for q in clients for s in q.samples][:3]))
        res.check("faults: chunk segments are still named (chunk_segments_chunks %d)" % i["chunk_segments_chunks"],
                  i["chunk_segments_chunks"] > 100)
        check_queue(res, "faults", casq.port, clients, bulk)
        check_object(res, "faults", casq, key, ("queue", "delayed", "bin"))
        E.check_applied_order(res, "faults", [a for a in E.applied(key) if SEG not in a["path"]])
        only_named_check(res, "faults", key)
    finally:
        stop_clients(clients)
        E.fault(reset=True)


# ------------------------------------------------------------------------
# 3. Two nodes: take-over at start-up, SIGKILL mid-seal
# ------------------------------------------------------------------------

def two_nodes(res):
    key = E.unique_key("chunkseg-nodes")
    E.fault(reset=True)
    E.fault(put_delay_ms=15)   # a segment PUT in flight long enough to be killed in
    extra = ARGS + ["--segment-gc-grace", "0", "--broker-timeout", "400"]
    a = E.Casq(key, extra=extra, name="A")
    b = E.Casq(key, extra=extra, name="B")
    nodes = [a, b]
    clients = []
    try:
        a.start()
        populate(a.client(), binary=False)
        res.check("nodes: A seals the queue's and the sorted set's chunks", wait_for(lambda: sealed(a, 250), 20),
                  repr(chunk_info(a)))
        b.start()   # takes over; A follows
        res.check("nodes: B took over at start-up, A follows",
                  wait_for(lambda: role(b) == "broker" and role(a) == "follower", 10))
        i = pinfo(b)
        res.check("nodes: B loaded the chunk segments from S3 and keeps them sealed (chunk_segments_chunks %d, "
                  "chunk_segments %d)" % (i["chunk_segments_chunks"], i["chunk_segments"]),
                  i["chunk_segments_chunks"] > 250 and i["chunk_segments"] > 0)
        pick = [0]

        def port():
            pick[0] += 1
            return nodes[pick[0] % 2].port

        clients = [QueueClient(port, "push", "c%d" % n) for n in range(3)]
        clients += [QueueClient(port, "pop", "w%d" % n) for n in range(2)]
        clients.append(QueueClient(port, "zadd", "z0", pause=0.01))
        for q in clients:
            q.start()
        time.sleep(1.0)
        mid_seal = takeovers = kept = 0
        for _ in range(KILLS):
            # Kill the broker while it writes a chunk segment.
            broker = next((n for n in nodes if role(n) == "broker"), None)
            if broker is None:
                continue
            follower = next(n for n in nodes if n is not broker)
            mid_seal += wait_for(lambda: pinfo(broker)["chunk_segments_seal_in_progress"] == 1, 4)
            broker.kill9()
            takeovers += wait_for(lambda: role(follower) == "broker", 10)
            # ... it loaded the chunk segments and keeps them sealed.
            kept += wait_for(lambda: pinfo(follower)["chunk_segments_chunks"] > 0, 5)
            time.sleep(0.7)
            # A restart next to a busy S3 broker loses its start-up CAS to
            # it (e2e_takeover.py's busy_broker): restart while clients hold.
            for q in clients:
                q.hold.set()
            time.sleep(0.3)
            broker.start()   # takes over at start-up; the other follows
            for q in clients:
                q.hold.clear()
            time.sleep(0.5)
        res.check("nodes: the broker was SIGKILLed while a chunk segment was being written (%d of %d)"
                  % (mid_seal, KILLS), mid_seal >= (KILLS + 1) // 2)
        res.check("nodes: the follower took over after each SIGKILL (%d of %d)" % (takeovers, KILLS),
                  takeovers == KILLS)
        res.check("nodes: the follower, taking over, kept the chunks sealed (%d of %d)" % (kept, KILLS),
                  kept == KILLS)
        time.sleep(1.0)
        stop_clients(clients)
        broker = next((n for n in nodes if role(n) == "broker"), None)
        res.check("nodes: one broker at the end (%s)" % (broker and broker.name), broker is not None)
        if broker is None:
            return
        i = pinfo(broker)
        res.check("nodes: the last broker keeps chunks sealed (%r)" % (chunk_info(broker),),
                  i["chunk_segments_chunks"] > 0)
        print("# nodes: %d pushes, %d pops acknowledged; errors %r"
              % (sum(len(q.pushed) for q in clients), sum(len(q.popped) for q in clients),
                 [s for q in clients for s in q.samples][:3]))
        check_queue(res, "nodes", broker.port, clients)
        follower = next(n for n in nodes if n is not broker)
        check_object(res, "nodes", broker, key, ("queue", "delayed"))
        logs = a.log() + b.log()
        res.check("nodes: no node refused a root", "refuses to start" not in logs and "Fatal" not in logs,
                  E.tail(logs))
        for n in (follower, broker):
            rc = n.stop()
            res.check("nodes: %s stops (rc=%s) without sanitizer/assert reports" % (n.name, rc),
                      rc is not None and n.log_is_clean(), E.tail(n.log()))
        sweep_after_restart(res, "nodes", key)
    finally:
        stop_clients(clients)
        E.fault(reset=True)
        a.cleanup()
        b.cleanup()


# ------------------------------------------------------------------------
# 5. A node loading while the broker seals, unseals and deletes
# ------------------------------------------------------------------------

def loader(res):
    """A node whose S3 GETs take 150 ms starts -- loads the root and its
    chunk segments -- while the broker, drained from the head, unseals
    its segments, seals their live chunks anew and deletes the old ones
    (grace: its minimum, 2 x broker-timeout + load). It may take over or,
    next to a busy broker, lose its start-up CAS (e2e_takeover.py's
    busy_broker); it never refuses the state, and nothing acknowledged is
    lost."""
    key = E.unique_key("chunkseg-loader")
    E.fault(reset=True)
    extra = ARGS + ["--segment-gc-grace", "0", "--broker-timeout", "400"]
    a = E.Casq(key, extra=extra, name="A")
    c = E.Casq(key, extra=extra, name="C")
    clients = []
    try:
        a.start()
        # The queue first, in segments of its own: the drain leaves them
        # mostly dead.
        r = a.client()
        for i in range(0, NQUEUE, 1000):
            r.rpush("queue", *[job("b", j) for j in range(i, i + 1000)])
        wait_for(lambda: sealed(a, 200), 20)
        populate(r, queue=False, binary=False)
        res.check("loader: A seals the queue's and the sorted set's chunks", wait_for(lambda: sealed(a, 400), 20),
                  repr(chunk_info(a)))
        clients = [QueueClient(lambda: a.port, "push", "c%d" % n) for n in range(2)]
        clients.append(QueueClient(lambda: a.port, "pop", "w0"))
        # The drain: 24,000 jobs from the head.
        clients.append(QueueClient(lambda: a.port, "pop", "w1", count=1500, pause=0.03, max_ops=16))
        clients.append(QueueClient(lambda: a.port, "zadd", "z0", pause=0.01))
        for q in clients:
            q.start()
        time.sleep(0.3)
        before = pinfo(a)
        E.fault(get_delay_ms=150)
        c.spawn()
        # A keeps committing, draining, unsealing and deleting while C
        # loads; then the clients hold so that C's take-over CAS can win
        # (every commit of A's makes it lose one).
        time.sleep(2.0)
        mid = pinfo(a)
        for q in clients:
            q.hold.set()
        started = c.wait_ready(60)
        E.fault(get_delay_ms=0)
        for q in clients:
            q.hold.clear()
        time.sleep(0.5)
        stop_clients(clients)
        log = c.log()
        outcome = ("C took over" if started else
                   ([l.split(" # ", 1)[-1] for l in log.splitlines() if "Fatal" in l] or ["?"])[-1])
        print("# loader: %s; roots read again after a missing segment: %d"
              % (outcome, log.count("reading the root again")))
        def rewrites(i):
            return i["chunk_segments_unsealed"] + i["chunk_segments_merged"]

        res.check("loader: A rewrote (unsealed or merged), sealed and deleted segments while C loaded "
                  "(rewrites %d -> %d, sealed %d -> %d, deleted %d -> %d)"
                  % (rewrites(before), rewrites(mid),
                     before["chunk_segments_sealed"], mid["chunk_segments_sealed"],
                     before["segments_deleted"], mid["segments_deleted"]),
                  rewrites(mid) > rewrites(before)
                  and mid["chunk_segments_sealed"] > before["chunk_segments_sealed"]
                  and mid["segments_deleted"] > before["segments_deleted"])
        res.check("loader: C took over or lost its start-up CAS to the busy broker, never refused the state",
                  started or "lost the CAS" in log, E.tail(log))
        res.check("loader: C's load never found a segment missing or corrupt for good",
                  "is missing from the store" not in log and "corrupt" not in log, E.tail(log))
        if started:
            i = pinfo(c)
            res.check("loader: C loaded the chunk segments and keeps them sealed (chunk_segments_chunks %d)"
                      % i["chunk_segments_chunks"], i["chunk_segments_chunks"] > 0)
        broker = c if started else a
        check_queue(res, "loader", broker.port, clients)
        check_object(res, "loader", broker, key, ("queue", "delayed"))
        for n in (a, c):
            if n.alive():
                rc = n.stop()
                res.check("loader: %s stops (rc=%s) without sanitizer/assert reports" % (n.name, rc),
                          rc is not None and n.log_is_clean(), E.tail(n.log()))
        sweep_after_restart(res, "loader", key)
    finally:
        stop_clients(clients)
        E.fault(reset=True)
        a.cleanup()
        c.cleanup()


def main():
    res = E.Results("s3 e2e chunk segments")
    wanted = sys.argv[1:]

    def want(n):
        return not wanted or n in wanted

    if want("seal") or want("faults"):
        t = time.time()
        res.run("seal" + (", faults on segment PUTs" if want("faults") else ""), seal, res, want("faults"))
        print("# seal%s: %.1f s" % (" + faults" if want("faults") else "", time.time() - t))
    if want("nodes"):
        t = time.time()
        res.run("two nodes: take-overs, SIGKILL mid-seal", two_nodes, res)
        print("# nodes: %.1f s" % (time.time() - t))
    if want("loader"):
        t = time.time()
        res.run("a node loading while the broker unseals and deletes", loader, res)
        print("# loader: %.1f s" % (time.time() - t))
    return res.finish()


if __name__ == "__main__":
    sys.exit(main())
