#!/usr/bin/python3
"""redis_cli.py -- redis-cli (Debian's redis-tools) against casq.

    /usr/bin/python3 tests/integration/redis_cli.py
    CASQ_SERVER=redis /usr/bin/python3 tests/integration/redis_cli.py

A scripted session with exact outputs, `--pipe` mass insertion of 100,000
XADDs, inline commands through a raw socket, RESP3 (`-3`), `-r`, `-x`,
`-n`, `--scan`, COMMAND DOCS and the interactive hints redis-cli builds
from them (checked through a pseudo-terminal). Ends with `N passed, N failed`.
"""
import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import casqtest  # noqa: E402

KIND = os.environ.get("CASQ_SERVER", "casq")
ID_RE = rb"[0-9]+-[0-9]+"


def cli(port, *args, stdin=None, timeout=120):
    p = subprocess.run(["redis-cli", "-p", str(port)] + list(args), input=stdin, capture_output=True,
                       timeout=timeout)
    return p.stdout


def scripted_session(port, t):
    # Non-tty redis-cli prints raw replies, one per line.
    out = cli(port, stdin=b"FLUSHALL\nPING\nECHO \"hello world\"\nXADD s * job 1\nXADD s * job 2\nXLEN s\n"
                         b"XGROUP CREATE s g 0\nTYPE s\nEXISTS s nokey\nNOSUCH a b\nXLEN\n")
    ok = re.fullmatch(rb"OK\nPONG\nhello world\n(" + ID_RE + rb")\n(" + ID_RE + rb")\n2\nOK\nstream\n1\n"
                      rb"ERR unknown command 'NOSUCH', with args beginning with: 'a' 'b' \n\n"
                      rb"ERR wrong number of arguments for 'xlen' command\n\n", out)
    t.check("scripted session, raw output", ok is not None, out.decode("latin-1"))
    id1, id2 = (ok.group(1), ok.group(2)) if ok else (b"0-1", b"0-2")

    out = cli(port, "XREADGROUP", "GROUP", "g", "alice", "COUNT", "1", "STREAMS", "s", ">")
    t.eq("XREADGROUP raw output", b"s\n" + id1 + b"\njob\n1\n", out)
    out = cli(port, "--no-raw", "XPENDING", "s", "g")
    t.eq("XPENDING formatted output",
         b'1) (integer) 1\n2) "' + id1 + b'"\n3) "' + id1 + b'"\n4) 1) 1) "alice"\n      2) "1"\n', out)
    t.eq("XACK", b"1\n", cli(port, "XACK", "s", "g", id1))
    out = cli(port, "--no-raw", "XREADGROUP", "GROUP", "g", "bob", "STREAMS", "s", ">")
    t.eq("XREADGROUP formatted output",
         b'1) 1) "s"\n   2) 1) 1) "' + id2 + b'"\n         2) 1) "job"\n            2) "2"\n', out)
    out = cli(port, "--no-raw", "XINFO", "GROUPS", "s")
    t.check("XINFO GROUPS formatted output", re.match(
        rb'1\)  1\) "name"\n    2\) "g"\n    3\) "consumers"\n    4\) \(integer\) 2\n    5\) "pending"\n'
        rb'    6\) \(integer\) 1\n    7\) "last-delivered-id"\n    8\) "' + id2 + rb'"\n', out) is not None,
        out.decode("latin-1"))
    t.eq("XLEN formatted", b"(integer) 2\n", cli(port, "--no-raw", "XLEN", "s"))
    t.eq("error formatted", b"(error) ERR no such key\n", cli(port, "--no-raw", "XINFO", "STREAM", "nokey"))
    t.eq("nil formatted", b"(nil)\n", cli(port, "--no-raw", "XREAD", "COUNT", "1", "STREAMS", "s", "$"))


def repeat_stdin_db(port, t):
    out = cli(port, "-r", "100", "XADD", "rep", "*", "f", "v")
    t.eq("-r 100 XADD prints 100 IDs", 100, len(re.findall(rb"^" + ID_RE + rb"$", out, re.M)))
    t.eq("XLEN after -r 100", b"100\n", cli(port, "XLEN", "rep"))
    payload = bytes(range(1, 256)) * 4
    xid = cli(port, "-x", "XADD", "bin", "*", "data", stdin=payload).strip()
    raw = casqtest.raw_connect(port)
    raw.sendall(b"XRANGE bin - +\r\n")
    reply = casqtest.read_exact_replies(raw, 1)[0]
    raw.close()
    expect = (b"*1\r\n*2\r\n$%d\r\n%s\r\n*2\r\n$4\r\ndata\r\n$%d\r\n%s\r\n"
              % (len(xid), xid, len(payload), payload))
    t.eq("-x sends stdin as the last argument, byte for byte", expect, reply)
    t.eq("-n 3 selects db 3", b"0\n1\n", cli(port, "-n", "3", stdin=b"DBSIZE\nXADD in3 * a b\n")[:2] +
         cli(port, "-n", "3", "DBSIZE"))
    t.eq("... and db 0 does not see it", b"0\n", cli(port, "EXISTS", "in3"))
    for i in range(50):
        cli(port, "XADD", "scan:%d" % i, "*", "f", "v")
    keys = sorted(cli(port, "--scan", "--pattern", "scan:*").split())
    t.eq("--scan --pattern finds the 50 keys", sorted(b"scan:%d" % i for i in range(50)), keys)


def mass_insertion(port, t):
    n = 100000
    lines = []
    for i in range(n):
        key = b"pipe:%d" % (i % 4)
        val = b"%d" % i
        lines.append(b"*5\r\n$4\r\nXADD\r\n$%d\r\n%s\r\n$1\r\n*\r\n$1\r\nn\r\n$%d\r\n%s\r\n"
                     % (len(key), key, len(val), val))
    out = cli(port, "--pipe", stdin=b"".join(lines), timeout=300)
    t.check("--pipe of 100000 XADD: errors: 0, replies: 100000", out.rstrip().endswith(b"errors: 0, replies: 100000"),
            out.decode("latin-1"))
    lens = [int(cli(port, "XLEN", "pipe:%d" % k)) for k in range(4)]
    t.eq("XLEN of the 4 streams after --pipe", [25000] * 4, lens)
    last = cli(port, "XREVRANGE", "pipe:3", "+", "-", "COUNT", "1").split(b"\n")
    t.eq("last entry of pipe:3", [b"n", b"99999"], last[1:3])
    bad = b"XLEN\r\n" * 5 + b"PING\r\n" * 5
    out = cli(port, "--pipe", stdin=bad)
    t.check("--pipe counts errors: errors: 5, replies: 10", out.rstrip().endswith(b"errors: 5, replies: 10"),
            out.decode("latin-1"))


def inline_raw(port, t):
    s = casqtest.raw_connect(port)
    s.sendall(b"PING\r\nPING hi\nECHO \"a b\\x41\" \r\n\r\n  \r\nECHO 'x y'\r\nXLEN  nokey\r\n")
    got = casqtest.read_exact_replies(s, 5)
    t.eq("inline commands (CRLF, bare LF, quotes, escapes, blank lines)",
         [b"+PONG\r\n", b"$2\r\nhi\r\n", b"$4\r\na bA\r\n", b"$3\r\nx y\r\n", b":0\r\n"], got)
    s.sendall(b"ECHO \"unbalanced\r\n")
    data, closed = casqtest.read_until_closed(s)
    t.eq("unbalanced quotes: protocol error, connection closed",
         (b"-ERR Protocol error: unbalanced quotes in request\r\n", True), (data, closed))
    s.close()


def resp3(port, t):
    out = cli(port, "-3", "--no-raw", "HELLO", "3")
    t.check("-3 HELLO 3 shows a map with proto 3", b'"proto" => (integer) 3' in out, out.decode("latin-1"))
    cli(port, "DEL", "r3")
    xid = cli(port, "XADD", "r3", "*", "f", "v").strip()
    out = cli(port, "-3", "--no-raw", "XREAD", "STREAMS", "r3", "0")
    t.eq("-3 XREAD replies with a map",
         b'1# "r3" => \n   1) 1) "' + xid + b'"\n      2) 1) "f"\n         2) "v"\n', out)
    cli(port, "XGROUP", "CREATE", "r3", "g", "$")
    out = cli(port, "-3", "--no-raw", "XINFO", "GROUPS", "r3")
    t.check("-3 XINFO GROUPS: list of maps", out.startswith(b'1) 1# "name" => "g"\n   2# "consumers" => (integer) 0\n'),
            out.decode("latin-1"))
    out = cli(port, "-3", "--no-raw", "XPENDING", "r3", "g")
    t.eq("-3 XPENDING empty summary: nulls", b'1) (integer) 0\n2) (nil)\n3) (nil)\n4) (nil)\n', out)


def command_docs(port, t):
    out = cli(port, "--no-raw", "COMMAND", "DOCS", "PING")
    t.check("COMMAND DOCS PING has a summary and its group",
            re.search(rb'"summary"\n +\d+\) "[^"]+"', out) is not None and b'"connection"' in out,
            out.decode("latin-1"))
    out = cli(port, "COMMAND", "INFO", "XADD")
    t.check("COMMAND INFO XADD: name and arity", out.startswith(b"xadd\n-5\n"), out.decode("latin-1"))
    n = int(cli(port, "COMMAND", "COUNT"))
    t.check("COMMAND COUNT is positive", n > 10, n)


def hints(port, t):
    """redis-cli fetches COMMAND DOCS at start and shows the arguments of
    the command being typed as a grey hint."""
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "xterm"
        os.environ.pop("REDISCLI_HISTFILE", None)
        os.environ["HOME"] = "/nonexistent"
        os.execvp("redis-cli", ["redis-cli", "-p", str(port)])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 300, 0, 0))

    def read_for(seconds, until=None):
        out = b""
        end = time.time() + seconds
        while time.time() < end:
            r, _, _ = select.select([fd], [], [], 0.05)
            if r:
                try:
                    out += os.read(fd, 65536)
                except OSError:
                    break
                if until and until in out:
                    break
        return out
    try:
        read_for(10, b"> ")
        os.write(fd, b"XAUTOCLAIM ")
        out = read_for(10, b"[JUSTID]")
        t.check("interactive hint for XAUTOCLAIM",
                b"key group consumer min-idle-time start [COUNT count] [JUSTID]" in out, out[-400:])
        os.write(fd, b"\x15XREADGROUP ")
        out = read_for(10, b"GROUP group consumer")
        t.check("interactive hint for XREADGROUP", b"GROUP group consumer" in out, out[-400:])
        # casq's own subcommand (docs/priority.md) is hinted from its COMMAND DOCS.
        os.write(fd, b"\x15XGROUP PRIORITY ")
        out = read_for(10, b"[MAXWAIT milliseconds]")
        t.check("interactive hint for XGROUP PRIORITY",
                b"key groupname OFF|FAIR [WEIGHTS high normal] [FIELD name]|STRICT [MAXWAIT milliseconds] [FIELD name]"
                in out, out[-400:])
        os.write(fd, b"\x15quit\r")
        read_for(2)
    finally:
        try:
            os.close(fd)
        except OSError:
            pass
        try:
            os.kill(pid, 9)
        except OSError:
            pass
        os.waitpid(pid, 0)


def main():
    t = casqtest.Results("redis-cli")
    # liberal: none of these tests sends explicit IDs, but keep the
    # default (strict) mode, which is what redis-cli users get.
    srv = casqtest.Server().start()
    try:
        print("# %s against %s on port %d" % (cli(srv.port, "--version").strip().decode(), srv.kind, srv.port))
        for name, fn in [("scripted session", scripted_session), ("-r -x -n --scan", repeat_stdin_db),
                         ("--pipe", mass_insertion), ("inline", inline_raw), ("RESP3", resp3),
                         ("COMMAND DOCS", command_docs), ("hints", hints)]:
            t.run(name, fn, srv.port, t)
        t.check("server still alive", srv.alive())
    finally:
        srv.stop(t)
    return t.finish()


if __name__ == "__main__":
    sys.exit(main())
