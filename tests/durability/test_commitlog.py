#!/usr/bin/python3
"""test_commitlog.py -- the commit log (docs/state-format.md "The commit
log"): a commit appends a record to queue.json.log, the root is a
checkpoint, a load replays the records after it.

  - every kind of change a record can say (SET, HSET on sealed job hashes,
    DEL, EXPIRE, RENAME, XADD, XREADGROUP, XACK, XCLAIM, XGROUP CREATE, a
    new stream) survives a SIGKILL through the log: the root alone does not
    hold it, the restarted server replays it and shows exactly what the
    clients saw acknowledged (client_snapshot, plus PEL and group state);
  - trims (XADD MAXLEN exact and ~, XTRIM MINID, MAXLEN 0) and holes (XDEL
    of the first, of middle entries, of an entry added in the same commit)
    are records too;
  - changes a record cannot say (FLUSHDB, FUNCTION LOAD) make the commit a
    checkpoint and survive as well;
  - a torn last record (a crash while it was written) is ignored, said in
    the log and in INFO, and dropped by the next commit;
  - a corrupt or missing record in the middle, or one of another broker,
    refuses the start with a message naming the record, and nothing is
    written;
  - --export-state shows the root with the log replayed;
  - SIGKILL at random moments under load with a checkpoint every few
    records (kills mid-append, between a record and its checkpoint, during
    a checkpoint): every acknowledged write there, no acknowledged delete
    or ack undone;
  - commit-log no: every commit writes the root (format 2's way);
  - a format 2 document loads, and the first commit writes format 3.
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

import redis

sys.path.insert(0, os.path.dirname(__file__))
from casqtest import (  # noqa: E402
    SERVER,
    Casq,
    check,
    check_refused_when_damaged,
    client_snapshot,
    finish,
    pick_port,
    run_casq_expect_exit,
)

PORT = pick_port(26230)
# Checkpoints only when a test wants them: every commit below is a record.
QUIET = ["--commit-log-checkpoint-records", "100000", "--commit-log-checkpoint-ms", "3600000"]


def log_path(d):
    return os.path.join(d, "queue.json.log")


def log_records(d):
    try:
        with open(log_path(d), "rb") as f:
            return [l for l in f.read().split(b"\n") if l]
    except FileNotFoundError:
        return []


def groups_state(r, key):
    """Group state as clients see it: XINFO GROUPS and every PEL entry."""
    out = []
    for g in r.xinfo_groups(key):
        pel = r.xpending_range(key, g["name"], "-", "+", 1000)
        out.append((g["name"], g["last-delivered-id"], g["entries-read"], g["pending"],
                    sorted((p["message_id"], p["consumer"], p["times_delivered"]) for p in pel)))
    return sorted(out)


def full_snapshot(port):
    r = redis.Redis(port=port, socket_timeout=20)
    snap = client_snapshot(port, dbs=(0, 1))
    for (db, k), (t, _v, _e) in list(snap.items()):
        if t == "stream" and db == 0:
            snap[("groups", k)] = groups_state(r, k)
    r.close()
    return snap


def info(port, field, section="persistence"):
    r = redis.Redis(port=port, socket_timeout=10)
    try:
        return r.info(section).get(field)
    finally:
        r.close()


# ------------------------------------------------------------------------
# Every change a record can say, through a SIGKILL
# ------------------------------------------------------------------------
def test_replay(tmp):
    c = Casq(PORT, tmp, *QUIET, "--key-seal-quiet", "0").start()
    r = c.client()
    # Job hashes, sealed into key segments (quiet at once), then a checkpoint
    # names them: later HSETs take keys out of sealed segments.
    for i in range(300):
        r.hset(f"job:{i}", mapping={"state": "queued", "n": str(i)})
    r.xadd("jobs", {"job": "0"})
    r.xgroup_create("jobs", "workers", id="0")
    r.execute_command("FLUSHDB")  # a barrier: the next commit is a root...
    for i in range(300):
        r.hset(f"job:{i}", mapping={"state": "queued", "n": str(i)})
    r.xadd("jobs", {"job": "0"})
    r.xgroup_create("jobs", "workers", id="0")
    time.sleep(0.5)  # sealing
    r.config_set("commit-log-checkpoint-records", "1")
    r.set("tick", "1")  # ...and this record makes the next commit one
    r.set("tick", "2")
    r.config_set("commit-log-checkpoint-records", "100000")
    before = info(PORT, "commit_log_commits")
    with open(os.path.join(tmp, "queue.json"), "rb") as f:
        root_before = f.read()
    # Now the changes that must come back from the log only.
    for i in range(0, 300, 7):
        r.hset(f"job:{i}", "state", "done")
    r.delete("job:1", "job:2")
    r.set("s:plain", "v\x00\xff")
    r.set("s:ttl", "x", px=3_600_000)
    r.expire("job:3", 7200)
    r.rename("job:4", "job:four")
    r1 = c.client(db=1)
    r1.set("in-db-1", "yes")
    ids = [r.xadd("jobs", {"job": str(i), "bin": b"\x00\x01\xfe"}) for i in range(1, 40)]
    got = r.xreadgroup("workers", "alice", {"jobs": ">"}, count=10)
    delivered = [e[0] for e in got[0][1]]
    r.xack("jobs", "workers", *delivered[:4])
    r.xclaim("jobs", "workers", "bob", 0, delivered[5:7])
    r.xgroup_create("jobs", "audit", id="$")
    r.xadd("fresh", {"a": "1"})  # a stream new since the root
    r.xgroup_create("fresh", "g", id="0")
    r.xreadgroup("g", "c", {"fresh": ">"})
    for i in range(30):
        r.xadd("capped", {"i": str(i)}, maxlen=10, approximate=False)
    for i in range(250):
        r.xadd("capped~", {"i": str(i)}, maxlen=100)
    r.xtrim("capped", minid=ids[0])  # everything (capped's IDs are older)
    for i in range(5):
        r.xadd("emptied", {"i": str(i)})
    r.xtrim("emptied", maxlen=0, approximate=False)
    holed = [r.xadd("holed", {"i": str(i)}) for i in range(12)]
    r.xdel("holed", holed[0], holed[5], holed[6])
    p = r.pipeline(transaction=False)  # added and removed between two commits
    for i in range(20):
        p.xadd("holed", {"late": str(i)})
    p.execute()
    late = [e[0] for e in r.xrange("holed")][-20:]
    p = r.pipeline(transaction=False)
    p.xadd("holed", {"gone": "1"}, id="*")
    p.xdel("holed", late[3], late[4])
    p.execute()
    r.xdel("holed", r.xrange("holed", count=1)[0][0])
    r.lpush("q", "a", "b")
    r.zadd("delayed", {"j1": 10, "j2": 20})
    r.sadd("tags", "x", "y")
    r.incr("counter")
    snap = full_snapshot(PORT)
    after = info(PORT, "commit_log_commits")
    check(after - before >= 10, "log: commits after the checkpoint were log records",
          f"commit_log_commits {before} -> {after}")
    with open(os.path.join(tmp, "queue.json"), "rb") as f:
        check(f.read() == root_before, "log: the root was not rewritten by them")
    recs = log_records(tmp)
    check(len(recs) >= 10 and all(json.loads(x)["changes"] is not None for x in recs),
          "log: queue.json.log holds one JSON record per commit", f"{len(recs)} records")
    c.kill()
    c.start()
    check(full_snapshot(PORT) == snap, "log: after SIGKILL the replayed state is what clients saw")
    check(info(PORT, "commit_log_replayed") >= 10, "log: INFO commit_log_replayed counts the records",
          str(info(PORT, "commit_log_replayed")))
    # The first commit after a load is a checkpoint: the log is empty again.
    c.client().set("after", "1")
    check(log_records(tmp) == [] or json.loads(log_records(tmp)[0])["seq"] > 0,
          "log: the first commit after the load wrote the root")
    with open(os.path.join(tmp, "queue.json"), "rb") as f:
        root = json.loads(f.read())
    check(root["format"] == 3, "log: the root is format 3")
    c.stop()
    check(log_records(tmp) == [], "log: a clean shutdown leaves no record to replay")
    return snap


# ------------------------------------------------------------------------
# Changes a record cannot say: checkpoints
# ------------------------------------------------------------------------
def test_checkpoint_changes(tmp):
    c = Casq(PORT, tmp, *QUIET).start()
    r = c.client()
    ids = [r.xadd("s", {"i": str(i)}) for i in range(20)]
    r.set("k", "v")
    cp0 = info(PORT, "commit_checkpoints")
    r.xdel("s", ids[3])
    cp1 = info(PORT, "commit_checkpoints")
    r.xtrim("s", maxlen=10, approximate=False)
    cp2 = info(PORT, "commit_checkpoints")
    r.execute_command("FUNCTION", "LOAD", "#!lua name=cl\nredis.register_function('f', function() return 1 end)")
    cp3 = info(PORT, "commit_checkpoints")
    check(cp1 == cp0 and cp2 == cp1 and cp3 > cp2,
          "checkpoint: FUNCTION LOAD wrote the root, XDEL and XTRIM records",
          f"{cp0} {cp1} {cp2} {cp3}")
    r.xadd("s", {"i": "after"})
    snap = full_snapshot(PORT)
    c.kill()
    c.start()
    check(full_snapshot(PORT) == snap, "checkpoint: deletes, trims and appends after them survive SIGKILL")
    check(c.client().execute_command("FCALL", "f", 0) == 1, "checkpoint: the library survives")
    c.stop()


# ------------------------------------------------------------------------
# A torn last record; damaged records in the middle
# ------------------------------------------------------------------------
def make_logged(tmp):
    c = Casq(PORT, tmp, *QUIET).start()
    r = c.client()
    r.set("base", "1")
    r.set("x", "0")  # a checkpoint came first (after the load); these are records
    for i in range(5):
        r.set(f"k{i}", str(i))
        r.xadd("s", {"i": str(i)})
    snap = full_snapshot(PORT)
    c.kill()
    return snap


def test_torn(tmp):
    snap = make_logged(tmp)
    n = len(log_records(tmp))
    with open(log_path(tmp), "ab") as f:
        f.write(b'{"seq":999,"broker":"x","changes":[{"db":0,"set":{"key":"gho')
    c = Casq(PORT, tmp, *QUIET).start()
    check(full_snapshot(PORT) == snap, "torn: a record cut short at the end is ignored, the rest replayed",
          f"{n} records")
    check(info(PORT, "commit_log_torn_bytes") > 0 and "cut short" in c.tail(40),
          "torn: INFO and the log say so")
    c.client().set("next", "1")
    data = open(log_path(tmp), "rb").read()
    check(b"gho" not in data, "torn: the next commit (a checkpoint) dropped it")
    c.stop()


def test_damaged(tmp):
    make_logged(tmp)
    recs = log_records(tmp)
    check(len(recs) >= 4, "damaged: the log holds records", str(len(recs)))

    def flip(d):
        p = log_path(d)
        data = bytearray(open(p, "rb").read())
        i = data.index(b'"k1"') + 2
        data[i] ^= 0x01
        open(p, "wb").write(bytes(data))
        return "x"

    def drop(d):
        p = log_path(d)
        lines = open(p, "rb").read().split(b"\n")
        del lines[1]
        open(p, "wb").write(b"\n".join(lines))
        return "x"

    def foreign(d):
        p = log_path(d)
        lines = open(p, "rb").read().split(b"\n")
        rec = json.loads(lines[1])
        rec["epoch"] = rec["epoch"] + 7
        body = json.dumps(rec, separators=(",", ":"))
        body = body[: body.index(',"crc32"')]
        import zlib
        lines[1] = (body + ',"crc32":"%08x"}' % zlib.crc32(body.encode())).encode()
        open(p, "wb").write(b"\n".join(lines))
        return "x"

    for name, mutate, words in (
        ("a flipped byte in a middle record", flip, ["the commit log: record", "checksum does not match"]),
        ("a missing record", drop, ["the commit log: record", "missing"]),
        ("a record of another epoch", foreign, ["the commit log: record seq", "epoch"]),
    ):
        check_refused_when_damaged(tmp, PORT, QUIET, name, mutate, words)


# ------------------------------------------------------------------------
# --export-state, format 2, commit-log no
# ------------------------------------------------------------------------
def test_root_missing(tmp):
    make_logged(tmp)
    os.unlink(os.path.join(tmp, "queue.json"))
    log = open(log_path(tmp), "rb").read()
    code, out = run_casq_expect_exit(PORT, tmp, *QUIET)
    check(code not in (0, None) and "commit log holds" in out and open(log_path(tmp), "rb").read() == log
          and not os.path.exists(os.path.join(tmp, "queue.json")),
          "root missing: a start beside a log of records refuses, says why, writes nothing", out[-300:])


def test_export(tmp):
    snap = make_logged(tmp)
    out = subprocess.run([SERVER, "--dir", tmp, "--export-state", "-"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, timeout=30)
    doc = json.loads(out.stdout)
    keys = {k["key"] for d in doc["databases"] for k in d["keys"]}
    expect = {k.decode() for (db, k) in snap if db == 0}
    check(out.returncode == 0 and keys == expect,
          "export: --export-state includes the log's records", str(sorted(keys)))


def test_format2(tmp):
    with open(os.path.join(tmp, "queue.json"), "w") as f:
        json.dump({"format": 2, "databases": [{"id": 0, "keys": [
            {"key": "old", "type": "string", "string": "v"}]}]}, f)
    c = Casq(PORT, tmp, *QUIET).start()
    r = c.client()
    check(r.get("old") == b"v", "format 2: loads")
    r.set("new", "1")
    r.set("newer", "2")
    doc = json.load(open(os.path.join(tmp, "queue.json")))
    check(doc["format"] == 3, "format 2: the first commit writes format 3")
    c.kill()
    c.start()
    r = c.client()
    check(r.get("old") == b"v" and r.get("newer") == b"2", "format 2: migrated, then logged, survives SIGKILL")
    c.stop()


def test_log_lost(tmp):
    """rm / truncate of the log under a running broker: its root is the one
    the broker wrote last, short of the records appended since, which only
    the broker's memory holds: it writes its state back (as for a document
    deleted or emptied)."""
    c = Casq(PORT, tmp, *QUIET).start()
    r = c.client()
    acked = {}
    for how in ("rm", "truncate"):
        for i in range(20):
            k = f"{how}:{i}"
            r.set(k, str(i))
            acked[k] = str(i).encode()
        check(len(log_records(tmp)) > 0, f"lost log [{how}]: the records are in the log")
        if how == "rm":
            os.unlink(log_path(tmp))
        else:
            os.truncate(log_path(tmp), 0)
        for i in range(20, 40):
            k = f"{how}:{i}"
            for _ in range(50):  # the write that finds the log gone fails (not acknowledged)
                try:
                    r.set(k, str(i))
                    acked[k] = str(i).encode()
                    break
                except redis.ResponseError:
                    time.sleep(0.1)
        check("lost its commit log" in c.tail(80), f"lost log [{how}]: the broker says so and writes its state back")
    c.kill()
    c.start()
    r = c.client()
    missing = [k for k, v in acked.items() if r.get(k) != v]
    check(not missing, "lost log: every acknowledged write is there after SIGKILL", str(missing[:5]))
    c.stop()


def stream_state(r, key):
    if not r.exists(key):
        return None
    info = r.xinfo_stream(key)
    head = {k: info.get(k) for k in ("length", "last-generated-id", "max-deleted-entry-id", "entries-added",
                                     "recorded-first-entry-id")}
    return head, r.xrange(key), groups_state(r, key)


def test_stream_model(tmp):
    """Random stream changes -- XADD (with MAXLEN/MINID, exact and ~),
    XDEL, XTRIM, XSETID, groups, reads, acks, claims -- then SIGKILL: the
    replayed streams are what they were, field by field."""
    rnd = random.Random(int(os.environ.get("COMMITLOG_SEED", str(random.randrange(1 << 30)))))
    c = Casq(PORT, tmp, *QUIET, "--stream-node-max-entries", "8").start()
    keys = ["m1", "m2"]
    for rounds in range(5):
        r = c.client()
        for _ in range(120):
            k = rnd.choice(keys)
            op = rnd.random()
            try:
                if op < 0.45:
                    kw = {}
                    if rnd.random() < 0.2:
                        kw = {"maxlen": rnd.randint(1, 30), "approximate": rnd.random() < 0.5}
                    r.xadd(k, {"f": str(rnd.random())}, **kw)
                elif op < 0.6:
                    ids = [e[0] for e in r.xrange(k)]
                    if ids:
                        r.xdel(k, *rnd.sample(ids, min(len(ids), rnd.randint(1, 3))))
                elif op < 0.65:
                    r.xtrim(k, maxlen=rnd.randint(0, 40), approximate=rnd.random() < 0.5)
                elif op < 0.68:
                    ids = [e[0] for e in r.xrange(k)]
                    if ids:
                        r.xtrim(k, minid=rnd.choice(ids), approximate=False)
                elif op < 0.7:
                    info = r.xinfo_stream(k)
                    r.execute_command("XSETID", k, info["last-generated-id"], "ENTRIESADDED",
                                      info["entries-added"] + rnd.randint(0, 3))
                elif op < 0.75:
                    r.xgroup_create(k, rnd.choice(["ga", "gb"]), id="0", mkstream=True)
                elif op < 0.88:
                    r.xreadgroup(rnd.choice(["ga", "gb"]), rnd.choice(["c1", "c2"]), {k: ">"}, count=3)
                elif op < 0.95:
                    g = rnd.choice(["ga", "gb"])
                    pel = r.xpending_range(k, g, "-", "+", 10)
                    if pel:
                        r.xack(k, g, pel[0]["message_id"])
                else:
                    g = rnd.choice(["ga", "gb"])
                    pel = r.xpending_range(k, g, "-", "+", 10)
                    if pel:
                        r.xclaim(k, g, "c3", 0, [pel[-1]["message_id"]])
            except redis.ResponseError:
                pass  # no such group, key, ... as Redis says
        before = {k: stream_state(r, k) for k in keys}
        if rounds == 0:
            pi = r.info("persistence")
            check(pi["commit_log_commits"] > 10 * pi["commit_checkpoints"],
                  "stream model: the changes were records, not checkpoints",
                  f"{pi['commit_log_commits']} records, {pi['commit_checkpoints']} checkpoints")
        c.kill()
        c.start()
        r = c.client()
        after = {k: stream_state(r, k) for k in keys}
        if not check(after == before, f"stream model: round {rounds + 1}: the replayed streams are as they were",
                     f"{before} != {after}"[:600]):
            break
    c.stop()


def test_no_log(tmp):
    c = Casq(PORT, tmp, "--commit-log", "no").start()
    r = c.client()
    for i in range(10):
        r.set(f"k{i}", "v")
    check(info(PORT, "commit_log") == "off" and info(PORT, "commit_log_commits") == 0 and log_records(tmp) == [],
          "commit-log no: every commit writes the root")
    c.kill()
    c.start()
    check(c.client().get("k9") == b"v", "commit-log no: survives SIGKILL")
    c.stop()


# ------------------------------------------------------------------------
# SIGKILL at random moments under load, checkpoints every few records
# ------------------------------------------------------------------------
def test_kills(tmp):
    KILLS = int(os.environ.get("COMMITLOG_KILLS", "6"))
    args = ["--commit-log-checkpoint-records", "5", "--key-seal-quiet", "20"]
    c = Casq(PORT, tmp, *args).start()
    lock = threading.Lock()
    acked_adds, acked_sets, acked_dels, acked_acks = {}, {}, set(), set()
    stop = threading.Event()
    UNKNOWN = (redis.ConnectionError, redis.TimeoutError, redis.ResponseError, OSError)

    uncertain = set()  # keys whose last write had an unknown outcome

    def pusher(i):
        r = redis.Redis(port=PORT, socket_timeout=10)
        n = 0
        while not stop.is_set():
            n += 1
            key = None
            try:
                id_ = r.xadd("jobs", {"t": f"{i}-{n}", "b": b"\x00\xff"})
                with lock:
                    acked_adds[id_] = f"{i}-{n}".encode()
                key = f"job:{i}:{n % 50}"
                r.hset(key, mapping={"n": str(n)})
                with lock:
                    acked_sets[key] = str(n).encode()
                    acked_dels.discard(key)
                    uncertain.discard(key)
                key = None
                if n % 9 == 0:
                    key = f"job:{i}:{(n * 7) % 50}"
                    r.delete(key)
                    with lock:
                        acked_dels.add(key)
                        acked_sets.pop(key, None)
                        uncertain.discard(key)
            except UNKNOWN:
                # The outcome is unknown: the key may hold either value.
                if key:
                    with lock:
                        uncertain.add(key)
                time.sleep(0.05)
                r = redis.Redis(port=PORT, socket_timeout=10)

    def worker():
        r = redis.Redis(port=PORT, socket_timeout=10)
        while not stop.is_set():
            try:
                try:
                    r.xgroup_create("jobs", "w", id="0", mkstream=True)
                except redis.ResponseError:
                    pass
                got = r.xreadgroup("w", "c", {"jobs": ">"}, count=20, block=100)
                for _s, entries in got or []:
                    ids = [e[0] for e in entries]
                    if ids and r.xack("jobs", "w", *ids) == len(ids):
                        with lock:
                            acked_acks.update(ids)
            except UNKNOWN:
                time.sleep(0.05)
                r = redis.Redis(port=PORT, socket_timeout=10)

    threads = [threading.Thread(target=pusher, args=(i,)) for i in range(3)] + [threading.Thread(target=worker)]
    for t in threads:
        t.start()
    kills = 0
    try:
        for _ in range(KILLS):
            time.sleep(random.uniform(0.2, 0.9))
            c.kill()
            kills += 1
            c.start()
    finally:
        stop.set()
        for t in threads:
            t.join()
    c.kill()
    c.start()
    r = c.client()
    present = {e[0]: e[1][b"t"] for e in r.xrange("jobs")}
    missing = [i for i, t in acked_adds.items() if present.get(i) != t]
    check(kills == KILLS and not missing, f"kills: {kills} SIGKILLs: every acknowledged XADD there",
          f"{len(missing)} of {len(acked_adds)} missing")
    pel = {p["message_id"] for p in r.xpending_range("jobs", "w", "-", "+", 100000)} if r.exists("jobs") else set()
    undone = acked_acks & pel
    check(not undone, "kills: no acknowledged XACK pending again", f"{len(undone)} of {len(acked_acks)}")
    # Hash writes: the last acknowledged value, unless a later write to the
    # same key had an unknown outcome (then it may be either).
    wrong = [k for k, v in acked_sets.items() if k not in uncertain and r.hget(k, "n") != v]
    resurrected = [k for k in acked_dels if k not in uncertain and r.exists(k)]
    check(not wrong and not resurrected, "kills: acknowledged HSETs there, acknowledged DELs not undone",
          f"wrong {wrong[:3]} resurrected {resurrected[:3]}")
    check(len(acked_adds) > 200, "kills: the load was real", f"{len(acked_adds)} XADDs acknowledged")
    c.stop()


def main():
    for t in (test_replay, test_checkpoint_changes, test_torn, test_damaged, test_root_missing, test_export, test_format2, test_log_lost,
              test_stream_model, test_no_log,
              test_kills):
        tmp = tempfile.mkdtemp(prefix="casq-commitlog-")
        try:
            t(tmp)
        except Exception as e:  # a crash of the test is a failure, not a pass
            check(False, f"{t.__name__}: ran to the end", repr(e))
        finally:
            for c in list(__import__("casqtest")._started):
                if c.dir == tmp:
                    c.kill()
            shutil.rmtree(tmp, ignore_errors=True)
    finish()


if __name__ == "__main__":
    main()
