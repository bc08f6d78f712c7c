#!/usr/bin/python3
"""ioredis_client.py -- runs ioredis_client.js (node + ioredis) against a
throw-away server, installing ioredis into tests/integration/node_modules
first when it is missing (npm, versions pinned by package-lock.json).

    /usr/bin/python3 tests/integration/ioredis_client.py

Ends with `N passed, N failed` (the node checks plus the server's clean exit).
"""
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import casqtest  # noqa: E402


def ensure_ioredis(t):
    if os.path.exists(os.path.join(HERE, "node_modules", "ioredis", "package.json")):
        return True
    npm = shutil.which("npm")
    if not npm:
        return t.check("npm is installed (tests/install-deps.sh installs it)", False)
    print("# installing ioredis with npm into %s/node_modules" % HERE)
    p = subprocess.run([npm, "ci", "--prefix", HERE, "--no-audit", "--no-fund"], capture_output=True, timeout=600)
    return t.check("npm ci installs ioredis", p.returncode == 0,
                   (p.stdout + p.stderr).decode("latin-1")[-2000:])


def main():
    t = casqtest.Results("ioredis")
    if not ensure_ioredis(t):
        return t.finish()
    srv = casqtest.Server().start()
    try:
        print("# node %s, ioredis against %s on port %d" % (
            subprocess.run(["node", "--version"], capture_output=True).stdout.decode().strip(), srv.kind, srv.port))
        p = subprocess.run(["node", os.path.join(HERE, "ioredis_client.js"), str(srv.port)],
                           capture_output=True, timeout=400)
        out = p.stdout.decode("utf-8", "replace")
        lines = out.rstrip("\n").split("\n")
        m = re.fullmatch(r"(\d+) passed, (\d+) failed", lines[-1]) if lines else None
        for line in lines[:-1] if m else lines:
            print(line)
        if m:
            t.passed += int(m.group(1))
            t.failed += int(m.group(2))
            if int(m.group(2)):
                t.failures.append("%s node check(s), see above" % m.group(2))
        t.check("node exits 0 with a summary line", p.returncode == 0 and m is not None,
                p.stderr.decode("utf-8", "replace")[-2000:])
        t.check("server still alive", srv.alive())
    finally:
        srv.stop(t)
    return t.finish()


if __name__ == "__main__":
    sys.exit(main())
