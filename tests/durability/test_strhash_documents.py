#!/usr/bin/python3
"""test_strhash_documents.py -- string and hash values in the state
document (docs/state-format.md): casq refuses a document whose string or
hash value is malformed, saying where and what, and loads a well-formed one
(hand-written, binary values in base64) with Redis's encodings.
Ports 24700-24799 (STRHASH_DOC_PORT overrides).
"""

import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from casqtest import Casq, check, finish, pick_port, run_casq_expect_exit  # noqa: E402

PORT = int(os.environ.get("STRHASH_DOC_PORT", "0")) or pick_port(24700, span=100)

BAD = [
    ({"key": "a", "type": "string", "string": 5}, 'string: value: expected a string'),
    ({"key": "a", "type": "string", "string": {"base64": "!!"}}, "invalid base64"),
    ({"key": "a", "type": "string", "string": {"base64": "AA==", "x": 1}}, "expected a string"),
    ({"key": "a", "type": "string", "string": None}, "expected a string"),
    ({"key": "h", "type": "hash", "hash": {"a": "b"}}, "expected an array of [field, value] pairs"),
    ({"key": "h", "type": "hash", "hash": []}, "a hash has at least one field"),
    ({"key": "h", "type": "hash", "hash": [["a"]]}, "pair #0: expected [field, value]"),
    ({"key": "h", "type": "hash", "hash": [["a", "b", "c"]]}, "pair #0: expected [field, value]"),
    ({"key": "h", "type": "hash", "hash": [["a", "b"], ["a", "c"]]}, "pair #1: the field appears twice"),
    ({"key": "h", "type": "hash", "hash": [["a", 1]]}, "pair #0: value: expected a string"),
    ({"key": "h", "type": "hash", "hash": [[["a"], "b"]]}, "pair #0: field: expected a string"),
    ({"key": "h", "type": "hash", "hash": [["a", "b"], "c"]}, "pair #1: expected [field, value]"),
    ({"key": "h", "type": "hash", "string": "x"}, 'unknown field "string"'),
]


def write(d, keys):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "queue.json"), "w") as f:
        json.dump({"format": 2, "databases": [{"id": 0, "keys": keys}]}, f)


def main():
    work = tempfile.mkdtemp(prefix="casq-strhash-doc-")
    for i, (key, want) in enumerate(BAD):
        d = os.path.join(work, f"bad{i}")
        write(d, [key])
        code, out = run_casq_expect_exit(PORT, d)
        check(code not in (0, None) and want in out,
              f"strhash-doc: refuses {json.dumps(key)[:70]}", f"exit {code}, log: {out[-300:]}")

    d = os.path.join(work, "good")
    big = [[f"f{i}", str(i)] for i in range(600)]
    write(d, [
        {"key": "s", "type": "string", "string": "12"},
        {"key": "e", "type": "string", "string": "hello"},
        {"key": {"base64": "AP8="}, "type": "string", "string": {"base64": "AAEC/w=="}, "expires_at_ms": 4000000000000},
        {"key": "h", "type": "hash", "hash": [["z", "1"], ["a", {"base64": "AP8="}]]},
        {"key": "big", "type": "hash", "hash": big},
        {"key": "long", "type": "hash", "hash": [["f", "x" * 65]]},
    ])
    casq = Casq(PORT, d).start()
    r = casq.client()
    check(r.get("s") == b"12" and r.object("encoding", "s") == b"int", "strhash-doc: an integer string loads as int")
    check(r.object("encoding", "e") == b"embstr", "strhash-doc: a short string loads as embstr")
    check(r.get(b"\x00\xff") == b"\x00\x01\x02\xff" and r.ttl(b"\x00\xff") > 0,
          "strhash-doc: binary key and value, with the TTL")
    check(r.hgetall("h") == {b"z": b"1", b"a": b"\x00\xff"} and r.hkeys("h") == [b"z", b"a"],
          "strhash-doc: a hash keeps the document's order")
    check(r.object("encoding", "h") == b"listpack" and r.object("encoding", "big") == b"hashtable"
          and r.object("encoding", "long") == b"hashtable",
          "strhash-doc: hashes load as listpack or hashtable by Redis's rules")
    check(r.hlen("big") == 600 and r.hget("big", "f599") == b"599", "strhash-doc: a big hash loads whole")
    r.close()
    check(casq.stop() == 0, "strhash-doc: clean shutdown")
    shutil.rmtree(work, ignore_errors=True)
    finish()


if __name__ == "__main__":
    main()
