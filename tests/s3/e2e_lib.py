"""e2e_lib.py -- shared pieces of the S3 end-to-end tests (tests/s3/e2e_*.py).

The tests run casq-server with its state document on a real S3 server (Ceph
RGW, tests/s3/rgw.sh) through the fault-injecting proxy (e2e_proxy.py, which
is faultproxy.py plus a record of applied commits), drive it with real
clients (redis-py), and check the outcome in the object itself.

Environment (tests/s3/run_e2e.sh sets it):
  S3_ENDPOINT, S3_BUCKET, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION
                 the S3 server itself (the checker reads the object directly)
  FAULTPROXY     http://host:port of e2e_proxy.py (casq's s3-endpoint)
  CASQ_BIN       the server binary (default src/casq-server)
  E2E_PORT_BASE  first port for casq servers (default 30000)
  E2E_PORT_COUNT how many ports from E2E_PORT_BASE they may use (default 1000)

Runs with Debian's /usr/bin/python3 (python3-redis).
"""
import base64
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

def _load_integration_helpers():
    """tests/integration/casqtest.py, loaded under its own module name:
    tests/durability has a different casqtest.py, which e2e_crash.py needs
    as plain `casqtest`."""
    import importlib.util
    path = os.path.join(ROOT, "tests", "integration", "casqtest.py")
    spec = importlib.util.spec_from_file_location("casqtest_integration", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_it = _load_integration_helpers()
BAD_LOG, Results, port_is_free, tail = _it.BAD_LOG, _it.Results, _it.port_is_free, _it.tail

import redis  # noqa: E402  (Debian's python3-redis)

# Error text a pusher may see that still means "not acknowledged". Anything
# else unexpected is reported by the tests.
REGION = os.environ.get("AWS_REGION", "us-east-1")


def env(name, default=None):
    v = os.environ.get(name, default)
    if v is None:
        raise SystemExit("e2e: %s is not set (run tests/s3/run_e2e.sh)" % name)
    return v


# ------------------------------------------------------------------------
# S3, directly (the checker's view of the object, bypassing the proxy)
# ------------------------------------------------------------------------

def s3_request(method, key, data=None, headers=(), endpoint=None):
    """Signed S3 request with curl (SigV4). Returns (status, body, etag)."""
    endpoint = endpoint or env("S3_ENDPOINT")
    url = "%s/%s/%s" % (endpoint, env("S3_BUCKET"), key)
    with tempfile.NamedTemporaryFile(prefix="e2e-s3.") as out, \
            tempfile.NamedTemporaryFile(prefix="e2e-s3h.") as hdr:
        cmd = ["curl", "-sS", "--max-time", "30", "-X", method, "-o", out.name, "-D", hdr.name,
               "-w", "%{http_code}", "--aws-sigv4", "aws:amz:%s:s3" % REGION,
               "--user", "%s:%s" % (env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY")),
               "-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD"]
        for h in headers:
            cmd += ["-H", h]
        if data is not None:
            cmd += ["--data-binary", "@-"]
        p = subprocess.run(cmd + [url], input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if p.returncode != 0:
            raise RuntimeError("curl %s %s: %s" % (method, url, p.stderr.decode(errors="replace")))
        status = int(p.stdout.decode() or 0)
        body = open(out.name, "rb").read()
        etag = None
        for line in open(hdr.name, "rb").read().decode("latin-1").splitlines():
            if line.lower().startswith("etag:"):
                etag = line.split(":", 1)[1].strip().strip('"')
        return status, body, etag


def s3_get(key):
    """(body, etag) of the object, or (None, None) if it does not exist."""
    status, body, etag = s3_request("GET", key)
    if status == 404:
        return None, None
    if status != 200:
        raise RuntimeError("GET %s: HTTP %d %r" % (key, status, body[:200]))
    return body, etag


def s3_put(key, data):
    status, body, etag = s3_request("PUT", key, data=data)
    if status != 200:
        raise RuntimeError("PUT %s: HTTP %d %r" % (key, status, body[:200]))
    return etag


def s3_delete(key):
    status, body, _ = s3_request("DELETE", key)
    if status not in (200, 204, 404):
        raise RuntimeError("DELETE %s: HTTP %d %r" % (key, status, body[:200]))


def s3_list(prefix):
    """The names of the objects under prefix (ListObjectsV2, every page)."""
    import re
    import urllib.parse
    names, token = [], None
    while True:
        q = "?list-type=2&max-keys=1000&prefix=" + urllib.parse.quote(prefix, safe="")
        if token:
            q += "&continuation-token=" + urllib.parse.quote(token, safe="")
        status, body, _ = s3_request("GET", q)
        if status != 200:
            raise RuntimeError("LIST %s: HTTP %d %r" % (prefix, status, body[:200]))
        text = body.decode()
        names += [urllib.parse.unquote(k) for k in re.findall(r"<Key>([^<]*)</Key>", text)]
        m = re.search(r"<NextContinuationToken>([^<]*)</NextContinuationToken>", text)
        if "<IsTruncated>true</IsTruncated>" not in text or not m:
            return names
        token = m.group(1)


def segment_names(root_json, key=None):
    """Every object a root names: the chunk segments, the databases' key
    segments, the streams' manifests and segments (those named through a
    manifest too: read from <key>.segments/ -- key is needed then)."""

    def read(name):
        body, _ = s3_get("%s.segments/%s" % (key, name))
        if body is None:
            raise RuntimeError("manifest %s of %s is missing" % (name, key))
        return body

    names = {s["name"] for s in root_json.get("chunk_segments", [])}
    for d in root_json.get("databases", []):
        names |= {s["name"] for s in d.get("segments", [])}
        for k in d.get("keys", []):
            names |= set(stream_object_names(k.get("stream") or {}, read))
    return names


def unique_key(test):
    return "e2e/%s-%d-%d-%06d.json" % (test, os.getpid(), int(time.time()), random.randrange(10 ** 6))


# ------------------------------------------------------------------------
# The proxy (faults, counters, applied commits)
# ------------------------------------------------------------------------

def _proxy_call(path, body=None):
    url = env("FAULTPROXY") + path
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method="POST" if body is not None else "GET")
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def fault(**settings):
    """Sets proxy faults (faultproxy.py's names); reset=True clears first."""
    return _proxy_call("/__fault__", settings)


def fault_clear():
    """Clears every fault but keeps the counters."""
    return fault(put_delay_ms=0, get_delay_ms=0, max_writes_per_sec=0, fail_puts=0, fail_gets=0,
                 reset_puts=0, drop_puts=0, error_after_apply=0, stall_puts=0, fail_deletes=0,
                 drop_deletes=0, stall_gets=0, only_path="")


def proxy_state():
    return _proxy_call("/__fault__")


def applied(path_suffix=None):
    """PUTs the S3 server accepted, in order (e2e_proxy.py), optionally only
    those whose path ends with path_suffix."""
    recs = _proxy_call("/__applied__")["applied"]
    if path_suffix:
        recs = [r for r in recs if r["path"].endswith(path_suffix)]
    return recs


def applied_clear():
    _proxy_call("/__applied__", {})


def proxy_endpoint():
    return env("FAULTPROXY")


# ------------------------------------------------------------------------
# casq processes
# ------------------------------------------------------------------------

_port_lock = threading.Lock()
_PORT_BASE = int(os.environ.get("E2E_PORT_BASE", "30000"))
_PORT_COUNT = int(os.environ.get("E2E_PORT_COUNT", "1000"))
_next_port = [_PORT_BASE + (os.getpid() % 50) * 10 % _PORT_COUNT]


def free_port():
    with _port_lock:
        for _ in range(_PORT_COUNT):
            p = _next_port[0]
            _next_port[0] = _PORT_BASE + (p + 1 - _PORT_BASE) % _PORT_COUNT
            if port_is_free(p):
                return p
    raise RuntimeError("no free port in %d-%d" % (_PORT_BASE, _PORT_BASE + _PORT_COUNT - 1))


class Casq:
    """One casq-server with its document at s3://$S3_BUCKET/<key>, reached
    through the proxy. Keeps its port across restarts (kill -9 + start)."""

    def __init__(self, key, extra=(), endpoint=None, port=None, name="casq"):
        self.key = key
        self.extra = list(extra)
        self.endpoint = endpoint or proxy_endpoint()
        self.port = port or free_port()
        self.name = name
        self.dir = tempfile.mkdtemp(prefix="casq-e2e.")
        self.logpath = os.path.join(self.dir, "server.log")
        self.proc = None
        self.starts = 0

    def url(self):
        return "s3://%s/%s" % (env("S3_BUCKET"), self.key)

    def command_line(self):
        binary = os.environ.get("CASQ_BIN", os.path.join(ROOT, "src", "casq-server"))
        return [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.dir,
                "--store", self.url(), "--s3-endpoint", self.endpoint] + self.extra

    def spawn(self):
        """Starts the process without waiting for it."""
        log = open(self.logpath, "ab")
        log.write(("--- start %d: %s\n" % (self.starts, " ".join(self.command_line()))).encode())
        log.flush()
        self.proc = subprocess.Popen(self.command_line(), stdout=log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, cwd=self.dir)
        log.close()
        self.starts += 1
        return self

    def start(self, timeout=60):
        self.spawn()
        if not self.wait_ready(timeout):
            raise RuntimeError("%s did not start; log %s:\n%s" % (self.name, self.logpath, tail(self.log())))
        return self

    def wait_ready(self, timeout=60):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=2) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(64).startswith(b"+PONG"):
                        return True
            except OSError:
                pass
            time.sleep(0.05)
        return False

    def wait_exit(self, timeout):
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill9(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self, timeout=60):
        """SIGTERM; returns the exit status (SIGKILL after timeout: None)."""
        if not self.proc:
            return 0
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        rc = self.wait_exit(timeout)
        if rc is None:
            self.kill9()
        return rc

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def log(self):
        try:
            with open(self.logpath, "rb") as f:
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def log_is_clean(self):
        return BAD_LOG.search(self.log()) is None

    def client(self, **kw):
        kw.setdefault("socket_timeout", 120)
        kw.setdefault("socket_connect_timeout", 5)
        return redis.Redis(host="127.0.0.1", port=self.port, **kw)

    def info(self):
        """INFO as a dict of strings (all sections)."""
        raw = self.client(decode_responses=True).execute_command("INFO", "everything")
        if isinstance(raw, dict):
            return {k: str(v) for k, v in raw.items()}
        out = {}
        for line in raw.splitlines():
            if ":" in line and not line.startswith("#"):
                k, v = line.split(":", 1)
                out[k] = v
        return out

    def cleanup(self):
        self.kill9()
        import shutil
        shutil.rmtree(self.dir, ignore_errors=True)


def info_int(info, *names):
    """The first of `names` present in INFO, as an int (None if none)."""
    for n in names:
        if n in info:
            try:
                return int(float(info[n]))
            except ValueError:
                pass
    return None


# INFO field that counts successful commits (commit.c's name).
COMMITS_FIELDS = ("commits", "commit_count", "commits_ok", "persistence_commits")


# ------------------------------------------------------------------------
# Load: pushers (XADD) with an exact record of what was acknowledged
# ------------------------------------------------------------------------

class Pusher(threading.Thread):
    """XADDs to `stream` on one connection until stopped. Records every XADD
    that was acknowledged (an ID came back): its ID and exact field bytes.
    Any error (reply or connection) means "not acknowledged": it is counted
    and the pusher reconnects and goes on."""

    def __init__(self, port_fn, stream, tag, binary=True, pause=0.0):
        super().__init__(daemon=True)
        self.port_fn = port_fn            # callable: the port to use now
        self.stream = stream
        self.tag = tag
        self.binary = binary
        self.pause = pause
        self.stop_flag = threading.Event()
        self.acked = []                    # [(id bytes, [field, value, ...] bytes)]
        self.acked_at = []                 # monotonic time of each ack
        self.errors = 0
        self.error_samples = []
        self.sent = 0
        self.rng = random.Random(tag)

    def payload(self, n):
        fields = [b"p", ("%s-%d" % (self.tag, n)).encode()]
        if self.binary:
            # Bytes that are not UTF-8 and contain NUL: the document must keep
            # them exactly (base64 form).
            fields += [b"bin", bytes(self.rng.randrange(256) for _ in range(8)) + b"\x00\xff"]
        return fields

    def note_error(self, e):
        self.errors += 1
        if len(self.error_samples) < 5:
            self.error_samples.append(repr(e)[:200])

    def run(self):
        conn = None
        n = 0
        while not self.stop_flag.is_set():
            if conn is None:
                try:
                    conn = redis.Redis(host="127.0.0.1", port=self.port_fn(), socket_timeout=120,
                                       socket_connect_timeout=2)
                except redis.RedisError as e:
                    self.note_error(e)
                    time.sleep(0.05)
                    continue
            fields = self.payload(n)
            n += 1
            self.sent += 1
            try:
                rid = conn.execute_command("XADD", self.stream, "*", *fields)
            except redis.ResponseError as e:
                self.note_error(e)
                time.sleep(0.01)
                continue
            except (redis.ConnectionError, redis.TimeoutError, OSError) as e:
                self.note_error(e)
                try:
                    conn.close()
                except Exception:
                    pass
                conn = None
                time.sleep(0.05)
                continue
            self.acked.append((rid, fields))
            self.acked_at.append(time.monotonic())
            if self.pause:
                time.sleep(self.pause)
        if conn is not None:
            conn.close()

    def stop(self):
        self.stop_flag.set()


def run_pushers(pushers):
    for p in pushers:
        p.start()


def stop_pushers(pushers, timeout=180):
    for p in pushers:
        p.stop()
    for p in pushers:
        p.join(timeout)
    return all(not p.is_alive() for p in pushers)


# ------------------------------------------------------------------------
# The state document (docs/state-format.md)
# ------------------------------------------------------------------------

def bytestr(v):
    """A byte string of the document: a JSON string or {"base64": ...}."""
    if isinstance(v, dict) and "base64" in v:
        return base64.b64decode(v["base64"])
    if isinstance(v, str):
        return v.encode("utf-8")
    raise ValueError("not a byte string: %r" % (v,))


# The logical document of a root and its segments (shared with the file
# store's tests).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "durability"))
from casqtest import merge_segments, stream_object_names  # noqa: E402


class Doc:
    """A parsed state document with lookups the checkers need; with key,
    the segments it names are read from <key>.segments/ and merged."""

    def __init__(self, raw, key=None):
        self.raw = raw
        self.json = json.loads(raw)
        if key is not None:

            def read(name):
                body, _ = s3_get("%s.segments/%s" % (key, name))
                if body is None:
                    raise RuntimeError("segment %s of %s is missing" % (name, key))
                return body

            merge_segments(self.json, read)
        self.commit_seq = int(self.json.get("commit_seq"))
        self.epoch = int((self.json.get("broker") or {}).get("epoch", 0))
        self.streams = {}   # (db, key bytes) -> stream dict
        self.keys = {}      # (db, key bytes) -> key record (key segments merged)
        self.dup_keys = []  # (db, key bytes) found twice (root and segments)
        for d in self.json.get("databases", []):
            for k in d.get("keys", []):
                name = (d["id"], bytestr(k["key"]))
                if name in self.keys:
                    self.dup_keys.append(name)
                self.keys[name] = k
                if k.get("type") == "stream":
                    self.streams[(d["id"], bytestr(k["key"]))] = k["stream"]

    def string(self, key, db=0):
        """A string key's bytes (None if there is no such string)."""
        k = self.keys.get((db, key if isinstance(key, bytes) else key.encode()))
        if not k or k.get("type") != "string":
            return None
        return bytestr(k["string"])

    def stream(self, key, db=0):
        return self.streams.get((db, key if isinstance(key, bytes) else key.encode()))

    def entries(self, key, db=0):
        """[(id bytes, [field/value bytes])] in document order."""
        s = self.stream(key, db)
        if not s:
            return []
        return [(e[0].encode(), [bytestr(x) for x in e[1:]]) for e in s["entries"]]

    def groups(self, key, db=0):
        """name bytes -> {"pending": set of id bytes, "last_delivered_id": str}."""
        s = self.stream(key, db)
        out = {}
        for g in (s or {}).get("groups", []):
            out[bytestr(g["name"])] = {"pending": {p[0].encode() for p in g.get("pending", [])},
                                       "last_delivered_id": g.get("last_delivered_id")}
        return out


def load_doc(key):
    body, etag = s3_get(key)
    if body is None:
        return None, None
    return Doc(body, key), etag


def check_pushers_in_doc(res, label, doc, stream, pushers):
    """Every acknowledged XADD is in the document once, with its bytes and
    ID; no ID is in the stream twice; no pusher got the same ID twice.
    Returns (acknowledged, verified, lost)."""
    entries = doc.entries(stream) if doc else []
    by_id = {}
    dup_in_doc = 0
    for rid, fields in entries:
        if rid in by_id:
            dup_in_doc += 1
        by_id[rid] = fields
    acked = verified = 0
    lost = []
    wrong = []
    seen = set()
    dup_acks = []
    for p in pushers:
        for rid, fields in p.acked:
            acked += 1
            if rid in seen:
                dup_acks.append(rid)
            seen.add(rid)
            got = by_id.get(rid)
            if got is None:
                lost.append(rid)
            elif got != fields:
                wrong.append((rid, fields, got))
            else:
                verified += 1
    res.check("%s: no ID twice in the stream" % label, dup_in_doc == 0, "%d duplicates" % dup_in_doc)
    res.check("%s: no ID acknowledged twice" % label, not dup_acks, "e.g. %r" % dup_acks[:5])
    res.check("%s: every acknowledged XADD is in the document (%d acknowledged)" % (label, acked),
              not lost, "%d lost, e.g. %r" % (len(lost), lost[:5]))
    res.check("%s: acknowledged entries have identical bytes" % label, not wrong,
              "%d differ, e.g. %r" % (len(wrong), wrong[:3]))
    return acked, verified, len(lost) + len(wrong)


def check_applied_order(res, label, recs):
    """The commits the S3 server applied: commit_seq strictly increasing
    (no commit applied twice, none applied out of order)."""
    bad = []
    for a, b in zip(recs, recs[1:]):
        if a["commit_seq"] is None or b["commit_seq"] is None or b["commit_seq"] <= a["commit_seq"]:
            bad.append((a["commit_seq"], a["epoch"], b["commit_seq"], b["epoch"]))
    res.check("%s: commit_seq strictly increasing over the %d applied PUTs" % (label, len(recs)),
              not bad, "out of order (seq, epoch -> seq, epoch): %r" % bad[:5])
    return not bad


# ------------------------------------------------------------------------
# Waiting on a casq whose answers may fail while it restarts or takes over
# ------------------------------------------------------------------------

# What a request to a node may raise while it restarts, loads or fails over.
UNKNOWN = (redis.ConnectionError, redis.TimeoutError, redis.ResponseError, OSError)


def wait_for(pred, timeout):
    """pred() until it is true (errors count as false) or timeout s."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            if pred():
                return True
        except UNKNOWN:
            pass
        time.sleep(0.05)
    return False


def pinfo(casq):
    """INFO persistence of a node, on a fresh connection."""
    c = casq.client(socket_timeout=5)
    try:
        return c.info("persistence")
    finally:
        c.close()


def check_damaged_segment(res, key, name, kind, args, loads_again):
    """The segment `name` of the root at key, missing, then corrupt (a byte
    flipped): casq (with args) refuses to start, its log names the segment
    and says why, the root is unchanged and nothing is PUT or DELETEd; put
    back, the same root loads (loads_again(casq) is true)."""
    body, etag = s3_get(key)
    seg_key = "%s.segments/%s" % (key, name)
    seg, _ = s3_get(seg_key)

    def attempt(label, words):
        fault(reset=True)
        casq = Casq(key, extra=args, name="casq[%s]" % label)
        try:
            casq.spawn()
            rc = casq.wait_exit(60)
            log = casq.log()
            why = [l.split(" # ", 1)[-1] for l in log.splitlines() if name in l]
            print("#   %s: %s" % (label, why[-1] if why else "(segment not named in the log)"))
            res.check("%s: casq refuses to start (rc=%s)" % (label, rc), rc not in (0, None), tail(log))
            res.check("%s: the log names the segment and says %s" % (label, words),
                      all(w in log for w in [name] + words), tail(log))
            after, etag_after = s3_get(key)
            c = proxy_state()["counters"]
            res.check("%s: the root is unchanged, nothing PUT or DELETEd (puts %s, deletes %s)"
                      % (label, c.get("puts", 0), c.get("deletes", 0)),
                      etag_after == etag and after == body and not c.get("puts") and not c.get("deletes"))
            res.check("%s: log clean" % label, casq.log_is_clean(), tail(log))
        finally:
            casq.cleanup()

    s3_delete(seg_key)
    attempt("missing %s segment" % kind, ["missing"])
    bad = bytearray(seg)
    bad[len(bad) // 2] ^= 0x20
    s3_put(seg_key, bytes(bad))
    attempt("corrupt %s segment" % kind, ["corrupt", "CRC-32"])
    s3_put(seg_key, seg)
    fault(reset=True)
    casq = Casq(key, extra=args, name="casq[restored]")
    try:
        casq.start()
        res.check("restored: the same root loads once the segment is back", loads_again(casq))
        res.check("restored: casq stops cleanly", casq.stop() == 0 and casq.log_is_clean(), tail(casq.log()))
    finally:
        casq.cleanup()
