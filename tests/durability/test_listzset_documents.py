#!/usr/bin/python3
"""test_listzset_documents.py -- lists and sorted sets in the state document
(docs/state-format.md): what casq writes is what the server holds, a
document edited by hand loads, and a broken one is refused without being
modified.

  - a list's value is its elements head first; a sorted set's value is its
    [member, score] pairs in rank order, scores exact ("inf"/"-inf" as
    strings); binary elements as {"base64": ...};
  - a hand-written document with a sorted set out of order loads sorted;
  - broken lists/sorted sets (not an array, empty, a non-byte-string
    element, a pair of the wrong size, a bad score, a duplicate member, an
    out-of-range score) make casq exit non-zero, naming the problem, and
    leave the file byte-identical.

Ports: a free one in 25780..25799 (LZDOC_PORT to force one).
"""

import hashlib
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from casqtest import Casq, check, doc_bytes, finish, pick_port, run_casq_expect_exit  # noqa: E402

PORT = int(os.environ.get("LZDOC_PORT", "0")) or pick_port(25780, 20)


def keys_of(doc):
    return {doc_bytes(k["key"]): k for k in doc["databases"][0]["keys"]}


def main():
    work = tempfile.mkdtemp(prefix="casq-lzdoc-")
    d = os.path.join(work, "good")
    casq = Casq(PORT, d).start()
    r = casq.client()
    r.rpush(b"l", b"a", b"\x00\xff bin", "héllo".encode(), b"")
    for i in range(500):
        r.rpush(b"big", b"e%d" % i)
    r.lpop(b"big", 10)
    r.zadd(b"z", {b"m1": 1.5, b"m2": float("inf"), b"m3": float("-inf"), b"m\x00": 0.1, b"i": 3})
    for i in range(300):
        r.zadd(b"bigz", {b"m%d" % i: i * 0.25})
    lrange = r.lrange(b"l", 0, -1)
    zrange = r.zrange(b"z", 0, -1, withscores=True)
    bigl = r.lrange(b"big", 0, -1)
    bigz = r.zrange(b"bigz", 0, -1, withscores=True)
    r.close()
    code = casq.stop()
    check(code == 0, "lzdoc: clean shutdown")
    path = os.path.join(d, "queue.json")
    with open(path, "rb") as f:
        good = f.read().rstrip()
    doc = json.loads(good)
    ks = keys_of(doc)

    check(ks[b"l"]["type"] == "list" and [doc_bytes(x) for x in ks[b"l"]["list"]] == lrange,
          "lzdoc: a list's value is its elements, head first, binary-safe")
    check([doc_bytes(x) for x in ks[b"big"]["list"]] == bigl, "lzdoc: a long list (several chunks) is written whole")

    def score(v):
        return {"inf": float("inf"), "-inf": float("-inf")}[v] if isinstance(v, str) else float(v)

    zdoc = [(doc_bytes(m), score(s)) for m, s in ks[b"z"]["zset"]]
    check(ks[b"z"]["type"] == "zset" and zdoc == zrange, "lzdoc: a sorted set's value is [member, score] in rank order")
    check([(doc_bytes(m), score(s)) for m, s in ks[b"bigz"]["zset"]] == bigz,
          "lzdoc: a big sorted set (several chunks) is written whole, scores exact")

    # A hand-edited document: pairs out of order load sorted.
    def reorder(doc):
        keys_of(doc)[b"z"]["zset"].reverse()

    def write(data):
        dd = tempfile.mkdtemp(dir=work)
        p = os.path.join(dd, "queue.json")
        with open(p, "wb") as f:
            f.write(data)
        return dd, p

    doc2 = json.loads(good)
    reorder(doc2)
    dd, _ = write(json.dumps(doc2).encode())
    c2 = Casq(PORT, dd).start()
    r2 = c2.client()
    check(r2.zrange(b"z", 0, -1, withscores=True) == zrange, "lzdoc: pairs out of order load sorted")
    check(r2.object("encoding", b"bigz") == b"skiplist" and r2.object("encoding", b"z") == b"listpack",
          "lzdoc: encodings are computed on load")
    r2.close()
    c2.stop()

    def case(name, fn):
        doc = json.loads(good)
        fn(keys_of(doc))
        return name, json.dumps(doc).encode()

    cases = [
        case("list not an array", lambda k: k[b"l"].__setitem__("list", {"a": 1})),
        case("empty list", lambda k: k[b"l"].__setitem__("list", [])),
        case("list element a number", lambda k: k[b"l"]["list"].__setitem__(0, 5)),
        case("list element bad base64", lambda k: k[b"l"]["list"].__setitem__(0, {"base64": "!!"})),
        case("zset not an array", lambda k: k[b"z"].__setitem__("zset", "x")),
        case("empty zset", lambda k: k[b"z"].__setitem__("zset", [])),
        case("zset pair of three", lambda k: k[b"z"]["zset"][0].append(1)),
        case("zset score a word", lambda k: k[b"z"]["zset"][0].__setitem__(1, "abc")),
        case("zset score null", lambda k: k[b"z"]["zset"][0].__setitem__(1, None)),
        case("zset duplicate member", lambda k: k[b"z"]["zset"].append(list(k[b"z"]["zset"][0]))),
        case("zset member a number", lambda k: k[b"z"]["zset"][0].__setitem__(0, 7)),
        case("list value missing", lambda k: k[b"l"].pop("list")),
    ]
    # A score too big for a double (JSON allows it; casq must refuse it).
    big = good.replace(b'["m1",1.5]', b'["m1",1e400]')
    if big != good:
        cases.append(("zset score out of range", big))
    for name, data in cases:
        dd, p = write(data)
        before = hashlib.sha256(data).hexdigest()
        st = os.stat(p)
        code, out = run_casq_expect_exit(PORT, dd)
        with open(p, "rb") as f:
            after = hashlib.sha256(f.read()).hexdigest()
        st2 = os.stat(p)
        ok = code not in (None, 0) and before == after and st.st_ino == st2.st_ino and "queue.json" in out
        check(ok, f"lzdoc: refused, file untouched: {name}", f"exit {code}: {out[-300:]}")

    shutil.rmtree(work, ignore_errors=True)
    finish()


if __name__ == "__main__":
    main()
