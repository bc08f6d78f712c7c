"""fwrq.py -- the RQ job functions of tests/integration/frameworks.py
(the worker imports them by name from this module)."""
from rq import get_current_job
from rq.registry import StartedJobRegistry


def add(a, b):
    return a + b


def boom(x):
    raise ValueError("boom %s" % x)


def seen_as_started():
    """Whether the running job is in its queue's StartedJobRegistry."""
    job = get_current_job()
    reg = StartedJobRegistry(job.origin, connection=job.connection)
    return job.id in reg.get_job_ids()
