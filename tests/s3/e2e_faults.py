#!/usr/bin/python3
"""e2e_faults.py -- casq on S3 under each object-store fault, with load.

For every fault the proxy can inject (tests/s3/faultproxy.py), one casq
server with a fresh object runs under pushers (redis-py, XADD with binary
values): a fault-free second, then the fault for a few seconds, then the
fault is cleared and the load goes on. Then it checks, in the object itself
and in the proxy's record of the PUTs the S3 server applied (e2e_proxy.py):

  - no acknowledged write lost: every XADD that returned an ID is in the
    document, with its ID and exact bytes;
  - no write acknowledged twice: each pusher's IDs are unique, and each is
    in the stream once;
  - no commit applied twice: commit_seq strictly increases over the applied
    PUTs; the proxy's puts_applied, the record and casq's INFO commit count
    agree; the document's commit_seq is the last applied one;
  - the fault really happened (the proxy's injected_* counter);
  - casq recovers: after the fault is cleared, new XADDs are acknowledged.

Needs the environment of tests/s3/run_e2e.sh. Ends with `N passed, N failed`.
Usage: e2e_faults.py [scenario-substring ...]
"""
import sys
import time

import e2e_lib as E

STREAM = "jobs"
PUSHERS = 8
BASELINE_SECS = 1.0
FAULT_SECS = 2.5
RECOVER_SECS = 1.5

# (name, proxy settings, proxy counter that proves it fired, extra casq args)
SCENARIOS = [
    ("latency 200 ms per PUT", {"put_delay_ms": 200}, None, []),
    ("1 write/s limit (503 SlowDown)", {"max_writes_per_sec": 1}, "injected_rate_limit", []),
    ("500 InternalError for 5 PUTs", {"fail_puts": 5, "fail_status": 500}, "injected_fail_puts", []),
    ("503 SlowDown for 5 PUTs", {"fail_puts": 5, "fail_status": 503}, "injected_fail_puts", []),
    # libcurl re-sends a request silently when a connection it reused dies
    # before the answer (up to 5 times, each on another pooled connection):
    # 8 faults make sure casq itself sees one.
    ("connection reset mid-request, 8 PUTs", {"reset_puts": 8}, "injected_reset_puts", []),
    ("response dropped after the PUT applied, 8 PUTs", {"drop_puts": 8}, "injected_drop_puts", []),
    ("500 after the PUT applied, 3 PUTs", {"error_after_apply": 3}, "injected_error_after_apply", []),
    ("PUT stalled past the request timeout, then applied", {"stall_puts": 1, "stall_ms": 2500},
     "injected_stall_puts", ["--s3-request-timeout", "1000"]),
]

# Faults after which casq cannot know the outcome of a PUT without
# re-reading the object (INFO store_s3_unknown_outcomes must show it).
UNKNOWN_OUTCOME = ("injected_fail_puts", "injected_reset_puts", "injected_drop_puts",
                   "injected_error_after_apply", "injected_stall_puts", "injected_rate_limit")
# How the re-read must have resolved them: the PUT had landed (the reply was
# lost) or had not (rejected or never forwarded).
RESOLVED = {
    "injected_fail_puts": "store_s3_unknown_resolved_not_applied",
    "injected_rate_limit": "store_s3_unknown_resolved_not_applied",
    "injected_drop_puts": "store_s3_unknown_resolved_applied",
    "injected_error_after_apply": "store_s3_unknown_resolved_applied",
}


def settle_applied(key, casq):
    """Reads the applied record and INFO until they are stable (no commit
    in flight, nothing left to commit, no segment being sealed: sealing
    commits on its own once the load has stopped), returns (records,
    info)."""
    for _ in range(100):
        before = E.applied(key)
        info = casq.info()
        after = E.applied(key)
        idle = (info.get("commit_in_flight") == "0" and info.get("segments_seal_in_progress", "0") == "0"
                and info.get("change_seq") == info.get("durable_seq"))
        if len(before) == len(after) and idle:
            return after, info
        time.sleep(0.2)
    return after, info


def scenario(res, name, settings, counter, extra):
    label = name
    key = E.unique_key("fault")
    E.fault(reset=True)
    E.applied_clear()
    casq = E.Casq(key, extra=extra, name="casq[%s]" % name)
    try:
        casq.start()
        pushers = [E.Pusher(lambda: casq.port, STREAM, "%s-p%d" % (key, i)) for i in range(PUSHERS)]
        E.run_pushers(pushers)
        time.sleep(BASELINE_SECS)
        # On the root object only: a count-based fault spent on a segment
        # PUT (the stream's older entries are sealed meanwhile) would
        # leave the root's unknown outcomes untested.
        E.fault(only_path=key + "$", **settings)
        t_fault = time.monotonic()
        # Count-based faults fire on the next PUTs; give them the time they need.
        while time.monotonic() - t_fault < FAULT_SECS:
            time.sleep(0.1)
        E.fault_clear()
        t_clear = time.monotonic()
        time.sleep(RECOVER_SECS)
        res.check("%s: pushers stop" % label, E.stop_pushers(pushers))

        # Recovery: acknowledged after the fault was cleared, and a fresh one now.
        after_clear = sum(1 for p in pushers for t in p.acked_at if t > t_clear)
        res.check("%s: XADDs acknowledged after the fault cleared (%d)" % (label, after_clear), after_clear > 0)
        fresh = casq.client().execute_command("XADD", STREAM, "*", "fresh", "1")
        res.check("%s: a new XADD is acknowledged" % label, bool(fresh))

        records, info = settle_applied(key, casq)
        state = E.proxy_state()["counters"]
        if counter:
            res.check("%s: the fault fired (%s=%s)" % (label, counter, state.get(counter, 0)),
                      state.get(counter, 0) >= 1)
        if counter in UNKNOWN_OUTCOME:
            unknown = E.info_int(info, "store_s3_unknown_outcomes")
            res.check("%s: casq saw unknown outcomes and resolved them (%s)" % (label, unknown),
                      unknown is not None and unknown >= 1)
        if counter in RESOLVED:
            n = E.info_int(info, RESOLVED[counter])
            res.check("%s: %s=%s" % (label, RESOLVED[counter], n), (n or 0) >= 1)
        commits = E.info_int(info, *E.COMMITS_FIELDS)
        res.check("%s: proxy doc_puts_applied (%s) == applied PUTs recorded (%d)"
                  % (label, state.get("doc_puts_applied"), len(records)),
                  state.get("doc_puts_applied") == len(records))
        res.check("%s: casq INFO commits (%s) == PUTs applied (%d)" % (label, commits, len(records)),
                  commits == len(records), "INFO persistence: %r" %
                  {k: v for k, v in info.items() if "commit" in k or k.startswith("store_s3")})
        E.check_applied_order(res, label, records)
        epochs = {r["epoch"] for r in records}
        res.check("%s: one broker epoch in every applied PUT (%r)" % (label, sorted(epochs, key=str)),
                  len(epochs) == 1)

        doc, _ = E.load_doc(key)
        res.check("%s: the object parses as a state document" % label, doc is not None)
        if doc is None:
            return
        res.check("%s: the document's commit_seq (%d) is the last applied (%s)"
                  % (label, doc.commit_seq, records[-1]["commit_seq"] if records else None),
                  bool(records) and doc.commit_seq == records[-1]["commit_seq"])
        acked, verified, lost = E.check_pushers_in_doc(res, label, doc, STREAM, pushers)
        errors = sum(p.errors for p in pushers)
        samples = [s for p in pushers for s in p.error_samples][:3]
        print("# %s: acknowledged=%d verified=%d lost=%d errors=%d commits=%s %s"
              % (label, acked, verified, lost, errors, commits, samples if samples else ""))
        rc = casq.stop()
        res.check("%s: casq exits cleanly on SIGTERM (rc=%s)" % (label, rc), rc == 0 and casq.log_is_clean(),
                  E.tail(casq.log()))
    finally:
        E.fault(reset=True)
        casq.cleanup()


def main():
    res = E.Results("s3 e2e faults")
    wanted = sys.argv[1:]
    for name, settings, counter, extra in SCENARIOS:
        if wanted and not any(w in name for w in wanted):
            continue
        print("# --- %s" % name)
        res.run(name, scenario, res, name, settings, counter, extra)
    return res.finish()


if __name__ == "__main__":
    sys.exit(main())
