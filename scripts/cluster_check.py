#!/usr/bin/python3
"""Check that every host of a cluster, and every pair of them, can do RDMA.

    rdma_cluster_check [options] NODESET

NODESET is in ClusterShell's syntax (node[01-16], @rack3, a,b,c).  The
check runs rdma_check on every host at once, then, round by round, the
pair check and a short latency and bandwidth run (rdma_bench) on pairs
of hosts, and prints a matrix of the pairs with a diagnosis under it:
the hosts that fail alone, the hosts that fail with every peer, the
links that fail while both their hosts pass with others, the pairs under
a floor, the warnings.  Exit status 0 only when every host and every
pair passes, 1 when one does not, 2 for bad usage, 130 when interrupted
(the report and the files then hold what was done, marked incomplete).

ClusterShell runs the commands: over ssh by default, as clush does, or
through any command given with --via (ClusterShell's exec worker, %h
standing for the host), which is how the tests reach the rig's guests.
See docs/cluster-check.md and rdma_cluster_check(1).  Installed, this
file is rdma_cluster_check and cluster_plan.py lies in PLAN_DIR.
"""

import argparse
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

# Where `cmake --install` puts cluster_plan.py (the build writes the path
# here); in the source and the build tree it lies beside this file.
PLAN_DIR = None
sys.path[:0] = [d for d in (PLAN_DIR, os.path.dirname(
    os.path.abspath(__file__))) if d]
import cluster_plan as plan  # noqa: E402

# The project's version (written in when installed; in the source tree,
# read from CMakeLists.txt's project()).
VERSION = None

PROG = os.path.basename(sys.argv[0]).removesuffix(".py") or "cluster_check"
# Beyond this many hosts the terminal gets the diagnosis, not the matrix.
MATRIX_HOSTS = 24


def load_clustershell():
    """ClusterShell's library, imported once the command line is read, so
    that --help works without it."""
    global NodeSet, NodeSetParseError, task_self, ExecWorker
    try:
        from ClusterShell.NodeSet import NodeSet, NodeSetParseError
        from ClusterShell.Task import task_self
        from ClusterShell.Worker.Exec import ExecWorker
    except ImportError as e:
        sys.exit(f"{PROG}: needs ClusterShell's Python library, which "
                 f"{sys.executable} cannot import ({e}): on Debian apt "
                 "install python3-clustershell, and run it with the "
                 "system's python3")


def pairs_word(n):
    return f"{n} pair" if n == 1 else f"{n} pairs"


def note(text):
    print(f"{PROG}: {text}", file=sys.stderr, flush=True)


def positive(kind):
    def parse(text):
        try:
            v = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a number")
        if v <= 0:
            raise argparse.ArgumentTypeError(f"'{text}' is not above 0")
        return v
    return parse


def count(text):
    """A whole number, 0 or more."""
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number "
                                         "of 0 or more")
    return int(text)


def bandwidth_floor(text):
    """--bw-min: MiB/s, or a share of the port's rate ("90%")."""
    share = text.endswith("%")
    v = positive(float)(text[:-1] if share else text)
    if share and v > 100:
        raise argparse.ArgumentTypeError(f"'{text}' is more than 100%")
    return ("share", v) if share else ("mibs", v)


def version():
    if VERSION:
        return VERSION
    top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                       "CMakeLists.txt")
    try:
        with open(top) as f:
            m = re.search(r"project\(\S+ VERSION (\S+)", f.read())
    except OSError:
        m = None
    return m.group(1) if m else "unknown"


class Help(argparse.HelpFormatter):
    """Options as the C programs' --help shows them: "-d, --ib-dev DEV"."""

    def _format_action_invocation(self, action):
        if not action.option_strings or action.nargs == 0:
            return super()._format_action_invocation(action)
        metavar = self._format_args(
            action, self._get_default_metavar_for_optional(action))
        return ", ".join(action.option_strings) + " " + metavar


class Parser(argparse.ArgumentParser):
    """Bad input: one line on stderr that names it, exit status 2."""

    def error(self, message):
        print(f"{PROG}: {message} (see --help)", file=sys.stderr)
        sys.exit(2)


def options(argv):
    p = Parser(
        prog=PROG, formatter_class=Help,
        description="Check that every host of a cluster, and every pair of "
        "them, can do RDMA (see rdma_cluster_check(1)).")
    p.add_argument("--version", action="version",
                   version=f"{PROG} {version()}")
    p.add_argument("nodes", metavar="NODESET",
                   help="the hosts, in ClusterShell's syntax: node[01-16], "
                   "@group, a,b,c")
    p.add_argument("--pattern", default="all",
                   help="all (every pair, N-1 rounds), ring (each host with "
                   "the next, 2 rounds), sweep (the ring, then every pair "
                   "among the hosts of its failures and their neighbours) "
                   "or pairs H1:H2,H3:H4 (default all)")
    p.add_argument("--via", metavar="CMD",
                   help="run each host's command through CMD instead of "
                   "ssh, the command appended as one word; %%h is the host "
                   "(ClusterShell's exec worker)")
    p.add_argument("--address", metavar="FMT", default="%h",
                   help="the address a client reaches a server at; %%h is "
                   "the server's name (default %%h; %%h-ib for an RDMA "
                   "network of its own)")
    p.add_argument("--rdma-check", default="rdma_check", metavar="PATH",
                   help="rdma_check on the hosts (default: rdma_check)")
    p.add_argument("--rdma-bench", default="rdma_bench", metavar="PATH",
                   help="rdma_bench on the hosts (default: rdma_bench)")
    p.add_argument("-d", "--ib-dev", metavar="DEV",
                   help="the device on every host (default: rdma_check's)")
    p.add_argument("-i", "--ib-port", type=positive(int), metavar="PORT",
                   help="its port (default 1)")
    p.add_argument("-g", "--gid-idx", type=int, metavar="IDX",
                   help="the GID index (default: rdma_check's choice)")
    p.add_argument("-p", "--port", type=positive(int), default=19700,
                   help="the first TCP port of the pairs (default 19700); "
                   f"each pair of a round takes {plan.PORTS_PER_PAIR}, in "
                   "two banks that the rounds take turns on")
    p.add_argument("--bw-min", type=bandwidth_floor, metavar="MIBS|PCT%",
                   help="the bandwidth floor of a pair (its slower way): "
                   "MiB/s, or a share of the slower port's rate")
    p.add_argument("--lat-max", type=positive(float), metavar="USEC",
                   help="the latency ceiling of a pair: the median of 2-byte "
                   "SENDs, in microseconds")
    p.add_argument("--max-lost", type=count, default=0, metavar="N",
                   help="the packets a pair may lose, either way, by its "
                   "ports' counters, before it fails; up to N, a warning "
                   "(default 0: a lossy link fails)")
    p.add_argument("--lat-iters", type=positive(int), metavar="N",
                   help="iterations of the latency run (rdma_bench's "
                   "default: 1000)")
    p.add_argument("--bw-iters", type=positive(int), metavar="N",
                   help="iterations of the bandwidth run, each way "
                   "(rdma_bench's default: 5000)")
    p.add_argument("--timeout", type=positive(int), default=60, metavar="S",
                   help="how long a host's local check may take, and how "
                   "long each side of a pair waits for the other to connect "
                   "(default 60)")
    p.add_argument("--wait", type=positive(int), default=20, metavar="S",
                   help="how long a pair waits for each completion "
                   "(rdma_check's -t, rdma_bench's --timeout; default 20)")
    p.add_argument("--round-timeout", type=positive(int), metavar="S",
                   help="how long a round may take before its pairs that "
                   "have not answered fail (default: 4 x --timeout)")
    p.add_argument("--json", metavar="FILE", help="write the whole result")
    p.add_argument("--csv", metavar="FILE", help="write the pairs")
    p.add_argument("--png", metavar="FILE",
                   help="draw the bandwidth matrix as a heat map, faults "
                   "marked (gnuplot)")
    a = p.parse_args(argv)
    load_clustershell()
    try:
        a.hosts = list(NodeSet(a.nodes))
    except NodeSetParseError as e:
        p.error(f"invalid NODESET '{a.nodes}': {e}")
    if len(a.hosts) < 2:
        p.error(f"NODESET '{a.nodes}' names {len(a.hosts)} host: a pair "
                "needs two")
    if a.pattern not in ("all", "ring", "sweep"):
        try:
            plan.parse_pairs(a.pattern, a.hosts)
        except ValueError as e:
            p.error(f"invalid --pattern '{a.pattern}': {e}")
    a.rounds = plan.plan(a.hosts, a.pattern)
    widest = max(len(r) for r in a.rounds)
    if plan.last_port(a.port, widest) > 65535:
        p.error(f"invalid --port {a.port}: the widest round "
                f"({pairs_word(widest)}) needs ports up to "
                f"{plan.last_port(a.port, widest)}")
    if a.round_timeout is None:
        a.round_timeout = 4 * a.timeout
    for opt in ("json", "csv", "png"):
        why = unwritable(getattr(a, opt))
        if why:
            p.error(f"invalid --{opt} '{getattr(a, opt)}': {why}")
    if a.png and not shutil.which("gnuplot"):
        p.error("--png needs gnuplot, which is not installed (Debian: apt "
                "install gnuplot-nox)")
    return a


def unwritable(path):
    """Why PATH cannot be written, or None: said before the first host is
    reached, not after the run."""
    if not path:
        return None
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        return "it is a directory"
    if not os.path.isdir(folder):
        return f"no directory {folder}"
    if os.path.exists(path):
        return None if os.access(path, os.W_OK) else "it is not writable"
    return None if os.access(folder, os.W_OK) else \
        f"the directory {folder} is not writable"


class Runner:
    """Commands on hosts through ClusterShell, each bounded, all ended on
    an interrupt."""

    def __init__(self, via, hosts):
        self.via = via
        self.task = task_self()
        # Every host of a round runs its command at once: both sides of a
        # pair must, or the server waits for a client still queued.
        # ClusterShell's own limit (fanout, 64 by default) would hold
        # back the rest.
        self.task.set_info("fanout", max(64, len(hosts)))

    def start(self, host, command, timeout):
        """Schedule COMMAND on HOST; returns its worker."""
        if self.via:
            line = self.via + " " + shlex.quote(command)
            worker = ExecWorker(host, handler=None, timeout=timeout,
                                command=line, stderr=True)
            self.task.schedule(worker)
            return worker
        return self.task.shell(command, nodes=host, timeout=timeout,
                               stderr=True)

    def run(self):
        self.task.run()

    @staticmethod
    def result(worker, host):
        """(answered, stdout and stderr, exit status) of HOST's command."""
        out = worker.node_buffer(host)
        out = out.decode(errors="replace") if out else ""
        err = worker.node_error(host)
        if err:
            out += "\n" + plan.STDERR + "\n" + err.decode(errors="replace")
        try:
            rc = worker.node_retcode(host)
        except KeyError:
            return False, out, None
        if rc is None:
            return False, out, None
        return True, out, rc


def proc_stat(pid):
    """The fields of /proc/PID/stat after the command's name: state,
    parent pid, ...; None when the process is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def descendants():
    """The pids of every process this one started, and theirs."""
    children = {}
    for pid in os.listdir("/proc"):
        fields = proc_stat(pid) if pid.isdigit() else None
        if fields:
            children.setdefault(int(fields[1]), []).append(int(pid))
    found, todo = [], [os.getpid()]
    while todo:
        for c in children.get(todo.pop(), []):
            found.append(c)
            todo.append(c)
    return found


class Interrupted(Exception):
    """SIGINT or SIGTERM: raised out of whatever runs."""


def alive(pid):
    """Whether PID runs (a zombie has ended)."""
    fields = proc_stat(pid)
    return bool(fields) and fields[0] != "Z"


def on_signal(signum, frame):
    """End every command started here (ssh, or the --via command) with
    SIGTERM, and give them a moment to end what they started on the
    hosts (rxe-vm exec tells the guest's agent) before ClusterShell kills
    them outright as the exception unwinds its engine."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    note("interrupted: ending what the run started on every host")
    pids = descendants()
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            pass
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.1)
    raise Interrupted(signal.Signals(signum).name)


def interrupted(a, ports):
    """After on_signal: every rdma_check and rdma_bench of the round on
    every host, found by their ports, gets SIGTERM (an ssh that ended
    does not end the command it ran)."""
    task_self().abort(kill=True)
    if not ports:
        return
    pattern = "rdma_(check|bench) .*-p (" + "|".join(
        str(p) for p in sorted(ports)) + ")( |$)"
    cmd = f"pkill -TERM -f {shlex.quote(pattern)}; true"
    r = Runner(a.via, a.hosts)
    for h in a.hosts:
        r.start(h, cmd, 20)
    r.run()


def common_args(a):
    args = []
    if a.ib_dev:
        args += ["-d", a.ib_dev]
    if a.ib_port:
        args += ["-i", str(a.ib_port)]
    if a.gid_idx is not None:
        args += ["-g", str(a.gid_idx)]
    return args


def local_phase(a, runner, results):
    """Every host's own check at once; fills RESULTS {host: judge_host}."""
    note(f"local check on {len(a.hosts)} hosts")
    started = time.monotonic()
    cmd = plan.local_command(a.rdma_check, common_args(a))
    workers = {h: runner.start(h, cmd, a.timeout) for h in a.hosts}
    runner.run()
    for h, w in workers.items():
        answered, out, rc = Runner.result(w, h)
        results[h] = plan.judge_host(h, answered, out, rc, a.timeout,
                                     a.rdma_check, a.via)
    good = sum(r["status"] == "PASS" for r in results.values())
    note(f"local check: {good} of {len(a.hosts)} hosts pass "
         f"({time.monotonic() - started:.1f} s)")


def floors(a):
    bw_min = share = None
    if a.bw_min:
        kind, v = a.bw_min
        if kind == "share":
            share = v
        else:
            bw_min = v
    return bw_min, share, a.lat_max


def slower_rate(results, x, y):
    """The slower port's rate of a pair, and the hosts of it whose rate
    rdma_check did not give."""
    unknown = [h for h in (x, y) if results[h]["rate_gbps"] is None]
    if unknown:
        return None, unknown
    return min(results[h]["rate_gbps"] for h in (x, y)), []


class Progress:
    """What the pair phase has done so far, kept for a run cut short."""

    def __init__(self):
        self.pairs = []
        self.round_times = []
        self.rounds = 0        # rounds planned so far
        self.current = None    # the round running, 1-based
        self.ports = set()     # the TCP ports of the round running


def pair_phase(a, runner, results, rounds, progress):
    """Run ROUNDS of pairs, each round's pairs at once; every judged pair
    goes to PROGRESS as its round ends."""
    waits = (a.timeout, a.timeout, a.wait)
    limits = floors(a)
    for rnd in rounds:
        k = len(progress.round_times)
        progress.current = k + 1
        started = time.monotonic()
        running = []
        progress.ports.clear()
        for i, (server, client) in enumerate(rnd):
            bad = [h for h in (server, client)
                   if results[h]["status"] != "PASS"]
            if bad:
                progress.pairs.append(plan.skipped_pair(
                    server, client, f"{', '.join(bad)} failed alone"))
                continue
            ports = plan.pair_ports(a.port, k, i, len(rnd))
            progress.ports.update(ports)
            addr = a.address.replace("%h", server)
            cmd_s, cmd_c = plan.pair_commands(
                a.rdma_check, a.rdma_bench, common_args(a), ports, addr,
                waits, (a.lat_iters, a.bw_iters), a.max_lost)
            running.append((server, client,
                            runner.start(server, cmd_s, a.round_timeout),
                            runner.start(client, cmd_c, a.round_timeout)))
        if running:
            runner.run()
        failed = 0
        for server, client, ws, wc in running:
            ok_s, out_s, _ = Runner.result(ws, server)
            ok_c, out_c, _ = Runner.result(wc, client)
            rate, unknown = slower_rate(results, server, client)
            p = plan.judge_pair(server, client, out_s, out_c,
                                ok_s and ok_c, limits, rate, unknown,
                                a.max_lost)
            failed += p["status"] == "FAIL"
            progress.pairs.append(plan.settle(p))
        took = time.monotonic() - started
        progress.round_times.append(took)
        progress.current = None
        note(f"round {k + 1} of {progress.rounds}: "
             f"{pairs_word(len(running))} run, {failed} failed; "
             f"{pairs_word(len(progress.pairs))} done ({took:.1f} s)")


def draw_heat_map(a, results, pairs, path):
    """The bandwidth matrix as a PNG heat map, drawn by gnuplot: each
    pair's figure in colour; failed pairs black, pairs skipped because a
    host failed alone grey, pairs outside the pattern pale, pairs under a
    floor framed in magenta, pairs that lost packets in green, each with a
    legend entry."""
    n = len(a.hosts)
    tics = ", ".join(f'"{h}" {i}' for i, h in
                     enumerate(plan.heat_tics(a.hosts, results)))
    fills, frames = plan.heat_cells(a.hosts, pairs)
    lossy = plan.heat_lossy(a.hosts, pairs)
    matrix = plan.heat_data(a.hosts, pairs)
    measured = any(w != "NaN" for w in matrix.split())
    with tempfile.TemporaryDirectory() as tmp:
        files = {"bw": matrix,
                 "fill": "".join(f'{x} {y} 0x{plan.CELL_LOOK[k][0][1:]} '
                                 f'"{plan.CELL_LOOK[k][1]}" '
                                 f'0x{plan.CELL_LOOK[k][2][1:]}\n'
                                 for x, y, k in fills) or "NaN NaN 0 \"\" 0\n",
                 "frame": "".join(f"{x} {y}\n" for x, y in frames)
                 or "NaN NaN\n",
                 "lossy": "".join(f"{x} {y}\n" for x, y in lossy)
                 or "NaN NaN\n"}
        for name, text in files.items():
            with open(os.path.join(tmp, name), "w") as f:
                f.write(text)
        d = {k: os.path.join(tmp, k).replace("'", "''") for k in files}
        plots = []
        if measured:
            plots.append(f"'{d['bw']}' matrix with image notitle")
            plots.append(f"'{d['bw']}' matrix using 1:2:($3 == $3 ? "
                         "sprintf('%.1f', $3) : '') with labels notitle")
        plots += [
            f"'{d['fill']}' using 1:2:(0.5):(0.5):3 with boxxyerror "
            "fs solid 1.0 noborder lc rgb variable notitle",
            f"'{d['fill']}' using 1:2:4:5 with labels tc rgb variable "
            "notitle",
            f"'{d['frame']}' using 1:2:(0.45):(0.45) with boxxyerror "
            f"fs empty lw 3 lc rgb '{plan.FLOOR_FRAME}' notitle",
            f"'{d['lossy']}' using 1:2:(0.38):(0.38) with boxxyerror "
            f"fs empty lw 3 lc rgb '{plan.LOSS_FRAME}' notitle",
        ]
        # The legend names what the picture shows, and nothing else.
        shown = plan.heat_kinds(fills, frames)
        for kind, title in (("fail", "failed"),
                            ("skip", "skipped: a host failed alone"),
                            ("outside", "not run (outside the pattern)")):
            if kind in shown:
                plots.append(f"keyentry with boxes fs solid 1.0 lc rgb "
                             f"'{plan.CELL_LOOK[kind][0]}' title '{title}'")
        if "floor" in shown:
            plots.append(f"keyentry with boxes fs empty lw 3 lc rgb "
                         f"'{plan.FLOOR_FRAME}' title 'under a floor'")
        if lossy:
            plots.append(f"keyentry with boxes fs empty lw 3 lc rgb "
                         f"'{plan.LOSS_FRAME}' title 'packets lost'")
        title = ("RDMA bandwidth of each pair, MiB/s (the slower way)"
                 if measured else "No pair measured a bandwidth")
        script = f"""
set terminal pngcairo size {560 + 50 * n},{300 + 50 * n} font ',10' noenhanced
set output '{path.replace("'", "''")}'
set title '{title}'
set xtics ({tics}) rotate by 45 right
set ytics ({tics})
set xrange [-0.5:{n - 0.5}]
set yrange [{n - 0.5}:-0.5]
set palette defined (0 '#b2182b', 0.5 '#fddbc7', 1 '#2166ac')
set cbrange [0:*]
{'' if measured else 'unset colorbox'}
{'set key outside right top box' if shown or lossy else 'unset key'}
set style fill solid 1.0
set datafile missing 'NaN'
plot {", ".join(plots)}
"""
        try:
            r = subprocess.run(["gnuplot"], input=script.encode(),
                               capture_output=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as e:
            note(f"failed to draw {path}: gnuplot: {e}")
            return False
    if r.returncode != 0:
        err = r.stderr.decode(errors="replace").strip()
        note(f"failed to draw {path}: gnuplot: {err}")
        return False
    return True


def write_file(path, text):
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError as e:
        note(f"failed to write {path}: {e.strerror}")
        return False
    return True


def report(a, results, progress, started, cut_short=None):
    """The host lines, the matrix, the diagnosis and the verdict on
    stdout, and the files asked for; CUT_SHORT says why a run ended early
    (its report is marked incomplete).  Returns the exit status."""
    for h in a.hosts:
        results.setdefault(h, plan.not_run(h))
    pairs = progress.pairs
    diagnosis = plan.diagnose(a.hosts, results, pairs)
    ok = plan.passed(a.hosts, results, pairs)
    for h in a.hosts:
        results[h]["gids"] = plan.host_gids(h, pairs)
        print(plan.host_line(results[h], results[h]["gids"]))
    print()
    if len(a.hosts) <= MATRIX_HOSTS:
        print("pairs (MiB/s both ways at once, the slower way; FAIL; skip: "
              "a host failed alone; .: not in the pattern or not run):")
        for line in plan.matrix(a.hosts, pairs):
            print(line)
    else:
        print(f"pairs: {len(a.hosts)} hosts make a matrix too wide for a "
              "terminal: see --csv and --png")
    print()
    for line in diagnosis:
        print(line)
    took = time.monotonic() - started
    ran = sum(p["status"] != "SKIP" for p in pairs)
    rounds = len(progress.round_times)
    warned = plan.warning_count(a.hosts, results, pairs)
    summary = (f"{len(a.hosts)} hosts, {ran} of {pairs_word(len(pairs))} run "
               f"in {rounds} round{'s' if rounds != 1 else ''}, "
               f"{warned} warning{'s' if warned != 1 else ''}, {took:.0f} s")
    if cut_short:
        so_far = ("FAIL" if plan.fault_found(a.hosts, results, pairs)
                  else "nothing failed")
        print(f"verdict: INCOMPLETE: {cut_short}; so far {so_far}: {summary}")
    else:
        print(f"verdict: {'PASS' if ok else 'FAIL'}: {summary}")
    sys.stdout.flush()
    status = 0 if ok else 1
    meta = {"pattern": a.pattern, "rounds": rounds,
            "round_seconds": [round(t, 1) for t in progress.round_times],
            "seconds": round(took, 1), "complete": cut_short is None}
    if cut_short:
        meta["cut_short"] = cut_short
    if a.json and not write_file(
            a.json, plan.to_json(a.hosts, results, pairs, diagnosis, meta)):
        status = 1
    if a.csv and not write_file(a.csv, plan.to_csv(pairs)):
        status = 1
    if a.png and not draw_heat_map(a, results, pairs, a.png):
        status = 1
    return status


def main(argv):
    a = options(argv)
    results = {}
    progress = Progress()
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    started = time.monotonic()
    try:
        runner = Runner(a.via, a.hosts)
        local_phase(a, runner, results)
        usage = plan.refused_everywhere(a.hosts, results)
        if usage:
            note(f"rdma_check refused its options on every host: {usage}")
            return 2
        progress.rounds = len(a.rounds)
        note(f"pairs: {a.pattern}, "
             f"{pairs_word(sum(len(r) for r in a.rounds))} in "
             f"{progress.rounds} round{'s' if progress.rounds != 1 else ''}")
        pair_phase(a, runner, results, a.rounds, progress)
        if a.pattern == "sweep":
            more = plan.sweep_rounds(a.hosts, results, progress.pairs)
            progress.rounds += len(more)
            note(f"sweep: {pairs_word(sum(len(r) for r in more))} around "
                 f"the failures in {len(more)} more "
                 f"round{'s' if len(more) != 1 else ''}")
            pair_phase(a, runner, results, more, progress)
    except Interrupted as e:
        interrupted(a, progress.ports)
        where = (f"in round {progress.current} of {progress.rounds}"
                 if progress.current else "in the local check"
                 if len(results) < len(a.hosts) else "between rounds")
        report(a, results, progress, started,
               f"interrupted by {e.args[0]} {where}")
        return 130
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    return report(a, results, progress, started)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
