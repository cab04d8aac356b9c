#!/usr/bin/env python3
"""bench_extras.py CHECK ...: what rdma_bench's -H, --cpu-util and
--report-counters printed, checked against the run. One line per check
(ok: / FAIL:), exit 1 if any failed.

  hist TEXT JSON ITERS      the table's histogram lines and the JSON's
                            buckets each add up to ITERS - 1 samples, the
                            buckets follow each other, the median lies in
                            a bucket that holds samples
  cpu TEXT JSON             the two CPU columns and the JSON's shares are
                            numbers from 0 to 100 times the CPUs a guest
                            has (2), the client's above 0
  counters TEXT NAME MIN    the counter NAME moved by at least MIN on this
                            side, and the line "resent:" is there
  timed TEXT JSON SEC       a -D SEC run: the banner's split, one row with
                            messages, no peak ("-", null) and an average
                            that is the messages' bytes over the seconds
                            measured, which are SEC less the two margins
                            (2 s each), give or take what one wait lasts
  bidir TEXT JSON           a -b run: the "each way:" line with both
                            directions above 0, the row's average their
                            sum, the JSON's directions adding up to its
                            figures
"""
import json
import re
import sys

failures = 0


def check(ok, what):
    global failures
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures += 1


def hist(text, path, iters):
    want = int(iters) - 1
    with open(text) as f:
        lines = f.read().splitlines()
    heads = [i for i, l in enumerate(lines) if l.startswith(" histogram of the ")]
    check(len(heads) == 1, f"one histogram in the text (found {len(heads)})")
    if not heads:
        return
    counts = []
    edges = []
    for line in lines[heads[0] + 1:]:
        m = re.match(r"^\s+([0-9.]+) \.\. ([0-9.]+)\s+(\d+) #*$", line)
        if not m:
            break
        edges.append((float(m.group(1)), float(m.group(2))))
        counts.append(int(m.group(3)))
    check(sum(counts) == want,
          f"text: the {len(counts)} buckets hold {sum(counts)} samples, {want} expected")
    check(all(a[1] == b[0] for a, b in zip(edges, edges[1:])),
          "text: each bucket starts where the one before ends")
    check(bool(counts) and counts[0] > 0 and counts[-1] > 0,
          "text: the first and the last bucket hold samples")
    with open(path) as f:
        result = json.load(f)["results"][0]
    h = result["histogram"]
    jcounts = [b[2] for b in h["buckets"]]
    check(h["samples"] == want and sum(jcounts) == want,
          f"json: samples {h['samples']}, buckets add up to {sum(jcounts)}, {want} expected")
    check(jcounts == counts, "json: the same counts as the text")
    median = result["t_typical"]
    check(any(b[0] <= median < b[1] and b[2] > 0 for b in h["buckets"]),
          f"json: the median {median} us lies in a bucket with samples")


def cpu(text, path):
    rows = []
    with open(text) as f:
        lines = f.read().splitlines()
    check(any(l.rstrip().endswith("CPU_client[%] CPU_server[%]") for l in lines),
          "text: the header names the two CPU columns")
    for line in lines:
        tokens = line.split()
        if len(tokens) >= 4 and tokens[0].isdigit() and tokens[1].isdigit():
            rows.append(tokens)
    check(len(rows) == 1, f"text: one row (found {len(rows)})")
    with open(path) as f:
        result = json.load(f)["results"][0]
    for where, client, server in (
            ("text", float(rows[0][-2]) if rows else -1,
             float(rows[0][-1]) if rows else -1),
            ("json", result["cpu_client_percent"], result["cpu_server_percent"])):
        check(0 < client <= 200, f"{where}: client's CPU {client} in (0, 200]")
        check(0 <= server <= 200, f"{where}: server's CPU {server} in [0, 200]")


def counters(text, name, least):
    with open(text) as f:
        body = f.read()
    m = re.search(rf"^  {re.escape(name)} +\+(\d+)  ", body, re.M)
    moved = int(m.group(1)) if m else 0
    check(moved >= int(least), f"{name} moved by {moved}, at least {least} expected")
    check(re.search(r"^resent: ", body, re.M) is not None, "a resent: line")


def timed(text, path, sec):
    sec = int(sec)
    measured = sec - 4
    with open(text) as f:
        lines = f.read().splitlines()
    check(any(l.startswith("benchmark: ") and
              f", {sec} s per size (2 s warm-up, {measured} s measured, 2 s drain), " in l
              for l in lines), "the banner gives the split of the duration")
    rows = [l.split() for l in lines
            if len(l.split()) in (5, 7) and l.split()[0].isdigit()]
    check(len(rows) == 1, f"one row (found {len(rows)})")
    with open(path) as f:
        r = json.load(f)["results"][0]
    seconds, messages = r["seconds"], r["iterations"]
    # Each edge is seen at the first look after it: one wait late at most.
    check(measured - 0.5 <= seconds <= measured + 0.5,
          f"json: {seconds} s measured, {measured} (within 0.5) expected")
    check(messages > 0, f"json: {messages} messages in them")
    check(r["bw_peak"] is None, "json: no peak")
    want = messages * r["bytes"] / seconds / 1048576
    check(abs(r["bw_avg"] - want) <= 0.01 * want,
          f"json: average {r['bw_avg']} MiB/s is the messages' bytes over the seconds ({want:.3f})")
    if rows:
        check(rows[0][1] == str(messages) and rows[0][2] == "-",
              f"text: the row {rows[0]} has the JSON's {messages} messages and no peak")


def bidir(text, path):
    with open(text) as f:
        body = f.read()
    m = re.search(r"^ each way: client to server ([0-9.]+), server to client ([0-9.]+) MiB/sec", body, re.M)
    check(m is not None, "an each way: line")
    rows = [l.split() for l in body.splitlines()
            if len(l.split()) == 5 and l.split()[0].isdigit()]
    check(len(rows) == 1, f"one row (found {len(rows)})")
    if m and rows:
        there, back = float(m.group(1)), float(m.group(2))
        check(there > 0 and back > 0, f"both ways moved data: {there}, {back}")
        check(abs(float(rows[0][3]) - (there + back)) <= 0.02,
              f"the row's average {rows[0][3]} is their sum {there + back:.2f}")
    with open(path) as f:
        r = json.load(f)["results"][0]
    d = r["directions"]
    for key in ("bw_avg", "msg_rate"):
        total = d["client_to_server"][key] + d["server_to_client"][key]
        check(abs(r[key] - total) <= 0.001 * max(1, total),
              f"json: {key} {r[key]} is the directions' sum {total}")


def main():
    what, args = sys.argv[1], sys.argv[2:]
    {"hist": hist, "cpu": cpu, "counters": counters,
     "timed": timed, "bidir": bidir}[what](*args)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
