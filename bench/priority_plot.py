#!/usr/bin/python3
"""priority_plot.py -- "show it" for priority delivery (issue 10): runs the
200,000-message test against casq and draws docs/priority.png, like the
figure of RabbitMQ's quorum-queue priority article: cumulative deliveries
per class, and the high/normal ratio of every window of 1,000 deliveries.

  bench/priority_plot.py [out.png]      # needs python3-matplotlib

100,000 high (priority 9) then 100,000 normal (no priority field) entries
are pushed first, then one consumer reads the FAIR group (2:1) with
XREADGROUP COUNT 100; a second run does the same with the two classes
interleaved at random. Prints the window statistics as a Markdown table
(docs/priority.md quotes them). casq runs from build/release/casq-server
(CASQ_BIN to change) with its state in /dev/shm, on port 30900 (PORT).
"""

import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402,F401
import redis  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
CASQ_BIN = os.environ.get("CASQ_BIN", os.path.join(ROOT, "build", "release", "casq-server"))
PORT = int(os.environ.get("PORT", "30900"))
N = 100_000
WINDOW = 1000


def push(r, key, fields):
    ids = []
    p = r.pipeline(transaction=False)
    for k, f in enumerate(fields):
        p.xadd(key, f)
        if k % 1000 == 999:
            ids += p.execute()
    return ids + p.execute()


def consume(r, key):
    r.execute_command("XGROUP", "CREATE", key, "g", "0", "PRIORITY", "FAIR")
    seq = []
    while True:
        res = r.execute_command("XREADGROUP", "GROUP", "g", "c", "COUNT", 100, "STREAMS", key, ">")
        if not res:
            return seq
        ids = [e[0] for e in res[0][1]]
        seq += ids
        r.xack(key, "g", *ids)


def windows(seq, high):
    """Ratios high/normal of the windows of 1,000 deliveries while both
    classes still had entries to deliver."""
    total_high = sum(1 for e in seq if e in high)
    hl, nl = total_high, len(seq) - total_high
    out = []
    for w in range(0, len(seq) - WINDOW + 1, WINDOW):
        h = sum(1 for e in seq[w:w + WINDOW] if e in high)
        if hl - h > 0 and nl - (WINDOW - h) > 0:
            out.append((w + WINDOW, h / (WINDOW - h)))
        hl -= h
        nl -= WINDOW - h
    return out


def main():
    out_png = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "docs", "priority.png")
    base = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    work = tempfile.mkdtemp(prefix="casq-prio-plot-", dir=base)
    proc = subprocess.Popen([CASQ_BIN, "--port", str(PORT), "--bind", "127.0.0.1", "--dir", work],
                            stdout=open(os.path.join(work, "log"), "wb"), stderr=subprocess.STDOUT)
    runs = {}
    try:
        r = redis.Redis(port=PORT, socket_timeout=120)
        for _ in range(200):
            try:
                r.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        ids = push(r, "first", [{"priority": "9"}] * N + [{"job": "x"}] * N)
        runs["100k high, then 100k normal"] = (consume(r, "first"), set(ids[:N]))
        rnd = random.Random(1)
        spec = [1] * N + [0] * N
        rnd.shuffle(spec)
        ids = push(r, "mixed", [{"priority": "9"} if c else {"job": "x"} for c in spec])
        runs["interleaved at random"] = (consume(r, "mixed"), {e for e, c in zip(ids, spec) if c})
    finally:
        proc.terminate()
        proc.wait()
        shutil.rmtree(work, ignore_errors=True)

    fig, axes = plt.subplots(2, 2, figsize=(10, 6), dpi=80)
    print("| pushed | windows with both classes | within 1.9-2.1 | exactly 2:1 (+-1 entry) | min | max |")
    print("| --- | --- | --- | --- | --- | --- |")
    for col, (name, (seq, high)) in enumerate(runs.items()):
        xs = list(range(1, len(seq) + 1, 500))
        ch, cn, hi, no = [], [], 0, 0
        marks = set(xs)
        for k, e in enumerate(seq, 1):
            if e in high:
                hi += 1
            else:
                no += 1
            if k in marks:
                ch.append(hi)
                cn.append(no)
        ax = axes[0][col]
        ax.plot(xs, ch, label="high (priority >= 5)", color="tab:red")
        ax.plot(xs, cn, label="normal", color="tab:blue")
        ax.set_title(f"casq FAIR 2:1 -- {name}", fontsize=10)
        ax.set_xlabel("deliveries")
        ax.set_ylabel("cumulative deliveries")
        ax.legend(fontsize=8)
        ws = windows(seq, high)
        ax = axes[1][col]
        ax.plot([w for w, _ in ws], [q for _, q in ws], ".", markersize=3, color="tab:green")
        ax.axhspan(1.9, 2.1, color="0.85", zorder=0, label="1.9 - 2.1")
        ax.legend(fontsize=8, loc="upper right")
        ax.set_ylim(1.5, 2.5)
        ax.set_xlim(0, len(seq))
        ax.set_xlabel("deliveries (end of the 1,000-delivery window)")
        ax.set_ylabel("high / normal per window")
        inside = sum(1 for _, q in ws if 1.9 <= q <= 2.1)
        exact = sum(1 for _, q in ws if 666 / 334 <= q <= 667 / 333)
        print(f"| {name} | {len(ws)} | {inside} ({100 * inside / len(ws):.0f}%) | {exact} | "
              f"{min(q for _, q in ws):.3f} | {max(q for _, q in ws):.3f} |")
    kfmt = matplotlib.ticker.FuncFormatter(lambda v, _: f"{v / 1000:.0f}k")
    for row in axes:
        for ax in row:
            ax.xaxis.set_major_formatter(kfmt)
    axes[0][0].yaxis.set_major_formatter(kfmt)
    axes[0][1].yaxis.set_major_formatter(kfmt)
    fig.tight_layout()
    fig.savefig(out_png)
    print(f"\n(picture: {out_png})")


if __name__ == "__main__":
    main()
