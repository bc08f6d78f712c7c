#!/usr/bin/python3
"""test_redis8_documents.py -- the state document's parts for issue 11:
a stream's idempotency window ("idmp"), a group's dead-letter policy
("dead_letter") and its NACK zone (XNACK: "nacked", pending entries
without consumer), docs/state-format.md.

  - a document written by casq with both round-trips: a restarted node
    answers a retried XADD IDMP with the recorded ID, keeps XCFGSET's
    settings, the XINFO counters and the policy (which still works);
  - a document written by hand (as the format page shows it) loads;
  - broken ones (unknown field, bad range, duplicate producer, entry ID
    above last_id, dead_letter without a positive max) are refused, the
    file untouched, the log naming the problem.
Ports 31700-31709.
"""

import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from casqtest import Casq, check, finish, pick_port, run_casq_expect_exit  # noqa: E402

PORT = pick_port(31700)


def write(d, doc):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "queue.json"), "wb") as f:
        f.write(doc if isinstance(doc, bytes) else json.dumps(doc).encode())


def scenario_roundtrip(work):
    d = os.path.join(work, "rt")
    a = Casq(PORT, d, "--stream-id-mode", "liberal").start()
    r = a.client()
    eid = r.execute_command("XADD", "jobs", "IDMP", "billing", "order-17", "*", "n", "1")
    auto = r.execute_command("XADD", "jobs", "IDMPAUTO", "p2", "*", "a", "1", "b", b"\x00")
    r.execute_command("XADD", "jobs", "IDMP", "billing", "order-17", "*", "n", "dup")
    r.execute_command("XCFGSET", "jobs", "IDMP-MAXSIZE", "100", "IDMP-DURATION", "100")  # same: kept
    r.execute_command("XGROUP", "CREATE", "jobs", "g", "0")
    r.execute_command("XDEADLETTER", "jobs", "g", "dead", "1")
    r.execute_command("XREADGROUP", "GROUP", "g", "c", "STREAMS", "jobs", ">")
    r.execute_command("XNACK", "jobs", "g", "FAIL", "IDS", "1", auto)
    r.close()
    check(a.stop() == 0, "roundtrip: clean shutdown")
    doc = json.load(open(os.path.join(d, "queue.json")))
    s = [k for k in doc["databases"][0]["keys"] if k["key"] == "jobs"][0]["stream"]
    check(s["idmp"]["iids_added"] == 2 and s["idmp"]["iids_duplicates"] == 1
          and [p["pid"] for p in s["idmp"]["producers"]] == ["billing", "p2"]
          and "base64" in s["idmp"]["producers"][1]["iids"][0][0],
          "roundtrip: the document holds the window as documented (IDMPAUTO's id in base64)", f"{s.get('idmp')}")
    check(s["groups"][0]["dead_letter"] == {"key": "dead", "max_deliveries": 1, "count": 0},
          "roundtrip: ... and the group's dead_letter", f"{s['groups'][0].get('dead_letter')}")
    g0 = s["groups"][0]
    check(g0["nacked"] == [auto.decode()] and [p for p in g0["pending"] if p[1] is None] == [[auto.decode(), None, 0, 1]],
          "roundtrip: ... and the NACK zone (nacked, the pending entry without consumer)", f"{g0}")
    a = Casq(PORT, d, "--stream-id-mode", "liberal").start()
    r = a.client()
    again = r.execute_command("XADD", "jobs", "IDMP", "billing", "order-17", "*", "n", "retry")
    again2 = r.execute_command("XADD", "jobs", "IDMPAUTO", "p2", "*", "b", b"\x00", "a", "1")
    info = r.xinfo_stream(b"jobs")
    pel = r.xpending_range(b"jobs", b"g", "-", "+", 10)
    check([(p["message_id"], p["consumer"], p["time_since_delivered"]) for p in pel]
          == [(eid, b"c", pel[0]["time_since_delivered"]), (auto, b"", -1)],
          "roundtrip: the released entry is still unowned after the restart", f"{pel}")
    check(again == eid and again2 == auto and r.xlen(b"jobs") == 2,
          "roundtrip: after a restart the retries get the recorded IDs", f"{again} {eid} {again2} {auto}")
    check(info.get("iids-added") == 2 and info.get("iids-duplicates") == 3 and info.get("pids-tracked") == 2,
          "roundtrip: the XINFO counters survived", f"{info}")
    r.execute_command("XAUTOCLAIM", "jobs", "g", "d", "0", "0")
    grp = r.xinfo_groups(b"jobs")[0]
    check(r.xlen(b"dead") == 2 and grp.get("dead-lettered") == 2 and r.xpending(b"jobs", b"g")["pending"] == 0,
          "roundtrip: the dead-letter policy survived and works", f"{grp}")
    r.close()
    check(a.stop() == 0, "roundtrip: clean shutdown after the restart")


HAND = {
    "format": 2,
    "databases": [{"id": 0, "keys": [{"key": "jobs", "type": "stream", "stream": {
        "length": 1, "last_id": "1764423000000-0", "first_id": "1764423000000-0", "max_deleted_id": "0-0",
        "entries_added": 1, "entries": [["1764423000000-0", "job", "x"]],
        "groups": [{"name": "g", "last_delivered_id": "1764423000000-0", "entries_read": 1,
                    "dead_letter": {"key": "dead", "max_deliveries": 3, "count": 0},
                    "consumers": [{"name": "c", "seen_time_ms": 1, "active_time_ms": 1}],
                    "pending": [["1764423000000-0", "c", 1, 3]]}],
        "idmp": {"duration": 86400, "maxsize": 5, "iids_added": 1, "iids_duplicates": 0,
                 "producers": [{"pid": "p", "iids": [["order-1", "1764423000000-0", 4102444800000]]}]}}}]}],
}


def scenario_hand(work):
    d = os.path.join(work, "hand")
    write(d, HAND)
    a = Casq(PORT, d, "--stream-id-mode", "liberal").start()
    r = a.client()
    got = r.execute_command("XADD", "jobs", "IDMP", "p", "order-1", "*", "job", "y")
    check(got == b"1764423000000-0" and r.xlen(b"jobs") == 1,
          "hand: a hand-written window answers the retry with its entry ID", f"{got}")
    r.execute_command("XAUTOCLAIM", "jobs", "g", "d", "0", "0")
    check(r.xlen(b"dead") == 1, "hand: a hand-written dead_letter policy applies (count 3 >= max 3)")
    r.close()
    check(a.stop() == 0, "hand: clean shutdown")


def broken_cases():
    def s(doc):
        return doc["databases"][0]["keys"][0]["stream"]

    def unknown_idmp_field(doc):
        s(doc)["idmp"]["extra"] = 1

    def bad_duration(doc):
        s(doc)["idmp"]["duration"] = 0

    def dup_pid(doc):
        s(doc)["idmp"]["producers"].append(s(doc)["idmp"]["producers"][0])

    def id_above_last(doc):
        s(doc)["idmp"]["producers"][0]["iids"][0][1] = "1764423000001-0"

    def empty_iids(doc):
        s(doc)["idmp"]["producers"][0]["iids"] = []

    def dl_zero(doc):
        s(doc)["groups"][0]["dead_letter"]["max_deliveries"] = 0

    def dl_unknown(doc):
        s(doc)["groups"][0]["dead_letter"]["why"] = "x"

    def unowned_not_listed(doc):
        s(doc)["groups"][0]["pending"][0][1] = None
        s(doc)["groups"][0]["pending"][0][2] = 0

    def nacked_owned(doc):
        s(doc)["groups"][0]["nacked"] = ["1764423000000-0"]

    def unowned_time(doc):
        unowned_not_listed(doc)
        s(doc)["groups"][0]["pending"][0][2] = 5
        nacked_owned(doc)

    return [("unowned pending entry not in nacked", unowned_not_listed, "nacked"),
            ("nacked entry with a consumer", nacked_owned, "nacked"),
            ("unowned pending entry with a delivery time", unowned_time, "delivery time"),
            ("unknown idmp field", unknown_idmp_field, "extra"), ("idmp duration 0", bad_duration, "duration"),
            ("producer listed twice", dup_pid, "pid"), ("iid entry ID above last_id", id_above_last, "last_id"),
            ("producer without ids", empty_iids, "iids"), ("dead_letter max_deliveries 0", dl_zero, "max_deliveries"),
            ("unknown dead_letter field", dl_unknown, "why")]


def scenario_broken(work):
    for name, fn, word in broken_cases():
        doc = json.loads(json.dumps(HAND))
        fn(doc)
        d = os.path.join(work, "bad-" + name.replace(" ", "-"))
        write(d, doc)
        path = os.path.join(d, "queue.json")
        before = open(path, "rb").read()
        code, out = run_casq_expect_exit(PORT, d)
        check(code not in (0, None) and word in out and path in out and open(path, "rb").read() == before,
              f"broken ({name}): refused, the file untouched, the log names it", f"{code} {out[-300:]}")


if __name__ == "__main__":
    work = tempfile.mkdtemp(prefix="casq-r8doc-")
    scenario_roundtrip(work)
    scenario_hand(work)
    scenario_broken(work)
    shutil.rmtree(work, ignore_errors=True)
    finish()
