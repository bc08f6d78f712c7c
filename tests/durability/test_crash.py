#!/usr/bin/python3
"""test_crash.py -- SIGKILL casq at random moments under load; nothing that
was acknowledged may be lost.

Pushers XADD entries (binary values: NUL bytes, invalid UTF-8) to two keys
(one with a binary name); workers XREADGROUP + XACK them and now and then
create consumer groups (binary names). A driver SIGKILLs the server at
random moments, at least CRASH_KILLS (default 8) times, restarting it on
the same document each time. A client whose command fails (connection
reset, -LOADING, ...) does not know the outcome and moves on.

Then, after a last SIGKILL, the document must parse (json), and the
restarted server must show:
  - every acknowledged XADD, with its ID and identical bytes;
  - no ID twice, no entry that no client ever sent, no token twice;
  - no acknowledged XACK still pending;
  - every acknowledged XGROUP CREATE.
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
from casqtest import Casq, check, document_streams, finish, load_document, pick_port, stream_entries  # noqa: E402

PORT = int(os.environ.get("CRASH_PORT", "0")) or pick_port(26100)
KILLS = int(os.environ.get("CRASH_KILLS", "8"))
PUSHERS = 4
WORKERS = 2
KEYS = [b"jobs", b"bin\x00key\xff\xfe"]
GROUP = b"g"

lock = threading.Lock()
acked_adds = {}  # (key, id) -> fields
attempted = set()  # tokens sent
acked_acks = set()  # (key, id)
acked_groups = set()  # (key, group)
stop = threading.Event()
errors_seen = {"n": 0}

UNKNOWN = (redis.ConnectionError, redis.TimeoutError, redis.ResponseError, OSError)


def pusher(i, port):
    r = redis.Redis(port=port, socket_timeout=10)
    n = 0
    while not stop.is_set():
        n += 1
        token = f"p{i}-{n}".encode()
        key = KEYS[n % len(KEYS)]
        fields = {
            b"token": token,
            b"data": os.urandom(12) + b"\x00\xff\xfe" + bytes([n % 256]),
            b"f\x00\xc3": b"\xc3\x28 text \xe2\x82",
            b"text": "héllo wörld".encode(),
        }
        with lock:
            attempted.add(token)
        try:
            eid = r.xadd(key, fields)
        except UNKNOWN:
            with lock:
                errors_seen["n"] += 1
            time.sleep(0.05)
            continue
        with lock:
            acked_adds[(key, eid)] = [x for kv in fields.items() for x in kv]
        time.sleep(0.004)


def worker(j, port):
    r = redis.Redis(port=port, socket_timeout=10)
    consumer = f"w{j}\x00\xff".encode("latin-1")
    n = 0
    need_groups = True
    while not stop.is_set():
        n += 1
        try:
            if need_groups:
                for key in KEYS:
                    try:
                        r.xgroup_create(key, GROUP, id="0", mkstream=True)
                    except redis.ResponseError as e:
                        if "BUSYGROUP" not in str(e):
                            raise
                need_groups = False
            if n % 25 == 0:
                g = f"grp-{j}-{n}-".encode() + b"\x00\xfe"
                key = KEYS[n % len(KEYS)]
                r.xgroup_create(key, g, id="$")
                with lock:
                    acked_groups.add((key, g))
            resp = r.xreadgroup(GROUP, consumer, {k: ">" for k in KEYS}, count=20, block=100)
            for key, entries in resp or []:
                ids = [eid for eid, _ in entries]
                if not ids:
                    continue
                r.xack(key, GROUP, *ids)
                with lock:
                    for eid in ids:
                        acked_acks.add((key, eid))
        except UNKNOWN:
            with lock:
                errors_seen["n"] += 1
            need_groups = True
            time.sleep(0.05)


def main():
    datadir = tempfile.mkdtemp(prefix="casq-crash-")
    casq = Casq(PORT, datadir).start()
    threads = [threading.Thread(target=pusher, args=(i, PORT)) for i in range(PUSHERS)]
    threads += [threading.Thread(target=worker, args=(j, PORT)) for j in range(WORKERS)]
    for t in threads:
        t.start()
    kills = 0
    rng = random.Random()
    try:
        while kills < KILLS:
            time.sleep(rng.uniform(0.2, 2.6))
            casq.kill(signal.SIGKILL)
            kills += 1
            casq.start()
    finally:
        stop.set()
        for t in threads:
            t.join()

    # The last crash: the document as a person finds it.
    casq.kill(signal.SIGKILL)
    doc_path = os.path.join(datadir, "queue.json")
    try:
        doc = load_document(doc_path)
        doc_ok = True
    except Exception as e:  # noqa: BLE001
        doc, doc_ok = None, False
        check(False, "crash: document parses as JSON after SIGKILL", str(e))
    if doc_ok:
        check(True, "crash: document parses as JSON after SIGKILL")
    check(kills >= KILLS, f"crash: server SIGKILLed {kills} times under load (>= {KILLS})")

    casq.start()
    r = casq.client()
    lost = []
    verified = 0
    present = {}
    for key in KEYS:
        entries = r.xrange(key, "-", "+")
        ids = [eid for eid, _ in entries]
        check(len(ids) == len(set(ids)) and ids == sorted(ids, key=lambda x: tuple(map(int, x.split(b"-")))),
              f"crash: {key!r}: IDs unique and increasing ({len(ids)} entries)")
        for eid, fields in entries:
            present[(key, eid)] = [x for kv in fields.items() for x in kv]
        if doc_ok:
            ds = document_streams(doc).get(key)
            dentries = stream_entries(ds) if ds else []
            server_view = [(eid.decode(), [x for kv in f.items() for x in kv]) for eid, f in entries]
            check(dentries == server_view, f"crash: {key!r}: document and restarted server hold the same entries")
    for k, fields in acked_adds.items():
        if present.get(k) == fields:
            verified += 1
        else:
            lost.append(k)
    print(f"# acknowledged XADD: {len(acked_adds)}, verified: {verified}, lost: {len(lost)}; "
          f"unknown outcomes: {errors_seen['n']}; entries present: {len(present)}", flush=True)
    check(len(acked_adds) > 1000, f"crash: enough acknowledged XADDs to mean something ({len(acked_adds)})")
    check(not lost, "crash: every acknowledged XADD is present with identical bytes and ID",
          f"lost {len(lost)}, e.g. {lost[:3]}")

    tokens = [dict(zip(f[0::2], f[1::2]))[b"token"] for f in present.values()]
    check(len(tokens) == len(set(tokens)), "crash: no entry stored twice")
    check(all(t in attempted for t in tokens), "crash: no entry that no client sent")

    still_pending = []
    for key in KEYS:
        pend = r.xpending_range(key, GROUP, "-", "+", 10**9)
        pids = {p["message_id"] for p in pend}
        still_pending += [(k, i) for (k, i) in acked_acks if k == key and i in pids]
    check(len(acked_acks) > 100, f"crash: enough acknowledged XACKs ({len(acked_acks)})")
    check(not still_pending, "crash: no acknowledged XACK is pending again", f"{still_pending[:3]}")

    groups = set()
    for key in KEYS:
        for g in r.xinfo_groups(key):
            groups.add((key, g["name"]))
    missing = acked_groups - groups
    check(len(acked_groups) > 5, f"crash: enough acknowledged XGROUP CREATEs ({len(acked_groups)})")
    check(not missing, "crash: every acknowledged XGROUP CREATE exists", f"{list(missing)[:3]}")

    r.close()
    code = casq.stop()
    check(code == 0, "crash: clean shutdown at the end", f"exit {code}: {casq.tail()}")
    shutil.rmtree(datadir, ignore_errors=True)
    finish()


if __name__ == "__main__":
    main()
