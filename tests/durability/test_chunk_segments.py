#!/usr/bin/python3
"""test_chunk_segments.py -- chunk segments (docs/state-format.md "Chunk
segments"): the quiet middle of a big list or sorted set sealed into
immutable segments, so that a commit writes the ends that changed, not the
whole collection.

casq runs with small segments (segment-seal-bytes 4kb), key-seal-quiet
50 ms and a short grace period:

  1. sealing: a 30,000-element list queue, a 10,000-member sorted set,
     an 8,000-field hash and an 8,000-member set (and a list in db 2) get
     chunk segments; the root then holds the lists' and the sorted set's
     ends and references only (INFO root_bytes_last).
  2. changes everywhere -- pops and pushes at both ends, LSET, LINSERT,
     LREM in the middle, ZADD/ZREM/ZINCRBY in the middle, HSET/HDEL,
     SADD/SREM, RENAME, COPY (to another db), SWAPDB -- then a restart:
     every value is what the client saw, and the restarted node keeps the
     lists' and sorted set's chunks sealed (the loader aligns them to the
     references; a hash's or set's chunks follow its per-process hash
     seed, so they are sealed again after the first commit).
  3. draining most of the queue unseals the segments left with few live
     chunks; the contents stay exact.
  4. export: --export-state writes every chunk inline; it equals the
     root with its chunk segments merged by the test itself.
  5. damaged: a missing or corrupt chunk segment, a reference to a gone
     chunk, a chunk referenced twice, a segment not listed: casq refuses
     to start, says what is wrong and writes nothing.
  6. merge: a queue growing a little at a time gets a small segment per
     seal; past 8 of them they are merged by copy; a restart gives it back
     as it was.
  7. crash: pushers RPUSH unique jobs and workers LPOP them while casq is
     SIGKILLed (CRASH_KILLS, default 3) as it seals (and merges): every
     acknowledged push is in the list or was popped, no acknowledged pop
     comes back, the order is the push order; only named segments are
     left once the grace passed.
Ports: 26400-26409 (CHUNKSEG_PORT overrides).
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
    check_refused_when_damaged,
    client_snapshot,
    finish,
    load_document,
    pick_port,
    wait_for,
)

import redis  # noqa: E402

PORT = int(os.environ.get("CHUNKSEG_PORT", "0")) or pick_port(26400)
KILLS = int(os.environ.get("CRASH_KILLS", "3"))
SEED = int(os.environ.get("CHUNKSEG_SEED", str(random.randrange(1 << 30))))
print(f"# seed {SEED}", flush=True)
rnd = random.Random(SEED)

ARGS = ["--segment-seal-bytes", "4kb", "--key-seal-quiet", "50", "--segment-gc-grace", "500",
        "--broker-timeout", "200"]


def info(r):
    return r.info("persistence")


def snapshot(r, dbs=(0, 2)):
    return client_snapshot(r.connection_pool.connection_kwargs["port"], dbs)


def populate(r, r2):
    p = r.pipeline(transaction=False)
    for i in range(0, 30000, 500):
        p.rpush("queue", *[f"job-{j:06d}-" + "p" * (j % 13) for j in range(i, i + 500)])
    for i in range(0, 10000, 500):
        p.zadd("delayed", {f"job-{j:06d}": 1_700_000_000_000 + j * 7 for j in range(i, i + 500)})
    p.rpush("bin", *[b"\x00\xff" + bytes([j % 256]) * (j % 5) for j in range(6000)])
    for i in range(0, 8000, 500):
        p.hset("unacked", mapping={f"tag-{j}": f"message-{j}-" + "m" * (j % 30) for j in range(i, i + 500)})
        p.sadd("registry", *[f"worker-{j}" for j in range(i, i + 500)])
    p.execute()
    r2.rpush("other", *[f"o{j}" for j in range(20000)])


def sealed(r):
    i = info(r)
    return i["chunk_segments_chunks"] > 300 and not i["chunk_segments_seal_in_progress"]


def root_small(r):
    return info(r)["root_bytes_last"] < 40_000


def change_everywhere(r, r2):
    r.lpop("queue", 50)
    r.rpush("queue", "tail-1", "tail-2")
    r.lpush("queue", "head-1")
    r.lset("queue", 15000, "set-in-the-middle")
    r.linsert("queue", "BEFORE", "job-020000-" + "p" * (20000 % 13), "inserted")
    r.lrem("queue", 1, "job-010000-" + "p" * (10000 % 13))
    r.zadd("delayed", {"job-005000": 1, "new-member": 1_700_000_030_000})
    r.zrem("delayed", "job-007000")
    r.zincrby("delayed", 0.5, "job-003000")
    r.zpopmin("delayed", 3)
    r.rename("bin", "bin2")
    r.copy("bin2", "bin2", destination_db=2)
    r.delete("bin2")
    r.copy("queue", "queue-copy")
    r.swapdb(0, 2)
    r.swapdb(2, 0)
    r2.rpop("other", 10)
    r.hset("unacked", mapping={"tag-17": "acked-and-redelivered", "tag-new": "x"})
    r.hdel("unacked", "tag-4000", "tag-4001")
    r.sadd("registry", "worker-new")
    r.srem("registry", "worker-5")


def test_seal_change_restart(tmp):
    x = Casq(PORT, tmp, *ARGS).start()
    r, r2 = x.client(), x.client(db=2)
    populate(r, r2)
    check(wait_for(lambda: sealed(r), 20), "chunks of the big lists and sorted set are sealed",
          str({k: v for k, v in info(r).items() if k.startswith("chunk")}))
    check(wait_for(lambda: root_small(r), 10), "the root holds the values' ends and references only",
          f"root_bytes_last {info(r)['root_bytes_last']}")
    i = info(r)
    check(i["key_segments_keys"] == 0, "a big list or sorted set is never sealed whole in a key segment",
          f"key_segments_keys {i['key_segments_keys']}")
    change_everywhere(r, r2)
    before = snapshot(r)
    check(wait_for(lambda: info(r)["chunk_segments_gone"] > 0, 5), "changed chunks left their segments")
    check(wait_for(lambda: root_small(r) and sealed(r), 20), "changed chunks are sealed again")
    check(snapshot(r) == before, "sealing again changes nothing a client sees")
    x.stop()
    x.start()
    r = x.client()
    after = snapshot(r)
    diff = [k for k in set(before) | set(after) if before.get(k) != after.get(k)]
    check(not diff, f"after a restart every one of {len(before)} values is as before", f"{diff[:3]}")
    i = info(r)
    check(i["chunk_segments_chunks"] > 300, "the restarted node keeps its chunks sealed (aligned on load)",
          f"chunk_segments_chunks {i['chunk_segments_chunks']}")
    r.set("probe", "1")  # a commit after the load
    check(wait_for(lambda: root_small(r), 5), "... and its roots are small again once the hash and set are sealed anew", str(info(r)["root_bytes_last"]))
    # Draining: the segments left with few live chunks are unsealed, their
    # chunks sealed anew.
    n = r.llen("queue")
    for _ in range((n - 2000) // 1000):
        r.lpop("queue", 1000)
    r.delete("queue-copy")
    def none_mostly_dead():
        doc = json.load(open(os.path.join(tmp, "queue.json"), "rb"))
        # docs/state-format.md "Chunk segments", Rewrites.
        return all(c["live_count"] * 8 >= c["count"]
                   and 2 * (c["bytes"] * c["live_count"] // c["count"]) >= 64 * 6 * len(c["gone"])
                   for c in doc.get("chunk_segments", []))

    check(wait_for(none_mostly_dead, 10), "after draining no chunk segment the root names has few live chunks",
          str({k: v for k, v in info(r).items() if k.startswith("chunk")}))
    drained = snapshot(r)
    x.stop()
    x.start()
    check(snapshot(x.client()) == drained, "after draining and a restart every value is as before")
    x.stop()
    return drained


def test_export(tmp, expect):
    out = subprocess.run([SERVER, "--dir", tmp, "--export-state", "-"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, timeout=60)
    check(out.returncode == 0, "export: --export-state exits 0", out.stderr.decode()[-300:])
    doc = json.loads(out.stdout)
    refs = [k["key"] for d in doc["databases"] for k in d["keys"]
            for t in ("list", "zset", "hash", "set")
            if t in k and any(isinstance(i, dict) and "segment" in i for i in k[t])]
    check("chunk_segments" not in doc and not refs, "export: every chunk inline, no chunk segment named", str(refs))
    merged = load_document(os.path.join(tmp, "queue.json"), merge=True)

    def keyset(d):
        # A hash's or set's items are in no particular order.
        for db in d["databases"]:
            for k in db["keys"]:
                for t in ("hash", "set"):
                    if t in k:
                        k[t] = sorted(k[t], key=lambda i: json.dumps(i, sort_keys=True))
        return {(db["id"], json.dumps(k, sort_keys=True)) for db in d["databases"] for k in db["keys"]}

    check(keyset(doc) == keyset(merged), "export: equals the root with its chunk segments merged",
          f"{len(keyset(doc) ^ keyset(merged))} records differ")
    check(len(keyset(doc)) == len(expect), f"export: holds all {len(expect)} keys")


def damaged(tmp, name, mutate, expect_words):
    check_refused_when_damaged(tmp, PORT, ARGS, name, mutate, expect_words)


def first_reference(doc):
    """(the key record, index of its first reference, the reference)."""
    for d in doc["databases"]:
        for k in d["keys"]:
            for t in ("list", "zset", "hash", "set"):
                for n, i in enumerate(k.get(t, [])):
                    if isinstance(i, dict) and "segment" in i:
                        return k[t], n, i
    raise AssertionError("no chunk reference")


def rewrite(d, doc):
    open(os.path.join(d, "queue.json"), "w").write(json.dumps(doc))


def test_damaged(tmp):
    def root(d):
        return json.load(open(os.path.join(d, "queue.json"), "rb"))

    def missing(d):
        name = root(d)["chunk_segments"][0]["name"]
        os.unlink(os.path.join(d, "queue.json.segments", name))
        return name

    def corrupt(d):
        name = root(d)["chunk_segments"][0]["name"]
        p = os.path.join(d, "queue.json.segments", name)
        b = bytearray(open(p, "rb").read())
        b[len(b) // 2] ^= 0x20
        open(p, "wb").write(bytes(b))
        return name

    def gone_referenced(d):
        doc = root(d)
        _, _, ref = first_reference(doc)
        rec = [c for c in doc["chunk_segments"] if c["name"] == ref["segment"]][0]
        rec["gone"].append(ref["from"])
        rec["live_count"] -= 1
        rewrite(d, doc)
        return ref["segment"]

    def twice(d):
        doc = root(d)
        items, n, ref = first_reference(doc)
        items.insert(n, dict(ref))
        rewrite(d, doc)
        return ref["segment"]

    def unlisted(d):
        doc = root(d)
        _, _, ref = first_reference(doc)
        ref["segment"] = "no-such-segment.json"
        rewrite(d, doc)
        return "no-such-segment.json"

    damaged(tmp, "missing chunk segment", missing, ["{seg}", "missing"])
    damaged(tmp, "corrupt chunk segment", corrupt, ["{seg}", "corrupt", "CRC-32"])
    damaged(tmp, "a reference to a gone chunk", gone_referenced, ["{seg}", "gone"])
    damaged(tmp, "a chunk referenced twice", twice, ["{seg}", "referenced twice"])
    damaged(tmp, "a segment not in chunk_segments", unlisted, ["{seg}", "not in the root's chunk_segments"])


def worker(x, kind, acked, stop, lock, seq):
    """kind "push<k>": RPUSHes c<k>-<n> with n rising; "pop": LPOP 7."""
    r = x.client(socket_timeout=5)
    while not stop.is_set():
        try:
            if kind.startswith("push"):
                seq[kind] = seq.get(kind, 0) + 1
                job = f"c{kind[4:]}-{seq[kind]:08d}"
                r.rpush("q", job)
                with lock:
                    acked["pushed"].append(job)
            else:
                got = r.lpop("q", 7)
                with lock:
                    acked["popped"] += [g.decode() for g in got or []]
                if not got:
                    time.sleep(0.005)
        except (redis.ConnectionError, redis.TimeoutError, redis.ResponseError):
            return


def test_crash(tmp):
    x = Casq(PORT, tmp, *ARGS).start()
    r = x.client()
    base = [f"b-{j:08d}" for j in range(40000)]
    for i in range(0, len(base), 2000):
        r.rpush("q", *base[i:i + 2000])
    check(wait_for(lambda: sealed(r), 20), "crash: the backlog is sealed before the kills")
    acked = {"pushed": list(base), "popped": []}
    lock, seq = threading.Lock(), {}
    sealed_total = merged_total = 0
    for _ in range(KILLS):
        stop = threading.Event()
        ts = [threading.Thread(target=worker, args=(x, k, acked, stop, lock, seq))
              for k in ("push0", "push1", "push2", "pop", "pop")]
        for t in ts:
            t.start()
        time.sleep(rnd.uniform(0.8, 1.6))
        try:
            i = info(x.client(socket_timeout=2))
            sealed_total = max(sealed_total, i["chunk_segments_sealed"])
            merged_total += i["chunk_segments_merged"]
        except redis.RedisError:
            pass
        x.kill()
        stop.set()
        for t in ts:
            t.join()
        x.start()
    r = x.client()
    now = [v.decode() for v in r.lrange("q", 0, -1)]
    popped = set(acked["popped"])
    present = set(now)
    lost = [j for j in acked["pushed"] if j not in present and j not in popped]
    # A pop whose reply was lost at a kill may have taken up to 7 jobs
    # nobody saw, from the head: each before every job of its pusher still
    # there (a pusher's names sort in its push order); at most 2 workers x
    # 7 per kill.
    def pusher(j):
        return j.split("-")[0]

    first = {}
    for j in now:
        first.setdefault(pusher(j), j)
    unseen = [j for j in lost if j < first.get(pusher(j), "~")]
    lost = [j for j in lost if j > first.get(pusher(j), "~")]
    check(not lost and len(unseen) <= 2 * 7 * KILLS,
          f"crash: every acknowledged push of {len(acked['pushed'])} is in the list or was popped "
          f"across {KILLS} SIGKILLs", f"{len(lost)} lost, e.g. {lost[:3]}; {len(unseen)} taken by unseen pops")
    back = [j for j in now if j in popped]
    check(not back, "crash: no acknowledged pop came back", f"{len(back)}, e.g. {back[:3]}")
    unordered = [p for p in first if [j for j in now if pusher(j) == p] != sorted(j for j in now if pusher(j) == p)]
    nb = sum(1 for j in now if pusher(j) == "b")
    check(not unordered and all(pusher(j) == "b" for j in now[:nb]),
          "crash: the list keeps each pusher's order, the backlog first", str(unordered))
    check(sealed_total > 0, "crash: chunk segments were sealed during the run",
          f"sealed {sealed_total}, merged {merged_total}")
    segdir = os.path.join(tmp, "queue.json.segments")

    def only_named():
        doc = json.load(open(os.path.join(tmp, "queue.json"), "rb"))
        named = {s["name"] for s in doc.get("chunk_segments", [])}
        named |= {s["name"] for d in doc["databases"] for s in d.get("segments", [])}
        files = {f for f in os.listdir(segdir) if not f.startswith(".")}
        return files == named

    r.config_set("segment-gc-grace", "0")
    check(wait_for(only_named, 15), "crash: only named segments are left once the grace passed",
          str(sorted(set(f for f in os.listdir(segdir) if not f.startswith("."))
                     ^ {s["name"] for s in json.load(open(os.path.join(tmp, "queue.json"), "rb")).get(
                         "chunk_segments", [])})))
    x.stop()


def test_merge(tmp):
    """A queue that grows a little at a time gets one small segment per
    seal; past 8 of them the smallest are merged by copy, and the result
    reloads as it was."""
    x = Casq(PORT, tmp, *ARGS).start()
    r = x.client()
    n = 0
    for _ in range(14):
        r.rpush("grow", *[f"g-{j:08d}-" + "x" * 20 for j in range(n, n + 400)])
        n += 400
        time.sleep(0.25)  # quiet: the new middle chunks are sealed
    check(wait_for(lambda: info(r)["chunk_segments_merged"] > 0 and not info(r)["chunk_segments_seal_in_progress"],
                   10), "merge: small segments are merged by copy",
          str({k: v for k, v in info(r).items() if k.startswith("chunk")}))
    want = r.lrange("grow", 0, -1)
    x.stop()
    x.start()
    r = x.client()
    check(r.lrange("grow", 0, -1) == want and info(r)["chunk_segments_chunks"] > 0,
          "merge: after a restart the queue is as before, its chunks still sealed")
    x.stop()


def main():
    tmp = tempfile.mkdtemp(prefix="chunkseg-")
    try:
        expect = test_seal_change_restart(tmp)
        test_export(tmp, expect)
        test_damaged(tmp)
        tmp3 = tempfile.mkdtemp(prefix="chunkseg-merge-")
        test_merge(tmp3)
        shutil.rmtree(tmp3, ignore_errors=True)
        tmp2 = tempfile.mkdtemp(prefix="chunkseg-crash-")
        test_crash(tmp2)
        shutil.rmtree(tmp2, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    finish()


if __name__ == "__main__":
    main()
