#!/usr/bin/python3
"""drive.py -- one framework scenario against one server; prints what it
observed as one JSON line for tests/integration/frameworks.py to check and
compare between casq and redis-server.

    drive.py celery redis://127.0.0.1:PORT/0 WORKDIR
    drive.py rq     redis://127.0.0.1:PORT/0 WORKDIR
    drive.py rq-crash-enqueue URL WORKDIR; (kill -9, restart)
    FW_JOB_IDS='[...]' drive.py rq-crash-work URL WORKDIR

Each scenario runs in a process of its own (Celery and RQ keep connection
pools and threads per process) and starts its workers as subprocesses in
WORKDIR, whose logs stay there. Scripting (EVAL/EVALSHA) is probed first:
what needs it is reported in "skipped" with the reason when the server has
none, and not run.
"""
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"


def has_scripting(r):
    import redis
    try:
        r.execute_command("SCRIPT", "EXISTS", "0" * 40)
        return True
    except redis.ResponseError:
        return False


def worker_env(url):
    env = dict(os.environ)
    env["FW_URL"] = url
    env["PYTHONPATH"] = HERE + (":" + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def stop(procs, timeout=20):
    for p in procs:
        if p.poll() is None:
            p.terminate()  # SIGTERM: warm shutdown for Celery
    rcs = []
    for p in procs:
        try:
            rcs.append(p.wait(timeout=timeout))
        except subprocess.TimeoutExpired:
            p.kill()
            rcs.append("hung")
    return rcs


# ---------------------------------------------------------------------------
# Celery: two workers, 1,000 tasks (50 with a countdown), one broadcast task,
# control commands through the pidbox fanout.
# ---------------------------------------------------------------------------
N_TASKS = 1000
N_LATER = 50


def scenario_celery(url, workdir, out):
    import redis
    r = redis.Redis.from_url(url)
    r.flushall()
    if not has_scripting(r):
        out["skipped"] = ("the Celery worker cannot start: kombu's Redis transport restores unacked messages "
                          "under a redis-py Lock (kombu.transport.redis.Mutex, at worker start and then "
                          "periodically), and Lock.release/extend are Lua scripts (EVALSHA); the server has "
                          "no scripting")
        return
    os.environ["FW_URL"] = url
    sys.path.insert(0, HERE)
    import fwcelery
    app = fwcelery.app

    workers = []
    for name in ("w1", "w2"):
        log = open(os.path.join(workdir, "celery-%s.log" % name), "wb")
        workers.append(subprocess.Popen(
            [PY, "-m", "celery", "-A", "fwcelery", "worker", "--pool=threads", "--concurrency=4",
             "--loglevel=WARNING", "--without-gossip", "--without-mingle", "-n", "%s@fwtest" % name],
            cwd=workdir, env=worker_env(url), stdout=log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL))
        log.close()
    try:
        # Both workers answer a control ping (the pidbox fanout exchange:
        # PUBLISH to the workers' PSUBSCRIBE, replies in a list).
        deadline = time.time() + 40
        pong = []
        while time.time() < deadline:
            pong = app.control.ping(timeout=0.5) or []
            if len(pong) >= 2 or any(w.poll() is not None for w in workers):
                break
        out["ping_workers"] = sorted(k for d in pong for k in d)
        if len(out["ping_workers"]) < 2:
            out["error"] = "workers did not come up (exit codes %s)" % [w.poll() for w in workers]
            return

        t0 = time.time()
        # Sent from 8 threads (Celery's producer pool is thread-safe): on
        # casq each publish waits for its commit, and concurrent ones share
        # a group commit, as a real web tier's would.
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(8) as pool:
            results = list(pool.map(lambda i: fwcelery.add.delay(i, i), range(N_TASKS - N_LATER)))
        later = []
        for k in range(N_LATER):
            i = N_TASKS - N_LATER + k
            if k % 2:
                eta_at = time.time() + 1.5
                res = fwcelery.later.apply_async((i,), countdown=1.5)
            else:
                from datetime import datetime, timezone, timedelta
                eta = datetime.now(timezone.utc) + timedelta(seconds=1.5)
                eta_at = eta.timestamp()
                res = fwcelery.later.apply_async((i,), eta=eta)
            later.append((i, eta_at, res))
        fwcelery.bcast.apply_async(("hello",), exchange=fwcelery.BCAST_EXCHANGE, routing_key="celery",
                                   declare=[fwcelery.BCAST_EXCHANGE])
        out["sent_seconds"] = round(time.time() - t0, 2)

        wrong = []
        for i, res in enumerate(results):
            v = res.get(timeout=60)
            if v != 2 * i:
                wrong.append((i, v))
        early = []
        for i, eta_at, res in later:
            v = res.get(timeout=60)
            if v[0] != i:
                wrong.append((i, v))
            elif v[1] < eta_at - 0.01:  # ran before its ETA
                early.append((i, round(eta_at - v[1], 3)))
        out["all_seconds"] = round(time.time() - t0, 2)
        out["wrong_results"] = wrong[:10]
        out["ran_before_eta"] = early[:10]
        # Control command to both workers once more, and what they report.
        stats = app.control.inspect(timeout=1.0).stats() or {}
        out["stats_workers"] = sorted(stats)
        # The broadcast task: once per worker. Wait a moment for it.
        deadline = time.time() + 10
        while r.llen("fw:bcast") < 2 and time.time() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)  # a duplicate would show up now
        out["bcast_runs"] = r.llen("fw:bcast")
        out["bcast_distinct_workers"] = len(set(x.split(b":")[1] for x in r.lrange("fw:bcast", 0, -1)))
        ran = [int(x) for x in r.lrange("fw:ran", 0, -1)]
        out["ran"] = len(ran)
        out["ran_distinct"] = len(set(ran))
        out["ran_all"] = set(ran) == set(range(N_TASKS))
        out["queue_left"] = r.llen("celery")
        out["unacked_left"] = r.zcard("unacked_index")
    finally:
        out["worker_exit"] = stop(workers)
    for name in ("w1", "w2"):
        with open(os.path.join(workdir, "celery-%s.log" % name), "rb") as f:
            text = f.read().decode("utf-8", "replace")
        # Celery 5.2.6 on Python 3.11 prints a TypeError traceback at warm
        # shutdown (WorkerShutdown(None)), at WARNING level, and exits 1 on
        # either server: the exit status is reported, not checked.
        bad = [l for l in text.splitlines() if "ERROR/" in l or "CRITICAL/" in l]
        out.setdefault("worker_log_errors", []).extend(bad[:5])


# ---------------------------------------------------------------------------
# RQ: the forking worker of `rq worker --burst --with-scheduler`; jobs that
# succeed, one that raises, one that looks at the started registry, jobs
# scheduled with enqueue_in/enqueue_at, and the registries afterwards.
# ---------------------------------------------------------------------------
N_RQ = 40


def rq_burst(url, workdir, tag):
    log = open(os.path.join(workdir, "rq-%s.log" % tag), "wb")
    p = subprocess.run(["/usr/bin/rq", "worker", "--burst", "--with-scheduler", "--url", url, "--path", HERE,
                        "--name", "fw-%s" % tag, "fwq"],
                       cwd=workdir, env=worker_env(url), stdout=log, stderr=subprocess.STDOUT,
                       stdin=subprocess.DEVNULL, timeout=120)
    log.close()
    return p.returncode


def scenario_rq(url, workdir, out):
    from datetime import datetime, timedelta, timezone
    import redis
    from rq import Queue
    from rq.job import Job
    from rq.registry import (FailedJobRegistry, FinishedJobRegistry, ScheduledJobRegistry,
                             StartedJobRegistry)
    sys.path.insert(0, HERE)
    import fwrq

    r = redis.Redis.from_url(url)
    r.flushall()
    q = Queue("fwq", connection=r)
    # Scheduled first: not due during the first burst.
    due = time.time() + 2.5
    sched = [q.enqueue_in(timedelta(seconds=2.5), fwrq.add, 1000, 1),
             q.enqueue_at(datetime.fromtimestamp(due, timezone.utc), fwrq.add, 2000, 2)]
    jobs = [q.enqueue(fwrq.add, i, 1) for i in range(N_RQ)]
    bad = q.enqueue(fwrq.boom, 7)
    probe = q.enqueue(fwrq.seen_as_started)
    out["queued"] = q.count
    out["scheduled_before"] = sorted(ScheduledJobRegistry("fwq", connection=r).get_job_ids()) == \
        sorted(j.id for j in sched)

    t0 = time.time()
    out["burst1_rc"] = rq_burst(url, workdir, "1")
    out["burst1_seconds"] = round(time.time() - t0, 2)
    wrong = [(i, j.get_status(refresh=True), j.return_value()) for i, j in enumerate(jobs)]
    out["wrong_results"] = [w for w in wrong if w[1] != "finished" or w[2] != w[0] + 1][:10]
    out["queue_left"] = q.count
    failed = FailedJobRegistry("fwq", connection=r)
    out["failed_ids_ok"] = failed.get_job_ids() == [bad.id]
    bad.refresh()
    out["failed_status"] = bad.get_status()
    out["failed_exc"] = "ValueError: boom 7" in (bad.exc_info or "")
    out["probe_saw_itself_started"] = probe.return_value()
    out["started_left"] = StartedJobRegistry("fwq", connection=r).get_job_ids()
    finished = FinishedJobRegistry("fwq", connection=r).get_job_ids()
    out["finished_ok"] = sorted(finished) == sorted([j.id for j in jobs] + [probe.id])
    out["scheduled_not_run_early"] = [j.get_status(refresh=True) for j in sched]

    time.sleep(max(0, due - time.time()) + 0.2)
    out["burst2_rc"] = rq_burst(url, workdir, "2")
    out["scheduled_results"] = [(j.get_status(refresh=True), j.return_value()) for j in sched]
    out["scheduled_left"] = ScheduledJobRegistry("fwq", connection=r).get_job_ids()
    out["requeue_failed"] = None
    # A failed job requeued from the registry goes back to the queue.
    failed.requeue(bad.id)
    out["requeue_failed"] = [q.job_ids == [bad.id], failed.get_job_ids()]
    # Queue.empty() deletes the queue and its jobs in a Lua script.
    if has_scripting(r):
        out["emptied"] = q.empty()
        out["job_gone"] = not r.exists(Job.key_for(bad.id))
    else:
        out["skipped"] = "rq Queue.empty() (and Queue.delete(delete_jobs=True)) run a Lua script (EVALSHA); " \
                         "the server has no scripting"


# ---------------------------------------------------------------------------
# RQ across a crash of the server (casq only: run by frameworks.py around a
# SIGKILL and a restart): jobs enqueued, and acknowledged, before the kill
# are all there after it and all run.
# ---------------------------------------------------------------------------
N_CRASH = 30


def scenario_rq_crash_enqueue(url, workdir, out):
    import redis
    from rq import Queue
    sys.path.insert(0, HERE)
    import fwrq
    r = redis.Redis.from_url(url)
    r.flushall()
    q = Queue("crashq", connection=r)
    out["job_ids"] = [q.enqueue(fwrq.add, i, 10).id for i in range(N_CRASH)]


def scenario_rq_crash_work(url, workdir, out):
    import redis
    from rq import Queue
    from rq.job import Job
    r = redis.Redis.from_url(url)
    q = Queue("crashq", connection=r)
    ids = json.loads(os.environ["FW_JOB_IDS"])
    out["queued_after_restart"] = q.job_ids == ids
    log = open(os.path.join(workdir, "rq-crash.log"), "wb")
    out["burst_rc"] = subprocess.run(["/usr/bin/rq", "worker", "--burst", "--url", url, "--path", HERE, "crashq"],
                                     cwd=workdir, env=worker_env(url), stdout=log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, timeout=120).returncode
    log.close()
    jobs = Job.fetch_many(ids, connection=r)
    out["results"] = [j.return_value() if j else None for j in jobs]


def main():
    which, url, workdir = sys.argv[1:4]
    out = {}
    try:
        {"celery": scenario_celery, "rq": scenario_rq, "rq-crash-enqueue": scenario_rq_crash_enqueue,
         "rq-crash-work": scenario_rq_crash_work}[which](url, workdir, out)
    except Exception as e:  # reported, never a crash without output
        import traceback
        out["error"] = "%s: %s" % (type(e).__name__, e)
        out["traceback"] = traceback.format_exc()[-3000:]
    sys.stdout.write(json.dumps(out, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
