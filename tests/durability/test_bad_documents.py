#!/usr/bin/python3
"""test_bad_documents.py -- casq refuses to start on a document it cannot
read, says which file and what is wrong, and never modifies it.

For each broken document: casq must exit non-zero by itself, the file must
be byte-identical (same inode, same mtime) afterwards, and the log must
name the file's absolute path and the problem.
"""

import hashlib
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from casqtest import Casq, check, finish, pick_port, run_casq_expect_exit  # noqa: E402

PORT = int(os.environ.get("BADDOC_PORT", "0")) or pick_port(26120)


def good_document(workdir):
    """A real document written by casq: a stream with binary data, a group,
    a consumer and a pending entry."""
    d = os.path.join(workdir, "good")
    casq = Casq(PORT, d).start()
    r = casq.client()
    for i in range(20):
        r.xadd(b"jobs", {b"n": str(i).encode(), b"bin": b"\x00\xff" * 3})
    r.xgroup_create(b"jobs", b"g", id="0")
    r.xreadgroup(b"g", b"alice", {b"jobs": ">"}, count=3)
    r.close()
    casq.stop()
    with open(os.path.join(d, "queue.json"), "rb") as f:
        # The file store may pad the document with trailing whitespace
        # (docs/state-format.md): the cases below cut the JSON text itself.
        return f.read().rstrip()


def edit(good, fn):
    doc = json.loads(good)
    fn(doc)
    return json.dumps(doc).encode()


def stream_of(doc):
    return doc["databases"][0]["keys"][0]["stream"]


def cases(good):
    def swap_entries(d):
        e = stream_of(d)["entries"]
        e[0], e[1] = e[1], e[0]

    def bad_length(d):
        stream_of(d)["length"] = 99

    def ghost_consumer(d):
        stream_of(d)["groups"][0]["pending"][0][1] = "nobody"

    def bad_base64(d):
        stream_of(d)["entries"][0][4] = {"base64": "!!!not base64!!!"}

    def dup_key(d):
        keys = d["databases"][0]["keys"]
        keys.append(keys[0])

    def db_range(d):
        d["databases"][0]["id"] = 99

    def unknown_field(d):
        d["surprise"] = True

    def no_format(d):
        del d["format"]

    def wrong_type(d):
        d["databases"][0]["keys"][0]["type"] = "bogus"

    return [
        ("empty file", b"", "empty"),
        ("whitespace only", b"  \n\t\n", "empty"),
        ("truncated", good[: len(good) // 2], "truncated"),
        ("truncated by one byte", good[:-2], "truncated"),
        ("corrupt bytes", good.replace(b'"databases":[', b'"databases":[@#!', 1), "invalid JSON at byte"),
        ("mismatched bracket", good.replace(b'"databases":[', b'"databases":{', 1), "invalid JSON at byte"),
        ("trailing garbage", good + b"xyz", "unexpected data after the JSON document"),
        ("NUL byte", good[:50] + b"\x00" + good[51:], "NUL byte"),
        ("not an object", b"[1,2,3]", "top level must be a JSON object"),
        ("wrong format (99)", edit(good, lambda d: d.update(format=99)), "unsupported format 99"),
        ("no format", edit(good, no_format), "no \"format\" field"),
        ("unknown field", edit(good, unknown_field), "unknown field \"surprise\""),
        ("entries out of order", edit(good, swap_entries), "entry #1"),
        ("length mismatch", edit(good, bad_length), "length"),
        ("pending owner missing", edit(good, ghost_consumer), "pending"),
        ("invalid base64", edit(good, bad_base64), "base64"),
        ("duplicate key", edit(good, dup_key), "appears twice"),
        ("database out of range", edit(good, db_range), "database 99 does not exist"),
        ("unsupported type", edit(good, wrong_type), "type \"bogus\" is not supported"),
        # Issue 14, fault 6: unknown and duplicate fields inside streams,
        # groups and consumers were accepted, then dropped by the next
        # commit (a duplicated "entries" lost entries for good).
        ("duplicate stream field", good.replace(b'"entries":[', b'"entries":[],"entries":[', 1),
         "field \"entries\" appears twice"),
        ("unknown stream field", edit(good, lambda d: stream_of(d).update(extra=1)), "unknown field \"extra\""),
        ("unknown group field", edit(good, lambda d: stream_of(d)["groups"][0].update(extra=1)),
         "unknown field \"extra\""),
        ("unknown consumer field", edit(good, lambda d: stream_of(d)["groups"][0]["consumers"][0].update(extra=1)),
         "unknown field \"extra\""),
        # Found by fuzz_state: a broker id that is not valid UTF-8 loaded,
        # and casq then wrote it as {"base64": ...}, which it refused at
        # its next start.
        ("broker id not plain text", good.replace(b'"broker":{"id":"', b'"broker":{"id":"\xff', 1),
         "broker.id: expected a non-empty string of plain text"),
    ]


def identity(path):
    st = os.stat(path)
    with open(path, "rb") as f:
        return (hashlib.sha256(f.read()).hexdigest(), st.st_ino, st.st_size, st.st_mtime_ns)


def main():
    workdir = tempfile.mkdtemp(prefix="casq-baddoc-")
    good = good_document(workdir)
    check(json.loads(good)["format"] == 3, "baddoc: casq writes a format 3 document")
    for n, (name, content, problem) in enumerate(cases(good)):
        d = os.path.join(workdir, f"case{n}")
        os.makedirs(d)
        path = os.path.join(d, "queue.json")
        with open(path, "wb") as f:
            f.write(content)
        before = identity(path)
        code, out = run_casq_expect_exit(PORT, d)
        after = identity(path)
        check(code is not None and code != 0, f"baddoc[{name}]: casq refuses to start", f"exit code {code}")
        check(before == after, f"baddoc[{name}]: the document is untouched")
        check(path in out and problem in out, f"baddoc[{name}]: the message names the file and the problem",
              f"expected {path!r} and {problem!r} in: {out.strip().splitlines()[-2:]}")
        print("#   " + ([l for l in out.splitlines() if "Fatal" in l] or ["?"])[0].split(" # ", 1)[-1])
        check(not os.path.exists(path + ".tmp"), f"baddoc[{name}]: no temporary file left")

    # The original is still good: casq starts on it.
    d = os.path.join(workdir, "good")
    casq = Casq(PORT, d).start()
    r = casq.client()
    check(r.xlen(b"jobs") == 20, "baddoc: the good document still loads")
    r.close()
    casq.stop()
    shutil.rmtree(workdir, ignore_errors=True)
    finish()


if __name__ == "__main__":
    main()
