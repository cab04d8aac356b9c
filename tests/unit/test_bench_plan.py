#!/usr/bin/env python3
"""Unit test of scripts/bench.sh's measurement plan (--dry-run: no build, no
guests). Each cell (mode, op, size) is measured by both tools back to back
with the same iteration count, and which tool goes first must turn from one
cell to the next and, for every cell, from one run to the next, whether a
run has an odd or an even number of cells."""
import os
import re
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "bench.sh")
GUEST = os.path.join(HERE, "..", "..", "scripts", "bench-guest.sh")
OPS = "send,write,read,fetch_add"
SIZES = "2,4096,65536,1048576"


def plan(*args):
    out = subprocess.run(["bash", SCRIPT, "--dry-run", *args],
                         capture_output=True, text=True, check=True,
                         timeout=60).stdout
    rows = []
    for line in out.splitlines():
        setup, run, idx, tool, mode, op, size, iters, port = line.split()
        rows.append({"setup": int(setup), "run": int(run), "idx": int(idx),
                     "tool": tool, "mode": mode, "op": op,
                     "size": int(size), "iters": int(iters),
                     "port": int(port)})
    return rows


def pairs(rows):
    """The plan as (run, cell, first tool), one per pair of rows, checking
    that the two rows of a pair measure the same cell, in the same run and
    with the same iteration count, with both tools."""
    out = []
    for a, b in zip(rows[0::2], rows[1::2]):
        cell = (a["mode"], a["op"], a["size"])
        assert cell == (b["mode"], b["op"], b["size"]), (a, b)
        assert a["run"] == b["run"] and a["iters"] == b["iters"], (a, b)
        assert {a["tool"], b["tool"]} == {"ours", "perftest"}, (a, b)
        out.append((a["run"], cell, a["tool"]))
    return out


def guest_commands(rows, **env):
    """The client commands bench-guest.sh runs for ROWS of a plan
    (COMMANDS_ONLY), PROGRAM being /p and ENV the guest's."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "plan")
        with open(path, "w") as f:
            for r in rows:
                f.write(" ".join(str(r[k]) for k in (
                    "setup", "run", "idx", "tool", "mode", "op", "size",
                    "iters", "port")) + "\n")
        env = dict(os.environ, PROGRAM="/p", PLAN=path, ROLE="client",
                   COMMANDS_ONLY="1", **env)
        return subprocess.run(["bash", GUEST], capture_output=True,
                              text=True, env=env, check=True,
                              timeout=60).stdout.splitlines()


class BenchPlan(unittest.TestCase):
    def check_turns(self, rows, cells_per_run, runs):
        got = pairs(rows)
        self.assertEqual(len(got), cells_per_run * runs)
        first = {}
        for run, cell, tool in got:
            first.setdefault(cell, []).append(tool)
        self.assertEqual(len(first), cells_per_run)
        for cell, tools in first.items():
            self.assertEqual(len(tools), runs, cell)
            for a, b in zip(tools, tools[1:]):
                self.assertNotEqual(a, b, f"{cell} first by {a} twice")
        # Within a run, the cells take turns too.
        for r in range(1, runs + 1):
            tools = [tool for run, _, tool in got if run == r]
            for a, b in zip(tools, tools[1:]):
                self.assertNotEqual(a, b, f"run {r}")

    def test_odd_cells_per_run_still_turn(self):
        # 13 cells a run: fetch_add has one size.
        rows = plan("--setup", "two", "--rounds", "4", "--modes", "lat",
                    "--ops", OPS, "--sizes", SIZES)
        self.check_turns(rows, 13, 4)
        self.assertEqual({r["setup"] for r in rows}, {2})

    def test_even_cells_per_run_turn(self):
        rows = plan("--setup", "one", "--rounds", "3", "--modes", "lat,bw",
                    "--ops", OPS, "--sizes", SIZES)
        self.check_turns(rows, 26, 3)

    def test_indexes_ports_and_iterations(self):
        rows = plan("--setup", "both", "--rounds", "2", "--modes", "lat",
                    "--ops", "send,fetch_add", "--sizes", "2,1048576",
                    "--lat-iters", "1000", "--max-bytes", "33554432")
        for setup in (1, 2):
            mine = [r for r in rows if r["setup"] == setup]
            self.assertEqual([r["idx"] for r in mine],
                             list(range(len(mine))))
            self.assertEqual([r["port"] for r in mine],
                             [20000 + r["idx"] for r in mine])
        iters = {(r["op"], r["size"]): r["iters"] for r in rows}
        # 1 MiB is cut to 32 MiB / 1 MiB; an atomic is always 8 bytes.
        self.assertEqual(iters, {("send", 2): 1000, ("send", 1048576): 32,
                                 ("fetch_add", 8): 1000})

    def check_refused(self, option, value):
        """bench.sh --dry-run OPTION VALUE prints no plan, fails, and names
        the bad value on stderr."""
        res = subprocess.run(["bash", SCRIPT, "--dry-run", option, value],
                             capture_output=True, text=True, timeout=60)
        self.assertNotEqual(res.returncode, 0)
        self.assertEqual(res.stdout, "")
        self.assertIn(f"invalid {option} value '{value}'", res.stderr)

    def test_bad_setup_value_is_refused(self):
        self.check_refused("--setup", "3")

    def test_default_rounds_are_ten(self):
        rows = plan("--setup", "one", "--only", "lat:send:2")
        self.assertEqual(sorted({r["run"] for r in rows}), list(range(1, 11)))
        self.check_turns(rows, 1, 10)

    def test_only_the_cells_named(self):
        rows = plan("--setup", "two", "--rounds", "10", "--only",
                    "lat:send:2,bw:write:65536,lat:fetch_add")
        self.check_turns(rows, 3, 10)
        self.assertEqual([(r["mode"], r["op"], r["size"]) for r in rows[:6]],
                         [("lat", "send", 2)] * 2
                         + [("bw", "write", 65536)] * 2
                         + [("lat", "fetch_add", 8)] * 2)

    def test_bad_only_cells_are_refused(self):
        for value in ("lat:send", "lat:foo:2", "rw:send:2", "lat:send:0",
                      "lat:fetch_add:16", "lat:send:2:3", "lat:send:2x"):
            res = subprocess.run(["bash", SCRIPT, "--dry-run", "--only",
                                  value], capture_output=True, text=True,
                                 timeout=60)
            self.assertNotEqual(res.returncode, 0, value)
            self.assertEqual(res.stdout, "", value)
            self.assertEqual(len(res.stderr.splitlines()), 1, res.stderr)
            self.assertIn(f"invalid --only cell '{value}'", res.stderr)

    def test_only_with_ops_is_refused(self):
        res = subprocess.run(["bash", SCRIPT, "--dry-run", "--only",
                              "lat:send:2", "--ops", "read"],
                             capture_output=True, text=True, timeout=60)
        self.assertNotEqual(res.returncode, 0)
        self.assertEqual(res.stderr,
                         "bench.sh: --only names the cells itself: leave out --ops\n")

    def test_bad_rounds_value_is_refused(self):
        self.check_refused("--rounds", "0")

    def test_the_reference_run_is_the_plan_the_page_counts(self):
        """docs/benchmarks.md's reference command plans the measurements
        its next paragraph counts."""
        with open(os.path.join(HERE, "..", "..", "docs", "benchmarks.md"),
                  encoding="utf-8") as f:
            page = f.read()
        section = page.split("## The reference run", 1)[1].split("\n## ", 1)[0]
        command = [line for line in section.splitlines()
                   if line.startswith("scripts/bench.sh ")]
        self.assertEqual(len(command), 1, section)
        args = command[0].split()[1:]
        for option in ("--build", "--out"):
            at = args.index(option)
            del args[at:at + 2]
        counted = re.search(r"It makes (\d+) measurements, (\d+) per set-up",
                            section)
        self.assertIsNotNone(counted, section)
        rows = plan(*args)
        self.assertEqual(len(rows), int(counted.group(1)))
        self.assertEqual(len([r for r in rows if r["setup"] == 1]),
                         int(counted.group(2)))

    def test_bad_retries_values_are_refused(self):
        for value in ("6", "-1", "x"):
            self.check_refused("--retries", value)

    def test_a_plan_past_the_last_port_is_refused(self):
        res = subprocess.run(["bash", SCRIPT, "--dry-run", "--rounds",
                              "1000"], capture_output=True, text=True,
                             timeout=60)
        self.assertNotEqual(res.returncode, 0)
        self.assertEqual(res.stdout, "")
        self.assertEqual(res.stderr, "bench.sh: 1000 rounds of 26 cells need"
                         " more ports than there are (each measurement takes"
                         " its own from 20000 on): fewer --rounds or cells\n")

    def test_new_api_gives_rdma_bench_its_option_on_rxe_only(self):
        rows = plan("--new-api", "--setup", "two", "--rounds", "1",
                    "--only", "bw:send:2")
        self.assertEqual(rows, plan("--setup", "two", "--rounds", "1",
                                    "--only", "bw:send:2"))
        out = guest_commands(rows, RXE_PEER_ADDR="192.0.2.1", NEW_API="1")
        self.assertEqual(sorted(out), sorted([
            "/p bw --op send -s 2 -n 1000 -x 1 -p 20000 --timeout 60 "
            "--new-api 192.0.2.1",
            "ib_send_bw -d rxe0 -x 1 -F -p 20001 -n 1000 -s 2 "
            "192.0.2.1"]))
        res = subprocess.run(["bash", SCRIPT, "--dry-run", "--new-api",
                              "--device", "siw"], capture_output=True,
                             text=True, timeout=60)
        self.assertNotEqual(res.returncode, 0)
        self.assertEqual(res.stderr, "bench.sh: --new-api needs --device rxe:"
                         " siw0 has no extended QP or CQ (ibv_create_cq_ex"
                         " fails there)\n")

    def test_api_control_runs_rdma_bench_on_both_apis(self):
        rows = plan("--control", "api", "--setup", "two", "--rounds", "1",
                    "--only", "lat:read:2")
        out = guest_commands(rows, RXE_PEER_ADDR="192.0.2.1",
                             CONTROL="api")
        self.assertEqual(sorted(out), sorted([
            "/p lat --op read -s 2 -n 200 -x 1 -p 20000 --timeout 60 "
            "192.0.2.1",
            "/p lat --op read -s 2 -n 200 -x 1 -p 20001 --timeout 60 "
            "--new-api 192.0.2.1"]))
        for extra in (["--device", "siw"], ["--new-api"]):
            res = subprocess.run(["bash", SCRIPT, "--dry-run", "--control",
                                  "api", *extra], capture_output=True,
                                 text=True, timeout=60)
            self.assertNotEqual(res.returncode, 0, extra)
            self.assertEqual(res.stdout, "")
            self.assertEqual(res.stderr.count("\n"), 1, res.stderr)

    def test_help_lists_the_options(self):
        res = subprocess.run(["bash", SCRIPT, "--help"], capture_output=True,
                             text=True, timeout=60)
        self.assertEqual(res.returncode, 0)
        for option in ("--setup one|two|both", "--rounds N", "--only CELLS",
                       "--retries N", "--control TOOL", "--dry-run"):
            self.assertIn(option, res.stdout)

    def test_bad_control_value_is_refused(self):
        self.check_refused("--control", "ib")

    def test_control_keeps_the_plan(self):
        args = ["--setup", "two", "--rounds", "2", "--ops", "read"]
        self.assertEqual(plan(*args, "--control", "perftest"), plan(*args))

    def test_siw_plan_runs_both_tools_with_r_on_siw0(self):
        rows = plan("--device", "siw", "--setup", "two", "--rounds", "2")
        self.assertEqual({r["op"] for r in rows}, {"send", "write", "read"})
        self.check_turns(rows, 24, 2)
        # Ours's sync socket takes PORT+1: ports two apart.
        self.assertEqual([r["port"] for r in rows],
                         [20000 + 2 * r["idx"] for r in rows])
        out = guest_commands(rows[:2], DEVICE="siw",
                             RXE_SIW_PEER_ADDR="198.51.100.1")
        self.assertIn("/p lat --op send -s 2 -n 200 -R -p 20000 "
                      "--timeout 60 198.51.100.1", out)
        self.assertIn("ib_send_lat -R -d siw0 -F -p 20002 -n 200 -s 2 "
                      "198.51.100.1", out)

    def test_rxe_plan_runs_rdma_bench_with_the_measurement_first(self):
        rows = plan("--setup", "two", "--rounds", "1", "--only",
                    "bw:write:4096,lat:fetch_add")
        out = guest_commands(rows, RXE_PEER_ADDR="192.0.2.1")
        self.assertEqual(sorted(out), sorted([
            "/p bw --op write -s 4096 -n 1000 -x 1 -p 20000 --timeout 60 "
            "192.0.2.1",
            "ib_write_bw -d rxe0 -x 1 -F -p 20001 -n 1000 -s 4096 "
            "192.0.2.1",
            "/p lat --op fetch_add -s 8 -n 200 -x 1 -p 20003 --timeout 60 "
            "192.0.2.1",
            "ib_atomic_lat -d rxe0 -x 1 -F -p 20002 -n 200 -A FETCH_AND_ADD "
            "192.0.2.1"]))

    def test_both_ways_cells_follow_the_plan(self):
        # The plan of --variants b is the default's and the two both-ways
        # cells, SEND then WRITE, bandwidth at 64 KiB.
        rows = plan("--setup", "one", "--rounds", "1", "--variants", "b")
        self.assertEqual(rows[:-4], plan("--setup", "one", "--rounds", "1"))
        self.assertEqual([(r["mode"], r["op"], r["size"]) for r in rows[-4:]],
                         [("bw", "send+b", 65536)] * 2
                         + [("bw", "write+b", 65536)] * 2)
        self.assertEqual(len(pairs(rows)), 28)
        # Only where the plan has bandwidth, the operation and 64 KiB.
        for args in (("--modes", "lat"), ("--sizes", "2,4096"),
                     ("--ops", "read"), ()):
            rows = plan("--setup", "one", "--rounds", "1", "--variants", "b",
                        *args) if args else plan("--setup", "one")
            self.assertFalse([r for r in rows if "+" in r["op"]], args)

    def test_both_ways_cells_run_both_tools_with_b(self):
        rows = plan("--setup", "two", "--rounds", "1", "--only",
                    "bw:send+b:65536")
        out = guest_commands(rows, RXE_PEER_ADDR="192.0.2.1")
        self.assertEqual(sorted(out), sorted([
            "/p bw --op send -s 65536 -n 256 -x 1 -p 20000 --timeout 60 -b "
            "192.0.2.1",
            "ib_send_bw -d rxe0 -x 1 -F -p 20001 -n 256 -b -s 65536 "
            "192.0.2.1"]))

    def test_four_qp_cells_run_both_tools_with_q_4(self):
        rows = plan("--setup", "one", "--rounds", "1", "--variants", "b,q4")
        self.assertEqual([(r["mode"], r["op"]) for r in rows[-8:]],
                         [("bw", "send+b")] * 2 + [("bw", "write+b")] * 2
                         + [("bw", "send+q4")] * 2 + [("bw", "write+q4")] * 2)
        rows = plan("--setup", "two", "--rounds", "1", "--only",
                    "bw:write+q4:65536")
        out = guest_commands(rows, RXE_PEER_ADDR="192.0.2.1")
        self.assertEqual(sorted(out), sorted([
            "/p bw --op write -s 65536 -n 256 -x 1 -p 20000 --timeout 60 -q 4 "
            "192.0.2.1",
            "ib_write_bw -d rxe0 -x 1 -F -p 20001 -n 256 -q 4 -s 65536 "
            "192.0.2.1"]))

    def test_siw_four_qp_cells_connect_each_qp_through_rdma_cm(self):
        rows = plan("--device", "siw", "--setup", "two", "--rounds", "1",
                    "--only", "bw:send+q4:65536")
        out = guest_commands(rows, DEVICE="siw",
                             RXE_SIW_PEER_ADDR="198.51.100.1")
        self.assertEqual(sorted(out), sorted([
            "/p bw --op send -s 65536 -n 256 -R -p 20000 --timeout 60 -q 4 "
            "198.51.100.1",
            "ib_send_bw -R -d siw0 -F -p 20002 -n 256 -q 4 -s 65536 "
            "198.51.100.1"]))

    def test_bad_variants_are_refused(self):
        self.check_refused("--variants", "q")
        for value in ("lat:send+b:2", "bw:read+b:4096", "bw:send+x:2"):
            res = subprocess.run(["bash", SCRIPT, "--dry-run", "--only",
                                  value], capture_output=True, text=True,
                                 timeout=60)
            self.assertNotEqual(res.returncode, 0, value)
            self.assertIn(f"invalid --only cell '{value}'", res.stderr)

    def test_siw_refuses_atomics(self):
        res = subprocess.run(["bash", SCRIPT, "--dry-run", "--device", "siw",
                              "--only", "lat:fetch_add"],
                             capture_output=True, text=True, timeout=60)
        self.assertNotEqual(res.returncode, 0)
        self.assertEqual(res.stdout, "")
        self.assertEqual(len(res.stderr.splitlines()), 1, res.stderr)
        self.assertIn("--device siw cannot measure fetch_add", res.stderr)

    def test_bad_device_value_is_refused(self):
        self.check_refused("--device", "mlx5")


if __name__ == "__main__":
    unittest.main()
