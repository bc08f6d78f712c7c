#!/usr/bin/python3
"""test_acl_config.py -- ACL users from the configuration (`user` lines,
as in redis.conf, or an aclfile with ACL SAVE / ACL LOAD): they exist from
the start, survive a restart (they are configuration, not queue state: the
state document never holds them), and a bad line stops the start-up (or
ACL LOAD) with the reasons, as redis-server words them.
"""

import os
import shutil
import sys
import tempfile
import time

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
    aclfile_scenario()
    finish()


def aclfile_scenario():
    """aclfile, ACL SAVE and ACL LOAD (texts as redis-server 7's)."""
    d = tempfile.mkdtemp(prefix="casq-aclfile-")
    path = os.path.join(d, "users.acl")
    with open(path, "w") as f:
        f.write("user default on nopass ~* &* +@all\nuser worker on >wpw +@stream +ping ~jobs:*\n")
    casq = Casq(PORT, d, "--aclfile", path).start()
    r = casq.client()
    w = redis.Redis(port=PORT, username="worker", password="wpw", socket_timeout=5)
    check(w.ping() and w.xadd(b"jobs:1", {b"f": b"v"}), "aclfile: users are loaded from the file at start")
    r.execute_command("ACL", "SETUSER", "another", "on", ">apw", "+xlen", "~*")
    check(r.execute_command("ACL", "SAVE") == b"OK", "aclfile: ACL SAVE")
    lines = open(path).read().splitlines()
    check(lines[0].startswith("user another on #") and lines[0].endswith(" ~* resetchannels -@all +xlen"),
          "aclfile: ACL SAVE writes ACL LIST lines", lines[0])
    check(lines[1] == "user default on nopass ~* &* +@all" and lines[2].startswith("user worker on #"),
          "aclfile: ... every user, in name order", str(lines))
    with open(path, "a") as f:
        f.write("user bad on +nosuchcmd\nbogus line\n")
    try:
        r.execute_command("ACL", "LOAD")
        check(False, "aclfile: a bad file is refused by ACL LOAD")
    except redis.ResponseError as e:
        msg = str(e)
        check(f"{path}:4: Error in applying operation '+nosuchcmd': Unknown command or category name in ACL." in msg
              and f"{path}:5 should start with user keyword followed by the username." in msg
              and msg.endswith("WARNING: ACL errors detected, no change to the previously active ACL rules was performed"),
              "aclfile: a bad file is refused by ACL LOAD, with every error", msg)
    check(w.ping(), "aclfile: ... and nothing changed")
    with open(path, "w") as f:
        f.write("user default on nopass ~* &* +@all\nuser another on >apw +xlen ~*\n")
    check(r.execute_command("ACL", "LOAD") == b"OK", "aclfile: ACL LOAD of a good file")
    time.sleep(0.2)
    listing = r.execute_command("CLIENT", "LIST")
    check(b"user=worker" not in listing, "aclfile: ... closes the connections of the replaced users")
    try:
        w.ping()
        check(False, "aclfile: ... and the removed user cannot come back")
    except (redis.ConnectionError, redis.ResponseError) as e:
        check(True, "aclfile: ... and the removed user cannot come back", str(e))
    users = sorted(r.execute_command("ACL", "USERS"))
    check(users == [b"another", b"default"], "aclfile: ... and the users are the file's", str(users))
    r.close()
    w.close()
    casq.stop()
    casq = Casq(PORT, d, "--aclfile", path).start()
    users = sorted(casq.client().execute_command("ACL", "USERS"))
    check(users == [b"another", b"default"], "aclfile: the file's users after a restart", str(users))
    casq.stop()

    code, out = run_casq_expect_exit(PORT, d, "--aclfile", path, "--user", "x", "on")
    check(code not in (None, 0) and "define either an ACL file or declare users directly" in out,
          "aclfile: aclfile and user lines together are refused, as Redis", out.strip().splitlines()[-1:])
    with open(path, "w") as f:
        f.write("user default on >something ~* &* +@all\n")
    code, out = run_casq_expect_exit(PORT, d, "--aclfile", path)
    check(code not in (None, 0) and "Aborting Redis startup because of ACL errors" in out and "requirepass" in out,
          "aclfile: a default line that requirepass does not say is refused", out.strip().splitlines()[-1:])
    casq = Casq(PORT, d).start()
    try:
        casq.client().execute_command("ACL", "SAVE")
        check(False, "aclfile: ACL SAVE without an aclfile is refused")
    except redis.ResponseError as e:
        check(str(e).startswith("This Redis instance is not configured to use an ACL file."),
              "aclfile: ACL SAVE without an aclfile is refused", str(e))
    casq.stop()
    shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
