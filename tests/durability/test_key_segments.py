#!/usr/bin/python3
"""test_key_segments.py -- key segments (docs/state-format.md "Key
segments"): quiet keys of every type but streams sealed into immutable
segments, so that a commit writes what changed, not the keyspace.

casq runs with tiny segments (segment-seal-bytes 4kb, segment-max-bytes
32kb), key-seal-quiet 50 ms and a short grace period, so that sealing,
rewrites, merges and garbage all run many times in a few seconds:

  1. sealing: strings (some with a TTL), hashes, lists, sets, sorted sets
     in two databases, beside a stream, end up in key segments; the root
     then holds only a few keys (INFO keys_inline, root_bytes_last).
  2. changes to sealed keys -- overwrite, HSET, LPUSH, SADD, ZADD,
     EXPIRE, PERSIST, DEL, RENAME, MOVE, SWAPDB, FLUSHDB -- and then a
     restart: every key, value and expiry time is what the client saw
     before the restart.
  3. crash: writers SET/HSET/DEL/EXPIRE random sealed keys while casq is
     SIGKILLed at random moments (CRASH_KILLS, default 4); afterwards
     every key holds its last acknowledged value (or the one of a write
     in flight at the kill), no acknowledged DEL came back; segments were
     sealed and rewritten meanwhile.
  4. orphans: after the last restart, once the sweep ran, every file in
     queue.json.segments/ is named by the root.
  5. export: --export-state lists every key inline and no key segment;
     it equals the root with its segments merged by the test itself.
  6. damaged key segments: missing, corrupt (CRC-32), a gone list naming
     a key the segment does not hold: casq refuses to start, names the
     segment and writes nothing.
"""

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from casqtest import (  # noqa: E402
    SERVER,
    Casq,
    check,
    change_sealed_keys,
    check_refused_when_damaged,
    client_snapshot,
    finish,
    load_document,
    pick_port,
    segment_reader,
    stream_object_names,
    wait_for,
)

import redis  # noqa: E402

PORT = int(os.environ.get("KEYSEG_PORT", "0")) or pick_port(26200)
KILLS = int(os.environ.get("CRASH_KILLS", "4"))
SEED = int(os.environ.get("KEYSEG_SEED", str(random.randrange(1 << 30))))
print(f"# seed {SEED}", flush=True)
rnd = random.Random(SEED)

ARGS = ["--segment-seal-bytes", "4kb", "--segment-max-bytes", "32kb", "--key-seal-quiet", "50",
        "--segment-gc-grace", "500", "--broker-timeout", "200"]


def info(r):
    return r.info("persistence")


def snapshot(r, dbs=(0, 3)):
    return client_snapshot(r.connection_pool.connection_kwargs["port"], dbs)


def populate(r, n):
    p = r.pipeline(transaction=False)
    for i in range(n):
        p.set(f"s:{i}", f"value-{i}-" + "x" * (i % 40))
        if i % 7 == 0:
            p.pexpire(f"s:{i}", 3600_000 + i)
        p.hset(f"h:{i}", mapping={f"f{j}": f"v{i}.{j}" for j in range(i % 9 + 1)})
        if i % 3 == 0:
            p.rpush(f"l:{i}", *[f"e{j}" for j in range(i % 5 + 1)])
        if i % 4 == 0:
            p.sadd(f"set:{i}", *[str(j * i) for j in range(i % 6 + 1)])
            p.sadd(f"bin:{i}", b"\x00\xff" + bytes([i % 256]))
        if i % 5 == 0:
            p.zadd(f"z:{i}", {f"m{j}": j * 1.5 for j in range(i % 4 + 1)})
    p.xadd("jobs", {"n": "1"})
    p.execute()


def sealed(r):
    i = info(r)
    return i["key_segments"] > 0 and i["keys_inline"] < 50 and not i["key_segments_seal_in_progress"]


def test_seal_change_restart(tmp):
    x = Casq(PORT, tmp, *ARGS).start()
    r = x.client()
    populate(r, 600)
    r3 = x.client(db=3)
    populate(r3, 200)
    check(wait_for(lambda: sealed(r), 20), "keys are sealed into key segments",
          str({k: v for k, v in info(r).items() if "key" in k}))
    check(wait_for(lambda: info(r)["root_bytes_last"] < 4096, 10),
          "the root holds only a few keys once they are sealed (the next commit writes it small)",
          f"root_bytes_last {info(r)['root_bytes_last']}, keys_inline {info(r)['keys_inline']}")

    change_sealed_keys(r, r3)
    c5 = x.client(db=5)
    c5.set("s:doomed", "1")
    c5.flushdb()
    before = snapshot(r)
    check(wait_for(lambda: sealed(r), 20), "changed keys are sealed again")
    mid = snapshot(r)
    check(mid == before, "sealing again changes nothing a client sees")
    x.stop()
    x.start()
    r = x.client()
    after = snapshot(r)
    diff = [k for k in set(before) | set(after) if before.get(k) != after.get(k)]
    check(not diff, f"after a restart every one of {len(before)} keys is as before",
          f"{len(diff)} differ, e.g. {diff[:3]}")
    i = info(r)
    check(i["key_segments"] > 0 and i["keys_inline"] < 50, "the restarted server loads the keys from their segments",
          f"key_segments {i['key_segments']}, keys_inline {i['keys_inline']}")
    # SWAPDB moves the segments with their db.
    r.swapdb(0, 3)
    sw = snapshot(r)
    x.stop()
    x.start()
    check(snapshot(x.client()) == sw, "SWAPDB of sealed databases survives a restart")
    x.stop()
    return sw


def crash_round(x, state, deleted, stop, errors, lock, part, parts):
    """One writer: random changes to random keys of its own (i % parts ==
    part, so that a key's writes are sequential); state holds the last
    acknowledged value per key and the value in flight."""
    r = x.client(socket_timeout=5)
    while not stop.is_set():
        i = rnd.randrange(600 // parts) * parts + part
        op = rnd.random()
        key = f"s:{i}"
        val = f"w-{time.time_ns()}-{rnd.randrange(1 << 30)}"
        with lock:
            state.setdefault(key, [None, None])[1] = ("del" if op < 0.1 else val)
        try:
            if op < 0.1:
                r.delete(key)
            else:
                r.set(key, val)
        except (redis.ConnectionError, redis.TimeoutError, redis.ResponseError):
            return
        with lock:
            state[key] = [("del" if op < 0.1 else val), None]
            if op < 0.1:
                deleted.add(key)
            else:
                deleted.discard(key)


def test_crash(tmp):
    x = Casq(PORT, tmp, *ARGS).start()
    r = x.client()
    check(wait_for(lambda: info(r)["loading"] == 0, 10), "crash: loaded")
    state, deleted, lock = {}, set(), threading.Lock()
    for i in range(600):
        v = r.get(f"s:{i}")
        state[f"s:{i}"] = ["del" if v is None else v.decode(), None]
    sealed_total = rewritten_total = 0
    for k in range(KILLS):
        stop, errors = threading.Event(), []
        ts = [threading.Thread(target=crash_round, args=(x, state, deleted, stop, errors, lock, p, 6))
              for p in range(6)]
        for t in ts:
            t.start()
        time.sleep(rnd.uniform(0.3, 1.2))
        try:
            i = info(x.client(socket_timeout=2))
            sealed_total += i["key_segments_sealed"]
            rewritten_total += i["key_segments_rewritten"]
        except redis.RedisError:
            pass
        x.kill()
        stop.set()
        for t in ts:
            t.join()
        x.start()
    r = x.client()
    lost = []
    for key, (acked, inflight) in state.items():
        v = r.get(key)
        ok_vals = set()
        for cand in (acked, inflight):
            if cand == "del":
                ok_vals.add(None)
            elif cand is not None:
                ok_vals.add(cand.encode())
        if v not in ok_vals:
            lost.append((key, acked, inflight, v))
    check(not lost, f"crash: every acknowledged write of {len(state)} keys survived {KILLS} SIGKILLs",
          f"{len(lost)} wrong, e.g. {lost[:3]}")
    i = info(r)
    check(sealed_total > 0 and i["key_segments_rewritten"] + rewritten_total > 0,
          "crash: key segments were sealed and rewritten during the run", f"{sealed_total} {rewritten_total}")
    # Orphans: once the grace passed, the sweep leaves only named segments.
    segdir = os.path.join(tmp, "queue.json.segments")

    def only_named():
        doc = json.load(open(os.path.join(tmp, "queue.json"), "rb"))
        named = {s["name"] for d in doc["databases"] for s in d.get("segments", [])}
        named |= {n for d in doc["databases"] for k in d["keys"]
                  for n in stream_object_names(k.get("stream") or {}, segment_reader(tmp))}
        files = {f for f in os.listdir(segdir) if not f.startswith(".")}
        return files == named

    r.config_set("segment-gc-grace", "0")
    check(wait_for(only_named, 15), "orphans and garbage are deleted: only named segments are left")
    x.stop()


def test_export(tmp, expect):
    out = subprocess.run([SERVER, "--dir", tmp, "--export-state", "-"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, timeout=60)
    check(out.returncode == 0, "export: --export-state exits 0", out.stderr.decode()[-300:])
    doc = json.loads(out.stdout)
    check(all("segments" not in d for d in doc["databases"]), "export: no key segment is named")
    merged = load_document(os.path.join(tmp, "queue.json"), merge=True)

    def keyset(d):
        return {(db["id"], json.dumps(k, sort_keys=True)) for db in d["databases"] for k in db["keys"]}

    check(keyset(doc) == keyset(merged), "export: equals the root with its segments merged",
          f"{len(keyset(doc) ^ keyset(merged))} records differ")
    n = sum(1 for (db, k) in expect if db in (0, 3))
    check(len(keyset(doc)) == n, f"export: holds all {n} keys", str(len(keyset(doc))))
    # The export is itself a document, every key inline: loaded, it is
    # sealed before the first commit, so the first root is small.
    d2 = tempfile.mkdtemp(prefix="keyseg-export-")
    try:
        open(os.path.join(d2, "queue.json"), "wb").write(out.stdout)
        x = Casq(PORT, d2, *ARGS).start()
        r = x.client()
        i = info(r)
        check(i["key_segments"] > 0 and i["root_bytes_last"] < 4096,
              "export loaded: its keys are sealed before the first commit (a small first root)",
              f"key_segments {i['key_segments']}, root_bytes_last {i['root_bytes_last']}")
        check(snapshot(r) == expect, "export loaded: every key as before")
        x.stop()
    finally:
        shutil.rmtree(d2, ignore_errors=True)


def damaged(tmp, name, mutate, expect_words):
    check_refused_when_damaged(tmp, PORT, ARGS, name, mutate, expect_words)


def first_key_segment(d):
    doc = json.load(open(os.path.join(d, "queue.json"), "rb"))
    for db in doc["databases"]:
        for s in db.get("segments", []):
            return doc, db, s
    raise AssertionError("no key segment")


def test_damaged(tmp):
    def missing(d):
        _, _, s = first_key_segment(d)
        os.unlink(os.path.join(d, "queue.json.segments", s["name"]))
        return s["name"]

    def corrupt(d):
        _, _, s = first_key_segment(d)
        p = os.path.join(d, "queue.json.segments", s["name"])
        b = bytearray(open(p, "rb").read())
        b[len(b) // 2] ^= 0x20
        open(p, "wb").write(bytes(b))
        return s["name"]

    def bad_gone(d):
        doc, _, s = first_key_segment(d)
        s["gone"].append("no-such-key-in-it")
        s["live_count"] -= 1
        open(os.path.join(d, "queue.json"), "w").write(json.dumps(doc))
        return s["name"]

    damaged(tmp, "missing key segment", missing, ["{seg}", "missing"])
    damaged(tmp, "corrupt key segment", corrupt, ["{seg}", "corrupt", "CRC-32"])
    damaged(tmp, "gone names a key the segment lacks", bad_gone, ["{seg}", "gone"])


def main():
    tmp = tempfile.mkdtemp(prefix="keyseg-")
    try:
        expect = test_seal_change_restart(tmp)
        test_export(tmp, expect)
        test_damaged(tmp)
        tmp2 = tempfile.mkdtemp(prefix="keyseg-crash-")
        x = Casq(PORT, tmp2, *ARGS).start()
        r = x.client()
        for i in range(600):
            r.set(f"s:{i}", f"initial-{i}")
        populate(r, 300)
        check(wait_for(lambda: sealed(r), 20), "crash: the keys are sealed before the kills")
        x.stop()
        test_crash(tmp2)
        shutil.rmtree(tmp2, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    finish()


if __name__ == "__main__":
    main()
