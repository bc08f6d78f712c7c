#!/usr/bin/python3
"""test_priority.py -- priority delivery for consumer groups at scale
(issue 10, docs/priority.md): the 200,000-message test and its failures.

The schedule is checked against a model: for entries pushed before the
consumers start, the group's deliveries through ">" must be exactly the
weighted round robin of docs/priority.md, whatever COUNT each call asks
for and however many consumers read at once. Every XREADGROUP call is one
command, so its reply is a contiguous run of the schedule: the calls of
concurrent consumers must tile the model's sequence exactly.

Scenarios (the stream of 100,000 high then 100,000 normal is pushed once,
each scenario reads it through its own group; likewise the interleaved
stream):
  fair-first   100k high then 100k normal: COUNT 100 (1 consumer, XACK),
               COUNT 10 (4 consumers)
  fair-mixed   the two classes interleaved (shuffled, values 0..31,
               missing and non-integer ones): COUNT 100 (1 consumer),
               COUNT 1 (4 consumers, pipelined)
  windows      every window of 1,000 deliveries while both classes have
               entries holds 666 or 667 high ones (2:1, +-1), then only
               normal
  weights      2:1, changed to 3:1 after 60,000 deliveries and to 1:1
               after 120,000: every window after a change has the new ratio
  strict       levels 0..31: no entry delivered while a higher level has
               one undelivered; MAXWAIT: an entry older than max-wait is
               delivered within the next call
  model        random XADD / XDEL / XTRIM / SETID / WEIGHTS / OFF /
               XREADGROUP and SIGKILL restarts on a fair and a strict
               group, every reply and lag compared with a Python model of
               docs/priority.md
  documents    the group's "priority" object in the document: written as
               documented, hand-written ones load, broken ones are refused
  crash        SIGKILL of the broker in the middle of the 200k run, a
               restart, a take-over by a second node at its start, and a
               SIGKILL of that broker with the first node taking over: the
               deliveries continue the cycle; nothing is delivered twice
               through ">", nothing is skipped (an entry of a call whose
               reply was lost is in the consumer's PEL)

Data in /dev/shm when it exists (a commit costs an fsync). Ports
30700-30799. Runtime about 40 s.
"""

import os
import random
import shutil
import signal
import sys
import tempfile
import threading
import time

import redis

sys.path.insert(0, os.path.dirname(__file__))
from casqtest import Casq, check, finish, load_document, pick_port, run_casq_expect_exit  # noqa: E402

N = 100_000  # per class
WINDOW = 1000
_used = set()


def port():
    p = pick_port(30700, span=100, avoid=tuple(_used))
    _used.add(p)
    return p


def tmpdir(prefix):
    base = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    return tempfile.mkdtemp(prefix=prefix, dir=base)


# ------------------------------------------------------------------------
# Pushing and the model
# ------------------------------------------------------------------------
def push(r, key, fields_list):
    """XADDs every field dict, pipelined; returns the IDs."""
    ids = []
    p = r.pipeline(transaction=False)
    for k, f in enumerate(fields_list):
        p.xadd(key, f)
        if k % 1000 == 999:
            ids += p.execute()
    ids += p.execute()
    return ids


def fair_model(ids, classes, changes=()):
    """The fair schedule of entries all present at the start. changes:
    [(after_n_deliveries, (wh, wn))], the cycle restarting at each."""
    from collections import deque

    q = (deque(i for i, c in zip(ids, classes) if c == 0), deque(i for i, c in zip(ids, classes) if c == 1))
    w = (2, 1)
    pos = 0
    out = []
    changes = list(changes)
    while q[0] or q[1]:
        if changes and len(out) == changes[0][0]:
            w = changes.pop(0)[1]
            pos = 0
        total = w[0] + w[1]
        p = pos % total
        cls = 0 if p < w[0] else 1
        if q[cls]:
            pos = (p + 1) % total
        else:
            cls ^= 1
            pos = ((w[0] if cls == 1 else 0) + 1) % total
        out.append(q[cls].popleft())
    return out


def xreadgroup(r, key, group, consumer, count, noack=False, block=None):
    args = ["XREADGROUP", "GROUP", group, consumer, "COUNT", count]
    if block is not None:
        args += ["BLOCK", block]
    if noack:
        args.append("NOACK")
    args += ["STREAMS", key, ">"]
    res = r.execute_command(*args)
    return [e[0] for e in res[0][1]] if res else []


def consume(node, key, group, count, consumers=1, pipeline=1, ack=False, on_call=None):
    """Reads the group to the end; returns the chunks (one per call, in
    each consumer's order) and, for one consumer, the sequence."""
    chunks = [[] for _ in range(consumers)]
    errors = []

    def worker(k):
        r = node.client(socket_timeout=60)
        try:
            done = False
            while not done:
                p = r.pipeline(transaction=False)
                for _ in range(pipeline):
                    p.execute_command("XREADGROUP", "GROUP", group, f"c{k}", "COUNT", count,
                                      *([] if ack else ["NOACK"]), "STREAMS", key, ">")
                got = []
                for res in p.execute():
                    ids = [e[0] for e in res[0][1]] if res else []
                    if not ids:
                        done = True
                        continue
                    chunks[k].append(ids)
                    got += ids
                    if on_call:
                        on_call(ids)
                if ack and got:
                    r.xack(key, group, *got)
        except Exception as e:  # reported below
            errors.append(repr(e))
        finally:
            r.close()

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(consumers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return [c for per in chunks for c in per], errors


def tiles(chunks, model):
    """Whether the chunks are disjoint contiguous runs of model covering
    it exactly."""
    where = {eid: k for k, eid in enumerate(model)}
    covered = 0
    seen = bytearray(len(model))
    for ch in chunks:
        k = where.get(ch[0])
        if k is None or model[k:k + len(ch)] != ch:
            return False, f"a call's reply is not a run of the schedule (at {k})"
        for j in range(k, k + len(ch)):
            if seen[j]:
                return False, f"position {j} delivered twice"
            seen[j] = 1
        covered += len(ch)
    if covered != len(model):
        return False, f"{covered} of {len(model)} delivered"
    return True, ""


def window_stats(seq, cls_of, ratio=(2, 1)):
    """Per window of 1,000 deliveries while both classes remain: the
    number of high ones. Returns (windows checked, bad windows, first bad)."""
    total_high = sum(1 for e in seq if cls_of[e] == 0)
    high_left = total_high
    normal_left = len(seq) - total_high
    bad, checked, first_bad = 0, 0, None
    want = WINDOW * ratio[0] / (ratio[0] + ratio[1])
    for w in range(0, len(seq) - WINDOW + 1, WINDOW):
        win = seq[w:w + WINDOW]
        h = sum(1 for e in win if cls_of[e] == 0)
        both = high_left - h > 0 and normal_left - (WINDOW - h) > 0
        high_left -= h
        normal_left -= WINDOW - h
        if not both:
            continue
        checked += 1
        if abs(h - want) > 1:
            bad += 1
            if first_bad is None:
                first_bad = (w, h)
    return checked, bad, first_bad


def tail_only_normal(seq, cls_of):
    last_high = max(k for k, e in enumerate(seq) if cls_of[e] == 0)
    return all(cls_of[e] == 1 for e in seq[last_high + 1:])


# ------------------------------------------------------------------------
# Scenarios
# ------------------------------------------------------------------------
def run_fair(node):
    r = node.client(socket_timeout=60)
    t0 = time.time()
    first_ids = push(r, "first", [{"priority": "9", "n": str(i)} for i in range(N)] + [{"n": str(i)} for i in range(N)])
    cls_first = {eid: (0 if k < N else 1) for k, eid in enumerate(first_ids)}
    rnd = random.Random(10)
    spec = [0] * N + [1] * N
    rnd.shuffle(spec)
    mixed_fields = []
    for c in spec:
        if c == 0:
            mixed_fields.append({"priority": str(rnd.choice([5, 6, 7, 8, 9, 31, 1000]))})
        else:
            v = rnd.choice(["0", "1", "2", "3", "4", "-7", None, "high", "4.5"])
            mixed_fields.append({"priority": v} if v is not None else {"job": "x"})
    mixed_ids = push(r, "mixed", mixed_fields)
    cls_mixed = dict(zip(mixed_ids, spec))
    print(f"# pushed 2 x {2 * N} entries in {time.time() - t0:.1f} s", flush=True)

    model_first = fair_model(first_ids, [cls_first[i] for i in first_ids])
    model_mixed = fair_model(mixed_ids, spec)
    ck, bad, fb = window_stats(model_first, cls_first)
    check(ck >= 149 and bad == 0 and tail_only_normal(model_first, cls_first),
          f"fair model: {ck} windows of {WINDOW} with both classes, all 2:1 +-1, then only normal", f"bad {bad} {fb}")

    runs = [
        ("first", model_first, cls_first, "f100", 100, 1, 1, True),
        ("first", model_first, cls_first, "f10x4", 10, 4, 20, False),
        ("mixed", model_mixed, cls_mixed, "m100", 100, 1, 2, False),
        ("mixed", model_mixed, cls_mixed, "m1x4", 1, 4, 500, False),
    ]
    for key, model, cls_of, group, count, consumers, pipe, ack in runs:
        r.execute_command("XGROUP", "CREATE", key, group, "0", "PRIORITY", "FAIR")
        t = time.time()
        chunks, errors = consume(node, key, group, count, consumers, pipe, ack)
        took = time.time() - t
        ok, why = tiles(chunks, model)
        desc = f"{key}: COUNT {count}, {consumers} consumer(s){' with XACK' if ack else ''}"
        check(not errors and ok, f"{desc}: the {2 * N} deliveries follow the schedule ({took:.1f} s)",
              f"{errors[:2]} {why}")
        if consumers == 1 and ok:
            seq = [e for ch in chunks for e in ch]
            ck, bad, fb = window_stats(seq, cls_of)
            check(bad == 0 and ck >= 149 and tail_only_normal(seq, cls_of),
                  f"{desc}: {ck} windows of {WINDOW} all 2:1 (+-1), then only normal", f"bad {bad}, first {fb}")
    # The lag of a finished group is 0, pending as acknowledged.
    g = [x for x in r.execute_command("XINFO", "GROUPS", "first")]
    lags = {}
    for x in g:
        d = dict(zip(x[::2], x[1::2]))
        lags[d[b"name"]] = d[b"lag"]
    check(all(v == 0 for v in lags.values()), "every group's lag is 0 at the end", f"{lags}")

    # Weights changed mid-run (COUNT 10, one consumer: changes fall between calls).
    r.execute_command("XGROUP", "CREATE", "first", "w", "0", "PRIORITY", "FAIR")
    changes = [(60000, (3, 1)), (120000, (1, 1))]
    model_w = fair_model(first_ids, [cls_first[i] for i in first_ids], changes)
    seq = []
    rr = node.client(socket_timeout=60)
    pending_changes = list(changes)
    while True:
        if pending_changes and len(seq) == pending_changes[0][0]:
            wh, wn = pending_changes.pop(0)[1]
            rr.execute_command("XGROUP", "PRIORITY", "first", "w", "FAIR", "WEIGHTS", wh, wn)
        p = rr.pipeline(transaction=False)
        for _ in range(20):
            p.execute_command("XREADGROUP", "GROUP", "w", "c", "COUNT", 10, "NOACK", "STREAMS", "first", ">")
        got = []
        for res in p.execute():
            got += [e[0] for e in res[0][1]] if res else []
        if not got:
            break
        # A change is due inside this batch: keep what precedes it, then
        # the group must have delivered exactly that; re-read after.
        if pending_changes and len(seq) + len(got) > pending_changes[0][0]:
            cut = pending_changes[0][0] - len(seq)
            check(False, "weights: the test's batches align with the change points", f"cut {cut}")
            break
        seq += got
    check(seq == model_w, "weights 2:1 -> 3:1 at 60,000 -> 1:1 at 120,000: deliveries follow the schedule",
          f"{len(seq)} delivered")
    bad = []
    # high_from[k]: high entries in seq[k:], counted once rather than per
    # window (which rescanned the whole tail, ~10^7 steps).
    high_from = [0] * (len(seq) + 1)
    for k in range(len(seq) - 1, -1, -1):
        high_from[k] = high_from[k + 1] + (cls_first[seq[k]] == 0)
    for lo, hi, ratio in ((0, 60000, (2, 1)), (60000, 120000, (3, 1)), (120000, 150000, (1, 1))):
        for w in range(lo, hi, WINDOW):
            win = seq[w:w + WINDOW]
            h = sum(1 for e in win if cls_first[e] == 0)
            if high_from[w] == h:
                break  # the high class ends in this window
            if abs(h - WINDOW * ratio[0] / sum(ratio)) > 1:
                bad.append((w, h))
    check(not bad, "weights: every window of 1,000 has the ratio in force (+-1)", f"{bad[:3]}")
    rr.close()
    r.close()


def run_strict(node):
    r = node.client(socket_timeout=60)
    rnd = random.Random(7)
    levels = [rnd.randint(0, 40) for _ in range(20000)]
    ids = push(r, "strict", [{"priority": str(v)} for v in levels])
    lvl = {eid: min(v, 31) for eid, v in zip(ids, levels)}
    r.execute_command("XGROUP", "CREATE", "strict", "s", "0", "PRIORITY", "STRICT")
    chunks, errors = consume(node, "strict", "s", 7, 1, 50, False)
    seq = [e for ch in chunks for e in ch]
    # Sorted by level descending, then by ID (parsed: "ms-seq").
    key = [(-lvl[e], tuple(int(x) for x in e.split(b"-"))) for e in seq]
    ok = not errors and len(seq) == len(ids) and key == sorted(key)
    check(ok, "strict: 20,000 entries, levels 0..40 (above 31 = 31): highest level first, FIFO within a level",
          f"{errors[:2]} {len(seq)}")

    # Entries arriving while consuming: nothing lower while something higher waits.
    r.execute_command("XGROUP", "CREATE", "strict", "s2", "$", "PRIORITY", "STRICT")
    viol = 0
    undelivered = {}
    for round_ in range(200):
        for _ in range(5):
            v = rnd.randint(0, 31)
            eid = r.xadd("strict", {"priority": str(v)})
            undelivered[eid] = v
        for eid in xreadgroup(r, "strict", "s2", "c", 3, noack=True):
            v = undelivered.pop(eid)
            if any(u > v for u in undelivered.values()):
                viol += 1
    check(viol == 0, "strict: with entries arriving between reads, never a lower level while a higher one waits",
          f"{viol} violations")

    # MAXWAIT: low entries older than max-wait overtake a flood of high ones.
    r.delete("guard")
    maxwait = 300
    r.execute_command("XGROUP", "CREATE", "guard", "g", "$", "MKSTREAM", "PRIORITY", "STRICT", "MAXWAIT", maxwait)
    low = r.xadd("guard", {"priority": "0", "n": "low"})
    t_low = time.time()
    got_low_at = None
    stop = time.time() + 3
    while time.time() < stop and got_low_at is None:
        r.xadd("guard", {"priority": "9"})
        r.xadd("guard", {"priority": "9"})
        for eid in xreadgroup(r, "guard", "g", "c", 1, noack=True):
            if eid == low:
                got_low_at = time.time()
        time.sleep(0.005)
    waited = (got_low_at - t_low) * 1000 if got_low_at else None
    check(waited is not None and maxwait <= waited + 5 and waited < maxwait + 250,
          f"MAXWAIT {maxwait} ms: a starving low entry is delivered after {waited and round(waited)} ms "
          f"(bound: max-wait + one read)")
    r.close()


def run_crash():
    d = tmpdir("casq-prio-crash-")
    a = Casq(port(), d, "--broker-timeout", "500", logname="a.log").start()
    r = a.client(socket_timeout=60)
    ids = push(r, "jobs", [{"priority": "9"} for _ in range(N)] + [{"job": "x"} for _ in range(N)])
    cls = {eid: (0 if k < N else 1) for k, eid in enumerate(ids)}
    model = fair_model(ids, [cls[i] for i in ids])
    r.execute_command("XGROUP", "CREATE", "jobs", "g", "0", "PRIORITY", "FAIR")
    r.close()

    got = []          # through ">", in order
    recovered = []    # from the consumer's PEL after a failure
    errors = []

    def read_until(node, stop_at, kill_during=None):
        """Reads COUNT 100 with XACK until stop_at deliveries; kill_during:
        a function run (in a thread) while the reads go on."""
        rr = node.client(socket_timeout=10)
        killer = threading.Thread(target=kill_during) if kill_during else None
        started = False
        try:
            while len(got) < stop_at:
                if killer and not started and len(got) > stop_at - 2 * N * 0.15:
                    killer.start()
                    started = True
                ids_ = xreadgroup(rr, "jobs", "g", "c", 100)
                if not ids_:
                    break
                got.extend(ids_)
                rr.xack("jobs", "g", *ids_)
        except (redis.ConnectionError, redis.TimeoutError, redis.ResponseError) as e:
            errors.append(str(e))
        finally:
            rr.close()
        if started:
            killer.join()

    def recover(node):
        """After a failure: the consumer's pending entries (a call whose
        reply was lost) are recovered with XREADGROUP 0, in schedule
        order by the model; then acknowledged."""
        rr = node.client(socket_timeout=10)
        res = rr.execute_command("XREADGROUP", "GROUP", "g", "c", "STREAMS", "jobs", "0")
        pend = [e[0] for e in res[0][1]] if res else []
        pend = [e for e in pend if e not in set(got)]
        where = {e: k for k, e in enumerate(model)}
        pend.sort(key=lambda e: where[e])
        recovered_at.append((len(got) + len(recovered), len(pend)))
        recovered.extend(pend)
        got.extend(pend)
        if pend:
            rr.xack("jobs", "g", *pend)
        rr.close()

    recovered_at = []
    # 1. SIGKILL the only node in the middle, restart it.
    read_until(a, int(2 * N * 0.3), kill_during=lambda: (time.sleep(0.05), a.kill(signal.SIGKILL)))
    killed_at = len(got)
    a.start()
    recover(a)
    check(0 < killed_at < 2 * N, f"crash: SIGKILL after {killed_at} deliveries, restart")
    read_until(a, int(2 * N * 0.5))
    # 2. A second node takes over at its start (the first follows).
    b = Casq(port(), d, "--broker-timeout", "500", logname="b.log").start()
    recover(b)
    read_until(b, int(2 * N * 0.7))
    # a learns it is deposed at its next write; make it a follower.
    ra = a.client(socket_timeout=5)
    for _ in range(200):
        try:
            if ra.info("broker")["broker_role"] == "follower":
                break
            ra.xadd("probe", {"p": "1"})
        except (redis.ResponseError, redis.BusyLoadingError, redis.ConnectionError):
            pass
        time.sleep(0.02)
    ra.close()
    # 3. SIGKILL the broker b mid-run: a takes over.
    read_until(b, int(2 * N * 0.9), kill_during=lambda: (time.sleep(0.05), b.kill(signal.SIGKILL)))
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            if a.client(socket_timeout=2).info("broker")["broker_role"] == "broker":
                break
        except (redis.ConnectionError, redis.TimeoutError):
            pass
        time.sleep(0.05)
    recover(a)
    read_until(a, 2 * N + 1)

    dup = len(got) - len(set(got))
    check(dup == 0, f"crash: nothing delivered twice through '>' ({len(got)} deliveries, "
          f"{len(recovered)} recovered from the PEL at {recovered_at})", f"{dup} duplicates")
    check(set(got) == set(ids), "crash: nothing skipped: every entry delivered",
          f"{len(set(ids) - set(got))} missing")
    check(got == model, "crash: the deliveries continue the cycle exactly (the sequence is the schedule's)",
          f"first difference at {next((k for k, (x, y) in enumerate(zip(got, model)) if x != y), None)}")
    for n in (a, b):
        n.kill(signal.SIGKILL)
    shutil.rmtree(d, ignore_errors=True)


class PrioModel:
    """docs/priority.md as executable Python: a group's schedule over the
    live entries (each class: its live entries above its cursor)."""

    def __init__(self, mode, weights=(2, 1), cursor=(0, 0)):
        self.mode, self.weights, self.pos = mode, list(weights), 0
        self.cursor = [cursor] * (2 if mode == "fair" else 32)
        self.off = False   # PRIORITY OFF: a plain group reading after `last`
        self.last = cursor  # greatest ID delivered (last-delivered-id)

    def set_off(self, entries):
        """OFF: the group continues after the oldest undelivered entry."""
        heads = [q[0] for q in self.undelivered(entries) if q]
        if heads:
            ms, seq = min(heads)
            self.last = (ms, seq - 1) if seq else (ms - 1, 2**64 - 1)
        self.off = True

    def set_on(self):
        self.off = False
        self.cursor = [self.last] * len(self.cursor)
        self.pos = 0

    def cls(self, prio):
        try:
            v = int(prio) if prio is not None and prio.strip() == prio else 4
        except ValueError:
            v = 4
        if self.mode == "fair":
            return 0 if v >= 5 else 1
        return max(0, min(31, v))

    def undelivered(self, entries):
        q = [[] for _ in self.cursor]
        for eid in sorted(entries):
            k = self.cls(entries[eid])
            if eid > self.cursor[k]:
                q[k].append(eid)
        return q

    def deliver(self, entries, count):
        if self.off:
            out = [e for e in sorted(entries) if e > self.last][:count or None]
            if out:
                self.last = out[-1]
            return out
        out = []
        q = self.undelivered(entries)
        while (not count or len(out) < count) and any(q):
            if self.mode == "fair":
                total = sum(self.weights)
                p = self.pos % total
                k = 0 if p < self.weights[0] else 1
                if q[k]:
                    self.pos = (p + 1) % total
                else:
                    k ^= 1
                    self.pos = ((self.weights[0] if k == 1 else 0) + 1) % total
            else:
                k = max(j for j in range(32) if q[j])
            eid = q[k].pop(0)
            self.cursor[k] = eid
            self.last = max(self.last, eid)
            out.append(eid)
        return out


def parse_id(b):
    ms, seq = b.split(b"-")
    return (int(ms), int(seq))


def run_model():
    """Random XADD / XDEL / XTRIM / XREADGROUP / SETID / WEIGHTS against
    the model: every reply and every lag exactly as the model says."""
    d = tmpdir("casq-prio-model-")
    n = Casq(port(), d).start()
    r = n.client()
    rnd = random.Random(5)
    entries = {}  # id tuple -> priority string or None
    r.execute_command("XGROUP", "CREATE", "m", "f", "$", "MKSTREAM", "PRIORITY", "FAIR")
    r.execute_command("XGROUP", "CREATE", "m", "s", "$", "PRIORITY", "STRICT")
    models = {"f": PrioModel("fair"), "s": PrioModel("strict")}
    bad = []
    restarts = 0
    values = ["0", "1", "4", "5", "9", "12", "31", "40", "-2", "x", "", " 7"]
    for step in range(2500):
        op = rnd.random()
        if op < 0.004:
            # SIGKILL and restart: every reply received was durable, so
            # the schedule goes on exactly where the model is.
            r.close()
            n.kill(signal.SIGKILL)
            n.start()
            r = n.client()
            restarts += 1
        elif op < 0.45:
            v = rnd.choice(values + [None])
            f = {"priority": v} if v is not None else {"other": "1"}
            entries[parse_id(r.xadd("m", f))] = v
        elif op < 0.52 and entries:
            victims = rnd.sample(sorted(entries), min(len(entries), rnd.randint(1, 3)))
            r.xdel("m", *[f"{a}-{b}" for a, b in victims])
            for v in victims:
                del entries[v]
        elif op < 0.55 and entries:
            keep = rnd.randint(len(entries) // 2, len(entries))
            r.xtrim("m", maxlen=keep, approximate=False)
            for v in sorted(entries)[:len(entries) - keep]:
                del entries[v]
        elif op < 0.57 and entries:
            g = rnd.choice("fs")
            to = rnd.choice(sorted(entries))
            r.execute_command("XGROUP", "SETID", "m", g, f"{to[0]}-{to[1]}")
            models[g].cursor = [to] * len(models[g].cursor)
            models[g].last = to
        elif op < 0.575:
            # The fair group goes plain and back (the cycle restarts).
            m = models["f"]
            if m.off:
                r.execute_command("XGROUP", "PRIORITY", "m", "f", "FAIR", "WEIGHTS", *m.weights)
                m.set_on()
            else:
                r.execute_command("XGROUP", "PRIORITY", "m", "f", "OFF")
                m.set_off(entries)
        elif op < 0.59:
            w = (rnd.randint(1, 4), rnd.randint(1, 4))
            r.execute_command("XGROUP", "PRIORITY", "m", "f", "FAIR", "WEIGHTS", *w)
            if models["f"].off:
                models["f"].set_on()  # (FAIR on a plain group turns it on)
            models["f"].weights, models["f"].pos = list(w), 0
        else:
            g = rnd.choice("fs")
            count = rnd.choice([0, 1, 2, 3, 5, 8])
            res = r.execute_command("XREADGROUP", "GROUP", g, rnd.choice(["c1", "c2"]), "COUNT", count, "NOACK",
                                    "STREAMS", "m", ">")
            got = [parse_id(e[0]) for e in res[0][1]] if res else []
            want = models[g].deliver(entries, count)
            if got != want:
                bad.append((step, g, got[:5], want[:5]))
        if step % 50 == 0:
            for g in "fs":
                if models[g].off:
                    continue
                info = {x[1]: dict(zip(x[::2], x[1::2])) for x in r.execute_command("XINFO", "GROUPS", "m")}
                lag = info[g.encode()][b"lag"]
                want = sum(len(q) for q in models[g].undelivered(entries))
                if lag != want:
                    bad.append((step, g, "lag", lag, want))
    check(not bad and restarts > 0, f"model: 2,500 random XADD/XDEL/XTRIM/SETID/WEIGHTS/OFF/XREADGROUP steps and "
          f"{restarts} SIGKILL restarts, fair and strict: every reply and lag as docs/priority.md says", f"{bad[:3]}")
    r.close()
    check(n.stop() == 0, "model: the node shuts down cleanly")
    shutil.rmtree(d, ignore_errors=True)


def run_documents():
    """The group's "priority" object as documented (docs/state-format.md):
    written by casq, hand-written ones load, broken ones are refused."""
    import json

    d = tmpdir("casq-prio-doc-")
    n = Casq(port(), d).start()
    r = n.client()
    for k in range(4):
        r.xadd("q", {"priority": "9", "n": f"h{k}"})
        r.xadd("q", {"n": f"n{k}"})
    r.execute_command("XGROUP", "CREATE", "q", "g", "0", "PRIORITY", "FAIR", "WEIGHTS", "3", "1", "FIELD", "priority")
    r.execute_command("XREADGROUP", "GROUP", "g", "c", "COUNT", "2", "NOACK", "STREAMS", "q", ">")
    r.close()
    check(n.stop() == 0, "documents: the node shuts down cleanly")
    doc = load_document(os.path.join(d, "queue.json"), merge=False)
    key = doc["databases"][0]["keys"][0]
    group = key["stream"]["groups"][0]
    pr = group.get("priority", {})
    check(pr.get("mode") == "fair" and pr.get("field") == "priority" and pr.get("weights") == [3, 1]
          and pr.get("cycle_pos") == 2 and len(pr.get("cursors", [])) == 2,
          "documents: the group's priority object holds mode, field, weights, cycle_pos, cursors", f"{pr}")

    def with_priority(value):
        doc2 = json.loads(json.dumps(doc))
        g = doc2["databases"][0]["keys"][0]["stream"]["groups"][0]
        if value is None:
            g.pop("priority", None)
        else:
            g["priority"] = value
        dd = tmpdir("casq-prio-doc2-")
        with open(os.path.join(dd, "queue.json"), "w") as f:
            json.dump(doc2, f)
        return dd

    # A hand-written strict group loads and continues from its cursors
    # (level 9 has delivered the first entry, level 4 nothing).
    first = key["stream"]["entries"][0][0]
    dd = with_priority({"mode": "strict", "field": "priority", "max_wait_ms": 0, "cursors": ["0-0"] * 9 + [first] + ["0-0"] * 22})
    n2 = Casq(port(), dd).start()
    r = n2.client()
    res = r.execute_command("XREADGROUP", "GROUP", "g", "c", "STREAMS", "q", ">")
    got = [e[1][b"n"] for e in res[0][1]]
    check(got == [b"h1", b"h2", b"h3", b"n0", b"n1", b"n2", b"n3"],
          "documents: a hand-written strict group loads and continues after its cursors", f"{got}")
    r.close()
    n2.stop()
    shutil.rmtree(dd, ignore_errors=True)

    bad = [
        ({"mode": "fast", "field": "p", "weights": [2, 1], "cycle_pos": 0, "cursors": ["0-0", "0-0"]}, "mode"),
        ({"mode": "fair", "field": "p", "weights": [0, 1], "cycle_pos": 0, "cursors": ["0-0", "0-0"]}, "weights"),
        ({"mode": "fair", "field": "p", "weights": [2, 1], "cycle_pos": 3, "cursors": ["0-0", "0-0"]}, "cycle_pos"),
        ({"mode": "fair", "field": "p", "weights": [2, 1], "cycle_pos": 0, "cursors": ["0-0"]}, "cursors"),
        ({"mode": "fair", "field": "", "weights": [2, 1], "cycle_pos": 0, "cursors": ["0-0", "0-0"]}, "field"),
        ({"mode": "fair", "field": "p", "weights": [2, 1], "cycle_pos": 0, "cursors": ["0-0", "0-0"], "x": 1},
         "unknown field"),
        ({"mode": "strict", "field": "p", "max_wait_ms": 5, "weights": [2, 1], "cursors": ["0-0"] * 32}, "weights"),
        ({"mode": "strict", "field": "p", "max_wait_ms": -1, "cursors": ["0-0"] * 32}, "max_wait_ms"),
        ("fair", "expected an object"),
    ]
    for value, why in bad:
        dd = with_priority(value)
        code, out = run_casq_expect_exit(port(), dd)
        check(code not in (None, 0) and "priority" in out and why in out,
              f"documents: a priority object with a bad {why} is refused, saying so", out[-300:])
        shutil.rmtree(dd, ignore_errors=True)
    shutil.rmtree(d, ignore_errors=True)


def main():
    t0 = time.time()
    d = tmpdir("casq-prio-")
    node = Casq(port(), d).start()
    run_fair(node)
    print(f"# fair: {time.time() - t0:.1f} s", flush=True)
    run_strict(node)
    print(f"# strict: {time.time() - t0:.1f} s", flush=True)
    check(node.stop() == 0, "the node shuts down cleanly")
    shutil.rmtree(d, ignore_errors=True)
    run_crash()
    run_documents()
    run_model()
    print(f"# {time.time() - t0:.1f} s", flush=True)
    finish()


if __name__ == "__main__":
    main()
