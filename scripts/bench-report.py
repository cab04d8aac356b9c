#!/usr/bin/env python3
"""bench-report.py OUT SETUP...: the host side of scripts/bench.sh.

Reads the guest outputs bench.sh collected in OUT (guests-1.a.out for one
guest, guests-2.b.out for the client guest of two), takes every
measurement's figures (ours from its JSON, perftest's from its text table),
and writes:
  OUT/results.json   every measurement, and per cell the medians, the
                     paired ratios and the verdict
  OUT/table.txt      the side-by-side table with each cell's verdict and
                     the count of verdicts (also printed)
  OUT/lat-Ng.png, OUT/bw-Ng.png   latency and bandwidth vs size, N guests
Each cell's verdict, by the paired per-round ratio (ours / perftest for
latency, perftest / ours for bandwidth: above 1, ours did worse): behind
if its median is above 1.03 and the Wilcoxon signed-rank p over the rounds
is below 0.05, ahead if the median is below 0.97 and p below 0.05, even
otherwise. Exits 1 if a cell is behind, or a measurement gave no figures
or did not run. A measurement that failed and ran again (bench.sh
--retries) counts by its last attempt; every failed attempt before it is
listed after the table and kept in results.json as "retried".
An A/A run (bench.sh --control, which leaves OUT/control naming the tool)
ran that tool in both turns of every cell; the columns "ours" and
"perftest" then name the turns, and the ratios are the tool against itself.
Its A/B form, --control api, ran rdma_bench in both turns, on
ibv_post_send in ours and with --new-api in perftest's: the ratio is the
old calls against the new (above 1: the old did worse).
"""
import decimal
import itertools
import json
import math
import os
import re
import statistics
import subprocess
import sys

LAT_FIELDS = ["t_min", "t_max", "t_typical", "t_avg", "t_stdev", "p99", "p99_9"]
BW_FIELDS = ["bw_peak", "bw_avg", "msg_rate"]
# The figure compared: the median latency, the average bandwidth. Both
# tools print the average bandwidth twice, rounded: as MiB/s (ours with
# three decimals, perftest with two) and as a message rate in Mpps (six
# decimals), which times the size is the same figure. Each measurement is
# taken from whichever of the two the rounding moved least, relative to
# its value: the rate for small messages, MiB/s for large ones.
KEY = {"lat": "t_typical", "bw": "bw_avg or msg_rate*bytes, the finer"}
UNIT = {"lat": "usec", "bw": "MiB/s"}
BYTES_PER_MIB = 1048576.0
# The decimals each tool prints (ours: bench_report.c's JSON, perftest: its
# table), for records kept before the report noted them.
PRINTED_DECIMALS = {
    "ours": {"t_typical": 3, "bw_avg": 3, "msg_rate": 6},
    "perftest": {"t_typical": 2, "bw_avg": 2, "msg_rate": 6},
}
# perftest prints "-nan" for a deviation it cannot compute (large samples).
NUMBER = r"[0-9]+(?:\.[0-9]+)?|-?nan"


# perftest's line when its estimate of the CPU's clock failed: its
# figures are then inf (latency) or 0.00 (bandwidth), none of them measured.
CLOCK_FAILED = re.compile(r"^Correlation coefficient r\^2: \S+ < ")


def perftest_figures(mode, size, lines):
    """The figures of perftest's result line for SIZE, or None (also when
    its clock estimate failed)."""
    fields = LAT_FIELDS if mode == "lat" else BW_FIELDS
    if any(CLOCK_FAILED.match(line.strip()) for line in lines):
        return None
    for line in lines:
        tokens = line.split()
        if len(tokens) != 2 + len(fields):
            continue
        if not all(re.fullmatch(NUMBER, t) for t in tokens):
            continue
        if int(tokens[0]) != size:
            continue
        values = [float(t) for t in tokens[2:]]
        figures = {f: (None if v != v else v) for f, v in zip(fields, values)}
        figures["iterations"] = int(tokens[1])
        figures["decimals"] = {f: decimals(t)
                               for f, t in zip(fields, tokens[2:])}
        return figures
    return None


def decimals(text):
    """The digits after the point of a printed number."""
    return len(text.partition(".")[2])


def plain(value):
    """VALUE with every Decimal in it, at any depth, made a float."""
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def ours_figures(lines):
    """The first result of the JSON our client printed, or None."""
    try:
        start = lines.index("=== JSON") + 1
    except ValueError:
        return None
    try:
        doc = json.loads("\n".join(lines[start:]),
                         parse_float=decimal.Decimal)
    except json.JSONDecodeError:
        return None
    # A run that failed at its first size writes the JSON with no result.
    if not doc.get("results"):
        return None
    result = {}
    places = {}
    for field, value in doc["results"][0].items():
        if isinstance(value, decimal.Decimal):
            places[field] = max(0, -value.as_tuple().exponent)
        result[field] = plain(value)
    result["decimals"] = places
    return result


def read_word(out, name, allowed, what, missing=None):
    """The word bench.sh left in OUT/NAME, one of @allowed, or @missing
    without the file; ValueError naming @what for any other word."""
    try:
        with open(os.path.join(out, name), encoding="utf-8") as f:
            word = f.read().strip()
    except FileNotFoundError:
        return missing
    if word not in allowed:
        raise ValueError(f"{out}/{name} names no {what}: '{word}'")
    return word


def read_api(out):
    """Which calls rdma_bench posted with (bench.sh --new-api): "new"
    (ibv_wr_*) or "old" (ibv_post_send, also for a run that left no
    word); both poll with ibv_poll_cq."""
    return read_word(out, "api", ("old", "new"), "API", missing="old")


def read_control(out):
    """The tool an A/A run (bench.sh --control) ran in both turns, or None
    for a run of both tools."""
    return read_word(out, "control", ("ours", "perftest", "api"), "tool")


# The end of an attempt that failed and ran again (bench-guest.sh).
# An attempt that the stopped link cut short has no exit status ("none":
# bench.sh's attempts_after).
AGAIN = re.compile(r"^=== END rc=(-?\d+|none), server rc=(\S+): runs again$")
# Why an attempt with no exit status failed.
CUT_SHORT = "the link between the guests stopped under it (link-events.txt)"
# The line of a failed attempt's output that says why, if one does.
WHY = re.compile(r"error|fail|bad|unable|refused|timed out|denied|no space",
                 re.IGNORECASE)


def why_failed(lines):
    """The line of a failed attempt's output that names the failure (else
    its last line), for the list of attempts that ran again."""
    said = [line.strip() for line in lines if line.strip()]
    for line in said:
        if WHY.search(line):
            return line
    return said[-1] if said else "no output"


def ran_in(control, turn):
    """The tool that ran in @turn: the A/A run's one tool, rdma_bench in
    both turns of an A/B run of the two APIs, else the turn's own."""
    if control == "api":
        return "ours"
    return control or turn


def measurement_fields(header, control):
    """What a block's header (SETUP RUN INDEX TOOL MODE OP SIZE ITERS) says
    of its measurement, and the tool that ran in it (see parse_output)."""
    setup, run, idx, tool, mode, op, size, iters = header
    return {"guests": int(setup), "run": int(run), "index": int(idx),
            "tool": tool, "ran": ran_in(control, tool), "mode": mode, "op": op,
            "bytes": int(size), "iterations": int(iters)}


def parse_output(path, control=None):
    """Every measurement block of one guest's stdout. CONTROL: the tool
    that ran in both turns of an A/A run (read_control). A failed attempt
    that ran again is a record with "again" set, its client's and server's
    exit statuses and why_failed's line."""
    records = []
    header = None
    body = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if line.startswith("=== RESULT "):
                header = line.split()[2:]
                body = []
            elif header and (again := AGAIN.match(line)):
                rc, server_rc = again.groups()
                records.append({
                    **measurement_fields(header, control),
                    "again": True,
                    "rc": None if rc == "none" else int(rc),
                    "server_rc": int(server_rc) if server_rc.lstrip(
                        "-").isdigit() else None,
                    "why": (CUT_SHORT if rc == "none"
                            else why_failed(body)),
                    "output": body,
                })
                header = None
            elif line.startswith("=== END rc=") and header:
                measured = measurement_fields(header, control)
                if measured["ran"] == "ours":
                    figures = ours_figures(body)
                else:
                    figures = perftest_figures(measured["mode"],
                                               measured["bytes"], body)
                records.append({
                    **measured,
                    "rc": int(line.split("=")[-1] or -1),
                    "figures": figures,
                    "output": body if figures is None else None,
                })
                header = None
            elif header:
                body.append(line)
    return records


def split_retried(records):
    """(kept, retried): the records that count, one per measurement, and
    the failed attempts that ran again, in the order they ran."""
    kept = [r for r in records if not r.get("again")]
    retried = [r for r in records if r.get("again")]
    return kept, retried


def retried_text(retried):
    """The lines after the table that list the failed attempts that ran
    again, with how many each tool had; none without any."""
    if not retried:
        return []
    tools = sorted({r["tool"] for r in retried})
    per_tool = ", ".join(
        f"{t} {sum(1 for r in retried if r['tool'] == t)}" for t in tools)
    lines = [f"{len(retried)} failed attempt(s) ran again ({per_tool}):"]
    for r in retried:
        server = ("server did not say" if r["server_rc"] is None
                  else f"server exit {r['server_rc']}")
        client = ("no exit status" if r["rc"] is None
                  else f"exit {r['rc']}")
        lines.append(f"  {measurement_text(r)}: {client}, {server}:"
                     f" {r['why']}")
    return lines


def not_run(plan_path, records):
    """The measurements of a plan file (bench.sh's plan-N.txt: SETUP RUN
    INDEX TOOL MODE OP SIZE ITERS PORT per line) that have no block in
    RECORDS: the plan stopped before them (see bench.sh's MAX_RESTARTS)."""
    done = {(r["guests"], r["index"]) for r in records}
    missing = []
    with open(plan_path, encoding="utf-8") as f:
        for line in f:
            setup, run, idx, tool, mode, op, size = line.split()[:7]
            if (int(setup), int(idx)) not in done:
                missing.append({"guests": int(setup), "run": int(run),
                                "index": int(idx), "tool": tool,
                                "mode": mode, "op": op, "bytes": int(size)})
    return missing


def measurement_text(r):
    """One measurement, as the lists of those that failed or never ran
    name it: '2 guest(s) run 5 perftest lat write 1048576 B'."""
    return (f"{r['guests']} guest(s) run {r['run']} {r['tool']} "
            f"{r['mode']} {r['op']} {r['bytes']} B")


def compared(record):
    """(figure, error): the figure the table compares for one measurement,
    and half a unit of the last digit it was printed with, the most the
    rounding may have moved it."""
    fig = record["figures"]
    places = dict(PRINTED_DECIMALS[record.get("ran", record["tool"])])
    places.update(fig.get("decimals") or {})
    if record["mode"] == "lat":
        return fig["t_typical"], 0.5 * 10.0 ** -places["t_typical"]
    per_mpps = 1e6 * record["bytes"] / BYTES_PER_MIB
    candidates = [
        (fig["bw_avg"], 0.5 * 10.0 ** -places["bw_avg"]),
        (fig["msg_rate"] * per_mpps,
         0.5 * 10.0 ** -places["msg_rate"] * per_mpps),
    ]
    shown = [c for c in candidates if c[0] > 0]
    if not shown:
        return candidates[1]
    return min(shown, key=lambda c: c[1] / c[0])


def same_within_rounding(a, b):
    """True if two (figure, error) pairs cannot be told apart: their
    values differ by no more than their rounding errors together."""
    return abs(a[0] - b[0]) <= a[1] + b[1]


def rank_sum_p(xs, ys):
    """Two-sided p-value of the Wilcoxon rank-sum (Mann-Whitney) test: how
    likely rank sums as far from the middle are when both samples come from
    one distribution. Exact over every split for small samples, else the
    normal approximation with the tie correction. None if a sample is
    empty."""
    n1, n2 = len(xs), len(ys)
    if not n1 or not n2:
        return None
    pooled = sorted(xs + ys)
    ranks = {}
    for value in set(pooled):
        first = pooled.index(value)
        ranks[value] = first + (pooled.count(value) + 1) / 2.0
    all_ranks = [ranks[v] for v in xs + ys]
    mean = n1 * (n1 + n2 + 1) / 2.0
    observed = abs(sum(ranks[v] for v in xs) - mean)
    if math.comb(n1 + n2, n1) <= 200000:
        splits = 0
        extreme = 0
        for pick in itertools.combinations(all_ranks, n1):
            splits += 1
            if abs(sum(pick) - mean) >= observed - 1e-9:
                extreme += 1
        return extreme / splits
    n = n1 + n2
    ties = sum(c ** 3 - c for c in (pooled.count(v) for v in set(pooled)))
    var = n1 * n2 / 12.0 * ((n + 1) - ties / (n * (n - 1)))
    if var <= 0:
        return 1.0
    z = observed / math.sqrt(var)
    return math.erfc(z / math.sqrt(2))


def paired_rounds(by_run):
    """The (ours, perftest) pairs of (figure, error) of one cell, one per
    round that has both: within a round the two tools ran back to back."""
    return [(v["ours"], v["perftest"]) for _, v in sorted(by_run.items())
            if "ours" in v and "perftest" in v]


def paired_wins(mode, pairs):
    """(rounds ours did better, rounds tied, rounds) for one cell. A round
    is tied when its two figures are the same within their rounding
    (same_within_rounding); it counts for neither tool."""
    wins = ties = 0
    for ours, perf in pairs:
        if same_within_rounding(ours, perf):
            ties += 1
        elif (ours[0] < perf[0]) == (mode == "lat"):
            wins += 1
    return wins, ties, len(pairs)


def signed_rank_p(pairs):
    """Two-sided p-value of the Wilcoxon signed-rank test on the per-round
    log(ours / perftest): how likely a sum of the positive ranks as far
    from the middle is when each round's sign is a coin toss. Rounds tied
    within rounding (zero differences) are left out, as Wilcoxon did;
    equal |log ratios| share the mean of their ranks. Exact: the
    distribution of the sum over every sign pattern, counted by a small
    dynamic programme over rank sums (in half ranks, whole numbers). None
    if no round is left."""
    logs = [math.log(o[0] / p[0]) for o, p in pairs
            if not same_within_rounding(o, p) and o[0] > 0 and p[0] > 0]
    if not logs:
        return None
    # |log ratio| to 12 decimals: equal ratios of different figures
    # (2.2/2.0, 1.1/1.0) may differ in their last bit
    sizes = sorted(round(abs(d), 12) for d in logs)
    half_ranks = {}
    for size in set(sizes):
        first = sizes.index(size)
        # ranks first+1 .. first+count share their mean; doubled, a whole
        half_ranks[size] = 2 * first + sizes.count(size) + 1
    ranks = [half_ranks[round(abs(d), 12)] for d in logs]
    total = sum(ranks)
    observed = abs(2 * sum(r for r, d in zip(ranks, logs) if d > 0) - total)
    counts = [1] + [0] * total  # counts[s]: sign patterns with sum s
    for r in ranks:
        for s in range(total, r - 1, -1):
            counts[s] += counts[s - r]
    extreme = sum(c for s, c in enumerate(counts)
                  if abs(2 * s - total) >= observed)
    return extreme / 2 ** len(ranks)


# The verdict rule: a median paired ratio beyond these, with a paired p
# below VERDICT_P, is a difference; anything else is even.
BEHIND_ABOVE = 1.03
AHEAD_BELOW = 0.97
VERDICT_P = 0.05
# The rule wants at least this many paired rounds for a verdict.
MIN_ROUNDS = 10
# The level of the interval shown around the median ratio.
INTERVAL_LEVEL = 0.95


def round_ratios(mode, pairs):
    """Per round, the ratio the verdict reads: ours / perftest for latency,
    perftest / ours for bandwidth, so that above 1 ours did worse. Rounds
    with a figure of 0 give none."""
    ratios = []
    for ours, perf in pairs:
        if ours[0] <= 0 or perf[0] <= 0:
            continue
        ratios.append(ours[0] / perf[0] if mode == "lat"
                      else perf[0] / ours[0])
    return ratios


def median_interval(values, level=INTERVAL_LEVEL):
    """(low, high): the distribution-free interval for the median, from the
    order statistics. With n values sorted, the k-th smallest and the k-th
    largest bound the median at least LEVEL of the time when fewer than k
    of n fair coin tosses come up heads with probability (1 - LEVEL) / 2 at
    most; the largest such k is taken. None if n is too small for any k
    (below 6 at 95%)."""
    n = len(values)
    tail = (1.0 - level) / 2.0
    below = 0.0  # P(heads < k)
    k = 0
    while k < n:
        step = math.comb(n, k) / 2.0 ** n
        if below + step > tail:
            break
        below += step
        k += 1
    if k == 0:
        return None
    ordered = sorted(values)
    return ordered[k - 1], ordered[n - k]


def verdict(median_ratio, p, rounds):
    """'behind', 'ahead' or 'even' by the rule; 'short' when fewer than
    MIN_ROUNDS paired rounds were measured (or none gave a ratio)."""
    if median_ratio is None or rounds < MIN_ROUNDS:
        return "short"
    if p is not None and p < VERDICT_P:
        if median_ratio > BEHIND_ABOVE:
            return "behind"
        if median_ratio < AHEAD_BELOW:
            return "ahead"
    return "even"


def verdict_counts(rows):
    """The last line of the report: 'N ahead, M even, K behind', and the
    cells with too few rounds for a verdict, if any."""
    count = {v: sum(1 for r in rows if r["verdict"] == v)
             for v in ("ahead", "even", "behind", "short")}
    line = f"{count['ahead']} ahead, {count['even']} even, {count['behind']} behind"
    if count["short"]:
        line += (f" ({count['short']} cell(s) with fewer than {MIN_ROUNDS}"
                 " paired rounds: no verdict)")
    return line


def medians(records):
    """Median of the compared figure per (guests, mode, op, bytes, tool)."""
    groups = {}
    rounds = {}  # per cell: {run: {tool: figure}}
    for r in records:
        if not r["figures"]:
            continue
        cell = (r["guests"], r["mode"], r["op"], r["bytes"])
        value = compared(r)
        groups.setdefault(cell + (r["tool"],), []).append(value[0])
        rounds.setdefault(cell, {}).setdefault(r["run"], {})[r["tool"]] = value
    rows = []
    for (guests, mode, op, size) in sorted({k[:4] for k in groups},
                                           key=lambda k: (k[0], k[1], k[2], k[3])):
        ours = groups.get((guests, mode, op, size, "ours"), [])
        perf = groups.get((guests, mode, op, size, "perftest"), [])
        row = {"guests": guests, "mode": mode, "op": op, "bytes": size,
               "figure": KEY[mode], "unit": UNIT[mode],
               "ours": ours, "perftest": perf,
               "ours_median": statistics.median(ours) if ours else None,
               "perftest_median": statistics.median(perf) if perf else None}
        row["p_value"] = rank_sum_p(ours, perf)
        pairs = paired_rounds(rounds[(guests, mode, op, size)])
        row["wins"], row["ties"], row["rounds"] = paired_wins(mode, pairs)
        row["p_paired"] = signed_rank_p(pairs)
        ratios = round_ratios(mode, pairs)
        row["ratios"] = ratios
        row["ratio"] = statistics.median(ratios) if ratios else None
        row["interval"] = median_interval(ratios)
        row["verdict"] = verdict(row["ratio"], row["p_paired"], len(ratios))
        rows.append(row)
    return rows


def spread(values):
    """(max - min) / median of the runs, in percent: the noise we saw."""
    if len(values) < 2:
        return None
    return 100.0 * (max(values) - min(values)) / statistics.median(values)


def fmt(value, digits=2):
    if value is None:
        return "-"
    if 0 < abs(value) < 1:
        return f"{value:.4f}"
    return f"{value:.{digits}f}"


def wins_text(row):
    """'3/6', or '3/6 (2 tied)': our wins of the rounds, ties apart."""
    text = f"{row['wins']}/{row['rounds']}"
    if row["ties"]:
        text += f" ({row['ties']} tied)"
    return text


def p_text(p):
    return "-" if p is None else f"{p:.3f}"


def tool_name(tool):
    return "rdma_bench" if tool == "ours" else "perftest"


def setup_name(guests):
    return "one" if guests == 1 else "two"


def ratio_text(ratio):
    return "-" if ratio is None else f"{ratio:.3f}"


def interval_text(interval):
    if interval is None:
        return "-"
    return f"{interval[0]:.3f}-{interval[1]:.3f}"


def table(rows, control=None, api="old"):
    """The report: one line per cell, then the count of verdicts."""
    lines = []
    if api == "new":
        lines.append("rdma_bench posted with ibv_wr_* (--new-api)")
    if control == "api":
        lines.append("A/B of the APIs: rdma_bench ran in both turns, on "
                     "ibv_post_send in ours and with --new-api in "
                     "perftest's; the ratio is the first against the "
                     "second (above 1: ibv_post_send did worse)")
    elif control:
        lines.append(f"A/A control: {tool_name(control)} ran in both turns; "
                     "the columns name the turns, the ratio is the tool "
                     "against itself")
    head = (f"{'setup':<5} {'mode':<4} {'op':<9} {'bytes':>8} "
            f"{'ours':>11} {'perftest':>11} {'ratio':>6} "
            f"{'95% interval':>13} {'paired p':>8} {'verdict':<7} "
            f"{'wins':>13} {'p':>5}  figure")
    lines.append(head)
    lines.append("-" * len(head))
    for r in rows:
        lines.append(
            f"{setup_name(r['guests']):<5} {r['mode']:<4} {r['op']:<9} "
            f"{r['bytes']:>8} "
            f"{fmt(r['ours_median']):>11} {fmt(r['perftest_median']):>11} "
            f"{ratio_text(r['ratio']):>6} "
            f"{interval_text(r['interval']):>13} "
            f"{p_text(r['p_paired']):>8} {r['verdict']:<7} "
            f"{wins_text(r):>13} {p_text(r['p_value']):>5}  "
            f"{r['figure']} [{r['unit']}], median of "
            f"{len(r['ours'])}/{len(r['perftest'])} runs")
    lines.append("")
    lines.append(verdict_counts(rows))
    return "\n".join(lines)


def size_label(size):
    """A message size in binary units, as the plots label it: 2 B, 4 KiB,
    64 KiB, 1 MiB; a size that is no whole number of its unit keeps the
    unit below."""
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} B"


def plot(out, rows, guests, mode, device, control=None):
    """One PNG: the compared figure vs message size, both tools, each op."""
    rows = [r for r in rows if r["guests"] == guests and r["mode"] == mode]
    if not rows:
        return None
    ops = sorted({r["op"] for r in rows})
    series = []
    for i, op in enumerate(ops):
        for tool in ("ours", "perftest"):
            points = [(r["bytes"], r[f"{tool}_median"]) for r in rows
                      if r["op"] == op and r[f"{tool}_median"]]
            if not points:
                continue
            data = os.path.join(out, f"plot-{mode}-{guests}g-{op}-{tool}.dat")
            with open(data, "w") as f:
                for size, value in sorted(points):
                    f.write(f"{size} {value}\n")
            dash = 1 if tool == "ours" else 2
            name = tool_name(tool)
            if control == "api":
                name = ("rdma_bench on ibv_post_send" if tool == "ours"
                        else "rdma_bench --new-api")
            elif control:
                # no quote marks: the title is a gnuplot string in them
                name = f"{tool_name(control)} in turn of {name}"
            series.append(
                f"'{data}' using 1:2 with linespoints lw 2 pt {7 if tool == 'ours' else 6} "
                f"ps 1.3 dt {dash} lc {i + 1} title '{op} {name}'")
    png = os.path.join(out, f"{mode}-{guests}g.png")
    what = ("median latency [usec] (log)" if mode == "lat"
            else "average bandwidth [MiB/s] (log)")
    title = (f"{'Latency' if mode == 'lat' else 'Bandwidth'} vs message size, "
             f"{device}, {guests} guest{'s' if guests > 1 else ''} "
             f"(solid: rdma_bench, dashed: perftest)")
    if control == "api":
        title = (f"A/B of the APIs: rdma_bench in both turns, "
                 f"{guests} guest{'s' if guests > 1 else ''} "
                 f"(solid: ibv_post_send, dashed: --new-api)")
    elif control:
        title = (f"A/A control: {tool_name(control)} in both turns, "
                 f"{guests} guest{'s' if guests > 1 else ''} "
                 f"(solid: turn of rdma_bench)")
    script = "\n".join([
        "set terminal pngcairo size 1000,650 font ',11' noenhanced dashed",
        f"set output '{png}'",
        f"set title \"{title}\"",
        "set xlabel 'message size (log 2)'",
        f"set ylabel '{what}'",
        "set logscale x 2",
        "set logscale y 10",
        # a little room either side, which one size alone also needs
        f"set xrange [{min(r['bytes'] for r in rows) / 1.5}:"
        f"{max(r['bytes'] for r in rows) * 1.5}]",
        "set xtics (" + ", ".join(
            f"'{size_label(size)}' {size}"
            for size in sorted({r['bytes'] for r in rows})) + ")",
        "set grid",
        "set key outside right top",
        "plot " + ", \\\n     ".join(series),
    ])
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    return png


# The device a run measured (bench.sh --device, left in OUT/device), as
# the plots name it; without the file, rxe.
DEVICE_NAMES = {"rxe": "soft-RoCE (rxe0)", "siw": "soft-iWARP (siw0)"}


def read_device(out):
    """The plots' name of the device bench.sh measured."""
    return DEVICE_NAMES[read_word(out, "device", DEVICE_NAMES, "device",
                                  "rxe")]


def main():
    if (len(sys.argv) < 3 or sys.argv[1].startswith("-")
            or not all(a in ("1", "2") for a in sys.argv[2:])):
        print("usage: bench-report.py OUT SETUP... (SETUP: 1 or 2 guests;"
              " bench.sh runs it)", file=sys.stderr)
        return 2
    out = sys.argv[1]
    setups = [int(s) for s in sys.argv[2:]]
    try:
        control = read_control(out)
        device = read_device(out)
        api = read_api(out)
    except ValueError as e:
        print(f"bench-report: {e}", file=sys.stderr)
        return 2
    records = []
    retried = []
    missing = []
    for guests in setups:
        side = "a" if guests == 1 else "b"
        path = os.path.join(out, f"guests-{guests}.{side}.out")
        found = []
        if os.path.exists(path):
            found = parse_output(path, control)
        else:
            print(f"bench-report: no {path}", file=sys.stderr)
        found, again = split_retried(found)
        records += found
        retried += again
        plan = os.path.join(out, f"plan-{guests}.txt")
        if os.path.exists(plan):
            missing += not_run(plan, found)
    rows = medians(records)
    failed = [r for r in records if not r["figures"]]
    text = table(rows, control, api)
    with open(os.path.join(out, "table.txt"), "w") as f:
        f.write(text + "\n")
    print(text)
    if failed:
        print(f"\n{len(failed)} measurement(s) gave no figures:")
        for r in failed:
            print(f"  {measurement_text(r)} (exit {r['rc']})")
    if retried:
        print("\n" + "\n".join(retried_text(retried)))
    if missing:
        print(f"\n{len(missing)} measurement(s) of the plan did not run:")
        for r in missing:
            print(f"  {measurement_text(r)}")
    pngs = [plot(out, rows, g, m, device, control)
            for g in setups for m in ("lat", "bw")]
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"control": control, "api": api, "measurements": records,
                   "retried": retried, "medians": rows}, f, indent=1)
    print("\nwrote " + ", ".join(
        [os.path.join(out, "results.json"), os.path.join(out, "table.txt")]
        + [p for p in pngs if p]))
    behind = any(r["verdict"] == "behind" for r in rows)
    return 1 if failed or missing or behind else 0


if __name__ == "__main__":
    sys.exit(main())
