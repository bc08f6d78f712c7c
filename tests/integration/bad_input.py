#!/usr/bin/python3
"""bad_input.py -- hostile and careless clients: casq never crashes and
never lets one client block the others.

    /usr/bin/python3 tests/integration/bad_input.py
    CASQ_SERVER=redis /usr/bin/python3 tests/integration/bad_input.py

Truncated frames, negative and huge lengths, malformed headers, binary
garbage (seeded, the seed is printed), 1 MB inline lines, 10,000 pipelined
commands in one write, idle half-sent requests, and clients that never
read their replies (with and without an output-buffer limit). Each check
that concerns "other clients" is a PING on a separate connection that
must be answered; there are no timing assertions, only generous timeouts.
Every expected reply is Redis's: the suite passes against redis-server.
Ends with `N passed, N failed`.
"""
import os
import random
import socket
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import casqtest  # noqa: E402

KIND = os.environ.get("CASQ_SERVER", "casq")


def ping_ok(port):
    """A fresh connection gets +PONG."""
    try:
        s = casqtest.raw_connect(port, timeout=30)
        s.sendall(b"PING\r\n")
        ok = casqtest.read_exact_replies(s, 1) == [b"+PONG\r\n"]
        s.close()
        return ok
    except OSError:
        return False


def error_and_close(port, payload):
    """Sends payload, returns (everything the server sent, closed?)."""
    s = casqtest.raw_connect(port, timeout=30)
    s.sendall(payload)
    data, closed = casqtest.read_until_closed(s)
    s.close()
    return data, closed


def protocol_errors(port, t):
    cases = [
        (b"*1\r\n$-1\r\n", b"-ERR Protocol error: invalid bulk length\r\n"),
        (b"*1\r\n$-5\r\n", b"-ERR Protocol error: invalid bulk length\r\n"),
        (b"*1\r\n$abc\r\n", b"-ERR Protocol error: invalid bulk length\r\n"),
        (b"*1\r\n$9999999999999\r\n", b"-ERR Protocol error: invalid bulk length\r\n"),
        (b"*1\r\n$536870913\r\n", b"-ERR Protocol error: invalid bulk length\r\n"),
        (b"*2147483648\r\n", b"-ERR Protocol error: invalid multibulk length\r\n"),
        (b"*99999999999999999999\r\n", b"-ERR Protocol error: invalid multibulk length\r\n"),
        (b"*abc\r\n", b"-ERR Protocol error: invalid multibulk length\r\n"),
        (b"*1\r\nPING\r\n", b"-ERR Protocol error: expected '$', got 'P'\r\n"),
        (b"*2\r\n$4\r\nECHO\r\n:1\r\n", b"-ERR Protocol error: expected '$', got ':'\r\n"),
        (b"PING\r\nPING\r\n*1\r\n$x\r\nPING\r\n",
         b"+PONG\r\n+PONG\r\n-ERR Protocol error: invalid bulk length\r\n"),
        (b"ECHO \"abc\r\n", b"-ERR Protocol error: unbalanced quotes in request\r\n"),
        (b"ECHO \"a\"b\r\n", b"-ERR Protocol error: unbalanced quotes in request\r\n"),
    ]
    for payload, expect in cases:
        data, closed = error_and_close(port, payload)
        t.eq("protocol error for %r: reply, then the connection is closed" % payload[:40], (expect, True),
             (data, closed))
    t.check("server answers after the protocol errors", ping_ok(port))


def empty_and_partial(port, t):
    s = casqtest.raw_connect(port, timeout=30)
    # *-1 and *0 are empty requests: skipped without a reply, like Redis.
    s.sendall(b"*-1\r\n*0\r\n*-1\r\nPING\r\n")
    t.eq("*-1 and *0 are skipped", [b"+PONG\r\n"], casqtest.read_exact_replies(s, 1))
    # A command sent one byte at a time.
    for b in b"*2\r\n$4\r\nECHO\r\n$5\r\nhello\r\n":
        s.sendall(bytes([b]))
    t.eq("a command split into 1-byte writes", [b"$5\r\nhello\r\n"], casqtest.read_exact_replies(s, 1))
    # A truncated frame leaves the connection waiting, others are served.
    s.sendall(b"*3\r\n$4\r\nXADD\r\n$1\r\n")
    t.check("while one client has sent half a command, another gets PONG", ping_ok(port))
    s.sendall(b"k\r\n")  # still incomplete: argc 3 of 3 missing one
    s.sendall(b"$1\r\n*\r\n")
    (reply,) = casqtest.read_exact_replies(s, 1)
    t.eq("the completed XADD (odd field list) gets the arity error",
         b"-ERR wrong number of arguments for 'xadd' command\r\n", reply)
    # Truncated frames followed by a hang-up.
    for payload in (b"*3\r\n$3\r\nSET", b"*2\r\n$4\r\nECHO\r\n$100\r\nabc", b"*100\r\n", b"*1", b"$", b"EC"):
        c = casqtest.raw_connect(port)
        c.sendall(payload)
        c.close()
    t.check("truncated frames then hang-ups: server answers", ping_ok(port))
    # A valid but very large argument count only reserves what arrives.
    big = casqtest.raw_connect(port)
    big.sendall(b"*1000000\r\n$4\r\nPING\r\n")
    t.check("*1000000 announced, one argument sent: others are served", ping_ok(port))
    big.close()
    s.close()


def big_payloads(port, t):
    # A 1 MB inline line is a protocol error (inline requests are capped
    # at 64 KB), with or without its newline.
    for end in (b"", b"\r\n"):
        data, closed = error_and_close(port, b"ECHO " + b"a" * (1 << 20) + end)
        t.eq("1 MB inline line%s: too big inline request" % (" with CRLF" if end else ""),
             (b"-ERR Protocol error: too big inline request\r\n", True), (data, closed))
    # Inline lines just under the cap work.
    s = casqtest.raw_connect(port, timeout=60)
    arg = b"b" * 60000
    s.sendall(b"ECHO " + arg + b"\r\n")
    t.eq("a 60 KB inline line works", [b"$60000\r\n" + arg + b"\r\n"], casqtest.read_exact_replies(s, 1))
    # Big bulk arguments, delivered whole and in small pieces.
    for size in (1 << 20, 8 << 20):
        payload = bytes(random.Random(size).getrandbits(8) for _ in range(4096)) * (size // 4096)
        frame = b"*2\r\n$4\r\nECHO\r\n$%d\r\n%s\r\n" % (size, payload)
        s.sendall(frame)
        got = casqtest.read_exact_replies(s, 1)[0]
        t.check("ECHO of a %d MB binary argument comes back intact" % (size >> 20),
                got == b"$%d\r\n%s\r\n" % (size, payload), "got %d bytes" % len(got))
    frame = b"*2\r\n$4\r\nECHO\r\n$100000\r\n" + b"z" * 100000 + b"\r\n"
    for i in range(0, len(frame), 997):
        s.sendall(frame[i:i + 997])
    got = casqtest.read_exact_replies(s, 1)[0]
    t.check("a 100 KB argument in 997-byte writes", got == b"$100000\r\n" + b"z" * 100000 + b"\r\n")
    s.close()


def pipelining(port, t):
    s = casqtest.raw_connect(port, timeout=60)
    s.sendall(b"DEL pl\r\n")
    casqtest.read_exact_replies(s, 1)
    n = 10000
    cmds = b"".join(b"*5\r\n$4\r\nXADD\r\n$2\r\npl\r\n$1\r\n*\r\n$1\r\ni\r\n$%d\r\n%d\r\n" % (len(b"%d" % i), i)
                    for i in range(n))
    s.sendall(cmds)
    replies = casqtest.read_exact_replies(s, n)
    t.check("10,000 pipelined XADD in one write: 10,000 IDs",
            len(replies) == n and all(r.startswith(b"$") for r in replies), replies[:3])
    ids = [r.split(b"\r\n")[1] for r in replies]
    t.eq("... all distinct", n, len(set(ids)))
    s.sendall(b"XLEN pl\r\n")
    t.eq("... XLEN", [b":10000\r\n"], casqtest.read_exact_replies(s, 1))
    s.sendall(b"PING\r\n" * n)
    t.eq("10,000 pipelined inline PINGs", [b"+PONG\r\n"] * n, casqtest.read_exact_replies(s, n))
    mixed = (b"PING\r\n*1\r\n$4\r\nPING\r\n") * 5000
    s.sendall(mixed)
    t.eq("10,000 alternating inline/multibulk", [b"+PONG\r\n"] * n, casqtest.read_exact_replies(s, n))
    s.close()


def garbage(port, t):
    seed = int(os.environ.get("CASQ_SEED", random.randrange(1 << 30)))
    print("# garbage seed %d (CASQ_SEED=%d to replay)" % (seed, seed))
    rng = random.Random(seed)
    tokens = [b"*", b"$", b"\r\n", b"\n", b"\r", b"-1", b"0", b"3", b"99999", b"PING", b"XADD", b"\"", b"'",
              b"\\x", b"\x00", b"\xff", b" ", b"ECHO", b"*2\r\n", b"$4\r\n"]
    for i in range(300):
        if rng.random() < 0.5:
            payload = bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 2000)))
        else:
            payload = b"".join(rng.choice(tokens) for _ in range(rng.randrange(1, 200)))
        try:
            c = casqtest.raw_connect(port, timeout=5)
            c.sendall(payload)
            c.shutdown(socket.SHUT_WR)
            casqtest.read_until_closed(c)
            c.close()
        except OSError:
            pass
    t.check("300 connections of random bytes: server answers", ping_ok(port))


def slow_and_idle(port, t):
    conns = []
    for i in range(200):
        c = casqtest.raw_connect(port)
        c.sendall(b"*2\r\n$4\r\nECHO\r\n$10\r\nab")
        conns.append(c)
    t.check("200 connections each stuck mid-argument: another client gets PONG", ping_ok(port))
    for c in conns:
        c.close()
    t.check("... and after they hang up", ping_ok(port))


def never_reads(port, t):
    """One client sends 100,000 commands and reads nothing for a while;
    the server keeps serving others, then delivers all of its replies."""
    s = casqtest.raw_connect(port, timeout=120)
    s.sendall(b"DEL nr\r\n")
    casqtest.read_exact_replies(s, 1)
    for i in range(10):
        s.sendall(b"XADD nr * field value-%d\r\n" % i)
    casqtest.read_exact_replies(s, 10)
    n = 100000
    batch = b"XRANGE nr - + COUNT 3\r\n" * 1000
    sent = []

    def sender():
        for _ in range(n // 1000):
            s.sendall(batch)
        sent.append(True)
    th = threading.Thread(target=sender)
    th.start()
    pings = [ping_ok(port) for _ in range(5)]
    t.eq("while a client floods without reading, others get PONG", [True] * 5, pings)
    # Drain concurrently: the sender may be blocked on a full socket.
    replies = casqtest.read_exact_replies(s, n)
    th.join(120)
    t.check("the flooding client gets all 100,000 replies", len(replies) == n and sent and
            all(r == replies[0] for r in replies) and replies[0].startswith(b"*3\r\n"), replies[:1])
    s.close()


def output_limit(t):
    """With client-output-buffer-limit normal 1mb, a client that does not
    read is disconnected; others are unaffected."""
    srv = casqtest.Server(["--client-output-buffer-limit", "normal", "1mb", "0", "0"], kind=KIND).start()
    try:
        port = srv.port
        s = casqtest.raw_connect(port, timeout=60)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        arg = b"x" * 10000
        frame = b"*2\r\n$4\r\nECHO\r\n$10000\r\n" + arg + b"\r\n"
        try:
            for _ in range(2000):  # 20 MB of replies, never read
                s.sendall(frame * 10)
        except OSError:
            pass
        t.check("a non-reading client over the output limit: others get PONG", ping_ok(port))
        data, closed = casqtest.read_until_closed(s, limit=1 << 30)
        t.check("... and the non-reading client was disconnected", closed and len(data) < 20 * 10010 * 1000,
                "read %d bytes, closed=%s" % (len(data), closed))
        s.close()
        if KIND == "casq":  # this INFO field arrived in Redis 7.4; Debian's 7.0 lacks it
            c = casqtest.raw_connect(port)
            c.sendall(b"INFO stats\r\n")
            info = casqtest.read_exact_replies(c, 1)[0]
            c.close()
            t.check("INFO stats counts the disconnection",
                    b"client_output_buffer_limit_disconnections:1\r\n" in info, info[:2000])
        q = casqtest.raw_connect(port, timeout=60)
        big = 3 << 20
        try:
            q.sendall(b"*2\r\n$4\r\nECHO\r\n$%d\r\n" % big + b"q" * big + b"\r\n")
        except OSError:
            pass
        data, closed = casqtest.read_until_closed(q, limit=1 << 30)
        t.check("a 3 MB reply is over the 1 MB hard limit: connection closed", closed and not data.startswith(b"$"),
                data[:100])
        q.close()
        t.check("server answers", ping_ok(port))
    finally:
        srv.stop(t)


def query_limit(t):
    srv = casqtest.Server(["--client-query-buffer-limit", "1mb"], kind=KIND).start()
    try:
        port = srv.port
        s = casqtest.raw_connect(port, timeout=60)
        try:
            s.sendall(b"*2\r\n$4\r\nECHO\r\n$3000000\r\n" + b"a" * 3000000 + b"\r\n")
        except OSError:
            pass
        data, closed = casqtest.read_until_closed(s)
        t.eq("query buffer over client-query-buffer-limit: connection closed", (b"", True), (data, closed))
        s.close()
        t.check("server answers", ping_ok(port))
    finally:
        srv.stop(t)


def main():
    t = casqtest.Results("bad input")
    srv = casqtest.Server().start()
    try:
        print("# against %s on port %d" % (srv.kind, srv.port))
        for name, fn in [("protocol errors", protocol_errors), ("empty and partial", empty_and_partial),
                         ("big payloads", big_payloads), ("pipelining", pipelining), ("garbage", garbage),
                         ("slow and idle", slow_and_idle), ("never reads", never_reads)]:
            t.run(name, fn, srv.port, t)
            if not srv.alive():
                t.check("server alive after %s" % name, False, casqtest.tail(srv.log()))
                break
        t.check("server still alive", srv.alive())
    finally:
        srv.stop(t)
    t.run("output buffer limit", output_limit, t)
    t.run("query buffer limit", query_limit, t)
    return t.finish()


if __name__ == "__main__":
    sys.exit(main())
