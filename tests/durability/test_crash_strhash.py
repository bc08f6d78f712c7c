#!/usr/bin/python3
"""test_crash_strhash.py -- SIGKILL casq at random moments while clients
write strings and hashes; nothing acknowledged may be lost, nothing
acknowledged as removed may come back.

Stringers SET binary values under new keys (some with a TTL, some over a
key of another type), INCR a counter, APPEND to a key, and DEL / GETDEL
keys they set before. Hashers HSET binary fields into their hash (pushed
past hash-max-listpack-entries, lowered to 128, so both encodings are
crossed), HINCRBY a
field, and HDEL fields they set before. A driver SIGKILLs the server at
random moments, at least CRASH_KILLS (default 8) times, restarting it on
the same document each time. A client whose command fails (connection
reset, -LOADING, ...) does not know the outcome and moves on (an APPEND
with an unknown outcome moves on to a new key).

Then, after a last SIGKILL, the document must parse (json), and the
restarted server must show:
  - every acknowledged SET with identical bytes (and its TTL), unless an
    acknowledged DEL/GETDEL removed it; no acknowledged DEL/GETDEL undone;
  - every counter at least its last acknowledged INCR, at most the number
    of INCRs sent; every APPEND key equal to its acknowledged appends (plus
    the one with an unknown outcome, if any);
  - every acknowledged HSET field with identical bytes unless an
    acknowledged HDEL removed it; no acknowledged HDEL undone; every
    HINCRBY field at least its last acknowledged value;
  - the document and the restarted server agree on the string values.
Ports 24700-24799 (CRASH_STRHASH_PORT overrides).
"""

import base64
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

PORT = int(os.environ.get("CRASH_STRHASH_PORT", "0")) or pick_port(24700, span=100)
KILLS = int(os.environ.get("CRASH_KILLS", "8"))
STRINGERS = 3
HASHERS = 3
# Low enough that every hash crosses it whatever the machine's speed.
HASH_LP_ENTRIES = 128

lock = threading.Lock()
stop = threading.Event()
unknown = {"n": 0}

set_acked = {}       # key -> (value, has_ttl)
set_unknown = set()  # keys whose SET outcome is unknown
del_acked = set()    # keys an acknowledged DEL/GETDEL removed
del_unknown = set()  # keys whose DEL outcome is unknown
incr_acked = {}      # counter key -> highest acknowledged value
incr_sent = {}       # counter key -> INCRs sent
append_state = {}    # key -> [acked bytes, unknown chunk or None]
hset_acked = {}      # (hash, field) -> value
hset_unknown = set()
hdel_acked = set()   # (hash, field)
hdel_unknown = set()
hincr_acked = {}     # (hash, field) -> highest acknowledged value
hincr_sent = {}

UNKNOWN = (redis.ConnectionError, redis.TimeoutError, redis.ResponseError, OSError)


def blob(n):
    return os.urandom(6) + b"\x00\xff" + str(n).encode() + "é".encode()


def note_unknown():
    with lock:
        unknown["n"] += 1
    time.sleep(0.05)


def stringer(i, port):
    r = redis.Redis(port=port, socket_timeout=10)
    rng = random.Random(i)
    counter = f"cnt:{i}".encode()
    append_gen = 0
    akey = f"app:{i}:{append_gen}".encode()
    with lock:
        append_state[akey] = [b"", None]
    n = 0
    while not stop.is_set():
        n += 1
        key = f"s:{i}:{n}\x00".encode()
        val = blob(n)
        ttl = n % 5 == 0
        try:
            if n % 7 == 0:
                # Over a key of another type: SET must replace it.
                r.hset(key, b"x", b"y")
            r.set(key, val, ex=100000 if ttl else None)
            with lock:
                set_acked[key] = (val, ttl)
        except UNKNOWN:
            with lock:
                set_unknown.add(key)
            note_unknown()
            continue
        # Remove an older key of ours now and then.
        if n % 3 == 0:
            old = f"s:{i}:{n - 2}\x00".encode()
            with lock:
                ok = old in set_acked
            if ok:
                try:
                    if n % 2:
                        r.delete(old)
                    else:
                        r.getdel(old)
                    with lock:
                        del_acked.add(old)
                except UNKNOWN:
                    with lock:
                        del_unknown.add(old)
                    note_unknown()
                    continue
        try:
            with lock:
                incr_sent[counter] = incr_sent.get(counter, 0) + 1
            v = r.incr(counter)
            with lock:
                incr_acked[counter] = max(incr_acked.get(counter, 0), v)
        except UNKNOWN:
            note_unknown()
            continue
        chunk = f"<{n}>".encode() + bytes([rng.randrange(256)])
        try:
            r.append(akey, chunk)
            with lock:
                append_state[akey][0] += chunk
        except UNKNOWN:
            with lock:
                append_state[akey][1] = chunk
                append_gen += 1
                akey = f"app:{i}:{append_gen}".encode()
                append_state[akey] = [b"", None]
            note_unknown()
        time.sleep(0.002)


def hasher(j, port):
    r = redis.Redis(port=port, socket_timeout=10)
    h = f"h:{j}\xff".encode("latin-1")
    cfield = b"counter"
    n = 0
    while not stop.is_set():
        n += 1
        field = f"f{n}\x00".encode()
        val = blob(n) * (1 + n % 3)
        try:
            r.hset(h, field, val)
            with lock:
                hset_acked[(h, field)] = val
        except UNKNOWN:
            with lock:
                hset_unknown.add((h, field))
            note_unknown()
            continue
        if n % 4 == 0:
            old = f"f{n - 3}\x00".encode()
            with lock:
                ok = (h, old) in hset_acked
            if ok:
                try:
                    r.hdel(h, old)
                    with lock:
                        hdel_acked.add((h, old))
                except UNKNOWN:
                    with lock:
                        hdel_unknown.add((h, old))
                    note_unknown()
                    continue
        try:
            with lock:
                hincr_sent[(h, cfield)] = hincr_sent.get((h, cfield), 0) + 1
            v = r.hincrby(h, cfield, 1)
            with lock:
                hincr_acked[(h, cfield)] = max(hincr_acked.get((h, cfield), 0), v)
        except UNKNOWN:
            note_unknown()
        time.sleep(0.002)


def doc_bytes(v):
    if isinstance(v, str):
        return v.encode("utf-8")
    return base64.b64decode(v["base64"], validate=True)


def main():
    datadir = tempfile.mkdtemp(prefix="casq-crash-strhash-")
    casq = Casq(PORT, datadir, "--hash-max-listpack-entries", str(HASH_LP_ENTRIES)).start()
    threads = [threading.Thread(target=stringer, args=(i, PORT)) for i in range(STRINGERS)]
    threads += [threading.Thread(target=hasher, args=(j, PORT)) for j in range(HASHERS)]
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
    doc = None
    try:
        doc = load_document(os.path.join(datadir, "queue.json"))
        check(True, "crash-strhash: document parses as JSON after SIGKILL")
    except Exception as e:  # noqa: BLE001
        check(False, "crash-strhash: document parses as JSON after SIGKILL", str(e))
    check(kills >= KILLS, f"crash-strhash: server SIGKILLed {kills} times under load")

    casq.start()
    r = casq.client()

    # Strings set and removed.
    lost, resurrected, verified = [], [], 0
    for key, (val, ttl) in set_acked.items():
        if key in del_unknown:
            continue
        got = r.get(key)
        if key in del_acked:
            if got is not None:
                resurrected.append(key)
            continue
        if got == val and (not ttl or r.ttl(key) > 0):
            verified += 1
        else:
            lost.append(key)
    print(f"# SET acknowledged: {len(set_acked)}, verified: {verified}, DEL acknowledged: {len(del_acked)}; "
          f"unknown outcomes: {unknown['n']}", flush=True)
    check(len(set_acked) > 500, f"crash-strhash: enough acknowledged SETs ({len(set_acked)})")
    check(not lost, "crash-strhash: every acknowledged SET is there with identical bytes and its TTL",
          f"lost {len(lost)}, e.g. {lost[:3]}")
    check(len(del_acked) > 50, f"crash-strhash: enough acknowledged DEL/GETDELs ({len(del_acked)})")
    check(not resurrected, "crash-strhash: no acknowledged DEL/GETDEL undone", f"{resurrected[:3]}")

    # Counters and appends.
    bad = [(k, v, r.get(k)) for k, v in incr_acked.items()
           if not (v <= int(r.get(k) or 0) <= incr_sent[k])]
    check(incr_acked and not bad, "crash-strhash: every counter >= its last acknowledged INCR, <= INCRs sent",
          f"{bad[:3]}")
    bad = []
    for k, (acked, unk) in append_state.items():
        got = r.get(k) or b""
        if got != acked and not (unk is not None and got == acked + unk):
            bad.append((k, len(acked), len(got)))
    check(not bad, "crash-strhash: every APPEND key holds exactly its acknowledged appends", f"{bad[:3]}")

    # Hashes.
    lost, resurrected, verified = [], [], 0
    for (h, f), val in hset_acked.items():
        if (h, f) in hdel_unknown:
            continue
        got = r.hget(h, f)
        if (h, f) in hdel_acked:
            if got is not None:
                resurrected.append(f)
            continue
        if got == val:
            verified += 1
        else:
            lost.append(f)
    print(f"# HSET acknowledged: {len(hset_acked)}, verified: {verified}, HDEL acknowledged: {len(hdel_acked)}",
          flush=True)
    check(len(hset_acked) > 500, f"crash-strhash: enough acknowledged HSETs ({len(hset_acked)})")
    check(not lost, "crash-strhash: every acknowledged HSET field is there with identical bytes",
          f"lost {len(lost)}, e.g. {lost[:3]}")
    check(not resurrected, "crash-strhash: no acknowledged HDEL undone", f"{resurrected[:3]}")
    bad = [(hf, v) for hf, v in hincr_acked.items()
           if not (v <= int(r.hget(*hf) or 0) <= hincr_sent[hf])]
    check(hincr_acked and not bad, "crash-strhash: every HINCRBY field >= its last acknowledged value", f"{bad[:3]}")
    # Each hash is as Redis would have it: a hashtable once it has more
    # fields than hash-max-listpack-entries (a hash that shrank under it
    # is a listpack again after a restart, as after Redis's DEBUG RELOAD).
    hashes = [f"h:{j}\xff".encode("latin-1") for j in range(HASHERS)]
    encs = [(r.hlen(h), r.object("encoding", h)) for h in hashes]
    check(any(n > HASH_LP_ENTRIES for n, _ in encs) and
          all(enc == b"hashtable" for n, enc in encs if n > HASH_LP_ENTRIES),
          f"crash-strhash: the hashes went past hash-max-listpack-entries as hashtables ({encs})")

    # The document as a person reads it agrees with the server.
    if doc is not None:
        mismatched = []
        for d in doc["databases"]:
            if d["id"] != 0:
                continue
            for k in d["keys"]:
                if k["type"] != "string":
                    continue
                key = doc_bytes(k["key"])
                if doc_bytes(k["string"]) != r.get(key) and key not in del_unknown:
                    # The server was restarted on that document: same state.
                    mismatched.append(key)
        check(not mismatched, "crash-strhash: the document and the restarted server hold the same strings",
              f"{mismatched[:3]}")

    r.close()
    code = casq.stop()
    check(code == 0, "crash-strhash: clean shutdown at the end", f"exit {code}: {casq.tail()}")
    shutil.rmtree(datadir, ignore_errors=True)
    finish()


if __name__ == "__main__":
    main()
