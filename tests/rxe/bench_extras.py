#!/usr/bin/env python3
"""bench_extras.py CHECK ...: what rdma_bench's -H, --cpu_util and
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
                            (2 s each), give or take two of the run's waits
                            (each until a signalled completion)
  bidir TEXT JSON           a -b run: the "each way:" line with both
                            directions above 0, the row's average their
                            sum, the JSON's directions adding up to its
                            figures
  lattimed TEXT JSON SEC RTT
                            a latency -D SEC run: the banner's split, one
                            row of three columns, the JSON's seconds SEC
                            less the margins, its average the seconds
                            over the iterations over RTT (2 for a
                            ping-pong), the other figures null
  infinite TEXT JSON SEC    a --run_infinitely -D SEC run stopped by
                            SIGINT: the banner, one row or more for the
                            periods, each of SEC seconds at least and with
                            messages, the same in the JSON's periods; then
                            "the whole run, S s:" and its row, whose
                            messages and seconds are at least the periods'
  qps TEXT JSON N KIND      a -q N run: the banner names N QPs, a line for
                            each of them under the row, in the text and
                            the JSON, every one with messages and a
                            bandwidth above 0, their messages adding up to
                            the row's; KIND count (-n): each QP did the
                            same count, and their bandwidths, each over
                            its own time, add up to at least the row's;
                            KIND timed (-D): their bandwidths add up to
                            the row's
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


def timed_lines(text, sec):
    """The lines of a -D SEC run's TEXT and the seconds it measures,
    checking that its banner gives that split of the duration."""
    measured = sec - 4
    with open(text) as f:
        lines = f.read().splitlines()
    check(any(l.startswith("benchmark: ") and
              f", {sec} s per size (2 s warm-up, {measured} s measured, 2 s drain), " in l
              for l in lines), "the banner gives the split of the duration")
    return lines, measured


def timed(text, path, sec):
    lines, measured = timed_lines(text, int(sec))
    rows = [l.split() for l in lines
            if len(l.split()) in (5, 7) and l.split()[0].isdigit()]
    check(len(rows) == 1, f"one row (found {len(rows)})")
    with open(path) as f:
        whole = json.load(f)
    r = whole["results"][0]
    seconds, messages = r["seconds"], r["iterations"]
    # Each edge is seen at the first look after it: one wait late at most.
    # A wait lasts until the next signalled completion, every cq_mod
    # sends: on a slowed rig (100 sends in the second, one signalled)
    # that is as long as the window itself, so the bound is two of the
    # run's own waits, and never under 0.5 s.
    wait = whole["cq_mod"] * seconds / messages if messages else measured
    slack = max(0.5, 2 * wait)
    check(measured - slack <= seconds <= measured + slack,
          f"json: {seconds} s measured, {measured} (within {slack:.2f}: "
          "two waits of the run) expected")
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


def lattimed(text, path, sec, rtt):
    rtt = int(rtt)
    lines, measured = timed_lines(text, int(sec))
    check(" #bytes #iterations t_avg[usec]" in lines, "the -D latency header")
    rows = [l.split() for l in lines
            if len(l.split()) == 3 and l.split()[0].isdigit()]
    check(len(rows) == 1, f"one row of three columns (found {len(rows)})")
    with open(path) as f:
        r = json.load(f)["results"][0]
    check(measured - 0.5 <= r["seconds"] <= measured + 0.5,
          f"json: {r['seconds']} s measured, {measured} (within 0.5) expected")
    check(r["iterations"] > 0, f"json: {r['iterations']} iterations in them")
    want = r["seconds"] * 1e6 / r["iterations"] / rtt
    check(abs(r["t_avg"] - want) <= 0.01 * want + 0.001,
          f"json: t_avg {r['t_avg']} us is the seconds over the iterations over {rtt} ({want:.3f})")
    check(all(r[k] is None for k in ("t_min", "t_max", "t_typical", "t_stdev", "p99", "p99_9")),
          "json: no other figure")
    if rows:
        check(int(rows[0][1]) == r["iterations"] and abs(float(rows[0][2]) - r["t_avg"]) <= 0.006,
              f"text: the row {rows[0]} has the JSON's iterations and average")


def infinite(text, path, sec):
    sec = int(sec)
    with open(text) as f:
        lines = f.read().splitlines()
    check(any(l.startswith("benchmark: ") and
              f", until SIGINT or SIGTERM, a row every {sec} s, " in l
              for l in lines), "the banner says it runs until a signal")
    rows = [l.split() for l in lines
            if len(l.split()) == 5 and l.split()[0].isdigit()]
    whole = [i for i, l in enumerate(lines) if l.startswith(" the whole run, ")]
    check(len(whole) == 1, "one 'the whole run' line")
    with open(path) as f:
        doc = json.load(f)
    check(doc["complete"] is True, "json: complete")
    r = doc["results"][0]
    periods = r.get("periods", [])
    check(len(periods) >= 1 and len(rows) == len(periods) + 1,
          f"{len(rows)} rows: a row for each of the {len(periods)} periods and the whole run's")
    for i, p in enumerate(periods):
        check(p["seconds"] >= sec - 0.001 and p["iterations"] > 0 and p["bw_avg"] > 0,
              f"json: period {i + 1}: {p['iterations']} messages in {p['seconds']} s, {sec} s at least")
        if i < len(rows):
            check(int(rows[i][1]) == p["iterations"] and rows[i][2] == "-",
                  f"text: period {i + 1}'s row {rows[i]} has its messages and no peak")
    check(r["iterations"] >= sum(p["iterations"] for p in periods),
          f"json: the whole run's {r['iterations']} messages are at least the periods'")
    check(r["seconds"] >= sum(p["seconds"] for p in periods) - 0.01,
          f"json: the whole run's {r['seconds']} s are at least the periods'")
    if whole and rows:
        m = re.match(r"^ the whole run, ([0-9.]+) s:$", lines[whole[0]])
        check(m is not None and abs(float(m.group(1)) - r["seconds"]) <= 0.002,
              f"the whole run's line gives the JSON's {r['seconds']} s")
        check(int(rows[-1][1]) == r["iterations"],
              f"the last row {rows[-1]} is the whole run's")


def qps(text, path, n, kind):
    n = int(n)
    with open(text) as f:
        body = f.read()
    m = re.search(r"^QPs: (\d+), each with the iterations and the tx depth above:((?: 0x[0-9a-f]{6})+)$",
                  body, re.M)
    check(m is not None and int(m.group(1)) == n, f"the banner names {n} QPs")
    banner = m.group(2).split() if m else []
    lines = re.findall(r"^   QP (0x[0-9a-f]{6}): (\d+) messages, BW average ([0-9.]+) MiB/sec, MsgRate ([0-9.]+) Mpps$",
                       body, re.M)
    check(len(lines) == n, f"{n} QP lines under the row (found {len(lines)})")
    check([l[0] for l in lines] == banner and len(set(banner)) == n,
          "the QP lines name the banner's QPs, each once")
    rows = [l.split() for l in body.splitlines()
            if len(l.split()) == 5 and l.split()[0].isdigit()]
    with open(path) as f:
        doc = json.load(f)
    r = doc["results"][0]
    # --run_infinitely: a row for each period first, the whole run's last
    want_rows = 1 + len(r.get("periods", []))
    check(len(rows) == want_rows, f"{want_rows} row(s) (found {len(rows)})")
    per = r.get("per_qp", [])
    check(doc.get("qps") == n and len(per) == n, f"json: qps {doc.get('qps')} and {len(per)} per_qp entries, {n} expected")
    check(all(q["messages"] > 0 and q["bw_avg"] > 0 for q in per),
          "json: every QP moved messages")
    total = sum(q["messages"] for q in per)
    check(total == r["iterations"],
          f"json: the QPs' messages {total} add up to the row's {r['iterations']}")
    if rows:
        check(int(rows[-1][1]) == r["iterations"],
              f"the row's messages {rows[-1][1]} are the JSON's {r['iterations']}")
    bw = sum(q["bw_avg"] for q in per)
    # -b: the QPs are this side's direction, the row both
    row = r["directions"]["client_to_server"] if "directions" in r else r
    if kind == "count":
        check(len({q["messages"] for q in per}) == 1,
              "json: every QP did the same count")
        check(bw >= row["bw_avg"] * 0.999,
              f"json: the QPs' bandwidths {bw:.3f}, each over its own time, add up to at least the row's {row['bw_avg']}")
    else:
        check(abs(bw - row["bw_avg"]) <= 0.002 * n + 0.001 * row["bw_avg"],
              f"json: the QPs' bandwidths {bw:.3f} add up to the row's {row['bw_avg']}")


def main():
    what, args = sys.argv[1], sys.argv[2:]
    {"hist": hist, "cpu": cpu, "counters": counters,
     "timed": timed, "bidir": bidir, "qps": qps,
     "infinite": infinite, "lattimed": lattimed}[what](*args)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
