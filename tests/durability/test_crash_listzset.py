#!/usr/bin/python3
"""test_crash_listzset.py -- SIGKILL casq at random moments while lists and
sorted sets are used as queues; nothing acknowledged may be lost and
nothing acknowledged as removed may come back.

Pushers RPUSH tokens (binary: NUL bytes, invalid UTF-8) to two lists (one
with a binary name) and ZADD tokens to a sorted set; poppers take them with
BLPOP, LPOP with a count, LMOVE (to a list nobody pops from) and
BZPOPMIN / ZPOPMIN; an incrementer ZINCRBYs a counter. A driver SIGKILLs
the server at random moments, at least CRASH_KILLS (default 8) times,
restarting it on the same document. A client whose command fails
(connection reset, -LOADING, ...) does not know the outcome: it counts how
many elements that command could have removed, and moves on.

After a last SIGKILL the document must parse (json), and the restarted
server must show:
  - every acknowledged push / ZADD present, or popped by an acknowledged
    pop; at most as many missing as the unknown pops could have taken;
  - no acknowledged popped element still (or again) in its list or set;
  - every acknowledged LMOVE's element in the destination list;
  - no token twice, no token that no client sent;
  - the counter at least the number of acknowledged ZINCRBYs, at most the
    number attempted.

Ports: CRASH_PORT, else a free one in 25700..25799.
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
from casqtest import Casq, check, finish, load_document, pick_port  # noqa: E402

PORT = int(os.environ.get("CRASH_PORT", "0")) or pick_port(25700, 100)
KILLS = int(os.environ.get("CRASH_KILLS", "8"))
LISTS = [b"q1", b"bin\x00q\xff"]
MOVED = b"moved"
ZKEY = b"zq"
COUNTER_KEY = b"zctr"

lock = threading.Lock()
attempted = set()      # tokens sent
acked_push = set()     # (key, token) acknowledged in a list / the zset
acked_pop = set()      # (key, token) acknowledged as removed
acked_move = set()     # tokens acknowledged as moved to MOVED
unknown_pops = {"n": 0}  # elements unknown-outcome pops could have removed
incr = {"acked": 0, "attempted": 0}
errors_seen = {"n": 0}
stop = threading.Event()

UNKNOWN = (redis.ConnectionError, redis.TimeoutError, redis.ResponseError, OSError)


def token_bytes(tag, i, n):
    return f"{tag}{i}-{n}-".encode() + b"\x00\xff\xfe" + bytes([n % 256])


def pusher(i, port):
    r = redis.Redis(port=port, socket_timeout=10)
    n = 0
    while not stop.is_set():
        n += 1
        use_zset = n % 3 == 0
        key = ZKEY if use_zset else LISTS[n % 2]
        tok = token_bytes("p", i, n)
        with lock:
            attempted.add(tok)
        try:
            if use_zset:
                r.zadd(key, {tok: n})
            else:
                r.rpush(key, tok)
        except UNKNOWN:
            with lock:
                errors_seen["n"] += 1
            time.sleep(0.05)
            continue
        with lock:
            acked_push.add((key, tok))
        time.sleep(0.003)


def popper(j, port):
    r = redis.Redis(port=port, socket_timeout=10)
    n = 0
    while not stop.is_set():
        n += 1
        kind = n % 5
        could_take = 1
        try:
            if kind == 0:
                could_take = 1
                res = r.blpop(LISTS, timeout=0.1)
                got = [(res[0], res[1])] if res else []
            elif kind == 1:
                key = LISTS[n % 2]
                could_take = 3
                res = r.lpop(key, 3)
                got = [(key, t) for t in (res or [])]
            elif kind == 2:
                key = LISTS[n % 2]
                could_take = 1
                res = r.lmove(key, MOVED, "LEFT", "RIGHT")
                if res is not None:
                    with lock:
                        acked_move.add(res)
                got = [(key, res)] if res is not None else []
            elif kind == 3:
                could_take = 1
                res = r.bzpopmin(ZKEY, timeout=0.1)
                got = [(res[0], res[1])] if res else []
            else:
                could_take = 2
                res = r.zpopmin(ZKEY, 2)
                got = [(ZKEY, t) for t, _ in (res or [])]
        except UNKNOWN:
            with lock:
                errors_seen["n"] += 1
                unknown_pops["n"] += could_take
            time.sleep(0.05)
            continue
        with lock:
            for k, t in got:
                acked_pop.add((k, t))
        time.sleep(0.004)


def incrementer(port):
    r = redis.Redis(port=port, socket_timeout=10)
    while not stop.is_set():
        with lock:
            incr["attempted"] += 1
        try:
            r.zincrby(COUNTER_KEY, 1, b"ctr\x00")
        except UNKNOWN:
            with lock:
                errors_seen["n"] += 1
            time.sleep(0.05)
            continue
        with lock:
            incr["acked"] += 1
        time.sleep(0.005)


def main():
    datadir = tempfile.mkdtemp(prefix="casq-crash-listzset-")
    casq = Casq(PORT, datadir).start()
    threads = [threading.Thread(target=pusher, args=(i, PORT)) for i in range(3)]
    threads += [threading.Thread(target=popper, args=(j, PORT)) for j in range(2)]
    threads.append(threading.Thread(target=incrementer, args=(PORT,)))
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
    doc_path = os.path.join(datadir, "queue.json")
    try:
        load_document(doc_path)
        check(True, "crash-listzset: document parses as JSON after SIGKILL")
    except Exception as e:  # noqa: BLE001
        check(False, "crash-listzset: document parses as JSON after SIGKILL", str(e))
    check(kills >= KILLS, f"crash-listzset: server SIGKILLed {kills} times under load")

    casq.start()
    r = casq.client()
    present = {}  # (key, token) -> count
    for key in LISTS + [MOVED]:
        for t in r.lrange(key, 0, -1):
            present[(key, t)] = present.get((key, t), 0) + 1
    for t in r.zrange(ZKEY, 0, -1):
        present[(ZKEY, t)] = present.get((ZKEY, t), 0) + 1

    tokens = [t for (k, t), c in present.items() for _ in range(c)]
    check(len(tokens) == len(set(tokens)), "crash-listzset: no token twice (lists, moved, zset)")
    check(all(t in attempted for t in tokens), "crash-listzset: no token that no client sent")

    moved_now = {t for (k, t) in present if k == MOVED}
    missing = [(k, t) for (k, t) in acked_push
               if (k, t) not in present and (k, t) not in acked_pop and t not in moved_now]
    print(f"# acknowledged pushes/ZADDs: {len(acked_push)}, pops: {len(acked_pop)}, LMOVEs: {len(acked_move)}, "
          f"unknown outcomes: {errors_seen['n']} (pops that could have taken {unknown_pops['n']}), "
          f"missing: {len(missing)}", flush=True)
    check(len(acked_push) > 1000, f"crash-listzset: enough acknowledged pushes ({len(acked_push)})")
    check(len(acked_pop) > 300, f"crash-listzset: enough acknowledged pops ({len(acked_pop)})")
    check(len(missing) <= unknown_pops["n"],
          "crash-listzset: every acknowledged push is present or was popped",
          f"{len(missing)} missing, unknown pops could explain {unknown_pops['n']}: {missing[:3]}")

    resurrected = [(k, t) for (k, t) in acked_pop if (k, t) in present]
    check(not resurrected, "crash-listzset: no acknowledged pop came back", f"{resurrected[:3]}")

    lost_moves = [t for t in acked_move if t not in moved_now]
    check(not lost_moves, "crash-listzset: every acknowledged LMOVE's element is in the destination",
          f"{lost_moves[:3]}")

    score = r.zscore(COUNTER_KEY, b"ctr\x00") or 0
    check(incr["acked"] <= score <= incr["attempted"],
          f"crash-listzset: counter {score} between acknowledged ({incr['acked']}) and attempted "
          f"({incr['attempted']}) ZINCRBYs")

    r.close()
    code = casq.stop()
    check(code == 0, "crash-listzset: clean shutdown at the end", f"exit {code}: {casq.tail()}")
    shutil.rmtree(datadir, ignore_errors=True)
    finish()


if __name__ == "__main__":
    main()
