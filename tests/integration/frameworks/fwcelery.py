"""fwcelery.py -- the Celery app of tests/integration/frameworks.py.

Imported by the test (the producer) and by the workers it starts
(`python3 -m celery -A fwcelery worker`), with FW_URL naming the server:
the Redis broker and the Redis result backend on the same database.
Every task records that it ran in the server itself (RPUSH), so the test
can tell a lost task from one run twice.
"""
import os
import socket
import time

import redis
from celery import Celery
from kombu import Exchange, Queue
from kombu.common import Broadcast

URL = os.environ.get("FW_URL", "redis://127.0.0.1:6379/0")

app = Celery("fwcelery", broker=URL, backend=URL)
app.conf.update(
    task_queues=(Queue("celery"), Broadcast("bcast")),
    broker_connection_retry_on_startup=False,
    worker_hijack_root_logger=False,
    result_expires=600,
)

# A producer must declare the fanout exchange itself: kombu's Redis
# transport keeps exchange types in the process, and an undeclared one is
# taken for a direct exchange (LPUSH to the bound lists nobody reads).
BCAST_EXCHANGE = Exchange("bcast", type="fanout")

_conn = None


def conn():
    global _conn
    if _conn is None:
        _conn = redis.Redis.from_url(URL)
    return _conn


@app.task
def add(i, j):
    conn().rpush("fw:ran", i)
    return i + j


@app.task
def later(i):
    """A countdown/ETA task: returns when it ran, to compare with its ETA."""
    conn().rpush("fw:ran", i)
    return [i, time.time()]


@app.task
def bcast(tag):
    conn().rpush("fw:bcast", "%s@%s:%d" % (tag, socket.gethostname(), os.getpid()))
    return tag
