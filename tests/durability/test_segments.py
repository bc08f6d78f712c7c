#!/usr/bin/python3
"""test_segments.py -- segments (docs/state-format.md "Segments") on the
file store: sealing, rewriting and garbage under SIGKILL, refusal of a
root whose segments are missing or damaged, format 1 migration, and
--export-state.

casq runs with tiny segments (segment-seal-bytes 4kb, segment-max-bytes
32kb), at most 4 records of segments in a stream's root (the others in
manifests) and a short grace period so that every mechanism runs many
times in a few seconds:

  1. crash: pushers XADD, workers XREADGROUP + XACK + XDEL the entries
     they finished (the job loop that empties segments from the head),
     a trimmer XTRIMs now and then; casq is SIGKILLed at random moments
     (CRASH_KILLS, default 10). Afterwards every acknowledged XADD that
     no acknowledged XDEL/XTRIM removed is there with its bytes, and no
     acknowledged XDEL came back. Segments were sealed, rewritten and
     deleted, manifests written meanwhile (INFO counters).
  2. orphans: after the last restart, once the sweep ran, every file in
     queue.json.segments/ is named by the root.
  3. export: --export-state of the stopped store equals the document
     logically (root + segments merged by the test itself), and the
     server's XRANGE.
  4. damaged segments: a missing segment (named by a manifest), a
     corrupt one (CRC-32), a root record with a wrong live_count, a
     missing manifest, a corrupt one, a dead name that is not one of its
     manifest's records: casq refuses to start, names the segment and the
     problem, and writes nothing.
  0. threshold: the seal threshold follows the appends per commit.
     partial: a tail node sealed piece by piece (each seal writes only its
     new entries), only its unsealed suffix in the root; a restart
     re-seals it exactly.
  5. format 1: a format 1 document (as an earlier casq wrote it) loads;
     the first commits write format 2 and seal it into segments; the
     export before and after is the same logical state.
"""

import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import redis

sys.path.insert(0, os.path.dirname(__file__))
from casqtest import (SERVER, Casq, check, document_streams, finish, kept_owners, load_document,  # noqa: E402
                      pick_port, run_casq_expect_exit, segment_files, segment_reader, stream_object_names,
                      wait_for)

PORT = int(os.environ.get("SEGMENTS_PORT", "0")) or pick_port(26160)
KILLS = int(os.environ.get("CRASH_KILLS", "10"))
ARGS = ["--segment-seal-bytes", "4kb", "--segment-max-bytes", "32kb", "--segment-merge-fanout", "4",
        "--segment-root-records", "4", "--segment-gc-grace", "0", "--broker-timeout", "200",
        "--stream-id-mode", "liberal"]
KEYS = [b"jobs", b"seg\x00bin\xff"]
GROUP = b"g"
UNKNOWN = (redis.ConnectionError, redis.TimeoutError, redis.ResponseError, OSError)

lock = threading.Lock()
acked_adds = {}  # (key, id) -> fields
acked_dels = set()  # (key, id)
maybe_dels = set()  # (key, id): XDEL sent, outcome unknown or acknowledged
trimmed_below = {}  # key -> id bytes: an XTRIM MINID (maybe) removed everything below
stop = threading.Event()


def idkey(i):
    ms, seq = (i.decode() if isinstance(i, bytes) else i).split("-")
    return (int(ms), int(seq))


def pusher(n):
    r = redis.Redis(port=PORT, socket_timeout=5)
    i = 0
    while not stop.is_set():
        key = KEYS[i % 2]
        fields = {b"n": str(i).encode(), b"p": b"payload\x00\xff-" + os.urandom(8) + b"-" * (i % 50)}
        i += 1
        try:
            eid = r.xadd(key, fields)
            with lock:
                acked_adds[(key, eid)] = fields
        except UNKNOWN:
            time.sleep(0.05)


def worker(n):
    r = redis.Redis(port=PORT, socket_timeout=5)
    while not stop.is_set():
        try:
            for key in KEYS:
                try:
                    r.xgroup_create(key, GROUP, id="0", mkstream=True)
                except redis.ResponseError as e:
                    if "BUSYGROUP" not in str(e):
                        raise
            resp = r.xreadgroup(GROUP, f"w{n}", {k: ">" for k in KEYS}, count=50, block=100)
            for key, entries in resp or []:
                ids = [eid for eid, _ in entries]
                if not ids:
                    continue
                # Most jobs are finished and removed; some stay in the
                # backlog (a stream with a long tail of old entries).
                done = [i for i in ids if random.random() < 0.7]
                if not done:
                    continue
                r.xack(key, GROUP, *done)
                with lock:
                    maybe_dels.update((key, i) for i in done)
                r.xdel(key, *done)
                with lock:
                    for i in done:
                        acked_dels.add((key, i))
        except UNKNOWN:
            time.sleep(0.05)


def trimmer():
    r = redis.Redis(port=PORT, socket_timeout=5)
    while not stop.is_set():
        time.sleep(1.5)
        try:
            first = r.xrange(KEYS[0], "-", "+", count=200)
            if len(first) == 200:
                minid = first[-1][0]
                with lock:  # before: a lost reply leaves it done or not
                    trimmed_below[KEYS[0]] = max(trimmed_below.get(KEYS[0], b"0-0"), minid, key=idkey)
                r.xtrim(KEYS[0], minid=minid)
        except UNKNOWN:
            time.sleep(0.05)


def root_segment_names(datadir):
    """The document and every object it names: manifests and segments."""
    doc = load_document(os.path.join(datadir, "queue.json"), merge=False)
    names = []
    for d in doc["databases"]:
        for k in d["keys"]:
            names += stream_object_names(k.get("stream", {}), segment_reader(datadir))
    return doc, names


def export(datadir, *extra):
    p = subprocess.run([SERVER, "--dir", datadir, *extra, "--export-state", "-"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def logical(doc):
    """What must be equal between two documents of the same state."""
    dbs = [dict(d, keys=sorted(d["keys"], key=lambda k: json.dumps(k["key"]))) for d in doc["databases"]]
    return json.dumps(dbs, sort_keys=True)


def first_difference(a, b, path="databases"):
    """Where two JSON values first differ (for messages)."""
    if type(a) is not type(b):
        return f"{path}: {str(a)[:80]} != {str(b)[:80]}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if a.get(k) != b.get(k):
                return first_difference(a.get(k), b.get(k), f"{path}.{k}")
    elif isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return first_difference(x, y, f"{path}[{i}]")
    elif a != b:
        return f"{path}: {str(a)[:80]} != {str(b)[:80]}"
    return ""


def info_int(r, field):
    return int(r.info("persistence").get(field, 0))


def crash_phase(datadir):
    casq = Casq(PORT, datadir, *ARGS).start()
    threads = [threading.Thread(target=pusher, args=(i,)) for i in range(3)]
    threads += [threading.Thread(target=worker, args=(i,)) for i in range(2)]
    threads.append(threading.Thread(target=trimmer))
    for t in threads:
        t.start()
    counters = {"segments_sealed": 0, "segments_rewritten": 0, "segments_deleted": 0,
                "segments_manifests_written": 0}
    rng = random.Random()
    kills = 0
    try:
        while kills < KILLS:
            time.sleep(rng.uniform(0.5, 2.5))
            try:
                r = casq.client()
                for f in counters:
                    counters[f] += info_int(r, f)
                r.close()
            except UNKNOWN:
                pass
            casq.kill(signal.SIGKILL)
            kills += 1
            casq.start()
    finally:
        stop.set()
        for t in threads:
            t.join()
    casq.kill(signal.SIGKILL)
    casq.start()
    r = casq.client()
    print(f"# segment counters summed over {kills} lives: {counters}; acknowledged XADD {len(acked_adds)}, "
          f"XDEL {len(acked_dels)}", flush=True)
    check(counters["segments_sealed"] > 10, "segments: sealed under load", str(counters))
    check(counters["segments_rewritten"] > 0, "segments: rewritten (mostly dead or small ones)", str(counters))
    check(counters["segments_deleted"] > 0, "segments: garbage deleted", str(counters))
    check(counters["segments_manifests_written"] > 0, "segments: manifests written (records out of the root)",
          str(counters))

    present = {}
    for key in KEYS:
        for eid, fields in r.xrange(key, "-", "+"):
            present[(key, eid)] = fields
    lost, back = [], []
    for k, fields in acked_adds.items():
        if k in maybe_dels:
            continue
        below = trimmed_below.get(k[0])
        if below and idkey(k[1]) < idkey(below):
            continue
        if present.get(k) != fields:
            lost.append(k)
    back = [k for k in acked_dels if k in present]
    check(len(acked_adds) > 2000, f"segments: enough acknowledged XADDs ({len(acked_adds)})")
    check(not lost, "segments: every acknowledged XADD not deleted since is there, byte for byte",
          f"{len(lost)} lost, e.g. {lost[:3]}")
    check(not back, "segments: no acknowledged XDEL came back", f"{len(back)}, e.g. {back[:3]}")

    # The sweep runs a second after becoming broker; garbage goes after the
    # grace period (2 x broker-timeout + load).
    deadline = time.time() + 10
    while time.time() < deadline:
        _, names = root_segment_names(datadir)
        files = segment_files(datadir)
        if set(files) == set(names) and len(kept_owners(datadir)) <= 1:
            break
        time.sleep(0.2)
    _, names = root_segment_names(datadir)
    files = segment_files(datadir)
    check(set(files) == set(names) and names, "segments: after the sweep every segment file is named by the root",
          f"{len(files)} files, {len(names)} named; extra {sorted(set(files) - set(names))[:3]}, "
          f"missing {sorted(set(names) - set(files))[:3]}")
    owners = kept_owners(datadir)
    check(len(owners) <= 1, "segments: files kept for reuse by earlier lives (killed) were swept",
          f"kept by {sorted(owners)}")
    root_bytes = os.path.getsize(os.path.join(datadir, "queue.json"))
    snapshot = {key: r.xrange(key, "-", "+") for key in KEYS}
    r.close()
    code = casq.stop()
    check(code == 0, "segments: clean shutdown", f"exit {code}")
    check(not kept_owners(datadir), "segments: a clean shutdown deletes the files kept for reuse",
          str(segment_files(datadir, kept=True)[:3]))
    return snapshot, root_bytes


def export_phase(datadir, snapshot):
    rc, out, err = export(datadir)
    check(rc == 0, "export: --export-state - exits 0", err[-300:])
    exported = json.loads(out)
    merged = load_document(os.path.join(datadir, "queue.json"))
    check(logical(exported) == logical(merged), "export: equals the root with its segments merged",
          first_difference(exported["databases"], merged["databases"]))
    check(all("segments" not in k.get("stream", {}) for d in exported["databases"] for k in d["keys"]),
          "export: every entry inline, no segments named")
    path = os.path.join(datadir, "export.json")
    rc, _, err = export(datadir, "--loglevel", "warning")
    rc2 = subprocess.run([SERVER, "--dir", datadir, "--export-state", path], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, timeout=60).returncode
    written = json.load(open(path, "rb")) if rc2 == 0 else {}
    check(rc2 == 0 and logical(written) == logical(exported), "export: --export-state PATH writes the same",
          f"exit {rc2} " + first_difference(written.get("databases"), exported["databases"]))
    # The export is a document casq loads: the same streams come back.
    d2 = tempfile.mkdtemp(prefix="casq-export-")
    shutil.copy(path, os.path.join(d2, "queue.json"))
    casq = Casq(PORT, d2, *ARGS).start()
    r = casq.client()
    same = all(r.xrange(key, "-", "+") == snapshot[key] for key in KEYS)
    r.close()
    casq.stop()
    check(same, "export: casq loads the export and shows the same entries")
    shutil.rmtree(d2, ignore_errors=True)
    return exported


def identity(path):
    with open(path, "rb") as f:
        data = f.read()
    st = os.stat(path)
    return hashlib.sha256(data).hexdigest(), st.st_ino, st.st_mtime_ns


def damaged_phase(datadir):
    doc, names = root_segment_names(datadir)
    streams = [k["stream"] for d in doc["databases"] for k in d["keys"] if "stream" in k]
    manifests = [m["name"] for st in streams for m in st.get("manifests", [])]
    own = [rec["name"] for st in streams for rec in st.get("segments", [])]
    through = [n for n in names if n not in own and n not in manifests]  # named by a manifest
    if not names or not manifests or not own or not through:
        check(False, "damaged: the document names manifests, segments through them and its own",
              f"{len(manifests)} manifests, {len(own)} own, {len(through)} through manifests")
        return

    def flip_byte(d, name, marker, offset):
        """Flips a bit of the object `name`, `offset` bytes after `marker`."""
        p = os.path.join(d, "queue.json.segments", name)
        data = bytearray(open(p, "rb").read())
        data[data.index(marker) + offset] ^= 0x01
        open(p, "wb").write(bytes(data))

    def missing(d):
        os.remove(os.path.join(d, "queue.json.segments", through[0]))
        return through[0], "missing"

    def corrupt(d):
        flip_byte(d, own[-1], b'"entries":[', 20)
        return own[-1], "corrupt"

    def edit_streams(d, edit):
        """Rewrites the root in d with edit(stream) applied to each stream."""
        p = os.path.join(d, "queue.json")
        raw = json.load(open(p, "rb"))
        for db in raw["databases"]:
            for k in db["keys"]:
                edit(k.get("stream", {}))
        open(p, "w").write(json.dumps(raw))

    def wrong_count(d):
        def edit(st):
            for s in st.get("segments", []):
                if s["name"] == own[0]:
                    s["live_count"] += 1
        edit_streams(d, edit)
        return own[0], "live entries found"

    def missing_manifest(d):
        os.remove(os.path.join(d, "queue.json.segments", manifests[0]))
        return "manifest " + manifests[0], "missing"  # named as what it is

    def corrupt_manifest(d):
        flip_byte(d, manifests[-1], b'"live":[', 12)
        return manifests[-1], "corrupt"

    def dead_unknown(d):
        def edit(st):
            for m in st.get("manifests", []):
                if m["name"] == manifests[0]:
                    m["dead"].append("no-such-segment.json")
        edit_streams(d, edit)
        return "no-such-segment.json", "is not one of its records"

    cases = [("missing segment", missing), ("corrupt segment", corrupt), ("wrong live_count", wrong_count),
             ("missing manifest", missing_manifest), ("corrupt manifest", corrupt_manifest),
             ("dead name not in its manifest", dead_unknown)]
    for label, damage in cases:
        d = tempfile.mkdtemp(prefix="casq-segdamage-")
        shutil.copy(os.path.join(datadir, "queue.json"), os.path.join(d, "queue.json"))
        shutil.copytree(os.path.join(datadir, "queue.json.segments"), os.path.join(d, "queue.json.segments"))
        name, problem = damage(d)
        before = identity(os.path.join(d, "queue.json"))
        files_before = segment_files(d)
        code, out = run_casq_expect_exit(PORT, d, *ARGS)
        after = identity(os.path.join(d, "queue.json"))
        check(code is not None and code != 0, f"damaged[{label}]: casq refuses to start", f"exit {code}")
        check(name in out and problem in out, f"damaged[{label}]: the message names the object and the problem",
              (out.strip().splitlines() or ["?"])[-2:])
        check(before == after and files_before == segment_files(d), f"damaged[{label}]: nothing was written")
        print("#   " + ([l for l in out.splitlines() if "Fatal" in l] or ["?"])[0].split(" # ", 1)[-1], flush=True)
        shutil.rmtree(d, ignore_errors=True)


def format1_phase(exported):
    d = tempfile.mkdtemp(prefix="casq-format1-")
    old = dict(exported)
    old["format"] = 1
    old["broker"] = None
    path = os.path.join(d, "queue.json")
    with open(path, "w") as f:
        json.dump(old, f)
    rc, out, err = export(d)
    check(rc == 0, "format 1: --export-state reads it", err[-300:])
    before = json.loads(out) if rc == 0 else None
    casq = Casq(PORT, d, *ARGS).start()
    r = casq.client()
    deadline = time.time() + 10
    while time.time() < deadline and info_int(r, "segments") == 0:
        time.sleep(0.1)
    check(info_int(r, "segments") > 0, "format 1: sealed into segments after loading")
    r.close()
    casq.stop()
    doc = load_document(path, merge=False)
    check(doc["format"] == 3, "format 1: migrated: casq wrote format 3")
    rc, out, err = export(d)
    after = json.loads(out) if rc == 0 else {}
    check(rc == 0 and before is not None and logical(after) == logical(before),
          "format 1: the export after migration is the same logical state",
          first_difference(after.get("databases"), (before or {}).get("databases")))
    shutil.rmtree(d, ignore_errors=True)


def root_stream(datadir, key):
    """The root's record of stream key (segments not merged)."""
    return document_streams(load_document(os.path.join(datadir, "queue.json"), merge=False))[key]


def partial_phase():
    """A tail node is sealed piece by piece: the root writes only the
    entries appended after the last seal, while one node holds them all,
    and the next seal writes only those; a restart names
    the same segments, live ranges and inline entries (it re-seals
    exactly); appends and an XDEL inside the sealed prefix go on right."""
    d = tempfile.mkdtemp(prefix="casq-partial-")
    args = ["--segment-seal-bytes", "4kb", "--segment-seal-min-bytes", "4kb", "--segment-seal-commits", "0",
            "--segment-max-bytes", "32kb", "--segment-gc-grace", "0", "--stream-node-max-entries", "1000",
            "--stream-node-max-bytes", "0", "--commit-log", "no"]  # the root after each commit: read below
    casq = Casq(PORT, d, *args).start()
    r = casq.client()
    key = b"tail"
    expect = []
    for i in range(40):  # ~5 KB in one node: a seal of its prefix starts at 4 KB
        f = {b"f": b"v" * 100 + b"%d" % i}
        expect.append((r.xadd(key, f), f))
    sealed = wait_for(lambda: info_int(r, "segments") > 0 and info_int(r, "segments_seal_in_progress") == 0, 10)
    for i in range(5):  # appended after the seal: the node's inline suffix
        f = {b"g": b"w%d" % i}
        expect.append((r.xadd(key, f), f))
    nodes = r.xinfo_stream(key)["radix-tree-keys"]
    st = root_stream(d, key)
    inline = [e[0].encode() for e in st["entries"]]
    ids = [i for i, _ in expect]
    check(sealed and nodes == 1 and st.get("segments") and 5 <= len(inline) < len(ids) and
          inline == ids[len(ids) - len(inline):],
          "partial: one node, its prefix in a segment, only its suffix in the root",
          f"sealed {sealed}, {nodes} nodes, {len(st.get('segments', []))} segments, {len(inline)} of "
          f"{len(ids)} entries inline")
    merged = document_streams(load_document(os.path.join(d, "queue.json")))[key]
    check([e[0].encode() for e in merged["entries"]] == ids, "partial: root + segment hold every entry once")
    # Enough new entries for another seal: the node's next piece, in a new
    # segment holding only them (an entry is written into a new segment
    # once, not again with the node's older ones).
    first_seg = {rec["name"] for rec in st["segments"]}
    for i in range(40):
        f = {b"k": b"z" * 100 + b"%d" % i}
        expect.append((r.xadd(key, f), f))
    ids = [i for i, _ in expect]
    wait_for(lambda: info_int(r, "segments") > 1 and info_int(r, "segments_seal_in_progress") == 0, 10)
    r.xadd(b"other", {b"o": b"0"})  # a commit after the seal landed
    st = root_stream(d, key)
    read = segment_reader(d)
    held = []
    for rec in st.get("segments", []):
        held += [e[0].encode() for e in json.loads(read(rec["name"]))["entries"]]
    inline = [e[0].encode() for e in st["entries"]]
    new_segs = [rec["name"] for rec in st.get("segments", []) if rec["name"] not in first_seg]
    named = {rec["name"] for rec in st.get("segments", [])}
    check(r.xinfo_stream(key)["radix-tree-keys"] == 1 and first_seg <= named and len(new_segs) == 1 and
          held + inline == ids,
          "partial: the node's next seal writes only its new entries, each entry in one place",
          f"first segment still named: {first_seg <= named}, {len(new_segs)} new segments; segments hold {len(held)} entries ({len(set(held))} distinct), "
          f"{len(inline)} inline, {len(ids)} appended")
    r.close()
    casq.stop()
    before = root_stream(d, key)
    casq = Casq(PORT, d, *args).start()
    r = casq.client()
    r.xadd(b"other", {b"o": b"1"})  # a commit: the root is written again from the loaded state
    after = root_stream(d, key)
    check(after.get("segments") == before.get("segments") and after["entries"] == before["entries"],
          "partial: a restart re-seals exactly (same segments, live ranges, inline entries)",
          first_difference(after, before, "stream"))
    for i in range(3):
        f = {b"h": b"x%d" % i}
        expect.append((r.xadd(key, f), f))
    r.xdel(key, ids[1])
    del expect[1]
    got = r.xrange(key, "-", "+")
    check(got == expect, "partial: appends and an XDEL in the sealed prefix after the restart")
    r.close()
    casq.kill()
    casq = Casq(PORT, d, *args).start()
    r = casq.client()
    check(r.xrange(key, "-", "+") == expect, "partial: the same entries after a SIGKILL")
    r.close()
    casq.stop()
    shutil.rmtree(d, ignore_errors=True)


def threshold_phase():
    """The seal threshold follows the appends per commit: at one entry per
    commit it is segment-seal-min-bytes; with 100 entries per commit (one
    MULTI/EXEC) about segment-seal-commits x their bytes; and back."""
    d = tempfile.mkdtemp(prefix="casq-threshold-")
    casq = Casq(PORT, d).start()  # the defaults: 2 commits' worth, 4kb .. 64kb
    r = casq.client()

    def threshold():
        return info_int(r, "segment_seal_threshold")

    for i in range(40):
        r.xadd(b"t", {b"f": b"v" * 100})
    single = threshold()
    for i in range(40):
        p = r.pipeline(transaction=True)
        for k in range(100):
            p.xadd(b"t", {b"f": b"v" * 100})
        p.execute()
    batched = threshold()
    for i in range(60):
        r.xadd(b"t", {b"f": b"v" * 100})
    again = threshold()
    check(single == 4096 and 16384 <= batched <= 40000 and again == 4096,
          "threshold: follows the appends per commit (min at one entry, ~2 commits' worth at 100)",
          f"{single}, {batched}, {again}")
    r.close()
    casq.stop()
    shutil.rmtree(d, ignore_errors=True)


def collection_phase():
    """Garbage is deleted as fast as it is made: a stream trimmed under
    load drops segments by the hundred a second, and once the load stops
    every file the root does not name is gone within a grace period and a
    moment (the deletions do not wait for the server's cron, a few per
    tick: a long run would otherwise fill the disk)."""
    d = tempfile.mkdtemp(prefix="casq-collect-")
    casq = Casq(PORT, d, "--segment-seal-commits", "0", "--segment-seal-bytes", "1kb",
                "--segment-gc-grace", "0", "--broker-timeout", "200").start()
    done = threading.Event()

    def load():
        r = redis.Redis(port=PORT, socket_timeout=10)
        while not done.is_set():
            p = r.pipeline(transaction=False)
            for _ in range(50):
                p.xadd(b"trimmed", {b"f": b"v" * 100}, maxlen=200, approximate=False)
            p.execute()

    threads = [threading.Thread(target=load) for _ in range(3)]
    for t in threads:
        t.start()
    r = casq.client()

    def made():
        return info_int(r, "segments_sealed") + info_int(r, "segments_manifests_written")
    # 6 s make 4,000-4,500 objects on an idle machine; a busy one gets
    # more time (up to 30 s) to make enough to mean something.
    started = time.time()
    time.sleep(6)
    while made() < 2000 and time.time() - started < 30:
        time.sleep(0.5)
    done.set()
    for t in threads:
        t.join()
    dropped = made()
    stopped = time.time()
    def only_named():
        # With the commit log, the segments sealed last are named by the
        # next root: the idle broker's checkpoint, a second after the load.
        return set(f for f in segment_files(d) if not f.startswith(".")) == set(root_segment_names(d)[1])
    drained = wait_for(lambda: info_int(r, "segments_garbage") == 0 and only_named(), timeout=4)
    took = time.time() - stopped
    _, names = root_segment_names(d)
    files = [f for f in segment_files(d) if not f.startswith(".")]
    print(f"# collection: {dropped} segments and manifests written in {stopped - started:.0f} s, "
          f"{info_int(r, 'segments_deleted')} "
          f"deleted, garbage left {info_int(r, 'segments_garbage')} after {took:.1f} s", flush=True)
    check(dropped > 1000, "collection: the trimmed stream made many segments", str(dropped))
    check(drained and set(files) == set(names),
          "collection: within the grace period and 3 s of the load's end, only named segments are left",
          f"{len(files)} files, {len(names)} named, garbage {info_int(r, 'segments_garbage')}")
    r.close()
    casq.stop()
    shutil.rmtree(d, ignore_errors=True)


def follower_cache_phase():
    """A follower keeps the texts of the segments its state names, packed
    (zlib) until its next load: much smaller than the segments, and its
    take-over reads them from there (nothing fetched again) into the same
    entries."""
    d = tempfile.mkdtemp(prefix="casq-fcache-")
    args = ["--segment-seal-bytes", "4kb", "--segment-seal-min-bytes", "4kb", "--segment-max-bytes", "32kb",
            "--segment-merge-fanout", "4", "--broker-timeout", "500", "--stream-id-mode", "liberal"]
    a = Casq(PORT, d, *args, logname="a.log").start()
    r = a.client()
    expect = []
    for i in range(30):
        p = r.pipeline(transaction=True)
        for k in range(100):
            p.xadd(b"jobs", {b"job": b"resize photo %d" % (i * 100 + k), b"owner": b"user-%d" % (k % 7)})
        ids = p.execute()
        expect += [(x, {b"job": b"resize photo %d" % (i * 100 + k), b"owner": b"user-%d" % (k % 7)})
                   for k, x in enumerate(ids)]

    def settled(node_client, secs=1.5):
        """No seal or rewrite for secs: the planner has nothing left."""
        last, since = None, time.time()
        deadline = time.time() + 20
        while time.time() < deadline:
            i = node_client.info("persistence")
            now = (i.get("segments_sealed"), i.get("segments_rewritten"), i.get("segments_seal_in_progress"))
            if now != last:
                last, since = now, time.time()
            elif now[2] == 0 and time.time() - since >= secs:
                return True
            time.sleep(0.1)
        return False

    check(settled(r) and info_int(r, "segments") >= 4, "follower cache: the backlog is sealed and settled",
          str(r.info("persistence").get("segments")))
    r.close()
    port_b = pick_port(26170, avoid=(PORT,))
    b = Casq(port_b, d, *args, logname="b.log").start()  # takes the document over; a follows
    rb = b.client()
    r = a.client()
    following = wait_for(lambda: r.info("persistence").get("broker_role") == "follower" and
                         info_int(r, "segments_cached") > 0, 15)
    settled(rb)
    info = r.info("persistence")
    cached, cached_bytes, named_bytes = (info.get("segments_cached", 0), info.get("segments_cached_bytes", 0),
                                         info.get("segments_bytes", 0))
    print(f"# follower: {cached} segment texts kept in {cached_bytes} bytes for {named_bytes} bytes of segments",
          flush=True)
    check(following and cached == info.get("segments") and 0 < cached_bytes * 3 < named_bytes,
          "follower cache: the follower keeps its segments' texts packed (under a third of their size)",
          f"following {following}, {info}")
    fetched = info_int(r, "segments_fetched")
    rb.close()
    b.kill()
    took_over = wait_for(lambda: r.info("persistence").get("broker_role") == "broker", 15)
    info = r.info("persistence")
    check(took_over and info.get("segments_fetched") == fetched,
          "follower cache: the take-over read every segment from the packed texts (none fetched again)",
          f"took over {took_over}, fetched {fetched} -> {info.get('segments_fetched')}")
    check(r.xrange(b"jobs", "-", "+") == expect, "follower cache: the new broker has every entry, byte for byte")
    r.close()
    code = a.stop()
    check(code == 0, "follower cache: the new broker shuts down cleanly", f"exit {code}: {a.tail()}")
    shutil.rmtree(d, ignore_errors=True)


def main():
    threshold_phase()
    collection_phase()
    partial_phase()
    follower_cache_phase()
    datadir = tempfile.mkdtemp(prefix="casq-segments-")
    snapshot, root_bytes = crash_phase(datadir)
    exported = export_phase(datadir, snapshot)
    total = len(json.dumps(exported))
    print(f"# root {root_bytes} bytes, whole state {total} bytes", flush=True)
    damaged_phase(datadir)
    format1_phase(exported)
    shutil.rmtree(datadir, ignore_errors=True)
    finish()


if __name__ == "__main__":
    main()
