#!/usr/bin/python3
"""test_segments_failover.py -- two nodes on one document while segments
are sealed, rewritten and deleted (docs/state-format.md "Segments").

Node A is the broker with tiny segments (seal 4kb, max 32kb), at most 4
records of them in the root (the others in manifests) and the
shortest grace period (2 x broker-timeout + load): pushers and workers
(XREADGROUP + XACK + XDEL) keep it sealing, rewriting and deleting garbage.
Node B follows the same document: it reloads the root after A's commits
and fetches the segments it names while A deletes the ones it dropped. A
is SIGKILLed in the middle of it (more than once: after each take-over the
new broker is killed in its turn and restarted as a follower), and the
follower takes over. At the end:

  - the followers never refused a root for good (a missing segment makes
    them read the root again: logged, not fatal);
  - every acknowledged XADD not deleted since is there, byte for byte, and
    no acknowledged XDEL came back (read from the broker the document
    names: the one deposed by the last start-up serves its older state
    until it learns, see README "Several nodes");
  - after the last take-over and its sweep, every segment file is named by
    the root.
"""

import os
import random
import shutil
import signal
import sys
import tempfile
import threading
import time

import redis

sys.path.insert(0, os.path.dirname(__file__))
from casqtest import (Casq, check, finish, load_document, pick_port, segment_files, segment_reader,  # noqa: E402
                      stream_object_names)

BROKER_TIMEOUT_MS = 400
ROUNDS = int(os.environ.get("SEGFAIL_ROUNDS", "4"))
ARGS = ["--segment-seal-bytes", "4kb", "--segment-max-bytes", "32kb", "--segment-merge-fanout", "4",
        "--segment-root-records", "4",
        "--segment-gc-grace", "0", "--broker-timeout", str(BROKER_TIMEOUT_MS), "--stream-id-mode", "liberal"]
KEY = b"jobs"
GROUP = b"g"
UNKNOWN = (redis.ConnectionError, redis.TimeoutError, redis.ResponseError, OSError)
_used = set()

lock = threading.Lock()
acked_adds = {}
maybe_dels = set()
acked_dels = set()
stop = threading.Event()
nodes = []  # the two Casq objects; clients try both


def port():
    p = pick_port(int(os.environ.get("SEGFAIL_PORT_BASE", "27720")), span=20, avoid=tuple(_used))
    _used.add(p)
    return p


def client_of(i):
    return redis.Redis(port=nodes[i % 2].port, socket_timeout=5)


def pusher(n):
    i = 0
    r = client_of(n)
    while not stop.is_set():
        f = {b"n": b"%d-%d" % (n, i), b"p": os.urandom(6) + b"-" * (i % 40)}
        i += 1
        try:
            eid = r.xadd(KEY, f)
            with lock:
                acked_adds[eid] = f
        except UNKNOWN:
            r = client_of(n + i)  # either node: a follower relays
            time.sleep(0.05)


def worker(n):
    r = client_of(n)
    while not stop.is_set():
        try:
            try:
                r.xgroup_create(KEY, GROUP, id="0", mkstream=True)
            except redis.ResponseError as e:
                if "BUSYGROUP" not in str(e):
                    raise
            got = r.xreadgroup(GROUP, b"w%d" % n, {KEY: ">"}, count=40, block=100)
            for _k, entries in got or []:
                done = [i for i, _ in entries if random.random() < 0.8]
                if done:
                    r.xack(KEY, GROUP, *done)
                    with lock:
                        maybe_dels.update(done)
                    r.xdel(KEY, *done)
                    with lock:
                        acked_dels.update(done)
        except UNKNOWN:
            r = client_of(n + 1)
            time.sleep(0.05)


def role(n):
    try:
        r = n.client(socket_timeout=2)
        v = r.info("persistence").get("broker_role")
        r.close()
        return v
    except UNKNOWN:
        return None


def the_broker(datadir):
    """The node the document names as its broker, once it is the only node
    that says it is: a broker deposed by the last start-up goes on serving
    reads from its state until its next commit or probe (broker-timeout/4
    when idle) tells it, and that state lacks what the new broker
    acknowledged meanwhile. Returns (node, why not)."""
    deadline = time.time() + 10
    while True:
        address = load_document(os.path.join(datadir, "queue.json"), merge=False)["broker"]["address"]
        named = next((n for n in nodes if address.endswith(f":{n.port}")), None)
        roles = [role(n) for n in nodes]
        if named and roles.count("broker") == 1 and roles[nodes.index(named)] == "broker":
            return named, ""
        if time.time() > deadline:
            return named or nodes[0], f"the document names {address}; the nodes say {roles}"
        time.sleep(0.05)


def main():
    datadir = tempfile.mkdtemp(prefix="casq-segfail-")
    a = Casq(port(), datadir, *ARGS, logname="a.log").start()
    b = Casq(port(), datadir, *ARGS, logname="b.log").start()  # takes over; a follows
    nodes.extend([a, b])
    threads = [threading.Thread(target=pusher, args=(i,)) for i in range(3)]
    threads += [threading.Thread(target=worker, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    takeovers = 0
    try:
        for _ in range(ROUNDS):
            time.sleep(random.uniform(1.5, 3.0))
            broker, why = the_broker(datadir)
            follower = next(n for n in nodes if n is not broker)
            if why:
                continue
            broker.kill(signal.SIGKILL)
            deadline = time.time() + 10
            while time.time() < deadline and role(follower) != "broker":
                time.sleep(0.05)
            if role(follower) == "broker":
                takeovers += 1
            broker.start()  # takes over again at start-up, or follows
    finally:
        stop.set()
        for t in threads:
            t.join()
    check(takeovers >= ROUNDS - 1, f"segfail: the follower took over after the broker's SIGKILL ({takeovers} times)")

    broker, why = the_broker(datadir)
    check(not why, "segfail: one node is the broker, the one the document names", why)
    r = broker.client()
    info = r.info("persistence")
    print(f"# broker: segments {info.get('segments')}, sealed {info.get('segments_sealed')}, "
          f"rewritten {info.get('segments_rewritten')}, deleted {info.get('segments_deleted')}; "
          f"acknowledged XADD {len(acked_adds)}", flush=True)
    present = dict(r.xrange(KEY, "-", "+"))
    lost = [i for i, f in acked_adds.items() if i not in maybe_dels and present.get(i) != f]
    check(len(acked_adds) > 1000, f"segfail: enough acknowledged XADDs ({len(acked_adds)})")
    check(not lost, "segfail: every acknowledged XADD not deleted since is there, byte for byte",
          f"{len(lost)} lost, e.g. {lost[:3]}")
    back = [i for i in acked_dels if i in present]
    check(not back, "segfail: no acknowledged XDEL came back", f"{len(back)} back, e.g. {back[:3]}")
    logs = "".join(open(n.log, "rb").read().decode("utf-8", "replace") for n in nodes)
    check("casq refuses to start" not in logs, "segfail: no node refused a root")
    rereads = logs.count("reading the root again")
    print(f"# roots read again after a missing segment: {rereads}", flush=True)

    # The last broker's sweep: every file named by the root.
    names = []
    deadline = time.time() + 15
    while time.time() < deadline:
        doc = load_document(os.path.join(datadir, "queue.json"), merge=False)
        try:
            names = [n for d in doc["databases"] for k in d["keys"]
                     for n in stream_object_names(k.get("stream", {}), segment_reader(datadir))]
        except OSError:  # a manifest deleted after the root was read: read again
            continue
        files = segment_files(datadir)
        if set(files) == set(names):
            break
        time.sleep(0.3)
    files = segment_files(datadir)
    check(set(files) == set(names), "segfail: after the sweep every segment file is named by the root",
          f"extra {sorted(set(files) - set(names))[:3]}, missing {sorted(set(names) - set(files))[:3]}")
    r.close()
    for n in nodes:
        n.stop()
    if lost:
        # Kept for diagnosis (the nodes' logs, the root, the segments); the
        # logs' ends go into the test output, which CI keeps.
        print(f"# kept {datadir} for diagnosis", flush=True)
        for n in nodes:
            tail = open(n.log, "rb").read().decode("utf-8", "replace").splitlines()[-40:]
            print("\n".join(f"# {os.path.basename(n.log)}: {line}" for line in tail), flush=True)
    else:
        shutil.rmtree(datadir, ignore_errors=True)
    finish()


if __name__ == "__main__":
    main()
