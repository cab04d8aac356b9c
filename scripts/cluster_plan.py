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

# Each pair of a round uses four TCP ports: the pair check, the latency
# run, the bandwidth run and, when the bandwidth run fails, the probe.
# Rounds alternate between two banks of ports, so that a process of the
# round before that has not yet let its port go never meets the next
# round's.
PORTS_PER_PAIR = 4

# The short measurement each pair makes after its check: a latency of
# 2-byte SENDs and a bandwidth of 64 KiB WRITEs both ways at once, so that
# a link slow in one direction only shows (the pair's figure is the
# slower direction).
# The iterations are rdma_bench's defaults unless --lat-iters and
# --bw-iters say otherwise.
# Each run reports what its port's counters moved: the resends and the
# gaps that name a lossy link (judge_loss).
LAT_ARGS = ["lat", "--op", "send", "-s", "2", "--report-counters"]
BW_ARGS = ["bw", "--op", "write", "-b", "-s", "65536", "--report-counters"]
# When the bandwidth run fails, the pair tries SENDs of every power of two
# up to 4 KiB, back and forth: the first size that does not arrive is the
# frame size the path loses (a switch port with a smaller MTU than the
# hosts' drops what the hosts' MTU allows).  Each size's SENDs go in
# packets of that size up to the path MTU the QP uses.
PROBE_ARGS = ["lat", "--op", "send", "-a", "-s", "4096", "-n", "20"]

# What the commands print between the runs, to tell their output apart.
MARK = "@@cluster-check"
# A host's status when the run was cut short before its own check ended.
NOT_RUN = "NOT-RUN"
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
    """The rounds for PATTERN: "all", "ring" or a list of pairs; for
    "sweep" its first pass, the ring (sweep_rounds gives the second)."""
    if pattern == "all":
        return rounds_all(hosts)
    if pattern in ("ring", "sweep"):
        return rounds_ring(hosts)
    return rounds_of_pairs(parse_pairs(pattern, hosts))


# How many hosts that passed the ring each suspect meets in the sweep's
# second pass.
SWEEP_PARTNERS = 3


def sweep_rounds(hosts, results, pairs):
    """The sweep's second pass, after its ring: each suspect (a host of a
    pair that failed) meets SWEEP_PARTNERS hosts whose ring pairs all
    passed.  A host at fault then fails with every peer, a link at fault
    fails alone while both its hosts pass with others, and a slow host
    is under the floor with every peer.  Its rounds grow with the number
    of suspects, not of hosts: three while there are fewer suspects than
    sound hosts.  With no sound host left, every pair among the suspects.
    Returns the rounds."""
    ok = [h for h in hosts if results[h]["status"] == "PASS"]
    suspects = [h for h in ok if any(
        p["status"] == "FAIL" and h in (p["server"], p["client"])
        for p in pairs)]
    sound = [h for h in ok if h not in suspects]
    done = {frozenset((p["server"], p["client"])) for p in pairs}
    if not sound:
        todo = [pair for r in rounds_all(suspects) for pair in r]
    else:
        todo = []
        n = len(suspects)
        for j in range(SWEEP_PARTNERS):
            for i, h in enumerate(suspects):
                todo.append((h, sound[(i + j * n) % len(sound)]))
    todo = [(a, b) for a, b in todo if frozenset((a, b)) not in done]
    seen = set()
    unique = []
    for a, b in todo:
        if frozenset((a, b)) not in seen:
            seen.add(frozenset((a, b)))
            unique.append((a, b))
    return rounds_of_pairs(unique)


def pair_ports(base, round_index, pair_index, pairs_per_round):
    """The four ports (check, latency, bandwidth, probe) of a pair."""
    bank = (round_index % 2) * pairs_per_round * PORTS_PER_PAIR
    first = base + bank + pair_index * PORTS_PER_PAIR
    return tuple(first + i for i in range(PORTS_PER_PAIR))


def last_port(base, pairs_per_round):
    return base + 2 * pairs_per_round * PORTS_PER_PAIR - 1


# ---------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------

def local_command(check, check_args):
    """The local check on a host; its port line carries the port's rate."""
    return f"{shlex.join([check] + check_args)}; echo \"{MARK} check $?\""


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
                  iters=(None, None), max_lost=0):
    """The server's and the client's command for one pair: the pair
    check, then (when it passed) the latency and the bandwidth runs.

    CHECK_ARGS: the device, port and GID options, as rdma_check spells
    them (rdma_bench gets them as it spells them, bench_args).
    WAITS: (connect, accept, each) seconds: how long a client retries
    its connect, a server waits for its client, and every wait after.
    MAX_LOST: the pair check's bound on lost packets, as the runs'
    (judge_loss).
    """
    connect, accept, each = waits
    lat = LAT_ARGS + (["-n", str(iters[0])] if iters[0] else [])
    bw = BW_ARGS + (["-n", str(iters[1])] if iters[1] else [])
    side = ["--accept-timeout", str(accept), "-t", str(each)]
    client = ["--connect-timeout", str(connect), "-t", str(each)]
    bound = ["--max-lost", str(max_lost)] if max_lost else []
    b_args = bench_args(check_args)
    b_side = bench_args(side)
    b_client = bench_args(client)
    p_check, p_lat, p_bw, p_probe = (str(p) for p in ports)
    steps_s = [
        ("check", [check, "--pair", "-p", p_check] + check_args + bound
         + side),
        ("lat", [bench] + lat + ["-p", p_lat] + b_args + b_side),
        ("bw", [bench] + bw + ["-p", p_bw] + b_args + b_side),
    ]
    steps_c = [
        ("check", [check, "-p", p_check] + check_args + bound + client
         + [server_addr]),
        ("lat", [bench] + lat + ["-p", p_lat] + b_args + b_client
         + [server_addr]),
        ("bw", [bench] + bw + ["-p", p_bw] + b_args + b_client
         + [server_addr]),
    ]
    probe_s = [bench] + PROBE_ARGS + ["-p", p_probe] + b_args + b_side
    probe_c = ([bench] + PROBE_ARGS + ["-p", p_probe] + b_args + b_client
               + [server_addr])
    return chain(steps_s, probe_s), chain(steps_c, probe_c)


def chain(steps, probe):
    """Shell text that runs each step while the ones before passed, and
    marks where each one's output ends, with its exit status; when the
    last step fails, PROBE runs before the exit."""
    text = []
    for name, words in steps[:-1]:
        text.append(f"{shlex.join(words)}; rc=$?; echo \"{MARK} {name} $rc\"; "
                    "[ $rc -eq 0 ] || exit $rc")
    name, words = steps[-1]
    text.append(f"{shlex.join(words)}; rc=$?; echo \"{MARK} {name} $rc\"; "
                f"if [ $rc -ne 0 ]; then {shlex.join(probe)}; "
                f"echo \"{MARK} probe $?\"; fi; exit $rc")
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


PORT_RATE = re.compile(r", ([\d.]+) Gb/s \(\d+X [\d.]+ Gb/s\)$")


def parse_rate(checks):
    """The port's active rate in Gb/s from rdma_check's `port` line
    ("..., 100 Gb/s (4X 25 Gb/s)"), or None when it gave none."""
    for c in checks:
        if c["name"] == "port" and c["status"] == "PASS":
            m = PORT_RATE.search(c["value"])
            return float(m.group(1)) if m else None
    return None


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


LOSS_LINES = {
    "resent": re.compile(r"^resent: this side sent packets again (\d+) ", re.M),
    "out_of_seq": re.compile(r"^out of sequence: (\d+) ", re.M),
    "duplicate": re.compile(r"^twice: (\d+) ", re.M),
    # soft-RoCE's count of its own packets, among the counters that moved
    "sent": re.compile(r"^  sent_pkts +\+(\d+) ", re.M),
    "received": re.compile(r"^  rcvd_pkts +\+(\d+) ", re.M),
}


def parse_loss(text):
    """What rdma_bench --report-counters says of its side's run: how many
    times it sent packets again, how many packets came after a gap in the
    sequence, how many came twice (0 for a "none" line), and where the
    driver counts its RoCE packets apart (soft-RoCE), how many it sent
    and received; None when the port has no counters (soft-iWARP)."""
    if "port counters of this side" not in text:
        return None
    counts = {}
    for name, line in LOSS_LINES.items():
        m = line.search(text)
        counts[name] = int(m.group(1)) if m else 0
    return counts


def lost_toward(sender, receiver):
    """How many of SENDER's packets toward RECEIVER were lost, by both
    sides' parse_loss counts (as rdma_check --pair judges them): where
    both count their RoCE packets apart, those sent and never received;
    else a gap the receiver saw is a loss for sure, and so is a resend
    whose first copy the receiver did not get twice (one it got twice
    was an ack that came late, from a busy peer, or was lost the other
    way). None when the sender's port has no counters."""
    if sender is None:
        return None
    if receiver is None:
        return sender["resent"]
    if sender["sent"] and receiver["received"]:
        return max(0, sender["sent"] - receiver["received"])
    if receiver["out_of_seq"]:
        return max(sender["resent"], receiver["out_of_seq"])
    return max(0, sender["resent"] - receiver["duplicate"])


def parse_probe(text):
    """The largest size the probe's rows show passed, or 0.  Its sizes
    double from 2 bytes and it stops at the first that fails, after the
    rows of those that passed."""
    passed = 0
    in_rows = False
    for line in text.splitlines():
        if line.startswith(" #bytes"):
            in_rows = True
            continue
        words = line.split()
        if in_rows and len(words) >= 6 and words[0].isdigit():
            passed = max(passed, int(words[0]))
    return passed


GID_PAIR = re.compile(r"^both (RoCE v[12]|IB)\b[^:]*: ours (\S+), the peer's "
                      r"([^\s,]+)")


def pair_gids(checks, side):
    """{"server": GID, "client": GID} from SIDE's gid-pair line (its GID
    is "ours"), each as "ADDRESS (TYPE)"; {} when it has none."""
    other = "client" if side == "server" else "server"
    for c in checks:
        if c["name"] == "gid-pair" and c["status"] == "PASS":
            m = GID_PAIR.match(c["value"])
            if m:
                kind, ours, theirs = m.groups()
                return {side: f"{ours} ({kind})", other: f"{theirs} ({kind})"}
    return {}


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

def last_line(text, default="no output"):
    lines = [line for line in text.strip().splitlines() if line != STDERR]
    return lines[-1] if lines else default


def warnings(checks):
    """The WARN lines of CHECKS as the report says them."""
    return [said(c) + (f"; fix: {c['fix']}" if c["fix"] else "")
            for c in checks if c["status"] == "WARN"]


def judge_host(name, answered, output, rc, timeout, check="rdma_check",
               via=None):
    """One host's local result: a dict with its status (PASS, FAIL,
    UNREACHED or NO-ANSWER), its check lines and warnings, its device and
    its port's rate.

    Before rdma_check can say anything, a host can fail three ways, each
    with its own words: the runner did not reach it (ssh's exit status
    255, or the --via command's own failure, before the command ran),
    the program is not there (the shell's 127 or 126), or the program
    refused its options (its usage line, exit status 2, no check line).
    """
    host = {"host": name, "status": "PASS", "checks": [], "verdict": None,
            "device": None, "rate_gbps": None, "problem": None, "fix": None,
            "warnings": [], "usage": None}
    if not answered:
        host["status"] = "NO-ANSWER"
        host["problem"] = (f"no answer within {timeout} s: the host is down, "
                           "unreachable or hung")
        host["fix"] = f"reach it by hand (ssh {name} true) and look at it"
        return host
    parts, rest = split_marked(output)
    if "check" not in parts:
        host["status"] = "UNREACHED"
        runner = "the --via command" if via else "ssh"
        host["problem"] = (f"{runner} did not run the check on it (exit "
                           f"status {rc}): {last_line(rest)}")
        host["fix"] = (f"make `{via.replace('%h', name)} true` work"
                       if via else
                       f"make `ssh {name} true` work from here (the name, "
                       "the key, sshd), or leave the host out")
        return host
    text, check_rc = parts["check"]
    host["checks"], host["verdict"] = parse_check(text)
    # The runner gives a command's stderr after all its stdout.
    said_last = last_line(text + "\n" + rest)
    if check_rc in (126, 127) and not host["checks"]:
        host["status"] = "FAIL"
        what = "is not there" if check_rc == 127 else "cannot be run"
        host["problem"] = (f"{check} {what} on it (exit status {check_rc}): "
                           f"{said_last}")
        host["fix"] = ("install the project's package on it, or give "
                       "--rdma-check the program's path on the hosts")
        return host
    if check_rc == 2 and not host["checks"]:
        host["status"] = "FAIL"
        host["usage"] = said_last
        host["problem"] = f"{check} refused its options: {host['usage']}"
        host["fix"] = ("give options this host's rdma_check takes, or "
                       "install the same version on every host")
        return host
    host["device"] = check_device(host["checks"])
    host["rate_gbps"] = parse_rate(host["checks"])
    host["warnings"] = warnings(host["checks"])
    bad = first_failure(host["checks"])
    if check_rc != 0 or bad:
        host["status"] = "FAIL"
        if bad:
            host["problem"] = said(bad)
            host["fix"] = bad["fix"]
        else:
            host["problem"] = (f"{check} exited {check_rc}: "
                               f"{host['verdict'] or said_last}")
    return host


def refused_everywhere(hosts, results):
    """The usage line when every host that ran rdma_check refused its
    options the same way (a mistake of the command line, said once), or
    None."""
    ran = [results[h] for h in hosts
           if results[h]["status"] not in ("NO-ANSWER", "UNREACHED")]
    lines = {r["usage"] for r in ran}
    if ran and len(lines) == 1 and None not in lines:
        return lines.pop()
    return None


def stderr_of(rest):
    """What the runner gave after the STDERR mark: the command's stderr."""
    return rest.split(STDERR, 1)[1] if STDERR in rest else rest


def failure_line(out_part, rest):
    """Why a step failed: the first line of the command's stderr that
    says "failed" (the steps before it passed, and the probe runs after
    it), else the last line the step printed."""
    for line in stderr_of(rest).splitlines():
        if "failed" in line:
            return line.strip()
    return last_line(out_part)


def judge_pair(server, client, out_s, out_c, answered, floors, rate_gbps,
               unknown_rate=(), max_lost=0):
    """One pair's result from both sides' output.

    FLOORS: (bw_min MiB/s or None, bw_min_share of the port's rate or
    None, lat_max usec or None); RATE_GBPS: the slower port's rate, None
    when UNKNOWN_RATE names a host whose rate rdma_check did not give;
    MAX_LOST: the packets a pair may lose before it fails (judge_loss).
    """
    pair = {"server": server, "client": client, "status": "PASS",
            "checks": {"server": [], "client": []}, "figures": {},
            "failed": None, "problem": None, "fix": None, "floor": None,
            "warnings": [], "probe": None, "cause": None, "gids": {},
            "lost": {"server": None, "client": None},
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
    pair["gids"] = (pair_gids(pair["checks"]["client"], "client") or
                    pair_gids(pair["checks"]["server"], "server"))
    # A warning both sides give (the path MTU, a GID) is said once, as
    # the client gives it.
    named = set()
    for side in ("client", "server"):
        for c in pair["checks"][side]:
            if c["status"] == "WARN" and c["name"] not in named:
                named.add(c["name"])
                pair["warnings"] += warnings([c])
    # The side that saw why, the client's view when both did: the sender
    # of a SEND that nothing acknowledges gets "retry exceeded", its
    # receiver a timeout; a side that only heard the other's check end
    # knows least.
    failures = [(side, first_failure(pair["checks"][side]))
                for side in ("client", "server")]
    failures = [(side, bad) for side, bad in failures if bad]
    if failures:
        side, bad = min(failures, key=lambda f: (
            2 if "the peer closed" in f[1]["value"] else
            1 if "within the timeout" in f[1]["value"] else 0))
        pair["status"] = "FAIL"
        pair["failed"] = bad["name"]
        pair["problem"] = f"the {side}'s {said(bad)}"
        pair["fix"] = bad["fix"]
        pair["cause"] = check_cause(bad)
        return pair
    for step in ("check", "lat", "bw"):
        for side, parts in (("client", pc), ("server", ps)):
            rest = rest_c if side == "client" else rest_s
            if step not in parts:
                pair["status"] = "FAIL"
                pair["failed"] = step
                pair["problem"] = (f"the {side}'s {step} did not finish: "
                                   f"{last_line(rest)}")
                return pair
        failing = [(side, f"the {side}'s {step} exited {parts[step][1]}: "
                    + failure_line(parts[step][0], rest))
                   for side, parts, rest in (("client", pc, rest_c),
                                             ("server", ps, rest_s))
                   if parts[step][1] != 0]
        if failing:
            # As for the pair check: the side that only heard the other
            # close knows less than the other.
            knows = [f for f in failing if not re.search(
                r"the peer closed|the peer ended", f[1])]
            pair["status"] = "FAIL"
            pair["failed"] = step
            pair["problem"] = (knows or failing)[0][1]
            if step == "bw":
                judge_probe(pair, ps, pc)
            return pair
    pair["figures"].update(parse_bench(pc["lat"][0]))
    pair["figures"].update(parse_bench(pc["bw"][0]))
    # Each run's two sides' counts, for each way: the server's packets
    # toward the client, the client's toward the server.
    for side, other, a, b in (("server", "client", ps, pc),
                              ("client", "server", pc, ps)):
        lost = [lost_toward(parse_loss(a[step][0]), parse_loss(b[step][0]))
                for step in ("lat", "bw")]
        pair["lost"][side] = None if None in lost else sum(lost)
    apply_floors(pair, floors, rate_gbps, unknown_rate)
    judge_loss(pair, max_lost)
    return pair


def judge_loss(pair, max_lost):
    """Packets the pair's link lost either way over the latency and
    bandwidth runs (pair["lost"], from the ports' counters). More than
    MAX_LOST in all fails the pair; fewer, or a pair that failed a floor
    already (a shaped link drops what it cannot carry), a warning; none,
    nothing. RoCE is meant for a lossless fabric: a loss is the first
    thing to look at."""
    lost = {side: n for side, n in pair["lost"].items() if n}
    if not lost:
        return
    host = {"server": pair["server"], "client": pair["client"]}
    other = {"server": "client", "client": "server"}
    ways = ", ".join(f"{n} of {host[side]}'s toward {host[other[side]]}"
                     for side, n in lost.items())
    problem = (f"packets lost: {ways}, by the ports' counters over the "
               "latency and bandwidth runs")
    fix = ("look at the link from the side whose packets were lost: the "
           "cable, the switch port's error and discard counters, PFC or "
           "ECN (ethtool -S)")
    total = sum(lost.values())
    if total <= max_lost:
        pair["warnings"].append(f"{problem} (at most {max_lost} allowed "
                                f"by --max-lost); fix: {fix}")
        return
    if pair["status"] == "FAIL":
        pair["warnings"].append(f"{problem}; fix: {fix}")
        return
    pair["status"] = "FAIL"
    pair["failed"] = "loss"
    pair["cause"] = "a lossy link (RoCE needs a lossless one)"
    pair["problem"] = problem
    pair["fix"] = f"{fix}; to accept this many, --max-lost {total}"


# What a failed pair check line points to, by the check that failed.
CHECK_CAUSES = {
    "tcp": "TCP does not reach the peer's port: a host down, a firewall, "
           "or a wrong address (--address)",
    "gid-pair": "the two GIDs cannot reach each other: a GID or a route "
                "problem",
    "gid-path": "a GID or a route problem",
    "connect": "the QP could not be connected",
    "loss": "a lossy link (RoCE needs a lossless one)",
    "path": "an MTU black hole: the path loses frames that the hosts' MTU "
            "allows",
}


def check_cause(bad):
    """What the failed pair check line BAD points to."""
    if bad["name"] in ("send", "read", "write", "atomic"):
        if "retry exceeded" in bad["value"]:
            return ("a dead path for RDMA: TCP reaches the peer, RoCE does "
                    "not (a filter on UDP 4791, an ACL, or GIDs on "
                    "different subnets without a route)")
        return "RDMA between them fails from its first message"
    return CHECK_CAUSES.get(bad["name"])


def judge_probe(pair, ps, pc):
    """The MTU probe after a failed bandwidth run: the pair check and the
    2-byte latency run passed, the 64 KiB bandwidth run did not."""
    probes = [parts["probe"] for parts in (ps, pc) if "probe" in parts]
    if not probes:
        pair["cause"] = ("small messages pass, large ones do not (the pair "
                         "check and the 2-byte latency run passed, the "
                         "64 KiB bandwidth run failed); the probe did not "
                         "run")
        return
    # The side that got no row (the one waiting for the other's SEND)
    # still says that the probe stopped; the sizes come from the other.
    passed = max(parse_probe(text) for text, _ in probes)
    stopped = any(rc != 0 for _, rc in probes)
    lost = max(2, passed * 2) if stopped else None
    pair["probe"] = {"passed": passed, "failed": lost}
    if lost is None:
        pair["cause"] = ("small messages pass, large ones do not, though "
                         "SENDs of every size up to 4096 bytes passed the "
                         "probe: the path loses data under load (congestion, "
                         "pause frames, a flapping link)")
        pair["fix"] = ("look at both hosts' and the switch ports' error "
                       "and pause counters (ethtool -S)")
        return
    pair["cause"] = (f"an MTU black hole: SENDs of up to {passed} bytes "
                     f"arrive and of {lost} bytes do not, so the path loses "
                     "frames that the hosts' MTU allows: a switch port, a "
                     "tunnel or a VLAN on the way has a smaller MTU than "
                     "the hosts")
    pair["fix"] = ("give the switch ports on the path an MTU at least the "
                   "hosts' (or the hosts' netdevs one the path carries: ip "
                   "link set DEV mtu N)")


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


def apply_floors(pair, floors, rate_gbps, unknown_rate=()):
    figures = pair["figures"]
    if floors[1] is not None and unknown_rate:
        pair["status"] = "FAIL"
        pair["failed"] = "floor"
        pair["floor"] = f"{floors[1]:g}% of the port's rate"
        pair["problem"] = (f"the floor {floors[1]:g}% of the port's rate "
                           "cannot be applied: rdma_check on "
                           f"{' and '.join(unknown_rate)} gave no port rate")
        pair["fix"] = "give --bw-min in MiB/s for these hosts"
        return pair
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

# The steps of a pair, as the diagnosis names them.
STEP_WORDS = {"check": "the pair check", "lat": "the latency run",
              "bw": "the bandwidth run", "answer": "an answer"}


def step_words(failed):
    return STEP_WORDS.get(failed, f"the pair check's {failed}")


def with_cause(p):
    """A failed pair's problem, its cause first when known, and its fix."""
    text = f"{p['cause']}: {p['problem']}" if p.get("cause") else p["problem"]
    return text + (f"; fix: {p['fix']}" if p["fix"] else "")


def diagnose(hosts, results, pairs):
    """Lines that say what is broken: hosts, links, pairs under a floor,
    then every warning of a host or a pair.

    RESULTS: {host: judge_host()}; PAIRS: the judge_pair() dicts.
    """
    lines = []
    for h in hosts:
        r = results[h]
        fix = f"; fix: {r['fix']}" if r["fix"] else ""
        # A host whose check a cut-short run interrupted is no fault; its
        # own line says so.
        if r["status"] in ("PASS", NOT_RUN):
            continue
        if r["checks"]:
            lines.append(f"host {h}: its own check fails, so its pairs were "
                         f"not run: {r['problem']}{fix}")
        else:
            lines.append(f"host {h}: {r['problem']}; its pairs were not run"
                         f"{fix}")
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
                             f"passes; first: {with_cause(failing[0])}")
    for p in ran:
        if p["status"] != "FAIL":
            continue
        a, b = p["server"], p["client"]
        if a in broken or b in broken:
            continue
        if p["failed"] in ("bandwidth", "latency", "floor", "loss"):
            lines.append(f"pair {a}-{b}: {with_cause(p)}")
        elif len(by_host[a]) < 2 or len(by_host[b]) < 2:
            lines.append(f"pair {a}-{b}: {step_words(p['failed'])} fails "
                         "(no other pair of theirs ran, so the fault may be "
                         f"either host's or the link's): {with_cause(p)}")
        else:
            lines.append(f"link {a}-{b}: {step_words(p['failed'])} fails "
                         "while both hosts pass with others: "
                         f"{with_cause(p)}")
    for h in hosts:
        for w in results[h].get("warnings", []):
            lines.append(f"warning: host {h}: {w}")
    for p in ran:
        for w in p.get("warnings", []):
            lines.append(f"warning: pair {p['server']}-{p['client']}: {w}")
    return lines


def warning_count(hosts, results, pairs):
    return (sum(len(results[h].get("warnings", [])) for h in hosts) +
            sum(len(p.get("warnings", [])) for p in pairs))


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
    if p["status"] == "FAIL" and p["failed"] == "loss":
        return f"LOSS {bw:.1f}" if bw is not None else "LOSS"
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


def host_gids(host, pairs):
    """The GIDs HOST used in its pairs, in the order first seen."""
    seen = []
    for p in pairs:
        for side in ("server", "client"):
            g = p.get("gids", {}).get(side)
            if p[side] == host and g and g not in seen:
                seen.append(g)
    return seen


def host_line(r, gids=()):
    """A host's line; GIDS: those it used in its pairs (host_gids)."""
    if r["status"] == "PASS":
        rate = (f"{r['rate_gbps']:g} Gb/s" if r["rate_gbps"]
                else "rate unknown")
        used = (f", GID{'s' if len(gids) > 1 else ''} {', '.join(gids)}"
                if gids else "")
        return f"PASS {r['host']}: {r['device']}, {rate}{used}"
    fix = f"; fix: {r['fix']}" if r["fix"] else ""
    return f"{r['status']} {r['host']}: {r['problem']}{fix}"


def to_json(hosts, results, pairs, diagnosis, meta):
    """The whole result; META says how the run went (its pattern, rounds,
    times) and, for a run cut short, "complete": false and why."""
    complete = meta.get("complete", True)
    return json.dumps({
        "verdict": ("INCOMPLETE" if not complete else
                    "PASS" if passed(hosts, results, pairs) else "FAIL"),
        "warnings": warning_count(hosts, results, pairs),
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
    pair (NaN where none was measured), in full, so that the picture's
    labels round as the matrix's do."""
    by = {}
    for p in pairs:
        bw = p["figures"].get("bw")
        if p["status"] == "PASS" or p["failed"] in ("bandwidth", "loss"):
            by[(p["server"], p["client"])] = bw
            by[(p["client"], p["server"])] = bw
    rows = []
    for a in hosts:
        rows.append(" ".join("NaN" if by.get((a, b)) is None
                             else repr(by[(a, b)]) for b in hosts))
    return "\n".join(rows) + "\n"


# The picture's cells that are not a plain figure: fill colour, label,
# label colour.  A pair under a floor keeps its figure's colour and gets
# a magenta frame instead (FLOOR_FRAME), a colour the palette has not.
CELL_LOOK = {
    "diagonal": ("#ffffff", "", "#ffffff"),
    "outside": ("#f0f0f0", ".", "#808080"),
    "skip": ("#bababa", "skip", "#202020"),
    "fail": ("#202020", "FAIL", "#ffffff"),
}
FLOOR_FRAME = "#ff00ff"
# A pair that lost packets (judge_loss): a green frame, also a colour the
# palette has not.
LOSS_FRAME = "#00c000"


def heat_kinds(fills, frames):
    """The kinds the picture shows, for its legend: only those in it."""
    kinds = {k for _, _, k in fills} - {"diagonal"}
    if frames:
        kinds.add("floor")
    return kinds


def heat_cells(hosts, pairs):
    """What the picture draws over the bandwidth colours: (fills, frames).
    FILLS: (column, row, kind) for the diagonal, pairs outside the
    pattern (or not run), pairs skipped because a host failed alone and
    failed pairs with no figure; FRAMES: (column, row) of pairs under a
    floor, which keep their figure."""
    by = {}
    for p in pairs:
        by[(p["server"], p["client"])] = p
        by[(p["client"], p["server"])] = p
    fills, frames = [], []
    for y, a in enumerate(hosts):
        for x, b in enumerate(hosts):
            p = by.get((a, b))
            if a == b:
                fills.append((x, y, "diagonal"))
            elif p is None:
                fills.append((x, y, "outside"))
            elif p["status"] == "SKIP":
                fills.append((x, y, "skip"))
            elif p["status"] == "FAIL" and p["failed"] != "loss":
                if p["figures"].get("bw") is not None:
                    frames.append((x, y))
                else:
                    fills.append((x, y, "fail"))
    return fills, frames


def heat_lossy(hosts, pairs):
    """The (column, row) of each pair that lost packets, failed or warned
    (judge_loss): the picture frames them in LOSS_FRAME, over their
    figure."""
    lossy = {(p["server"], p["client"]) for p in pairs
             if any(p.get("lost", {}).values())}
    lossy |= {(b, a) for a, b in lossy}
    return [(x, y) for y, a in enumerate(hosts)
            for x, b in enumerate(hosts) if (a, b) in lossy]


def heat_tics(hosts, results):
    """The axis labels: a host that failed alone carries its status."""
    return [h if results.get(h, {}).get("status", "PASS") == "PASS"
            else f"{h} ({results[h]['status']})" for h in hosts]


def passed(hosts, results, pairs):
    return (all(results[h]["status"] == "PASS" for h in hosts) and
            all(p["status"] == "PASS" for p in pairs))


def not_run(h):
    """A host whose own check had not ended when the run was cut short."""
    return {"host": h, "status": NOT_RUN, "checks": [], "verdict": None,
            "device": None, "rate_gbps": None, "warnings": [], "usage": None,
            "problem": "the run was cut short before its check ended",
            "fix": None}


def fault_found(hosts, results, pairs):
    """Whether what ran found a fault: a run cut short judges only the
    checks that ended, not the hosts whose check it interrupted."""
    return (any(results[h]["status"] not in ("PASS", NOT_RUN)
                for h in hosts) or
            any(p["status"] == "FAIL" for p in pairs))
