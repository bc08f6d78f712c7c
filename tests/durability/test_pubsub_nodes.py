#!/usr/bin/python3
"""test_pubsub_nodes.py -- pub/sub across the nodes of one document.

A follower does not run pub/sub itself: like every command it does not
answer locally, SUBSCRIBE/PSUBSCRIBE/SSUBSCRIBE/PUBLISH/PUBSUB switch the
connection to relay mode (src/broker.c), and the broker runs them
(src/pubsub.c). So:

  - a message published on the broker reaches the subscribers connected to
    every node;
  - a PUBLISH sent to a follower reaches the subscribers of every node;
  - PUBLISH's count and PUBSUB NUMSUB/NUMPAT/CHANNELS are the broker's and
    count each subscriber once, whatever node it is connected to (a
    relayed subscriber is one connection on the broker);
  - the RESP2 subscribed-context rules and RESP3 push messages are the
    broker's, byte for byte;
  - a subscriber that leaves a follower is unsubscribed on the broker;
  - nothing of pub/sub is in the state document;
  - when the broker dies, the subscribers relayed by the surviving node are
    disconnected (as after a Redis failover), and once it took over they
    subscribe again and get what is published there.

Two nodes on one document (file store), as test_failover.py starts them.
Ports 26900-26999.
"""

import os
import shutil
import signal
import socket
import sys
import tempfile
import time

import redis

sys.path.insert(0, os.path.dirname(__file__))
from casqtest import binfo, Casq, check, finish, make_follower, pick_port, wait_for  # noqa: E402

BROKER_TIMEOUT_MS = 500
_used_ports = set()


def port():
    p = pick_port(26900, span=100, avoid=tuple(_used_ports))
    _used_ports.add(p)
    return p


def node(datadir, name, timeout=BROKER_TIMEOUT_MS):
    return Casq(port(), datadir, "--broker-timeout", str(timeout), logname=f"{name}.log")









def make_follower_sadd(x):
    """make_follower, writing to a set (this test keeps streams out)."""
    return make_follower(x, write=lambda r: r.sadd(b"probe", b"1"))

class Raw:
    """A raw RESP connection: exact bytes, one complete reply at a time."""

    def __init__(self, p, timeout=10):
        self.s = socket.create_connection(("127.0.0.1", p), timeout=timeout)
        self.f = self.s.makefile("rb")

    @staticmethod
    def encode(*args):
        out = b"*%d\r\n" % len(args)
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out += b"$%d\r\n%s\r\n" % (len(a), a)
        return out

    def send(self, *args):
        self.s.sendall(self.encode(*args))

    def _reply(self, out):
        line = self.f.readline()
        if not line:
            raise ConnectionError("closed")
        out.append(line)
        t, rest = line[:1], line[1:-2]
        if t in b"+-:_#,(":
            return
        if t in b"$=!":
            n = int(rest)
            if n >= 0:
                out.append(self.f.read(n + 2))
            return
        if t in b"*~>%|":
            n = int(rest)
            if t in b"%|":
                n *= 2
            for _ in range(max(n, 0) + (t == b"|")):
                self._reply(out)
            return
        raise ValueError(f"not RESP: {line!r}")

    def reply(self):
        out = []
        self._reply(out)
        return b"".join(out)

    def call(self, *args):
        self.send(*args)
        return self.reply()

    def closed(self, timeout=5):
        """Whether the server closed the connection within timeout."""
        self.s.settimeout(timeout)
        try:
            return self.f.read(1) == b""
        except (socket.timeout, OSError):
            return False

    def close(self):
        self.f.close()
        self.s.close()


def msg(kind, *parts, resp3=False):
    out = (b">%d\r\n" if resp3 else b"*%d\r\n") % (len(parts) + 1)
    for p in (kind,) + parts:
        p = p if isinstance(p, bytes) else p.encode()
        out += b"$%d\r\n%s\r\n" % (len(p), p)
    return out


def confirm(kind, name, count, resp3=False):
    head = (b">3\r\n" if resp3 else b"*3\r\n")
    return head + b"$%d\r\n%s\r\n$%d\r\n%s\r\n:%d\r\n" % (len(kind), kind.encode(), len(name), name.encode(), count)


def scenario_fanout():
    d = tempfile.mkdtemp(prefix="casq-ps-nodes-")
    a = node(d, "a", timeout=10000).start()
    b = node(d, "b", timeout=10000).start()
    check(make_follower_sadd(a), "fanout: the first node follows the second")

    s_broker = Raw(b.port)    # subscribed on the broker
    s_follow = Raw(a.port)    # subscribed through the follower
    p_follow = Raw(a.port)    # pattern subscriber through the follower
    r3_follow = Raw(a.port)   # RESP3 subscriber through the follower
    check(s_broker.call("SUBSCRIBE", "news") == confirm("subscribe", "news", 1),
          "fanout: SUBSCRIBE on the broker")
    got = s_follow.call("SUBSCRIBE", "news")
    check(got == confirm("subscribe", "news", 1), "fanout: SUBSCRIBE through the follower", f"{got!r}")
    got = p_follow.call("PSUBSCRIBE", "n*")
    check(got == confirm("psubscribe", "n*", 1), "fanout: PSUBSCRIBE through the follower", f"{got!r}")
    r3_follow.call("HELLO", "3")
    got = r3_follow.call("SUBSCRIBE", "news")
    check(got == confirm("subscribe", "news", 1, resp3=True),
          "fanout: RESP3 SUBSCRIBE through the follower is a push", f"{got!r}")

    rb, ra = b.client(), a.client()
    n = rb.publish(b"news", b"from-broker")
    check(n == 4, "fanout: PUBLISH on the broker counts the subscribers of both nodes (3 + 1 pattern)", f"{n}")
    exp = msg("message", "news", "from-broker")
    check(s_broker.reply() == exp, "fanout: the broker's subscriber gets the message")
    check(s_follow.reply() == exp, "fanout: the follower's subscriber gets the message")
    got = p_follow.reply()
    check(got == msg("pmessage", "n*", "news", "from-broker"), "fanout: the follower's pattern subscriber too",
          f"{got!r}")
    got = r3_follow.reply()
    check(got == msg("message", "news", "from-broker", resp3=True), "fanout: the RESP3 one as a push", f"{got!r}")

    n = ra.publish(b"news", b"from-follower")
    check(n == 4, "fanout: PUBLISH sent to the follower reaches the subscribers of every node", f"{n}")
    exp = msg("message", "news", "from-follower")
    check(s_broker.reply() == exp and s_follow.reply() == exp
          and p_follow.reply() == msg("pmessage", "n*", "news", "from-follower")
          and r3_follow.reply() == msg("message", "news", "from-follower", resp3=True),
          "fanout: ... and every one of them gets it")

    check(ra.publish(b"zzz", b"x") == 0 and rb.publish(b"nx", b"x") == 1,
          "fanout: counts for a channel without subscribers / matched by the pattern only")
    check(p_follow.reply() == msg("pmessage", "n*", "nx", "x"), "fanout: ... the pattern's message")

    numsub_a = ra.pubsub_numsub(b"news")
    numsub_b = rb.pubsub_numsub(b"news")
    check(numsub_a == numsub_b == [(b"news", 3)], "fanout: PUBSUB NUMSUB is the same on both nodes, each once",
          f"{numsub_a} {numsub_b}")
    check(ra.pubsub_numpat() == rb.pubsub_numpat() == 1, "fanout: PUBSUB NUMPAT likewise")
    check(sorted(ra.pubsub_channels()) == sorted(rb.pubsub_channels()) == [b"news"],
          "fanout: PUBSUB CHANNELS likewise")

    # The RESP2 subscribed context, byte for byte the broker's.
    via = s_follow.call("SADD", "k", "v")
    direct = s_broker.call("SADD", "k", "v")
    check(via == direct and via.startswith(b"-ERR Can't execute 'sadd': only (P|S)SUBSCRIBE"),
          "fanout: the subscribed context's error through the follower equals the broker's", f"{via!r}")
    via = s_follow.call("PING")
    check(via == s_broker.call("PING") == b"*2\r\n$4\r\npong\r\n$0\r\n\r\n",
          "fanout: PING in the subscribed context through the follower", f"{via!r}")

    # Shard channels too.
    sh = Raw(a.port)
    sh.call("SSUBSCRIBE", "sh")
    check(rb.execute_command("SPUBLISH", "sh", "m") == 1 and sh.reply() == msg("smessage", "sh", "m"),
          "fanout: SSUBSCRIBE through the follower, SPUBLISH on the broker")
    sh.close()

    # A subscriber leaving the follower leaves the broker's counts.
    s_follow.close()
    check(wait_for(lambda: rb.pubsub_numsub(b"news") == [(b"news", 2)], 5),
          "fanout: a subscriber that disconnects from the follower is unsubscribed on the broker",
          f"{rb.pubsub_numsub(b'news')}")
    check(rb.publish(b"news", b"after") == 3, "fanout: ... and PUBLISH counts one fewer")
    s_broker.reply()
    p_follow.reply()
    r3_follow.reply()

    # Pub/sub is not state.
    rb.sadd(b"marker", b"1")
    with open(os.path.join(d, "queue.json"), "rb") as f:
        doc = f.read()
    if os.path.exists(os.path.join(d, "queue.json.log")):  # the commit log holds the latest commits
        with open(os.path.join(d, "queue.json.log"), "rb") as f:
            doc += f.read()
    check(b"news" not in doc and b"n*" not in doc and b"marker" in doc,
          "fanout: the state document holds no channel, pattern or subscriber")

    for c in (s_broker, p_follow, r3_follow):
        c.close()
    ra.close()
    rb.close()
    a.stop()
    b.stop()
    shutil.rmtree(d, ignore_errors=True)


def scenario_failover():
    d = tempfile.mkdtemp(prefix="casq-ps-fo-")
    a = node(d, "a").start()
    b = node(d, "b").start()
    check(make_follower_sadd(a), "failover: a follows b")
    sub = Raw(a.port)
    sub.call("SUBSCRIBE", "jobs")
    rb = b.client()
    check(rb.publish(b"jobs", b"1") == 1 and sub.reply() == msg("message", "jobs", "1"),
          "failover: a subscriber through the follower gets the broker's messages")
    b.kill(signal.SIGKILL)
    check(sub.closed(timeout=10), "failover: when the broker dies, the relayed subscriber is disconnected")
    sub.close()
    took = wait_for(lambda: binfo(a)["broker_role"] == "broker", 10)
    check(took, "failover: the follower takes over")
    sub = Raw(a.port)
    check(sub.call("SUBSCRIBE", "jobs") == confirm("subscribe", "jobs", 1), "failover: subscribing again")
    ra = a.client()
    check(ra.publish(b"jobs", b"2") == 1 and sub.reply() == msg("message", "jobs", "2"),
          "failover: ... gets what is published on the new broker")
    sub.close()
    ra.close()
    rb.close()
    a.stop()
    shutil.rmtree(d, ignore_errors=True)


def main():
    only = sys.argv[1:]
    for name, fn in [("fanout", scenario_fanout), ("failover", scenario_failover)]:
        if not only or name in only:
            t0 = time.time()
            fn()
            print(f"#   {name}: {time.time() - t0:.1f} s", flush=True)
    finish()


if __name__ == "__main__":
    main()
