#!/usr/bin/python3
"""test_two_brokers.py -- two casq processes on the same document: only one
can commit; the deposed one's pending writes fail with a clear error, then it
forwards to the new broker; nothing acknowledged is lost.

A starts on the document and serves pushers. B starts on the same
document while they run: it takes over (CAS write of a new broker record,
epoch+1). A learns at its next commit (CAS conflict): the replies waiting on
it become errors and A reloads as a follower, forwarding further commands
to B (test_failover.py tests forwarding in depth). The pushers move to B. Every XADD either side acknowledged must be in the
document and on B.
"""

import os
import shutil
import sys
import tempfile
import threading
import time

import redis

sys.path.insert(0, os.path.dirname(__file__))
from casqtest import Casq, check, document_streams, finish, load_document, pick_port, stream_entries  # noqa: E402

PORT_A = int(os.environ.get("TWOB_PORT", "0")) or pick_port(26140)
PORT_B = pick_port(26140, avoid=(PORT_A,))

lock = threading.Lock()
acked = {}  # id -> (node, fields)
errors = []  # (node, message)
stop = threading.Event()


def pusher(i, state):
    clients = {"A": redis.Redis(port=PORT_A, socket_timeout=30), "B": redis.Redis(port=PORT_B, socket_timeout=30)}
    n = 0
    while not stop.is_set():
        n += 1
        node = state["target"]
        fields = {b"p": f"{i}-{n}".encode(), b"bin": b"\x00\xff"}
        try:
            eid = clients[node].xadd(b"jobs", fields)
        except redis.ResponseError as e:
            with lock:
                errors.append((node, str(e)))
            time.sleep(0.01)
            continue
        except redis.exceptions.BusyLoadingError as e:
            # -LOADING: redis-py raises it as a ConnectionError subclass.
            with lock:
                errors.append((node, "LOADING " + str(e)))
            time.sleep(0.01)
            continue
        except (redis.ConnectionError, redis.TimeoutError) as e:
            with lock:
                errors.append((node, "connection: " + str(e)))
            time.sleep(0.01)
            continue
        with lock:
            acked[eid] = (node, [x for kv in fields.items() for x in kv])
        time.sleep(0.002)


def main():
    datadir = tempfile.mkdtemp(prefix="casq-twob-")
    doc = os.path.join(datadir, "queue.json")
    a = Casq(PORT_A, datadir, logname="a.log").start()
    # A client blocked on A before the take-over stays blocked through A's
    # reload (blocked clients wait on key names, not on objects); once A is
    # a follower, it is unblocked with -UNBLOCKED, as Redis does when a
    # master becomes a replica (what it waits for will never be added on A).
    ra0 = a.client(socket_timeout=120)
    ra0.xgroup_create(b"idle", b"g", id="$", mkstream=True)
    blocked_result = {}

    def blocked_reader():
        try:
            blocked_result["reply"] = ra0.xreadgroup(b"g", b"c1", {b"idle": ">"}, block=0)
        except Exception as e:  # noqa: BLE001
            blocked_result["error"] = str(e)

    blocked = threading.Thread(target=blocked_reader)
    blocked.start()
    state = {"target": "A"}
    threads = [threading.Thread(target=pusher, args=(i, state)) for i in range(3)]
    for t in threads:
        t.start()
    time.sleep(0.5)
    b = Casq(PORT_B, datadir, logname="b.log").start()
    time.sleep(0.5)  # the pushers keep writing to A, which was taken over
    a_errors_before_switch = [m for node, m in errors if node == "A"]
    state["target"] = "B"
    time.sleep(0.5)
    stop.set()
    for t in threads:
        t.join()

    ra, rb = a.client(), b.client()

    def settled_info(r):
        """INFO persistence once the node is not reloading (a follower
        reloads after refusing a write)."""
        while True:
            info = r.info("persistence")
            if not info["loading"]:
                return info
            time.sleep(0.01)

    info_a, info_b = settled_info(ra), settled_info(rb)
    blocked.join(10)
    check(not blocked.is_alive() and "UNBLOCKED" in blocked_result.get("error", "")
          and ra.info("clients")["blocked_clients"] == 0,
          "twob: a client blocked on the deposed process gets -UNBLOCKED once it is a follower", f"{blocked_result}")
    check(info_b["broker_role"] == "broker" and info_b["broker_epoch"] == 2,
          "twob: the second process took over (broker, epoch 2)", f"{info_b['broker_role']} {info_b['broker_epoch']}")
    check(info_a["broker_role"] == "follower", "twob: the first process stepped down", info_a["broker_role"])
    check(info_a["commit_conflicts"] >= 1, "twob: the first process saw a CAS conflict")
    # TRYAGAIN (conflict, then "not the broker"), or LOADING while it reloads.
    odd = [m for m in a_errors_before_switch if not m.startswith(("TRYAGAIN", "LOADING"))]
    check(any(m.startswith("TRYAGAIN") for m in a_errors_before_switch) and not odd,
          "twob: writes to the deposed process fail with an error", f"{odd[:2] or a_errors_before_switch[:2]}")
    if a_errors_before_switch:
        kinds = sorted({m.split(":")[0] for m in a_errors_before_switch})
        print(f"#   errors on A: {kinds}")
    # A follower forwards to the broker (design.md §5, src/broker.c).
    late = None
    while late is None:
        try:
            late = ra.xadd(b"jobs", {b"late": b"1"})
        except redis.BusyLoadingError:
            time.sleep(0.01)
    check(rb.xrange(b"jobs", late, late) == [(late, {b"late": b"1"})],
          "twob: a write to the follower is forwarded to the broker")

    acked_a = sum(1 for node, _ in acked.values() if node == "A")
    acked_b = sum(1 for node, _ in acked.values() if node == "B")
    check(acked_a > 0 and acked_b > 0, f"twob: both processes acknowledged writes (A {acked_a}, B {acked_b})")
    present = {eid: [x for kv in f.items() for x in kv] for eid, f in rb.xrange(b"jobs", "-", "+")}
    lost = [eid for eid, (_, f) in acked.items() if present.get(eid) != f]
    check(not lost, "twob: every acknowledged XADD is on the broker", f"lost {len(lost)}: {lost[:3]}")
    s = document_streams(load_document(doc)).get(b"jobs")
    on_disk = {e[0].encode(): e[1] for e in stream_entries(s)}
    lost = [eid for eid, (_, f) in acked.items() if on_disk.get(eid) != f]
    check(not lost, "twob: every acknowledged XADD is in the document", f"lost {len(lost)}")
    check(sum(1 for f in present.values() if f == [b"late", b"1"]) == 1, "twob: the forwarded write is stored once")

    ra.close()
    rb.close()
    check(b.stop() == 0, "twob: broker shuts down cleanly")
    a.stop()
    shutil.rmtree(datadir, ignore_errors=True)
    finish()


if __name__ == "__main__":
    main()
