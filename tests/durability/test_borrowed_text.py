#!/usr/bin/python3
"""test_borrowed_text.py -- a commit borrows big streams' entry texts from
their nodes instead of copying them (storeDoc in src/store.h); commands
that change those nodes while the write is in flight must leave the
document being written untouched, and every document that reaches the
disk must be whole and consistent.

casq runs with commit-debug-delay 20, so every commit stays in flight (its
document borrowed) at least 20 ms, while several clients append to, delete
from, trim, copy and delete big streams (well over the 64 KB under which a
key's JSON is copied into the document instead). Meanwhile a checker reads
queue.json over and over: each version must parse, and in each stream the
"length" must equal the entries listed, in increasing ID order, each entry
with the value its ID says it has. At the end the state is read through the
server, the server is SIGKILLed and restarted, and the state must be
identical.
"""

import json
import os
import random
import shutil
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from casqtest import Casq, check, document_streams, finish, merge_segments, pick_port, stream_entries  # noqa: E402

PORT = int(os.environ.get("BORROW_PORT", "0")) or pick_port(26180)
SECONDS = float(os.environ.get("BORROW_SECONDS", "4"))
KEYS = [b"big1", b"big2", b"big3"]

stop = threading.Event()
problems = []
stats = {"docs": 0, "ops": 0}
lock = threading.Lock()


def value_for(i):
    # 60 bytes that say which entry they belong to.
    return (b"v%08d-" % i) + b"x" * 50


def check_document(raw, path):
    doc = json.loads(raw)

    def read(name):
        with open(os.path.join(path + ".segments", name), "rb") as f:
            return f.read()

    merge_segments(doc, read)  # big streams' older entries are in segments
    for key, s in document_streams(doc).items():
        entries = stream_entries(s)
        if s["length"] != len(entries):
            return f"{key}: length {s['length']} but {len(entries)} entries"
        last = (0, 0)
        for eid, fields in entries:
            ms, seq = (int(x) for x in eid.split("-"))
            if (ms, seq) <= last:
                return f"{key}: IDs not increasing at {eid}"
            last = (ms, seq)
            if len(fields) != 2 or fields[0] != b"n" or not fields[1].startswith(b"v") or len(fields[1]) != 60:
                return f"{key}: malformed entry {eid} {fields[:2]}"
    return None


def checker(path):
    while not stop.is_set():
        try:
            with open(path, "rb") as f:
                raw = f.read()
        except FileNotFoundError:
            continue
        try:
            why = check_document(raw, path)
        except ValueError as e:
            why = f"not JSON: {e}"
        with lock:
            stats["docs"] += 1
            if why:
                problems.append(why)
        time.sleep(0.003)


def mutator(casq, seed):
    rnd = random.Random(seed)
    r = casq.client()
    n = seed * 1_000_000
    while not stop.is_set():
        key = rnd.choice(KEYS)
        op = rnd.random()
        if op < 0.45:
            n += 1
            r.xadd(key, {b"n": value_for(n)})
        elif op < 0.70:
            ids = r.xrange(key, count=50)
            if ids:
                r.xdel(key, *[rnd.choice(ids)[0] for _ in range(3)])
        elif op < 0.80:
            ids = r.xrevrange(key, count=1)
            if ids:
                r.xtrim(key, maxlen=rnd.randint(500, 3000), approximate=rnd.random() < 0.5)
        elif op < 0.88:
            src, dst = rnd.sample(KEYS, 2)
            r.copy(src, dst, replace=True)
        elif op < 0.92:
            r.delete(key)
        else:
            p = r.pipeline(transaction=False)
            for _ in range(20):
                n += 1
                p.xadd(key, {b"n": value_for(n)})
            p.execute()
        with lock:
            stats["ops"] += 1
    r.close()


def snapshot(r):
    return {k: r.xrange(k) for k in KEYS}


def main():
    work = tempfile.mkdtemp(prefix="casq-borrow-")
    path = os.path.join(work, "queue.json")
    casq = Casq(PORT, work, "--enable-debug-command", "yes", "--commit-debug-delay", "20").start()
    try:
        r = casq.client()
        # Big streams first: 3000 entries of ~80 bytes of JSON each.
        for k in KEYS:
            p = r.pipeline(transaction=False)
            for i in range(3000):
                p.xadd(k, {b"n": value_for(i)})
            p.execute()
        check(r.memory_usage(KEYS[0]) > 100_000, "borrowed: the streams are big (> 64 KB of JSON each)")

        threads = [threading.Thread(target=checker, args=(path,))]
        threads += [threading.Thread(target=mutator, args=(casq, s)) for s in (1, 2, 3, 4)]
        for t in threads:
            t.start()
        time.sleep(SECONDS)
        stop.set()
        for t in threads:
            t.join()

        check(stats["ops"] > 100 and stats["docs"] > 50,
              f"borrowed: the load ran ({stats['ops']} commands, {stats['docs']} documents read)")
        check(not problems, "borrowed: every document on disk was whole and consistent",
              "; ".join(problems[:5]))
        before = snapshot(r)
        r.close()
        casq.kill()
        casq.start()
        r = casq.client()
        after = snapshot(r)
        check(before == after, "borrowed: after SIGKILL and restart the state is the one acknowledged",
              f"{ {k: len(v) for k, v in before.items()} } vs { {k: len(v) for k, v in after.items()} }")
        r.close()
    finally:
        casq.stop()
        if not problems:
            shutil.rmtree(work, ignore_errors=True)
    finish()


if __name__ == "__main__":
    main()
