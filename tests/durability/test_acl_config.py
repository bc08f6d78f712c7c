#!/usr/bin/python3
"""test_acl_config.py -- ACL users from the configuration (`user` lines,
as in redis.conf): they exist from the start, survive a restart (they are
configuration, not queue state: the state document never holds them), and
a bad `user` line stops the start-up with the reason.
"""

import os
import shutil
import sys
import tempfile

import redis

sys.path.insert(0, os.path.dirname(__file__))
from casqtest import Casq, check, finish, pick_port, run_casq_expect_exit  # noqa: E402

PORT = int(os.environ.get("ACLCONF_PORT", "0")) or pick_port(26170)
USER = ["--user", "worker", "on", ">wpw", "+@stream", "+ping", "~jobs:*"]


def main():
    d = tempfile.mkdtemp(prefix="casq-aclconf-")
    for round_ in ("first start", "after a restart"):
        casq = Casq(PORT, d, *USER).start()
        w = redis.Redis(port=PORT, username="worker", password="wpw", socket_timeout=5)
        ok = w.ping() and w.xadd(b"jobs:1", {b"f": b"v"})
        check(bool(ok), f"aclconf[{round_}]: the configured user authenticates and writes jobs:*")
        try:
            w.xadd(b"other", {b"f": b"v"})
            check(False, f"aclconf[{round_}]: its key pattern applies")
        except redis.ResponseError as e:
            check("No permissions to access a key" in str(e), f"aclconf[{round_}]: its key pattern applies", str(e))
        w.close()
        casq.stop()
    doc = open(os.path.join(d, "queue.json"), "rb").read()
    check(b"worker" not in doc and b"wpw" not in doc, "aclconf: users are not in the state document")

    code, out = run_casq_expect_exit(PORT, d, "--user", "bad", "on", "+nosuchcommand")
    check(code not in (None, 0) and "Error in user declaration" in out and "+nosuchcommand" in out,
          "aclconf: a bad user line stops the start-up and says why", out.strip().splitlines()[-1:])
    shutil.rmtree(d, ignore_errors=True)
    finish()


if __name__ == "__main__":
    main()
