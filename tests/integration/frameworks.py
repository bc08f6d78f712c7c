#!/usr/bin/python3
"""frameworks.py -- real job frameworks end to end, from Debian's packages,
against casq and against redis-server in the same test, outcomes compared.

    /usr/bin/python3 tests/integration/frameworks.py

- Celery 5.2 (python3-celery, kombu 5.2) with the Redis broker and the
  Redis result backend: two workers (`celery worker --pool=threads`) run
  1,000 tasks, 50 of them with a countdown or an ETA (none may run early),
  one broadcast task (a Broadcast queue: a fanout exchange, i.e. PUBLISH
  to the workers' PSUBSCRIBE) that each worker runs once, and control
  commands (ping, inspect stats) through the pidbox fanout. Every task
  records its run in the server: nothing lost, nothing run twice.
- RQ 1.13 (python3-rq): `rq worker --burst --with-scheduler` (the forking
  worker) runs 40 jobs, one that raises (FailedJobRegistry, exc_info), one
  that finds itself in the StartedJobRegistry; FinishedJobRegistry after;
  jobs from enqueue_in/enqueue_at wait in the ScheduledJobRegistry and run
  once due; a failed job requeued; Queue.empty() (a Lua script).

Each scenario runs in a process of its own (frameworks/drive.py) and
prints what it observed; this script checks it against what the framework
promises, on redis-server first (which proves the checks are real) and
then on casq, and compares the two. What needs server-side scripting is
SKIPPED on a server without it, with the reason. Ends with
`N passed, N failed`.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import casqtest  # noqa: E402

PY = "/usr/bin/python3"
DRIVE = os.path.join(HERE, "frameworks", "drive.py")

# What is timing or per-run, not an outcome to compare between servers.
NOT_COMPARED = {"sent_seconds", "all_seconds", "burst1_seconds", "worker_exit", "skipped", "traceback"}


def drive(which, server, t, env=None):
    url = "redis://127.0.0.1:%d/0" % server.port
    workdir = tempfile.mkdtemp(prefix="casq-fw-%s-%s." % (which, server.kind))
    try:
        p = subprocess.run([PY, DRIVE, which, url, workdir], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=240, cwd=workdir, env=dict(os.environ, **(env or {})))
    except subprocess.TimeoutExpired:
        t.check("%s on %s: the scenario ends" % (which, server.kind), False, "timed out; logs in " + workdir)
        return None
    lines = p.stdout.decode("utf-8", "replace").strip().splitlines()
    try:
        out = json.loads(lines[-1])
    except (IndexError, ValueError):
        t.check("%s on %s: the scenario reports" % (which, server.kind), False,
                "exit %s\nstdout: %s\nstderr: %s" % (p.returncode, p.stdout[-2000:], p.stderr[-3000:]))
        return None
    if not t.check("%s on %s: the scenario ran without an exception" % (which, server.kind), "error" not in out,
                   "%s\n%s\nworker logs in %s" % (out.get("error"), out.get("traceback", ""), workdir)):
        return out
    shutil.rmtree(workdir, ignore_errors=True)
    return out


def skipped(what, reason):
    print("[skipped]: %s -- %s" % (what, reason))
    sys.stdout.flush()


def check_celery(kind, o, t):
    n = "celery on %s: " % kind
    if "skipped" in o and "ran" not in o:
        skipped(n + "the whole scenario", o["skipped"])
        return
    t.eq(n + "both workers answer a control ping (pidbox fanout)", ["w1@fwtest", "w2@fwtest"], o.get("ping_workers"))
    t.eq(n + "1,000 results, all correct", [], o.get("wrong_results"))
    t.eq(n + "no countdown/ETA task ran before its time", [], o.get("ran_before_eta"))
    t.check(n + "every task ran exactly once (%s runs, %s distinct)" % (o.get("ran"), o.get("ran_distinct")),
            o.get("ran") == 1000 and o.get("ran_distinct") == 1000 and o.get("ran_all"))
    t.check(n + "the broadcast task ran once on each worker",
            o.get("bcast_runs") == 2 and o.get("bcast_distinct_workers") == 2,
            "runs %s on %s workers" % (o.get("bcast_runs"), o.get("bcast_distinct_workers")))
    t.eq(n + "inspect stats reaches both workers", ["w1@fwtest", "w2@fwtest"], o.get("stats_workers"))
    t.check(n + "queue and unacked index empty afterwards",
            o.get("queue_left") == 0 and o.get("unacked_left") == 0,
            "queue %s unacked %s" % (o.get("queue_left"), o.get("unacked_left")))
    t.eq(n + "no ERROR/CRITICAL in the worker logs", [], o.get("worker_log_errors"))
    print("# celery on %s: 1,000 tasks sent in %s s, all results in %s s" % (kind, o.get("sent_seconds"),
                                                                            o.get("all_seconds")))


def check_rq(kind, o, t):
    n = "rq on %s: " % kind
    t.eq(n + "42 jobs queued (40 + one that raises + the probe)", 42, o.get("queued"))
    t.check(n + "enqueue_in/enqueue_at jobs wait in the ScheduledJobRegistry", o.get("scheduled_before"))
    t.eq(n + "burst workers exit 0", [0, 0], [o.get("burst1_rc"), o.get("burst2_rc")])
    t.eq(n + "every job finished with its result", [], o.get("wrong_results"))
    t.eq(n + "the queue is empty after the burst", 0, o.get("queue_left"))
    t.check(n + "the job that raised is in the FailedJobRegistry with its exception",
            o.get("failed_ids_ok") and o.get("failed_status") == "failed" and o.get("failed_exc"),
            repr([o.get("failed_ids_ok"), o.get("failed_status"), o.get("failed_exc")]))
    t.eq(n + "a running job is in the StartedJobRegistry", True, o.get("probe_saw_itself_started"))
    t.eq(n + "StartedJobRegistry empty afterwards", [], o.get("started_left"))
    t.check(n + "FinishedJobRegistry holds exactly the jobs that succeeded", o.get("finished_ok"))
    t.eq(n + "scheduled jobs did not run before they were due", ["scheduled", "scheduled"],
         o.get("scheduled_not_run_early"))
    t.eq(n + "scheduled jobs ran once due", [["finished", 1001], ["finished", 2002]], o.get("scheduled_results"))
    t.eq(n + "ScheduledJobRegistry empty afterwards", [], o.get("scheduled_left"))
    t.eq(n + "a failed job requeued leaves the FailedJobRegistry for the queue", [True, []],
         o.get("requeue_failed"))
    if "emptied" in o:
        t.check(n + "Queue.empty() (Lua) removes the queue and its jobs", o.get("emptied") == 1 and o.get("job_gone"),
                repr([o.get("emptied"), o.get("job_gone")]))
    else:
        skipped(n + "Queue.empty()", o.get("skipped"))
    print("# rq on %s: first burst (42 jobs, forking worker) %s s" % (kind, o.get("burst1_seconds")))


def compare(which, outs, t):
    a, b = outs.get("redis"), outs.get("casq")
    if not a or not b:
        return
    keys = sorted((set(a) | set(b)) - NOT_COMPARED)
    if "skipped" in b and ("ran" not in b and which == "celery"):
        return  # nothing ran on casq to compare
    diff = {k: (a.get(k), b.get(k)) for k in keys if a.get(k) != b.get(k)}
    if "skipped" in b:  # what was skipped on casq only
        for k in ("emptied", "job_gone"):
            diff.pop(k, None)
    t.eq("%s: casq's outcome is redis-server's" % which, {}, diff)


def crash_rq(server, t):
    """casq only: jobs acknowledged before a SIGKILL all run after it."""
    n = "rq on casq across a SIGKILL: "
    o = drive("rq-crash-enqueue", server, t)
    if not o or "job_ids" not in o:
        return
    if not t.check(n + "casq restarts on its document", server.kill_and_restart(), casqtest.tail(server.log())):
        return
    o = drive("rq-crash-work", server, t, env={"FW_JOB_IDS": json.dumps(o["job_ids"])})
    if not o:
        return
    t.eq(n + "the 30 enqueued jobs are all in the queue, in order", True, o.get("queued_after_restart"))
    t.eq(n + "and all run", list(range(10, 40)), o.get("results"))


def main():
    t = casqtest.Results("frameworks")
    servers = {}
    try:
        for kind in ("redis", "casq"):
            try:
                servers[kind] = casqtest.Server(kind=kind).start()
            except Exception as e:  # reported, and the summary still printed
                t.check("%s starts" % kind, False, str(e))
                return t.finish()
        for which, check in (("celery", check_celery), ("rq", check_rq)):
            outs = {}
            for kind in ("redis", "casq"):
                o = drive(which, servers[kind], t)
                if o is None:
                    continue
                outs[kind] = o
                check(kind, o, t)
                if kind == "redis" and "skipped" in o:
                    t.check("%s on redis-server: nothing skipped" % which, False, o["skipped"])
            compare(which, outs, t)
        crash_rq(servers["casq"], t)
    finally:
        for kind, s in servers.items():
            s.stop(t)
    return t.finish()


if __name__ == "__main__":
    sys.exit(main())
