"""What scripts/cluster_check.py decides, without running anything.

The schedule of pairs (all, ring, or a list), the TCP ports of each pair,
the commands each side runs, how their output is read, the floors, the
diagnosis and the report: everything here is plain data in and out, so
tests/unit/test_cluster_check.py tests it without a cluster.
"""

import csv
import io
import json
import re
import shlex

# Each pair of a round uses three TCP ports: the pair check, the latency
# run and the bandwidth run.  Rounds alternate between two banks of
# ports, so that a process of the round before that has not yet let its
# port go never meets the next round's.
PORTS_PER_PAIR = 3

# The short measurement each pair makes after its check: a latency of
# 2-byte SENDs and a bandwidth of 64 KiB WRITEs both ways at once, so that
# a link slow in one direction only shows (the pair's figure is the
# slower direction).
# The iterations are rdma_bench's defaults unless --lat-iters and
# --bw-iters say otherwise.
LAT_ARGS = ["lat", "--op", "send", "-s", "2"]
BW_ARGS = ["bw", "--op", "write", "-b", "-s", "65536"]

# What the commands print between the runs, to tell their output apart.
MARK = "@@cluster-check"
# What the runner puts between a command's stdout and its stderr.
STDERR = MARK + "-stderr"


# ---------------------------------------------------------------------------
# Patterns
# ---------------------------------------------------------------------------

def rounds_all(hosts):
    """Every pair once: a round-robin schedule (the circle method).

    N - 1 rounds of N/2 pairs for an even N; for an odd N, N rounds in
    which one host rests.  No host is in two pairs of one round.
    """
    ring = list(hosts)
    if len(ring) < 2:
        return []
    if len(ring) % 2:
        ring.append(None)
    n = len(ring)
    rounds = []
    for _ in range(n - 1):
        pairs = []
        for i in range(n // 2):
            a, b = ring[i], ring[n - 1 - i]
            if a is not None and b is not None:
                pairs.append((a, b))
        rounds.append(pairs)
        # The first host stays; the others turn one place.
        ring = [ring[0], ring[-1]] + ring[1:-1]
    return rounds


def rounds_ring(hosts):
    """Each host with the next one, the last with the first.

    Two rounds for an even N (the even edges, then the odd ones), three
    for an odd N (an odd ring needs a third), one for two hosts.
    """
    h = list(hosts)
    n = len(h)
    if n < 2:
        return []
    if n == 2:
        return [[(h[0], h[1])]]
    edges = [(h[i], h[(i + 1) % n]) for i in range(n)]
    if n % 2 == 0:
        return [edges[0::2], edges[1::2]]
    return [edges[0:n - 1:2], edges[1:n - 1:2], [edges[n - 1]]]


def rounds_of_pairs(pairs):
    """A list of pairs, in as few rounds as a greedy fill gives, each
    host in at most one pair per round, the pairs in their order."""
    rounds = []
    for a, b in pairs:
        for r in rounds:
            if all(a not in p and b not in p for p in r):
                r.append((a, b))
                break
        else:
            rounds.append([(a, b)])
    return rounds


def parse_pairs(text, hosts):
    """--pattern's list: "h1:h2,h3:h4".  Returns the pairs, or raises
    ValueError naming what is wrong."""
    pairs = []
    for item in text.split(","):
        ends = item.strip().split(":")
        if len(ends) != 2 or not all(ends):
            raise ValueError(f"'{item}' is not a pair HOST:HOST")
        for h in ends:
            if h not in hosts:
                raise ValueError(f"{h} (in '{item}') is not one of the hosts")
        if ends[0] == ends[1]:
            raise ValueError(f"'{item}' pairs a host with itself")
        pairs.append((ends[0], ends[1]))
    return pairs


def plan(hosts, pattern):
    """The rounds for PATTERN: "all", "ring" or a list of pairs."""
    if pattern == "all":
        return rounds_all(hosts)
    if pattern == "ring":
        return rounds_ring(hosts)
    return rounds_of_pairs(parse_pairs(pattern, hosts))


def pair_ports(base, round_index, pair_index, pairs_per_round):
    """The three ports (check, latency, bandwidth) of a pair."""
    bank = (round_index % 2) * pairs_per_round * PORTS_PER_PAIR
    first = base + bank + pair_index * PORTS_PER_PAIR
    return first, first + 1, first + 2


def last_port(base, pairs_per_round):
    return base + 2 * pairs_per_round * PORTS_PER_PAIR - 1


# ---------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------

def local_command(check, check_args):
    """The local check on a host, then the port's rate as ibv_devinfo
    reads it from ibv_query_port."""
    return (f"{shlex.join([check] + check_args)}; echo \"{MARK} check $?\"; "
            f"ibv_devinfo -v 2>&1; echo \"{MARK} devinfo $?\"")


# rdma_bench spells two of rdma_check's options as perftest does: the GID
# index is -x (its -g is perftest's multicast, refused) and the bound on
# each wait --timeout (its -t is the send queue's depth).
BENCH_SPELLING = {"-g": "-x", "-t": "--timeout"}


def bench_args(check_args):
    """rdma_check's options CHECK_ARGS (each with its value, as
    cluster_check.py's common_args gives them) as rdma_bench spells
    them."""
    return [BENCH_SPELLING.get(w, w) if i % 2 == 0 else w
            for i, w in enumerate(check_args)]


def pair_commands(check, bench, check_args, ports, server_addr, waits,
                  iters=(None, None)):
    """The server's and the client's command for one pair: the pair
    check, then (when it passed) the latency and the bandwidth runs.

    CHECK_ARGS: the device, port and GID options, as rdma_check spells
    them (rdma_bench gets them as it spells them, bench_args).
    WAITS: (connect, accept, each) seconds: how long a client retries
    its connect, a server waits for its client, and every wait after.
    """
    connect, accept, each = waits
    lat = LAT_ARGS + (["-n", str(iters[0])] if iters[0] else [])
    bw = BW_ARGS + (["-n", str(iters[1])] if iters[1] else [])
    side = ["--accept-timeout", str(accept), "-t", str(each)]
    client = ["--connect-timeout", str(connect), "-t", str(each)]
    b_args = bench_args(check_args)
    b_side = bench_args(side)
    b_client = bench_args(client)
    p_check, p_lat, p_bw = (str(p) for p in ports)
    steps_s = [
        ("check", [check, "--pair", "-p", p_check] + check_args + side),
        ("lat", [bench] + lat + ["-p", p_lat] + b_args + b_side),
        ("bw", [bench] + bw + ["-p", p_bw] + b_args + b_side),
    ]
    steps_c = [
        ("check", [check, "-p", p_check] + check_args + client + [server_addr]),
        ("lat", [bench] + lat + ["-p", p_lat] + b_args + b_client
         + [server_addr]),
        ("bw", [bench] + bw + ["-p", p_bw] + b_args + b_client
         + [server_addr]),
    ]
    return chain(steps_s), chain(steps_c)


def chain(steps):
    """Shell text that runs each step while the ones before passed, and
    marks where each one's output ends, with its exit status."""
    text = []
    for name, words in steps:
        text.append(f"{shlex.join(words)}; rc=$?; echo \"{MARK} {name} $rc\"; "
                    "[ $rc -eq 0 ] || exit $rc")
    return "; ".join(text)


# ---------------------------------------------------------------------------
# Reading what the hosts printed
# ---------------------------------------------------------------------------

CHECK_LINE = re.compile(r"^(PASS|WARN|FAIL) (\S+) +(.*)$")


def split_marked(text):
    """{step: (output, exit status)} from a command's marked output, and
    what came after the last mark (output of a step that never ended)."""
    parts = {}
    current = []
    for line in text.splitlines():
        if line == STDERR:
            # What follows is the command's stderr: it belongs to the step
            # that did not end, if one did not.
            continue
        if line.startswith(MARK + " "):
            _, name, rc = line.split(" ", 2)
            parts[name] = ("\n".join(current), int(rc))
            current = []
        else:
            current.append(line)
    return parts, "\n".join(current)


def parse_check(text):
    """rdma_check's report: its check lines, as dicts, and its verdict."""
    checks = []
    verdict = None
    for line in text.splitlines():
        m = CHECK_LINE.match(line)
        if m:
            status, name, rest = m.groups()
            value, fix = rest, None
            if "; fix: " in rest:
                value, fix = rest.split("; fix: ", 1)
            checks.append({"name": name, "status": status, "value": value,
                           "fix": fix})
        elif line.startswith("verdict: "):
            verdict = line[len("verdict: "):]
    return checks, verdict


def parse_rate(devinfo, device, port):
    """The active rate of DEVICE's PORT in Gb/s from `ibv_devinfo -v`
    (width times speed), or None."""
    block = None
    width = speed = None
    current_port = None
    for line in devinfo.splitlines():
        s = line.strip()
        if s.startswith("hca_id:"):
            block = s.split(None, 1)[1]
            current_port = None
        elif block == device and s.startswith("port:"):
            current_port = int(s.split()[1])
        elif block == device and current_port == port:
            if s.startswith("active_width:"):
                m = re.search(r"(\d+)X", s)
                width = int(m.group(1)) if m else None
            elif s.startswith("active_speed:"):
                m = re.search(r"([\d.]+) Gbps", s)
                speed = float(m.group(1)) if m else None
    if width is None or speed is None:
        return None
    return width * speed


def check_device(checks):
    """The device rdma_check looked at, from its `device` line."""
    for c in checks:
        if c["name"] == "device" and c["status"] == "PASS":
            return c["value"].split()[0].rstrip(",")
    return None


def parse_bench(text):
    """The figures of rdma_bench's row: for lat the typical (median)
    microseconds; for bw (with -b) each direction and the sum, MiB/s."""
    header = None
    figures = {}
    for line in text.splitlines():
        if line.startswith(" #bytes"):
            header = line
            continue
        if header is None:
            continue
        words = line.split()
        if "t_typical" in header and len(words) >= 6 and words[0].isdigit():
            figures["lat_usec"] = float(words[4])
            header = None
        elif "BW average" in header and len(words) >= 5 and words[0].isdigit():
            figures["bw_sum"] = float(words[3])
        m = re.search(r"client to server ([\d.]+), server to client ([\d.]+)",
                      line)
        if m:
            figures["bw_c2s"] = float(m.group(1))
            figures["bw_s2c"] = float(m.group(2))
            figures["bw"] = min(figures["bw_c2s"], figures["bw_s2c"])
            header = None
    return figures


def said(c):
    """A check line without its status word and its fix."""
    return f"{c['name']}: {c['value']}"


def first_failure(checks):
    for c in checks:
        if c["status"] == "FAIL":
            return c
    return None


# ---------------------------------------------------------------------------
# Verdicts
# ---------------------------------------------------------------------------

def judge_host(name, answered, output, rc, timeout, port=1):
    """One host's local result: a dict with its status (PASS, FAIL or
    NO-ANSWER), its check lines, its device and its port's rate."""
    host = {"host": name, "status": "PASS", "checks": [], "verdict": None,
            "device": None, "rate_gbps": None, "problem": None, "fix": None}
    if not answered:
        host["status"] = "NO-ANSWER"
        host["problem"] = (f"no answer within {timeout} s: the host is down, "
                           "unreachable or hung")
        host["fix"] = f"reach it by hand (ssh {name} true) and look at it"
        return host
    parts, rest = split_marked(output)
    if "check" not in parts:
        host["status"] = "NO-ANSWER"
        host["problem"] = (f"rdma_check did not run (exit status {rc}): "
                           + (rest.strip().splitlines() or ["no output"])[-1])
        host["fix"] = "install rdma_check on it (the project's package)"
        return host
    text, check_rc = parts["check"]
    host["checks"], host["verdict"] = parse_check(text)
    host["device"] = check_device(host["checks"])
    if "devinfo" in parts and host["device"]:
        host["rate_gbps"] = parse_rate(parts["devinfo"][0], host["device"],
                                       port)
    bad = first_failure(host["checks"])
    if check_rc != 0 or bad:
        host["status"] = "FAIL"
        if bad:
            host["problem"] = said(bad)
            host["fix"] = bad["fix"]
        else:
            host["problem"] = f"rdma_check exited {check_rc}: {host['verdict']}"
    return host


def judge_pair(server, client, out_s, out_c, answered, floors, rate_gbps):
    """One pair's result from both sides' output.

    FLOORS: (bw_min MiB/s or None, bw_min_share of the port's rate or
    None, lat_max usec or None); RATE_GBPS: the slower port's rate.
    """
    pair = {"server": server, "client": client, "status": "PASS",
            "checks": {"server": [], "client": []}, "figures": {},
            "failed": None, "problem": None, "fix": None, "floor": None,
            "output": {"server": out_s, "client": out_c}}
    if not answered:
        pair["status"] = "FAIL"
        pair["failed"] = "answer"
        pair["problem"] = "no answer from a side within the round's bound"
        return pair
    ps, rest_s = split_marked(out_s)
    pc, rest_c = split_marked(out_c)
    for side, parts in (("server", ps), ("client", pc)):
        if "check" in parts:
            pair["checks"][side], _ = parse_check(parts["check"][0])
    # The client's view first, unless it only waited in vain while the
    # server saw why (the sender of a SEND that nothing acknowledges gets
    # "retry exceeded", its receiver a timeout, or the sender's close).
    failures = [(side, first_failure(pair["checks"][side]))
                for side in ("client", "server")]
    failures = [(side, bad) for side, bad in failures if bad]
    if failures:
        side, bad = failures[0]
        if len(failures) == 2 and ("within the timeout" in bad["value"] or
                                   "the peer closed" in bad["value"]):
            side, bad = failures[1]
        pair["status"] = "FAIL"
        pair["failed"] = bad["name"]
        pair["problem"] = f"the {side}'s {said(bad)}"
        pair["fix"] = bad["fix"]
        return pair
    for step in ("check", "lat", "bw"):
        for side, parts in (("client", pc), ("server", ps)):
            if step not in parts:
                rest = rest_c if side == "client" else rest_s
                last = rest.strip().splitlines() or ["no output"]
                pair["status"] = "FAIL"
                pair["failed"] = step
                pair["problem"] = (f"the {side}'s {step} did not finish: "
                                   f"{last[-1]}")
                return pair
            if parts[step][1] != 0:
                pair["status"] = "FAIL"
                pair["failed"] = step
                last = (parts[step][0].strip().splitlines() or ["no output"])
                pair["problem"] = (f"the {side}'s {step} exited "
                                   f"{parts[step][1]}: {last[-1]}")
                return pair
    pair["figures"].update(parse_bench(pc["lat"][0]))
    pair["figures"].update(parse_bench(pc["bw"][0]))
    return apply_floors(pair, floors, rate_gbps)


def bw_floor(floors, rate_gbps):
    """The bandwidth floor in MiB/s, and what it is made of."""
    bw_min, share, _ = floors
    if share is not None and rate_gbps:
        mib = rate_gbps * 1e9 / 8 / (1 << 20) * share / 100
        return mib, f"{share:g}% of the port's {rate_gbps:g} Gb/s"
    if bw_min is not None:
        return bw_min, None
    return None, None


def settle(pair):
    """What a pair keeps once judged: its check lines and figures, and
    the raw output of its two sides only when it failed (the output is
    what explains a failure; for a pass it would only weigh)."""
    if pair["status"] == "PASS":
        pair.pop("output", None)
    return pair


def apply_floors(pair, floors, rate_gbps):
    figures = pair["figures"]
    floor, made_of = bw_floor(floors, rate_gbps)
    lat_max = floors[2]
    if floor is not None:
        bw = figures.get("bw")
        if bw is None or bw < floor:
            pair["status"] = "FAIL"
            pair["failed"] = "bandwidth"
            what = f"{floor:.2f} MiB/s" + (f" ({made_of})" if made_of else "")
            pair["floor"] = what
            pair["problem"] = (f"bandwidth {bw if bw is not None else '?'} "
                               f"MiB/s (the slower way) is under the floor "
                               f"{what}")
            pair["fix"] = ("look at the slower host's link: its speed, "
                           "errors, pause frames and shaping (ethtool -S, tc "
                           "qdisc show)")
            return pair
    if lat_max is not None:
        lat = figures.get("lat_usec")
        if lat is None or lat > lat_max:
            pair["status"] = "FAIL"
            pair["failed"] = "latency"
            pair["floor"] = f"{lat_max:g} usec"
            pair["problem"] = (f"latency {lat} usec is over the floor "
                               f"{lat_max:g} usec")
            pair["fix"] = ("look at the path between them: switch hops, "
                           "congestion, the hosts' load")
    return pair


# ---------------------------------------------------------------------------
# Diagnosis
# ---------------------------------------------------------------------------

def diagnose(hosts, results, pairs):
    """Lines that say what is broken: hosts, links, pairs under a floor.

    RESULTS: {host: judge_host()}; PAIRS: the judge_pair() dicts.
    """
    lines = []
    for h in hosts:
        r = results[h]
        if r["status"] == "NO-ANSWER":
            lines.append(f"host {h}: {r['problem']}; its pairs were not run"
                         f"; fix: {r['fix']}")
        elif r["status"] == "FAIL":
            fix = f"; fix: {r['fix']}" if r["fix"] else ""
            lines.append(f"host {h}: its own check fails, so its pairs were "
                         f"not run: {r['problem']}{fix}")
    ran = [p for p in pairs if p["status"] != "SKIP"]
    by_host = {h: [p for p in ran if h in (p["server"], p["client"])]
               for h in hosts}
    broken = set()
    for h in hosts:
        mine = by_host[h]
        failing = [p for p in mine if p["status"] == "FAIL"]
        if len(mine) >= 2 and len(failing) == len(mine):
            broken.add(h)
            kinds = sorted({p["failed"] for p in failing})
            if kinds == ["bandwidth"]:
                lines.append(f"host {h}: every pair with it is under the "
                             "bandwidth floor: its own link is slow; fix: "
                             f"{failing[0]['fix']}")
            else:
                lines.append(f"host {h}: fails with every peer "
                             f"({', '.join(kinds)}), though its own check "
                             f"passes; first: {failing[0]['problem']}")
    for p in ran:
        if p["status"] != "FAIL":
            continue
        a, b = p["server"], p["client"]
        if a in broken or b in broken:
            continue
        fix = f"; fix: {p['fix']}" if p["fix"] else ""
        if p["failed"] in ("bandwidth", "latency"):
            lines.append(f"pair {a}-{b}: {p['problem']}{fix}")
        else:
            lines.append(f"link {a}-{b}: fails ({p['failed']}) while both "
                         f"hosts pass with others: {p['problem']}{fix}")
    return lines


def skipped_pair(server, client, why):
    return {"server": server, "client": client, "status": "SKIP",
            "checks": {"server": [], "client": []}, "figures": {},
            "failed": None, "problem": why, "fix": None, "floor": None}


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------

def cell(p):
    if p is None:
        return "."
    if p["status"] == "SKIP":
        return "skip"
    bw = p["figures"].get("bw")
    if p["status"] == "FAIL":
        return f"FAIL {bw:.1f}" if p["failed"] == "bandwidth" and bw else "FAIL"
    return f"{bw:.1f}" if bw is not None else "PASS"


def matrix(hosts, pairs):
    """Hosts as rows and columns; each cell the pair's bandwidth (MiB/s,
    the slower way), FAIL, skip (a host failed alone), or . (not in the
    pattern)."""
    by = {}
    for p in pairs:
        by[(p["server"], p["client"])] = p
        by[(p["client"], p["server"])] = p
    width = max([len(h) for h in hosts] + [9])
    lines = [" " * width + " " + " ".join(h.rjust(width) for h in hosts)]
    for a in hosts:
        cells = ["-" if a == b else cell(by.get((a, b))) for b in hosts]
        lines.append(a.rjust(width) + " " +
                     " ".join(c.rjust(width) for c in cells))
    return lines


def host_line(r):
    if r["status"] == "PASS":
        rate = f", {r['rate_gbps']:g} Gb/s" if r["rate_gbps"] else ""
        return f"PASS {r['host']}: {r['device']}{rate}"
    fix = f"; fix: {r['fix']}" if r["fix"] else ""
    return f"{r['status']} {r['host']}: {r['problem']}{fix}"


def to_json(hosts, results, pairs, diagnosis, meta):
    return json.dumps({
        "verdict": "PASS" if passed(hosts, results, pairs) else "FAIL",
        "hosts": [results[h] for h in hosts],
        "pairs": pairs,
        "diagnosis": diagnosis,
        **meta,
    }, indent=1)


def to_csv(pairs):
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(["server", "client", "status", "failed", "bw_mibs",
                "bw_client_to_server", "bw_server_to_client", "lat_usec",
                "problem"])
    for p in pairs:
        f = p["figures"]
        w.writerow([p["server"], p["client"], p["status"], p["failed"] or "",
                    f.get("bw", ""), f.get("bw_c2s", ""), f.get("bw_s2c", ""),
                    f.get("lat_usec", ""), p["problem"] or ""])
    return out.getvalue()


def heat_data(hosts, pairs):
    """gnuplot's matrix data: one row per host, the bandwidth of each
    pair (NaN where none was measured)."""
    by = {}
    for p in pairs:
        bw = p["figures"].get("bw")
        if p["status"] == "PASS" or p["failed"] == "bandwidth":
            by[(p["server"], p["client"])] = bw
            by[(p["client"], p["server"])] = bw
    rows = []
    for a in hosts:
        rows.append(" ".join("NaN" if by.get((a, b)) is None
                             else f"{by[(a, b)]:.3f}" for b in hosts))
    return "\n".join(rows) + "\n"


def passed(hosts, results, pairs):
    return (all(results[h]["status"] == "PASS" for h in hosts) and
            all(p["status"] == "PASS" for p in pairs))
