"""casqtest.py -- shared helpers for the durability tests.

Starts and stops casq-server processes on a data directory, waits for them
to answer, and reports checks in the format tests/durability/run.sh counts:

    ok - <name>
    FAIL - <name>: <why>
    SKIPPED - <name>: <why>

Tests use Debian's python (/usr/bin/python3) with redis-py, i.e. a real
Redis client, binary-safe (decode_responses=False).
"""

import atexit
import json
import os
import signal
import subprocess
import sys
import time

import redis

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SERVER = os.environ.get("CASQ_SERVER", os.path.join(ROOT, "src", "casq-server"))

_results = {"passed": 0, "failed": 0, "skipped": 0}
_started = []  # every Casq, killed at exit whatever happens


@atexit.register
def _kill_leftovers():
    for c in _started:
        if c.proc and c.proc.poll() is None:
            c.proc.kill()
            c.proc.wait()


def pick_port(base, span=10, avoid=()):
    """A free port in [base, base + span), tried in random order: the same
    suite run from two checkouts at once (CI and a developer) then rarely
    collides, and never silently (Casq.wait_ready checks the pid)."""
    import random
    import socket

    ports = list(range(base, base + span))
    random.shuffle(ports)
    for p in ports:
        if p in avoid:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", p))
                return p
            except OSError:
                continue
    raise RuntimeError(f"no free port in {base}..{base + span - 1}")


def check(ok, name, why=""):
    """Records one check; returns ok."""
    if ok:
        _results["passed"] += 1
        print(f"ok - {name}", flush=True)
    else:
        _results["failed"] += 1
        print(f"FAIL - {name}" + (f": {why}" if why else ""), flush=True)
    return ok


def skip(name, why):
    _results["skipped"] += 1
    print(f"SKIPPED - {name}: {why}", flush=True)


def finish():
    """Exits 1 if any check failed."""
    sys.exit(1 if _results["failed"] else 0)


class Casq:
    """One casq-server process on a data directory."""

    def __init__(self, port, datadir, *args, logname=None):
        self.port = port
        self.dir = datadir
        self.args = list(args)
        self.log = os.path.join(datadir, logname or f"casq-{port}.log")
        self.proc = None
        _started.append(self)

    def start(self, wait=True):
        os.makedirs(self.dir, exist_ok=True)
        logf = open(self.log, "ab")
        cmd = [SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.dir] + self.args
        self.proc = subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT)
        logf.close()
        if wait:
            self.wait_ready()
        return self

    def wait_ready(self, timeout=20):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"casq on port {self.port} exited with {self.proc.returncode}: {self.tail()}")
            try:
                r = redis.Redis(port=self.port, socket_timeout=2)
                r.ping()
                pid = r.info("server").get("process_id")
                r.close()
                if pid != self.proc.pid:
                    raise RuntimeError(f"port {self.port} is served by another process (pid {pid})")
                return
            except (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError):
                time.sleep(0.02)
        raise RuntimeError(f"casq on port {self.port} did not answer: {self.tail()}")

    def client(self, **kw):
        kw.setdefault("socket_timeout", 10)
        return redis.Redis(port=self.port, **kw)

    def kill(self, sig=signal.SIGKILL):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(timeout=30)

    def stop(self):
        """Graceful shutdown (SIGTERM); returns the exit code."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode if self.proc else None

    def tail(self, n=20):
        try:
            with open(self.log, "rb") as f:
                return b"\n".join(f.read().splitlines()[-n:]).decode("utf-8", "replace")
        except OSError:
            return ""


def run_casq_expect_exit(port, datadir, *args, timeout=20):
    """Runs casq expecting it to exit by itself; returns (exit code, output)."""
    cmd = [SERVER, "--port", str(port), "--bind", "127.0.0.1", "--dir", datadir] + list(args)
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        return None, (e.stdout or b"").decode("utf-8", "replace")
    return p.returncode, p.stdout.decode("utf-8", "replace")


# ------------------------------------------------------------------------
# Reading the document the way a person would (json), binary-safe
# ------------------------------------------------------------------------
def doc_bytes(v):
    """A byte string of the document: JSON string or {"base64": ...}."""
    import base64

    if isinstance(v, str):
        return v.encode("utf-8")
    if isinstance(v, dict) and set(v) == {"base64"}:
        return base64.b64decode(v["base64"], validate=True)
    raise ValueError(f"not a byte string: {v!r}")


def _id_key(s):
    ms, seq = s.split("-")
    return (int(ms), int(seq))


def stream_segment_records(stream_obj, read_segment):
    """The records of a stream's segments (docs/state-format.md
    "Manifests"): those of the manifests the root names, less the dead
    ones, with the root's own records -- which replace a manifest's record
    of the same segment. read_segment(name) -> bytes."""
    own = {rec["name"]: rec for rec in stream_obj.get("segments", [])}
    out = []
    for m in stream_obj.get("manifests", []):
        dead = set(m["dead"])
        for rec in json.loads(read_segment(m["name"]))["segments"]:
            if rec["name"] not in dead:
                out.append(own.pop(rec["name"], rec))
    return out + list(own.values())


def segment_files(datadir, kept=False):
    """The files in the segments' directory; without kept=True, not the
    collected segments' files the running server keeps for reuse
    (".free.<its id>.<n>")."""
    d = os.path.join(datadir, "queue.json.segments")
    names = sorted(os.listdir(d)) if os.path.isdir(d) else []
    return names if kept else [n for n in names if not n.startswith(".free.")]


def kept_owners(datadir):
    """The stores whose kept files are in the directory (their ids)."""
    return {n.split(".")[2] for n in segment_files(datadir, kept=True) if n.startswith(".free.")}


def segment_reader(datadir):
    """read_segment for the file store in datadir."""

    def read(name):
        with open(os.path.join(datadir, "queue.json.segments", name), "rb") as f:
            return f.read()

    return read


def stream_object_names(stream_obj, read_segment):
    """Every object a stream's root names: its manifests and its live
    segments (through the manifests too)."""
    return [m["name"] for m in stream_obj.get("manifests", [])] + \
        [rec["name"] for rec in stream_segment_records(stream_obj, read_segment)]


def merge_segments(doc, read_segment):
    """Puts every stream's live segment entries back among its inline ones
    (in ID order) and drops "segments": the logical document, as
    `casq-server --export-state` writes it. read_segment(name) -> bytes.
    Chunk segments: each reference in a list, sorted set, hash or set is
    replaced by the items of the chunks it names."""
    chunks = {}
    for rec in doc.pop("chunk_segments", []):
        chunks[rec["name"]] = json.loads(read_segment(rec["name"]))["chunks"]
    for d in doc.get("databases", []):
        for k in d.get("keys", []):
            for t in ("list", "zset", "hash", "set"):
                if t in k and any(isinstance(i, dict) and "segment" in i for i in k[t]):
                    items = []
                    for i in k[t]:
                        if isinstance(i, dict) and "segment" in i:
                            for part in range(i["from"], i["to"] + 1):
                                items += chunks[i["segment"]][part]
                        else:
                            items.append(i)
                    k[t] = items
        # Key segments (docs/state-format.md "Key segments"): their live
        # keys join the inline ones.
        for rec in d.pop("segments", []):
            seg = json.loads(read_segment(rec["name"]))
            gone = {json.dumps(g, sort_keys=True) for g in rec["gone"]}
            d["keys"] += [k for k in seg["keys"] if json.dumps(k["key"], sort_keys=True) not in gone]
        for k in d.get("keys", []):
            s = k.get("stream")
            if not s or "segments" not in s:
                continue
            entries = list(s["entries"])
            records = stream_segment_records(s, read_segment)
            s.pop("segments")
            s.pop("manifests", None)
            for rec in records:
                seg = json.loads(read_segment(rec["name"]))
                ranges = [(_id_key(a), _id_key(b)) for a, b in rec["live"]]
                entries += [e for e in seg["entries"] if any(a <= _id_key(e[0]) <= b for a, b in ranges)]
            entries.sort(key=lambda e: _id_key(e[0]))
            s["entries"] = entries
    return doc


def replay_log(doc, log_path):
    """Applies the commit log's records after the root's commit_seq to doc
    (docs/state-format.md "The commit log"), as a load does: a record that
    does not parse ends the log (the torn last one). Keys in key segments
    must have been merged in first for a "set" to replace them."""
    try:
        with open(log_path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return doc
    seq = doc.get("commit_seq", 0)
    dbs = {d["id"]: d for d in doc["databases"]}

    def same(k, name):
        return json.dumps(k["key"], sort_keys=True) == json.dumps(name, sort_keys=True)

    for line in data.split(b"\n"):
        if not line:
            continue
        try:
            rec = json.loads(line)
        except ValueError:
            break
        if rec["seq"] <= seq:
            continue
        seq = rec["seq"]
        for c in rec["changes"]:
            d = dbs.get(c["db"])
            if d is None:
                d = dbs[c["db"]] = {"id": c["db"], "keys": []}
                doc["databases"].append(d)
            if "del" in c:
                d["keys"] = [k for k in d["keys"] if not same(k, c["del"])]
            elif "set" in c:
                d["keys"] = [k for k in d["keys"] if not same(k, c["set"]["key"])] + [c["set"]]
            else:
                delta = c["stream_delta"]
                s = next(k for k in d["keys"] if same(k, c["key"]))["stream"]
                s["entries"] = list(s["entries"]) + delta["entries"]
                for f in ("length", "last_id", "first_id", "max_deleted_id", "entries_added", "groups"):
                    s[f] = delta[f]
                if "idmp" in delta:
                    s["idmp"] = delta["idmp"]
                else:
                    s.pop("idmp", None)
    doc["commit_seq"] = seq
    return doc


def load_document(path, merge=True, log=True):
    """The document at path; with merge, its segments' entries are put back
    inline (read from <path>.segments/); with log, the records of its
    commit log (<path>.log) after it are replayed onto it."""
    with open(path, "rb") as f:
        doc = json.loads(f.read())
    if merge:

        def read(name):
            with open(os.path.join(path + ".segments", name), "rb") as f:
                return f.read()

        merge_segments(doc, read)
    if log:
        replay_log(doc, path + ".log")
    return doc


def document_streams(doc, db=0):
    """{key bytes: stream object} of one database."""
    out = {}
    for d in doc["databases"]:
        if d["id"] != db:
            continue
        for k in d["keys"]:
            out[doc_bytes(k["key"])] = k["stream"]
    return out


def stream_entries(stream_obj):
    """[(id str, [field bytes, value bytes, ...])] of a document stream."""
    return [(e[0], [doc_bytes(x) for x in e[1:]]) for e in stream_obj["entries"]]


def check_refused_when_damaged(tmp, port, args, name, mutate, expect_words):
    """A copy of the store in tmp, damaged by mutate(copy) (which returns
    the name of the segment it damaged): casq must refuse to start, say
    every one of expect_words ("{seg}" stands for that name) and leave
    the root as it was."""
    import shutil
    import tempfile

    d2 = tempfile.mkdtemp(prefix="casq-damaged-")
    try:
        shutil.copytree(tmp, d2, dirs_exist_ok=True)
        victim = mutate(d2)
        root = os.path.join(d2, "queue.json")
        with open(root, "rb") as f:
            before = f.read()
        code, out = run_casq_expect_exit(port, d2, *args)
        with open(root, "rb") as f:
            after = f.read()
        words = [w.replace("{seg}", victim) for w in expect_words]
        check(code not in (0, None) and all(w in out for w in words) and before == after,
              f"damaged: {name}: refused, says so, writes nothing", f"exit {code}: {out[-400:]}")
    finally:
        shutil.rmtree(d2, ignore_errors=True)


def change_sealed_keys(r, r3):
    """Changes keys of the key segment tests' populated keyspace every way
    a sealed key can change (docs/state-format.md "Key segments"): value
    writes of each type, TTL set and removed, DEL, RENAME, COPY to another
    db, a new key, SWAPDB there and back. r is db 0, r3 db 3."""
    r.set("s:1", "overwritten")
    r.hset("h:2", "new", "field")
    r.lpush("l:3", "front")
    r.sadd("set:4", "added")
    r.zadd("z:5", {"m9": 99})
    r.pexpire("s:2", 7200_000)
    r.persist("s:7")
    r.delete("h:8", "s:9")
    r.rename("h:10", "h:renamed")
    r.copy("s:11", "s:11", destination_db=3)
    r.delete("s:11")
    r.incr("counter")
    r3.set("only-in-3", "yes")
    r.swapdb(0, 5)
    r.swapdb(5, 0)


def client_snapshot(port, dbs=(0,)):
    """{(db, key): (type, value, pexpiretime)} of the given databases, as a
    client sees them (SCAN and the type's read command): what a restart,
    a crash or a reload must give back."""
    out = {}
    for db in dbs:
        c = redis.Redis(port=port, db=db, socket_timeout=20)
        for k in c.scan_iter(count=1000):
            t = c.type(k).decode()
            if t == "string":
                v = c.get(k)
            elif t == "hash":
                v = sorted(c.hgetall(k).items())
            elif t == "list":
                v = c.lrange(k, 0, -1)
            elif t == "set":
                v = sorted(c.smembers(k))
            elif t == "zset":
                v = c.zrange(k, 0, -1, withscores=True)
            elif t == "stream":
                v = c.xrange(k)
            else:
                v = None
            out[(db, k)] = (t, v, c.pexpiretime(k))
        c.close()
    return out


# ------------------------------------------------------------------------
# Several nodes on one document (test_failover.py and the others)
# ------------------------------------------------------------------------
def wait_for(pred, timeout):
    """Polls pred until it is true (True) or timeout seconds pass (False);
    a connection error or error reply meanwhile counts as not yet."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            if pred():
                return True
        except (redis.ConnectionError, redis.TimeoutError, redis.ResponseError, ConnectionError, OSError):
            pass
        time.sleep(0.02)
    return False


def binfo(n):
    """INFO broker of node n, on a fresh connection (a connection that
    wrote through a follower is a relay: its INFO would be the broker's)."""
    r = n.client(socket_timeout=5)
    try:
        return r.info("broker")
    finally:
        r.close()


def make_follower(x, write=lambda r: r.xadd(b"probe", {b"p": b"1"})):
    """x's next write conflicts (another node took over): it reloads and
    follows. Returns once x says it is a follower."""
    r = x.client(socket_timeout=5)
    for _ in range(200):
        if binfo(x)["broker_role"] == "follower":
            r.close()
            return True
        try:
            write(r)
        except (redis.ResponseError, redis.BusyLoadingError):
            pass
        time.sleep(0.02)
    r.close()
    return False
