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
from casqtest import Casq, check, finish, pick_port  # noqa: E402

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
    for lo, hi, ratio in ((0, 60000, (2, 1)), (60000, 120000, (3, 1)), (120000, 150000, (1, 1))):
        for w in range(lo, hi, WINDOW):
            win = seq[w:w + WINDOW]
            h = sum(1 for e in win if cls_first[e] == 0)
            if sum(1 for e in seq[w:] if cls_first[e] == 0) == h:
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
                if killer and not started and len(got) > stop_at - 30000:
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
    read_until(a, 60000, kill_during=lambda: (time.sleep(0.05), a.kill(signal.SIGKILL)))
    killed_at = len(got)
    a.start()
    recover(a)
    check(0 < killed_at < 2 * N, f"crash: SIGKILL after {killed_at} deliveries, restart")
    read_until(a, 100000)
    # 2. A second node takes over at its start (the first follows).
    b = Casq(port(), d, "--broker-timeout", "500", logname="b.log").start()
    recover(b)
    read_until(b, 140000)
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
    read_until(b, 180000, kill_during=lambda: (time.sleep(0.05), b.kill(signal.SIGKILL)))
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
    print(f"# {time.time() - t0:.1f} s", flush=True)
    finish()


if __name__ == "__main__":
    main()
