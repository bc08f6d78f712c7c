#!/usr/bin/python3
"""e2e_takeover.py -- two casq processes on the same S3 object.

A runs under load (pushers, plus a consumer group with workers that XACK);
then B starts on the same object. B's start-up takes over: it writes the
broker record with epoch + 1 by CAS. A's next commit then fails its CAS:
the clients waiting on it must get an error, never OK; A drops its state
and reloads. Checked in the object and in the proxy's record of applied
PUTs (e2e_proxy.py):

  - B's start-up raised the epoch by one and named another broker id;
  - A saw the conflict (INFO) and its waiting clients got errors;
  - after B's first commit, no commit of A's epoch was ever applied;
  - commit_seq strictly increases over every applied PUT (A's and B's);
  - nothing acknowledged by A or by B is lost (bytes and IDs), no ID twice;
  - every XACK acknowledged (by A or B) is no longer pending.

Needs the environment of tests/s3/run_e2e.sh. Ends with `N passed, N failed`.
"""
import sys
import threading
import time

import redis

import e2e_lib as E

STREAM = "jobs"
GROUP = "workers"


class Worker(threading.Thread):
    """XREADGROUP + XACK on one server; records the XACKs acknowledged."""

    def __init__(self, port, name):
        super().__init__(daemon=True)
        self.port = port
        self.name = name
        self.stop_flag = threading.Event()
        self.acked_xack = []   # ids whose XACK returned (0 or 1) without error
        self.errors = 0

    def run(self):
        conn = None
        while not self.stop_flag.is_set():
            try:
                if conn is None:
                    conn = redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=120)
                got = conn.execute_command("XREADGROUP", "GROUP", GROUP, self.name, "COUNT", "10", "BLOCK",
                                           "100", "STREAMS", STREAM, ">")
                for _stream, entries in (got or []):
                    for rid, _fields in entries:
                        conn.execute_command("XACK", STREAM, GROUP, rid)
                        self.acked_xack.append(rid)
            except redis.ResponseError:
                self.errors += 1
                time.sleep(0.05)
            except (redis.ConnectionError, redis.TimeoutError, OSError):
                self.errors += 1
                conn = None
                time.sleep(0.05)

    def stop(self):
        self.stop_flag.set()


def takeover(res):
    key = E.unique_key("takeover")
    E.fault(reset=True)
    E.applied_clear()
    # A realistic commit latency keeps a commit of A in flight most of the time.
    E.fault(put_delay_ms=30)
    a = E.Casq(key, name="A")
    b = E.Casq(key, name="B")
    try:
        a.start()
        a.client().execute_command("XGROUP", "CREATE", STREAM, GROUP, "$", "MKSTREAM")
        pa = [E.Pusher(lambda: a.port, STREAM, "A%d" % i) for i in range(4)]
        wa = [Worker(a.port, "wa%d" % i) for i in range(2)]
        E.run_pushers(pa + wa)
        time.sleep(1.5)
        doc_a, _ = E.load_doc(key)
        epoch_a, broker_a = doc_a.epoch, doc_a.json["broker"].get("id")
        # A busy broker always has its next PUT in flight, ahead of any
        # other node's (see busy_broker below). Holding A's next PUT in the
        # proxy for 3 s lets B's start-up win the CAS now; A's held PUT then
        # reaches the S3 server with the old version and loses.
        E.fault(stall_puts=1, stall_ms=3000)
        t_takeover = time.monotonic()
        b.start()
        doc_b, _ = E.load_doc(key)
        res.check("B's start-up took over: epoch %d -> %d" % (epoch_a, doc_b.epoch), doc_b.epoch == epoch_a + 1)
        res.check("B's broker id differs from A's", doc_b.json["broker"].get("id") != broker_a,
                  "%r / %r" % (broker_a, doc_b.json["broker"]))
        pb = [E.Pusher(lambda: b.port, STREAM, "B%d" % i) for i in range(4)]
        wb = [Worker(b.port, "wb%d" % i) for i in range(2)]
        E.run_pushers(pb + wb)
        time.sleep(2.5)
        res.check("pushers and workers stop", E.stop_pushers(pa + pb + wa + wb))

        # A: the conflict was seen, and the clients waiting on it got errors.
        for _ in range(100):  # a follower reloads now and then: wait for a settled role
            info_a = a.info()
            if info_a.get("broker_role") != "loading":
                break
            time.sleep(0.1)
        conflicts = E.info_int(info_a, "store_s3_conflicts")
        res.check("A saw the CAS conflict (store_s3_conflicts=%s)" % conflicts, (conflicts or 0) >= 1,
                  E.tail(a.log()))
        res.check("A counted the conflict (commit_conflicts=%s)" % info_a.get("commit_conflicts"),
                  (E.info_int(info_a, "commit_conflicts") or 0) >= 1)
        res.check("A dropped its state and reloaded (reloads=%s)" % info_a.get("reloads"),
                  (E.info_int(info_a, "reloads") or 0) >= 1)
        res.check("A is no longer the broker (broker_role=%s, epoch %s)"
                  % (info_a.get("broker_role"), info_a.get("broker_epoch")),
                  info_a.get("broker_role") == "follower" and E.info_int(info_a, "broker_epoch") == epoch_a + 1)
        errs_a = sum(p.errors for p in pa)
        samples = [s for p in pa for s in p.error_samples][:3]
        res.check("A's waiting clients got errors (%d), e.g. %s" % (errs_a, samples[:1]), errs_a >= 1)
        late_a = sum(1 for p in pa for t in p.acked_at if t > t_takeover)
        print("# A: %d XADDs acknowledged before B's start-up began, %d after (its PUTs already past the proxy; all must be in the document)"
              % (sum(len(p.acked) for p in pa) - late_a, late_a))

        # The applied commits: the deposed broker never committed after B did.
        recs = E.applied(key)
        E.check_applied_order(res, "A+B", recs)
        first_b = next((i for i, r in enumerate(recs) if r["epoch"] == epoch_a + 1), None)
        res.check("B committed (first at PUT #%s of %d)" % (first_b, len(recs)), first_b is not None)
        if first_b is not None:
            stale = [r for r in recs[first_b:] if r["epoch"] is None or r["epoch"] < epoch_a + 1]
            res.check("no commit of A's epoch applied after B's first", not stale, repr(stale[:3]))
        epochs = [r["epoch"] for r in recs]
        res.check("epochs never decrease over applied PUTs", all(x <= y for x, y in zip(epochs, epochs[1:])),
                  repr(epochs))

        # Nothing acknowledged by either is lost.
        doc, _ = E.load_doc(key)
        res.check("the object parses", doc is not None)
        acked, verified, lost = E.check_pushers_in_doc(res, "A+B", doc, STREAM, pa + pb)
        print("# acknowledged=%d verified=%d lost=%d" % (acked, verified, lost))
        pending = doc.groups(STREAM).get(GROUP.encode(), {}).get("pending", set())
        res.check("group %s exists" % GROUP, GROUP.encode() in doc.groups(STREAM))
        xacked = [rid for w in wa + wb for rid in w.acked_xack]
        still = [rid for rid in xacked if rid in pending]
        res.check("every acknowledged XACK (%d) is no longer pending" % len(xacked), not still, repr(still[:5]))

        rb = b.stop()
        res.check("B exits cleanly (rc=%s)" % rb, rb == 0 and b.log_is_clean(), E.tail(b.log()))
        ra = a.stop()
        res.check("A exits (rc=%s) without sanitizer/assert reports" % ra, ra is not None and a.log_is_clean(),
                  E.tail(a.log()))
    finally:
        E.fault(reset=True)
        a.cleanup()
        b.cleanup()


def idle_loser(res):
    """A has no load when B takes over; a write sent to A afterwards must
    not be acknowledged unless it is really in the document."""
    key = E.unique_key("takeover-idle")
    E.fault(reset=True)
    a = E.Casq(key, name="A")
    b = E.Casq(key, name="B")
    try:
        a.start()
        first = a.client().execute_command("XADD", STREAM, "*", "n", "1")
        b.start()
        try:
            rid = a.client().execute_command("XADD", STREAM, "*", "n", "2")
            outcome = ("ok", rid)
        except redis.ResponseError as e:
            outcome = ("error", str(e))
        doc, _ = E.load_doc(key)
        ids = [r for r, _ in doc.entries(STREAM)]
        res.check("A's write before the take-over is in the document", first in ids)
        if outcome[0] == "ok":
            # Only correct if A forwarded it to the broker (design.md §5).
            res.check("A's reply after the take-over was OK, so the entry is durable", outcome[1] in ids,
                      "reply %r, document ids %r" % (outcome[1], ids))
        else:
            res.check("A's write after the take-over got an error: %s" % outcome[1], True)
        for s in (b, a):
            rc = s.stop()
            res.check("%s stops (rc=%s) without sanitizer/assert reports" % (s.name, rc),
                      rc is not None and s.log_is_clean(), E.tail(s.log()))
    finally:
        a.cleanup()
        b.cleanup()


def idle_deposed(res):
    """Issue 14, fault 13: A is idle when B takes over; A must notice by
    itself (a HEAD of the document every broker-timeout/4), step down, and
    never serve reads from its stale state."""
    key = E.unique_key("takeover-deposed")
    E.fault(reset=True)
    a = E.Casq(key, extra=["--broker-timeout", "1000"], name="A")
    b = E.Casq(key, extra=["--broker-timeout", "1000"], name="B")
    try:
        a.start()
        a.client().execute_command("XADD", "before", "*", "n", "1")
        b.start()
        rb = b.client()
        rb.execute_command("XGROUP", "CREATE", STREAM, GROUP, "$", "MKSTREAM")
        rb.execute_command("XADD", STREAM, "*", "n", "1")
        t0 = time.time()
        became = None
        while time.time() - t0 < 10:
            if a.info().get("broker_role") == "follower":
                became = time.time() - t0
                break
            time.sleep(0.05)
        res.check("idle deposed broker becomes a follower within ~broker-timeout (%s s)" % became,
                  became is not None and became < 3.0)
        ra = a.client()
        res.check("XLEN through the old broker shows the new state", ra.execute_command("XLEN", STREAM) == 1)
        got = ra.execute_command("XREADGROUP", "GROUP", GROUP, "c", "COUNT", "10", "STREAMS", STREAM, ">")
        res.check("XREADGROUP through the old broker finds the group", bool(got))
        res.check("A counted the probes that found it deposed", (E.info_int(a.info(), "broker_deposed") or 0) >= 1)
        for s in (b, a):
            rc = s.stop()
            res.check("%s stops (rc=%s) without sanitizer/assert reports" % (s.name, rc),
                      rc is not None and s.log_is_clean(), E.tail(s.log()))
    finally:
        a.cleanup()
        b.cleanup()


def busy_broker(res):
    """B starts while A commits back to back (30 ms per PUT) and nothing
    holds A back. A busy broker always has its next PUT in flight ahead of
    B's, so B's take-over CAS may keep losing: B may refuse to start (after
    commit.c's start-up attempts) or take over. Either way nothing
    acknowledged may be lost, and the outcome is printed."""
    key = E.unique_key("takeover-busy")
    E.fault(reset=True)
    E.applied_clear()
    E.fault(put_delay_ms=30)
    a = E.Casq(key, name="A")
    b = E.Casq(key, name="B")
    try:
        a.start()
        pa = [E.Pusher(lambda: a.port, STREAM, "A%d" % i) for i in range(4)]
        E.run_pushers(pa)
        time.sleep(1.0)
        started = b.spawn().wait_ready(30)
        outcome = "B took over" if started else "B refused to start: %s" % (
            [l for l in b.log().splitlines() if "Fatal" in l] or ["?"])[-1].split(" # ", 1)[-1]
        print("# busy broker: %s" % outcome)
        time.sleep(1.0)
        res.check("pushers stop", E.stop_pushers(pa))
        doc, _ = E.load_doc(key)
        acked, verified, lost = E.check_pushers_in_doc(res, "busy broker", doc, STREAM, pa)
        print("# acknowledged=%d verified=%d lost=%d" % (acked, verified, lost))
        E.check_applied_order(res, "busy broker", E.applied(key))
        for s in (b, a):
            if s.alive():
                rc = s.stop()
                res.check("%s stops (rc=%s) without sanitizer/assert reports" % (s.name, rc),
                          rc is not None and s.log_is_clean(), E.tail(s.log()))
    finally:
        E.fault(reset=True)
        a.cleanup()
        b.cleanup()


def main():
    res = E.Results("s3 e2e takeover")
    res.run("take-over under load", takeover, res)
    res.run("start-up next to a busy broker", busy_broker, res)
    res.run("take-over of an idle broker", idle_loser, res)
    res.run("an idle deposed broker steps down by itself", idle_deposed, res)
    return res.finish()


if __name__ == "__main__":
    sys.exit(main())
