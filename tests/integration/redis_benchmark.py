#!/usr/bin/python3
"""redis_benchmark.py -- redis-benchmark (Debian's redis-tools) runs to
completion against casq. A functional test: no timing is asserted (see
bench/ for numbers).

    /usr/bin/python3 tests/integration/redis_benchmark.py

Runs `-t ping_inline,ping_mbulk -n 20000` plain and pipelined (-P 16, -c 50),
and a custom `XADD bench * f v` load whose every entry must then be in the
stream. Ends with `N passed, N failed`.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import casqtest  # noqa: E402


def bench(port, *args):
    p = subprocess.run(["redis-benchmark", "-h", "127.0.0.1", "-p", str(port), "-q"] + list(args),
                       capture_output=True, timeout=600)
    return p.returncode, p.stdout.decode("latin-1").replace("\r", "\n"), p.stderr.decode("latin-1")


def main():
    t = casqtest.Results("redis-benchmark")
    srv = casqtest.Server().start()
    try:
        port = srv.port
        print("# against %s on port %d" % (srv.kind, port))
        for extra in ([], ["-P", "16", "-c", "50"]):
            rc, out, err = bench(port, "-t", "ping_inline,ping_mbulk", "-n", "20000", *extra)
            for test in ("PING_INLINE", "PING_MBULK"):
                t.check(("%s %s completes" % (test, " ".join(extra))).replace("  ", " "),
                        rc == 0 and re.search(r"^%s: [0-9.]+ requests per second" % test, out, re.M) is not None,
                        "rc=%d\n%s\n%s" % (rc, out[-1500:], err[-1500:]))
        rc, out, err = bench(port, "-n", "20000", "-c", "20", "-P", "8", "XADD", "bench", "*", "f", "v")
        t.check("custom XADD load completes", rc == 0 and "requests per second" in out,
                "rc=%d\n%s\n%s" % (rc, out[-1500:], err[-1500:]))
        s = casqtest.raw_connect(port)
        s.sendall(b"XLEN bench\r\n")
        t.eq("every benchmarked XADD is in the stream", [b":20000\r\n"], casqtest.read_exact_replies(s, 1))
        s.close()
        t.check("server still alive", srv.alive())
    finally:
        srv.stop(t)
    return t.finish()


if __name__ == "__main__":
    sys.exit(main())
