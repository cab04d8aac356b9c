#!/usr/bin/env python3
"""bench_check.py MODE OP ITERS SIZES TEXT JSON: check one benchmark's figures.

TEXT is the client's stdout, JSON the file its --out_json_file wrote.
Checks, for every size in SIZES (comma-separated) and in both outputs:
the size is there once, with ITERS iterations; latency figures are ordered
min <= median <= p99 <= p99.9 <= max and positive, the average lies between
min and max; bandwidth figures are positive. The JSON is read with Python's
json parser and must have the fields of its mode (each side's CPU share,
for latency the histogram, whose buckets add up to ITERS - 1), schema_version 4,
complete true, and a test_info with every field, whose wait is the one
the text's "waits:" line names. Prints one line per check (ok: / FAIL:
with both values); exits 1 if any failed.
"""
import json
import sys

LAT = ["t_min", "t_max", "t_typical", "t_avg", "t_stdev", "p99", "p99_9"]
BW = ["bw_peak", "bw_avg", "msg_rate"]
TEST_INFO = {"program", "version", "device", "port", "link_layer",
             "path_mtu", "gid_index", "gid_type", "transport", "tx_depth",
             "cq_mod", "max_inline", "wait", "timestamp"}
WAIT = {"name", "spin_us", "nap_us", "peer_on_this_host", "peer_told_by", "words", "reason"}
failures = 0


def check(ok, what, got=None, want=None):
    global failures
    if ok:
        print(f"ok: {what}")
        return
    failures += 1
    detail = "" if got is None else f": got {got!r}, expected {want}"
    print(f"FAIL: {what}{detail}")


def text_rows(path, fields):
    """The result rows of the table: size -> (iterations, figures)."""
    rows = {}
    with open(path) as f:
        for line in f:
            tokens = line.split()
            if len(tokens) != 2 + len(fields):
                continue
            try:
                numbers = [float(t) for t in tokens]
            except ValueError:
                continue
            size = int(numbers[0])
            check(size not in rows, f"text: size {size} appears once")
            rows[size] = (int(numbers[1]), dict(zip(fields, numbers[2:])))
    return rows


def check_figures(where, mode, fig):
    if mode == "lat":
        chain = [fig["t_min"], fig["t_typical"], fig["p99"], fig["p99_9"],
                 fig["t_max"]]
        check(all(a <= b for a, b in zip(chain, chain[1:])),
              f"{where}: min <= median <= p99 <= p99.9 <= max", chain,
              "non-decreasing")
        check(fig["t_min"] > 0, f"{where}: t_min > 0", fig["t_min"], "> 0")
        check(fig["t_min"] <= fig["t_avg"] <= fig["t_max"],
              f"{where}: min <= avg <= max",
              (fig["t_min"], fig["t_avg"], fig["t_max"]), "ordered")
        check(fig["t_stdev"] >= 0, f"{where}: stdev >= 0", fig["t_stdev"],
              ">= 0")
    else:
        for name in BW:
            check(fig[name] > 0, f"{where}: {name} > 0", fig[name], "> 0")


def check_test_info(info, text):
    """test_info: every field, the rig's port, and the wait of the text's
    'waits: WORDS (REASON)' line."""
    check(set(info) == TEST_INFO, "json: test_info fields", sorted(info),
          sorted(TEST_INFO))
    for key, want in (("program", "rdma_bench"), ("device", "rxe0"),
                      ("port", 1), ("link_layer", "Ethernet"),
                      ("path_mtu", 1024), ("gid_index", 1),
                      ("gid_type", "RoCE v2"), ("transport", "RC")):
        check(info.get(key) == want, f"json: test_info {key}",
              info.get(key), want)
    check(str(info.get("timestamp", "")).endswith("Z"),
          "json: test_info timestamp in UTC", info.get("timestamp"), "...Z")
    wait = info.get("wait") or {}
    check(set(wait) == WAIT, "json: test_info wait fields", sorted(wait),
          sorted(WAIT))
    with open(text) as f:
        line = [x.rstrip("\n") for x in f if x.startswith("waits: ")]
    want = [f"waits: {wait.get('words')} ({wait.get('reason')})"]
    check(line == want, "json: test_info wait is the waits: line", line,
          want)


def main():
    mode, op, iters, sizes, text, json_path = sys.argv[1:7]
    iters = int(iters)
    sizes = [int(s) for s in sizes.split(",")]
    fields = LAT if mode == "lat" else BW

    rows = text_rows(text, fields)
    check(sorted(rows) == sorted(sizes), "text: every size, nothing else",
          sorted(rows), sorted(sizes))
    for size in sizes:
        if size in rows:
            n, fig = rows[size]
            check(n == iters, f"text: {size} B ran {iters} iterations", n,
                  iters)
            check_figures(f"text {size} B", mode, fig)

    try:
        with open(json_path) as f:
            doc = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        check(False, f"{json_path} parses as JSON", str(e), "valid JSON")
        return 1
    check(True, f"{json_path} parses as JSON")
    check(doc.get("mode") == mode, "json: mode", doc.get("mode"), mode)
    check(doc.get("op") == op, "json: op", doc.get("op"), op)
    check(doc.get("device") == "rxe0", "json: device", doc.get("device"),
          "rxe0")
    check(doc.get("schema_version") == 4, "json: schema_version",
          doc.get("schema_version"), 4)
    check(doc.get("complete") is True, "json: complete",
          doc.get("complete"), True)
    check_test_info(doc.get("test_info") or {}, text)
    results = doc.get("results", [])
    check([r.get("bytes") for r in results] == sizes, "json: sizes in order",
          [r.get("bytes") for r in results], sizes)
    for r in results:
        want = {"bytes", "iterations", "cpu_client_percent",
                "cpu_server_percent"} | set(fields)
        if mode == "lat":
            want.add("histogram")
        check(set(r) == want, f"json {r.get('bytes')} B: fields",
              sorted(r), sorted(want))
        if set(r) != want:
            continue
        check(r["iterations"] == iters, f"json {r['bytes']} B: iterations",
              r["iterations"], iters)
        check_figures(f"json {r['bytes']} B", mode, r)
        if mode == "lat":
            counts = [b[2] for b in r["histogram"]["buckets"]]
            check(sum(counts) == iters - 1,
                  f"json {r['bytes']} B: the histogram holds every sample",
                  sum(counts), iters - 1)
        if r["bytes"] in rows:
            text_fig = rows[r["bytes"]][1]
            key = "t_typical" if mode == "lat" else "bw_avg"
            check(abs(text_fig[key] - r[key]) <= 0.01 * max(1, r[key]),
                  f"json {r['bytes']} B: {key} matches the table",
                  r[key], text_fig[key])
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
