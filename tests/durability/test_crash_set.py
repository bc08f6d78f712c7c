#!/usr/bin/python3
"""test_crash_set.py -- SIGKILL casq at random moments while clients add,
pop, remove and move set members; nothing acknowledged may be lost, and
nothing acknowledged as removed may come back.

Adders SADD unique tokens: integers to an intset key (it grows past
set-max-intset-entries into a hashtable), binary strings (NUL bytes,
invalid UTF-8) to a key with a binary name, and strings to a queue key.
Poppers SPOP (one or several) from the queue; a remover SREMs tokens it
saw acknowledged; a mover SMOVEs queue members to another key. A driver
SIGKILLs the server at random moments, at least CRASH_SET_KILLS (default
8) times, restarting it on the same document. A client whose command
fails (connection reset, -LOADING ...) does not know the outcome and
moves on: such a token may be there or not.

After a last SIGKILL the document must parse, hold what the restarted
server holds, and:
  - every acknowledged SADD is there, unless its removal was acknowledged;
  - no acknowledged SPOP / SREM / SMOVE removal is undone;
  - every acknowledged SMOVE's member is in the destination;
  - no member that no client sent.
Ports 26900-26999.
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
from casqtest import Casq, check, doc_bytes, finish, load_document, pick_port  # noqa: E402

PORT = int(os.environ.get("CRASH_SET_PORT", "0")) or pick_port(26900, span=100)
KILLS = int(os.environ.get("CRASH_SET_KILLS", "8"))
INTS = b"ints"
BIN = b"bin\x00set\xff"
QUEUE = b"queue"
MOVED = b"moved"

lock = threading.Lock()
acked_add = set()      # (key, member)
attempted = set()      # (key, member) sent by SADD
removed = set()        # (key, member) acknowledged as removed (SPOP, SREM, SMOVE source)
moved = set()          # member acknowledged as moved QUEUE -> MOVED
maybe_removed = set()  # (key, member) whose SREM/SMOVE outcome is unknown
unknown_pops = [0]     # members an SPOP whose outcome is unknown may have taken
stop = threading.Event()
UNKNOWN = (redis.ConnectionError, redis.TimeoutError, redis.ResponseError, OSError)


def client():
    return redis.Redis(port=PORT, socket_timeout=10)


def adder(i):
    r = client()
    n = 0
    while not stop.is_set():
        n += 1
        choice = n % 3
        if choice == 0:
            key, member = INTS, str(i * 1000000 + n).encode()
        elif choice == 1:
            key, member = BIN, b"\x00" + f"a{i}-{n}".encode() + b"\xff\xfe"
        else:
            key, member = QUEUE, f"q{i}-{n}".encode()
        with lock:
            attempted.add((key, member))
        try:
            if r.sadd(key, member) == 1:
                with lock:
                    acked_add.add((key, member))
        except UNKNOWN:
            time.sleep(0.02)
    r.close()


def popper(j):
    r = client()
    rng = random.Random(j)
    while not stop.is_set():
        try:
            count = 1 if rng.random() < 0.5 else rng.choice([2, 3])
            if count == 1:
                m = r.spop(QUEUE)
                got = [m] if m is not None else []
            else:
                got = r.spop(QUEUE, count)
            with lock:
                for m in got:
                    removed.add((QUEUE, m))
            if not got:
                time.sleep(0.01)
        except UNKNOWN:
            with lock:
                unknown_pops[0] += count
            time.sleep(0.02)
    r.close()


def remover():
    r = client()
    rng = random.Random(99)
    while not stop.is_set():
        with lock:
            cands = [m for (k, m) in acked_add if k == BIN and (k, m) not in removed]
        if not cands:
            time.sleep(0.01)
            continue
        m = rng.choice(cands)
        try:
            if r.srem(BIN, m) == 1:
                with lock:
                    removed.add((BIN, m))
        except UNKNOWN:
            with lock:
                maybe_removed.add((BIN, m))
            time.sleep(0.02)
    r.close()


def mover():
    r = client()
    while not stop.is_set():
        m = None
        try:
            m = r.srandmember(QUEUE)
            if m is None:
                time.sleep(0.01)
                continue
            if r.smove(QUEUE, MOVED, m) == 1:
                with lock:
                    removed.add((QUEUE, m))
                    moved.add(m)
        except UNKNOWN:
            if m is not None:
                with lock:
                    maybe_removed.add((QUEUE, m))
            time.sleep(0.02)
    r.close()


def doc_sets(doc, db=0):
    out = {}
    for d in doc["databases"]:
        if d["id"] != db:
            continue
        for k in d["keys"]:
            if k["type"] == "set":
                out[doc_bytes(k["key"])] = {doc_bytes(m) for m in k["set"]}
    return out


def main():
    datadir = tempfile.mkdtemp(prefix="casq-crash-set-")
    casq = Casq(PORT, datadir).start()
    threads = [threading.Thread(target=adder, args=(i,)) for i in range(3)]
    threads += [threading.Thread(target=popper, args=(j,)) for j in range(2)]
    threads += [threading.Thread(target=remover), threading.Thread(target=mover)]
    for t in threads:
        t.start()
    kills = 0
    rng = random.Random()
    try:
        while kills < KILLS:
            time.sleep(rng.uniform(0.2, 2.0))
            casq.kill(signal.SIGKILL)
            kills += 1
            casq.start()
    finally:
        stop.set()
        for t in threads:
            t.join()

    casq.kill(signal.SIGKILL)
    try:
        doc = load_document(os.path.join(datadir, "queue.json"))
        dsets = doc_sets(doc)
        check(True, "crash-set: document parses as JSON after SIGKILL")
    except Exception as e:  # noqa: BLE001
        dsets = None
        check(False, "crash-set: document parses as JSON after SIGKILL", str(e))
    check(kills >= KILLS, f"crash-set: server SIGKILLed {kills} times under load")

    casq.start()
    r = client()
    server = {k: set(r.smembers(k)) for k in (INTS, BIN, QUEUE, MOVED)}
    check(r.object("encoding", INTS) == b"hashtable" or len(server[INTS]) <= 512,
          "crash-set: the integer key grew past the intset limit", f"{len(server[INTS])}")
    if dsets is not None:
        same = all(dsets.get(k, set()) == server[k] for k in server)
        check(same, "crash-set: the document and the restarted server hold the same sets")

    with lock:
        missing = [(k, m) for (k, m) in acked_add
                   if (k, m) not in removed and (k, m) not in maybe_removed and m not in server[k]]
        # a queue member may also have been taken by an SPOP whose reply
        # was lost (at most unknown_pops of them), or moved by an SMOVE
        # whose reply was lost (then it is in the destination)
        lost = [(k, m) for (k, m) in missing if k != QUEUE]
        qmissing = [m for (k, m) in missing if k == QUEUE and m not in server[MOVED]]
        back = [(k, m) for (k, m) in removed if m in server[k]]
        moved_missing = [m for m in moved if m not in server[MOVED]]
        unknown = [(k, m) for k in server for m in server[k]
                   if (k if k != MOVED else QUEUE, m) not in attempted]
    check(len(acked_add) > 500, f"crash-set: enough acknowledged SADDs to mean something ({len(acked_add)})")
    check(len([1 for k, _ in removed if k == QUEUE]) > 100,
          f"crash-set: enough acknowledged SPOP/SMOVE removals ({len(removed)})")
    check(not lost, "crash-set: every acknowledged SADD is present (unless acknowledged removed)", f"{lost[:3]}")
    check(len(qmissing) <= unknown_pops[0],
          "crash-set: queue members missing are no more than the SPOPs of unknown outcome could take",
          f"{len(qmissing)} missing, {unknown_pops[0]} unknown")
    check(not back, "crash-set: no acknowledged SPOP/SREM/SMOVE removal came back", f"{back[:3]}")
    check(not moved_missing, "crash-set: every acknowledged SMOVE's member is in the destination",
          f"{moved_missing[:3]}")
    check(not unknown, "crash-set: no member that no client sent", f"{unknown[:3]}")
    r.close()
    code = casq.stop()
    check(code == 0, "crash-set: clean shutdown at the end", f"exit {code}: {casq.tail()}")
    shutil.rmtree(datadir, ignore_errors=True)
    finish()


if __name__ == "__main__":
    main()
