#!/usr/bin/python3
"""e2e_proxy.py -- faultproxy.py plus a record of every commit that landed.

    /usr/bin/python3 tests/s3/e2e_proxy.py --listen 127.0.0.1:30481 \
        --upstream 127.0.0.1:22480

The same proxy as faultproxy.py (same faults, same /__fault__ control API;
this module only extends its handler), and one more thing the end-to-end
tests need to prove "no commit applied twice": for every PUT that the S3
server accepted (2xx), it records the state document's `commit_seq` and
broker epoch, in the order the server applied them. The object store only
keeps the latest version, so without this record a commit applied twice
(or an older one applied after a newer one) could go unseen.

  GET  /__applied__   JSON: {"applied": [{"path", "commit_seq", "epoch",
                      "size", "etag"}, ...]} in the order upstream answered
  POST /__applied__   clears the record

Applied PUTs are recorded under a lock held across the upstream request, so
the record's order is the order in which the S3 server applied them (casq
sends at most one PUT at a time anyway; when two casq processes race, the
S3 server still decides each conditional PUT, one after the other).

A PUT whose body arrived incomplete (its client died while sending) is not
forwarded (counter puts_truncated): faultproxy.py would forward the short
body with the full Content-Length and the upstream request would hang.
"""

import json
import os
import re
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import faultproxy  # noqa: E402

APPLIED_PATH = "/__applied__"
# The header of the state document is at its start (docs/state-format.md);
# a regex over the first bytes avoids parsing megabytes per commit.
SEQ_RE = re.compile(rb'"commit_seq"\s*:\s*"?(\d+)')
EPOCH_RE = re.compile(rb'"broker"\s*:\s*\{[^}]*"epoch"\s*:\s*"?(\d+)')

FAULTS = faultproxy.STATE
APPLIED = []
APPLIED_LOCK = threading.Lock()
# Serialises forwarded PUTs so that the record's order is upstream's order.
PUT_ORDER = threading.Lock()


def document_header(body):
    """(commit_seq, epoch) of a state document; None for what is unknown."""
    head = body[:65536]
    seq = SEQ_RE.search(head)
    epoch = EPOCH_RE.search(head)
    if seq is None or epoch is None:
        try:
            doc = json.loads(body)
            return doc.get("commit_seq"), (doc.get("broker") or {}).get("epoch")
        except (ValueError, AttributeError):
            return None, None
    return int(seq.group(1)), int(epoch.group(1))


class RecordingHandler(faultproxy.ProxyHandler):
    def forward(self, body):
        if self.command != "PUT":
            return super().forward(body)
        expected = int(self.headers.get("Content-Length") or 0)
        if len(body) != expected:
            # The client died mid-upload (the crash test SIGKILLs casq while
            # it sends). Forwarding the short body with the original
            # Content-Length would leave the upstream request hanging (and
            # PUT_ORDER held); S3 never applies a truncated body either.
            FAULTS.count("puts_truncated")
            self.close_connection = True
            return None
        with PUT_ORDER:
            result = super().forward(body)
            if result is not None and 200 <= result[0] < 300:
                seq, epoch = document_header(body)
                etag = dict((k.lower(), v) for k, v in result[2]).get("etag", "")
                with APPLIED_LOCK:
                    APPLIED.append({"path": self.path.split("?")[0], "commit_seq": seq, "epoch": epoch,
                                    "size": len(body), "etag": etag.strip('"')})
        return result

    def applied_api(self):
        self.read_body()
        with APPLIED_LOCK:
            if self.command == "POST":
                del APPLIED[:]
            data = json.dumps({"applied": APPLIED}).encode() + b"\n"
        self.reply(200, data, [("Content-Type", "application/json")])

    def do_GET(self):
        if self.path.split("?")[0] == APPLIED_PATH:
            return self.applied_api()
        return super().do_GET()

    def do_POST(self):
        if self.path.split("?")[0] == APPLIED_PATH:
            return self.applied_api()
        return super().do_POST()


def main():
    faultproxy.ProxyHandler = RecordingHandler  # main() builds its server with this name
    faultproxy.main()


if __name__ == "__main__":
    main()
