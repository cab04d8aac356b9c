#!/usr/bin/env python3
"""Unit test of scripts/bench-report.py, the host side of bench.sh: it reads
a made-up guest output (our JSON, perftest's text tables, a failed
measurement) and checks the figures, medians, ratios, paired wins and ties,
and the rank-sum and signed-rank p-values the table is built from."""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "bench-report.py")
spec = importlib.util.spec_from_file_location("bench_report", SCRIPT)
report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(report)


def ours_lat(run, idx, typical):
    return f"""=== RESULT 1 {run} {idx} ours lat read 2 1000
benchmark: read lat on rxe0, 1000 iterations per size
=== JSON
{{"mode": "lat", "op": "read", "device": "rxe0", "results": [
  {{"bytes": 2, "iterations": 1000, "t_min": 5.0, "t_max": 90.0, "t_typical": {typical}, "t_avg": 20.0, "t_stdev": 3.0, "p99": 40.0, "p99_9": 80.0, "cpu_client_percent": 98.5, "cpu_server_percent": 97.0, "histogram": {{"samples": 999, "buckets_per_octave": 4, "buckets": [[4.7568, 5.6569, 1], [5.6569, 6.7272, 998]]}}}}
]}}
=== END rc=0
"""


def perf_lat(run, idx, typical):
    return f"""=== RESULT 1 {run} {idx} perftest lat read 2 1000
 #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]
 2       1000          5.10         91.00      {typical}   \t       21.00     \t-nan\t\t41.00 \t\t81.00
=== END rc=0
"""


def perf_bw(run, idx, rate):
    return f"""=== RESULT 1 {run} {idx} perftest bw send 4096 5000
 #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]
 4096       5000             13.84              6.74   \t\t   {rate}
=== END rc=0
"""


GUEST_OUTPUT = (ours_lat(1, 0, 10.0) + perf_lat(1, 1, 11.0)
                + perf_lat(2, 2, 13.0) + ours_lat(2, 3, 12.0)
                + perf_bw(1, 4, "0.001726")
                + "=== RESULT 1 2 5 ours bw send 4096 5000\n"
                + "failed to connect to 192.0.2.1:20005\n=== END rc=1\n")


class BenchReport(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        path = os.path.join(self.dir.name, "guests-1.a.out")
        with open(path, "w") as f:
            f.write(GUEST_OUTPUT)
        self.records = report.parse_output(path)

    def tearDown(self):
        self.dir.cleanup()

    def test_every_block_is_a_record(self):
        self.assertEqual(len(self.records), 6)
        failed = [r for r in self.records if not r["figures"]]
        self.assertEqual(len(failed), 1)
        self.assertEqual(failed[0]["rc"], 1)
        self.assertEqual(failed[0]["tool"], "ours")
        self.assertIn("failed to connect to 192.0.2.1:20005",
                      failed[0]["output"])

    def test_plan_measurements_that_did_not_run(self):
        plan = os.path.join(self.dir.name, "plan-1.txt")
        with open(plan, "w") as f:
            for idx in range(8):
                f.write(f"1 {1 + idx // 4} {idx} ours lat read 2 1000 "
                        f"{20000 + idx}\n")
        missing = report.not_run(plan, self.records)
        self.assertEqual([(m["index"], m["run"]) for m in missing],
                         [(6, 2), (7, 2)])

    def test_perftest_text_figures(self):
        perf = [r for r in self.records
                if r["tool"] == "perftest" and r["mode"] == "lat"]
        fig = perf[0]["figures"]
        self.assertEqual(fig["t_typical"], 11.0)
        self.assertEqual(fig["p99_9"], 81.0)
        self.assertIsNone(fig["t_stdev"])  # perftest's -nan
        self.assertEqual(fig["iterations"], 1000)

    def test_perftest_whose_clock_failed_gave_no_figures(self):
        lines = [" #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]",
                 " 4096       1000             0.00               0.00   \t\t   0.000000",
                 "Correlation coefficient r^2: 0.823765 < 0.9"]
        self.assertIsNone(report.perftest_figures("bw", 4096, lines))
        self.assertIsNotNone(report.perftest_figures("bw", 4096, lines[:2]))

    def test_ours_json_figures(self):
        ours = [r for r in self.records
                if r["tool"] == "ours" and r["figures"]]
        self.assertEqual([r["figures"]["t_typical"] for r in ours],
                         [10.0, 12.0])

    def test_bandwidth_from_the_finer_figure(self):
        bw = [r for r in self.records if r["mode"] == "bw" and r["figures"]]
        # 4096 B: the rate (0.001726 +- 5e-7 Mpps, 0.03%) is finer than
        # 6.74 +- 0.005 MiB/s (0.07%)
        value, error = report.compared(bw[0])
        per_mpps = 1e6 * 4096 / 1048576.0
        self.assertAlmostEqual(value, 0.001726 * per_mpps)
        self.assertAlmostEqual(error, 5e-7 * per_mpps)

    def test_decimals_as_printed(self):
        perf = [r for r in self.records
                if r["tool"] == "perftest" and r["mode"] == "bw"]
        self.assertEqual(perf[0]["figures"]["decimals"],
                         {"bw_peak": 2, "bw_avg": 2, "msg_rate": 6})
        ours = [r for r in self.records
                if r["tool"] == "ours" and r["figures"]]
        # 10.0 in the JSON: one decimal printed
        self.assertEqual(ours[0]["figures"]["decimals"]["t_typical"], 1)

    def test_medians_ratio_wins_p(self):
        rows = {(r["mode"], r["op"]): r for r in report.medians(self.records)}
        lat = rows[("lat", "read")]
        self.assertEqual(lat["ours_median"], 11.0)
        self.assertEqual(lat["perftest_median"], 12.0)
        # the median of the rounds' ratios, 10/11 and 12/13
        self.assertAlmostEqual(lat["ratio"], (10 / 11 + 12 / 13) / 2)
        self.assertEqual(lat["verdict"], "short")  # 2 rounds of the 10
        # Round 1: 10 against 11, round 2: 12 against 13; both ours.
        self.assertEqual((lat["wins"], lat["ties"], lat["rounds"]),
                         (2, 0, 2))
        # Ranks 1, 3 against 2, 4: 4 of the 6 splits are as far out.
        self.assertAlmostEqual(lat["p_value"], 4 / 6)
        # Both rounds lower: 2 of the 4 sign patterns are as far out.
        self.assertAlmostEqual(lat["p_paired"], 0.5)
        bw = rows[("bw", "send")]
        self.assertIsNone(bw["ratio"])  # our measurement failed
        self.assertEqual((bw["wins"], bw["ties"], bw["rounds"]), (0, 0, 0))
        self.assertIsNone(bw["p_paired"])

    def test_table_gives_each_cell_its_verdict(self):
        text = report.table(report.medians(self.records))
        lat = [line for line in text.splitlines() if " lat " in line][0]
        self.assertTrue(lat.startswith("one   lat  read "), lat)
        self.assertIn(" 0.916             -    0.500 short ", lat)
        self.assertIn(" 2/2 0.667  t_typical [usec]", lat)
        bw = [line for line in text.splitlines() if " bw " in line][0]
        self.assertIn("      -             -        - short ", bw)
        self.assertEqual(text.splitlines()[-1], "0 ahead, 0 even, 0 behind"
                         " (2 cell(s) with fewer than 10 paired rounds:"
                         " no verdict)")


# Measurement 1 (perftest) failed twice, each time run again, and gave
# figures the third time; measurement 0 (ours) failed on the server's side
# only and ran again once.
RETRIED_OUTPUT = (
    "=== RESULT 1 1 0 ours lat read 2 1000\n"
    "benchmark: read lat on rxe0\n=== END rc=0, server rc=1: runs again\n"
    + ours_lat(1, 0, 10.0)
    + "=== RESULT 1 1 1 perftest lat read 2 1000\n"
    "---------------------\n"
    " Completion with error at client\n"
    " Failed status 5: wr_id 0 syndrom 0xf4\n"
    "=== END rc=17, server rc=1: runs again\n"
    "=== RESULT 1 1 1 perftest lat read 2 1000\n"
    "=== END rc=1, server rc=none: runs again\n"
    + perf_lat(1, 1, 11.0))


class Retries(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "guests-1.a.out")
        with open(self.path, "w") as f:
            f.write(RETRIED_OUTPUT)

    def tearDown(self):
        self.dir.cleanup()

    def test_the_last_attempt_counts(self):
        kept, retried = report.split_retried(report.parse_output(self.path))
        self.assertEqual([(r["index"], r["figures"]["t_typical"])
                          for r in kept], [(0, 10.0), (1, 11.0)])
        self.assertEqual(
            [(r["index"], r["rc"], r["server_rc"]) for r in retried],
            [(0, 0, 1), (1, 17, 1), (1, 1, None)])

    def test_why_is_the_line_that_names_the_failure(self):
        _, retried = report.split_retried(report.parse_output(self.path))
        self.assertEqual([r["why"] for r in retried],
                         ["benchmark: read lat on rxe0",
                          "Completion with error at client", "no output"])

    def test_listed_with_each_tools_count(self):
        _, retried = report.split_retried(report.parse_output(self.path))
        self.assertEqual(report.retried_text(retried), [
            "3 failed attempt(s) ran again (ours 1, perftest 2):",
            "  1 guest(s) run 1 ours lat read 2 B: exit 0, server exit 1:"
            " benchmark: read lat on rxe0",
            "  1 guest(s) run 1 perftest lat read 2 B: exit 17,"
            " server exit 1: Completion with error at client",
            "  1 guest(s) run 1 perftest lat read 2 B: exit 1,"
            " server did not say: no output"])
        self.assertEqual(report.retried_text([]), [])

    def test_the_report_lists_them_and_exits_0(self):
        res = subprocess.run([sys.executable, SCRIPT, self.dir.name, "1"],
                             capture_output=True, text=True, timeout=120)
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        self.assertIn("\n3 failed attempt(s) ran again (ours 1, perftest 2):"
                      "\n", res.stdout)
        self.assertNotIn("gave no figures", res.stdout)
        with open(os.path.join(self.dir.name, "results.json"),
                  encoding="utf-8") as f:
            doc = json.load(f)
        self.assertEqual(len(doc["measurements"]), 2)
        self.assertEqual([r["rc"] for r in doc["retried"]], [0, 17, 1])

    def test_an_attempt_the_stopped_link_cut_short(self):
        # bench.sh's attempts_after: it never ended, and ran on new guests.
        with open(self.path, "w") as f:
            f.write("=== RESULT 2 1 3 ours lat send 64 20\n"
                    "=== END rc=none, server rc=none: runs again\n"
                    + ours_lat(1, 3, 12.0).replace("RESULT 1 1", "RESULT 2 1"))
        kept, retried = report.split_retried(report.parse_output(self.path))
        self.assertEqual([r["index"] for r in kept], [3])
        self.assertEqual([(r["index"], r["rc"], r["server_rc"])
                          for r in retried], [(3, None, None)])
        self.assertEqual(report.retried_text(retried)[1:], [
            "  2 guest(s) run 1 ours lat send 64 B: no exit status,"
            " server did not say: the link between the guests stopped under"
            " it (link-events.txt)"])

    def test_a_plan_whose_measurements_ran_again_is_whole(self):
        plan = os.path.join(self.dir.name, "plan-1.txt")
        with open(plan, "w") as f:
            f.write("1 1 0 ours lat read 2 1000 20000\n"
                    "1 1 1 perftest lat read 2 1000 20001\n")
        kept, _ = report.split_retried(report.parse_output(self.path))
        self.assertEqual(report.not_run(plan, kept), [])


def turn(block, name):
    """BLOCK (one of the made-up outputs above) as run in NAME's turn."""
    head, _, rest = block.partition("\n")
    fields = head.split()
    fields[5] = name
    return " ".join(fields) + "\n" + rest


class DeviceName(unittest.TestCase):
    """The plots name the device bench.sh measured (OUT/device)."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def with_device(self, text):
        with open(os.path.join(self.dir.name, "device"), "w") as f:
            f.write(text)
        return report.read_device(self.dir.name)

    def test_siw(self):
        self.assertEqual(self.with_device("siw\n"), "soft-iWARP (siw0)")

    def test_rxe_and_none(self):
        self.assertEqual(report.read_device(self.dir.name),
                         "soft-RoCE (rxe0)")
        self.assertEqual(self.with_device("rxe\n"), "soft-RoCE (rxe0)")

    def test_a_device_file_that_names_no_device(self):
        with self.assertRaisesRegex(ValueError, "names no device: 'mlx5'"):
            self.with_device("mlx5\n")


class ControlRun(unittest.TestCase):
    """An A/A run (bench.sh --control): one tool in both turns."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def run_with(self, control, output):
        with open(os.path.join(self.dir.name, "control"), "w") as f:
            f.write(control + "\n")
        path = os.path.join(self.dir.name, "guests-1.a.out")
        with open(path, "w") as f:
            f.write(output)
        self.assertEqual(report.read_control(self.dir.name), control)
        return report.parse_output(path, control)

    def test_perftest_in_both_turns(self):
        records = self.run_with(
            "perftest", turn(perf_lat(1, 0, "10.00"), "ours")
            + perf_lat(1, 1, "12.50"))
        self.assertEqual([(r["tool"], r["ran"]) for r in records],
                         [("ours", "perftest"), ("perftest", "perftest")])
        self.assertEqual([r["figures"]["t_typical"] for r in records],
                         [10.0, 12.5])
        rows = report.medians(records)
        self.assertAlmostEqual(rows[0]["ratio"], 0.8)
        # perftest prints two decimals: 10.00 and 12.50 are told apart
        self.assertEqual((rows[0]["wins"], rows[0]["ties"]), (1, 0))
        lines = report.table(rows, "perftest").splitlines()
        self.assertEqual(
            lines[0], "A/A control: perftest ran in both turns; the columns"
            " name the turns, the ratio is the tool against itself")
        self.assertIn(" 0.800             -    1.000 short ", lines[3])

    def test_ours_in_both_turns(self):
        records = self.run_with(
            "ours", ours_lat(1, 0, 10.0) + turn(ours_lat(1, 1, 8.0),
                                                 "perftest"))
        self.assertEqual([r["figures"]["t_typical"] for r in records],
                         [10.0, 8.0])
        rows = report.medians(records)
        self.assertAlmostEqual(rows[0]["ratio"], 1.25)
        self.assertEqual(
            report.table(rows, "ours").splitlines()[0],
            "A/A control: rdma_bench ran in both turns; the columns name"
            " the turns, the ratio is the tool against itself")

    def test_both_apis_of_ours(self):
        records = self.run_with(
            "api", ours_lat(1, 0, 9.0) + turn(ours_lat(1, 1, 10.0),
                                               "perftest"))
        self.assertEqual([(r["tool"], r["ran"]) for r in records],
                         [("ours", "ours"), ("perftest", "ours")])
        rows = report.medians(records)
        self.assertAlmostEqual(rows[0]["ratio"], 0.9)
        self.assertEqual(
            report.table(rows, "api").splitlines()[0],
            "A/B of the APIs: rdma_bench ran in both turns, on ibv_post_send"
            " in ours and with --new-api in perftest's; the ratio is the"
            " first against the second (above 1: ibv_post_send did worse)")

    def test_the_api_word(self):
        self.assertEqual(report.read_api(self.dir.name), "old")
        with open(os.path.join(self.dir.name, "api"), "w") as f:
            f.write("new\n")
        self.assertEqual(report.read_api(self.dir.name), "new")
        self.assertEqual(
            report.table([], None, "new").splitlines()[0],
            "rdma_bench posted with ibv_wr_* (--new-api)")

    def test_a_normal_run_has_no_control(self):
        self.assertIsNone(report.read_control(self.dir.name))
        self.assertNotIn("A/A", report.table([], None))

    def test_a_control_file_that_names_no_tool(self):
        with open(os.path.join(self.dir.name, "control"), "w") as f:
            f.write("ib_send_lat\n")
        with self.assertRaisesRegex(ValueError, "names no tool"):
            report.read_control(self.dir.name)


def pair(ours, perf, error=0.0005):
    return ((ours, error), (perf, error))


class Ties(unittest.TestCase):
    def test_within_rounding_is_a_tie(self):
        # 12.34 (+-0.005) against 12.343 (+-0.0005): cannot be told apart
        pairs = [((12.343, 0.0005), (12.34, 0.005)), pair(10.0, 11.0)]
        self.assertEqual(report.paired_wins("lat", pairs), (1, 1, 2))
        self.assertEqual(report.paired_wins("bw", pairs), (0, 1, 2))

    def test_bandwidth_at_1mib_from_mib_per_s(self):
        # 65.365 MiB/s at 1 MiB is 0.000065 Mpps printed: the rate has two
        # digits, the MiB/s five
        record = {"tool": "ours", "mode": "bw", "bytes": 1048576,
                  "figures": {"bw_avg": 65.365, "msg_rate": 0.000065,
                              "decimals": {"bw_avg": 3, "msg_rate": 6}}}
        self.assertEqual(report.compared(record), (65.365, 0.0005))

    def test_old_records_use_the_tools_formats(self):
        record = {"tool": "perftest", "mode": "bw", "bytes": 1048576,
                  "figures": {"bw_avg": 9.74, "msg_rate": 0.00001}}
        self.assertEqual(report.compared(record), (9.74, 0.005))


class SignedRank(unittest.TestCase):
    def test_all_one_way(self):
        # five rounds, ours lower in each: 2 of the 32 sign patterns
        pairs = [pair(1.0, 1.0 + k / 10) for k in range(1, 6)]
        self.assertAlmostEqual(report.signed_rank_p(pairs), 2 / 32)

    def test_known_value(self):
        # log ratios ranked 1..4, the smallest one positive: T+ = 1, and
        # sums of 0 or 1 (or 9, 10) come from 4 of the 16 patterns
        pairs = [pair(1.01, 1.0), pair(1.0, 1.02), pair(1.0, 1.03),
                 pair(1.0, 1.04)]
        self.assertAlmostEqual(report.signed_rank_p(pairs), 4 / 16)

    def test_ties_left_out_and_shared_ranks(self):
        # the tie drops out; the two equal |log ratios| share rank 1.5
        pairs = [pair(2.0, 2.0), pair(1.0, 2.0), pair(2.0, 1.0)]
        # T+ is 1.5 of 3 either way: every pattern is as far out
        self.assertAlmostEqual(report.signed_rank_p(pairs), 1.0)

    def test_nothing_left(self):
        self.assertIsNone(report.signed_rank_p([pair(3.0, 3.0)]))
        self.assertIsNone(report.signed_rank_p([]))


class RankSum(unittest.TestCase):
    def test_exact_extremes(self):
        # Fully separated samples of 5: 2 of the 252 splits.
        self.assertAlmostEqual(
            report.rank_sum_p([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]), 2 / 252)

    def test_identical_samples(self):
        self.assertEqual(report.rank_sum_p([3, 3, 3], [3, 3, 3]), 1.0)

    def test_normal_approximation_large(self):
        ours = [float(i) for i in range(20)]
        perf = [float(i) + 100 for i in range(20)]
        self.assertLess(report.rank_sum_p(ours, perf), 1e-6)
        self.assertGreater(report.rank_sum_p(ours, ours[::-1]), 0.99)

    def test_empty(self):
        self.assertIsNone(report.rank_sum_p([], [1.0]))


def rounds(mode, ratios, base=100.0):
    """Paired (ours, perftest) figures, rounding errors of 0.005, whose
    per-round ratios (as the verdict reads them) are RATIOS."""
    out = []
    for r in ratios:
        if mode == "lat":
            out.append(((base * r, 0.005), (base, 0.005)))
        else:
            out.append(((base, 0.005), (base * r, 0.005)))
    return out


def cell(mode, ratios):
    """The report's row of one cell with the rounds of RATIOS."""
    records = []
    for n, ((ours, _), (perf, _)) in enumerate(rounds(mode, ratios)):
        key = "t_typical" if mode == "lat" else "bw_avg"
        for tool, value in (("ours", ours), ("perftest", perf)):
            records.append({
                "guests": 2, "run": n + 1, "index": len(records),
                "tool": tool, "ran": tool, "mode": mode, "op": "send",
                "bytes": 65536, "iterations": 100,
                "figures": {key: value, "msg_rate": 0.0,
                            "decimals": {key: 2, "msg_rate": 6}}})
    rows = report.medians(records)
    assert len(rows) == 1
    return rows[0]


class Verdict(unittest.TestCase):
    """The rule: behind if the median paired ratio is above 1.03 and the
    signed-rank p below 0.05, ahead if below 0.97 and p below 0.05, even
    otherwise; a cell needs 10 paired rounds."""

    def test_behind(self):
        row = cell("lat", [1.10, 1.12, 1.08, 1.20, 1.05, 1.09, 1.15, 1.11,
                           1.07, 1.13])
        self.assertAlmostEqual(row["ratio"], 1.105)
        # every round one way: 2 of the 1024 sign patterns
        self.assertAlmostEqual(row["p_paired"], 2 / 1024)
        self.assertEqual(row["verdict"], "behind")

    def test_ahead(self):
        row = cell("lat", [0.90, 0.85, 0.92, 0.88, 0.80, 0.95, 0.91, 0.89,
                           0.86, 0.93])
        self.assertEqual(row["verdict"], "ahead")

    def test_bandwidth_reads_perftest_over_ours(self):
        # perftest 10% above ours every round: ours behind
        row = cell("bw", [1.1] * 10)
        self.assertAlmostEqual(row["ratio"], 1.1)
        self.assertEqual(row["verdict"], "behind")
        self.assertEqual(cell("bw", [0.9] * 10)["verdict"], "ahead")

    def test_even_when_p_is_high(self):
        # a median of 1.20, but the rounds go both ways
        row = cell("lat", [1.2, 0.7, 1.3, 0.8, 1.2, 0.75, 1.25, 0.9, 1.2,
                           1.4])
        self.assertGreater(row["p_paired"], 0.05)
        self.assertEqual(row["verdict"], "even")

    def test_even_when_the_median_is_near_1(self):
        # all ten rounds one way (p 0.002), but only 1% apart
        row = cell("lat", [1.01] * 10)
        self.assertLess(row["p_paired"], 0.05)
        self.assertEqual(row["verdict"], "even")

    def test_thresholds_edges(self):
        # strictly beyond 1.03 and 0.97, strictly below 0.05
        self.assertEqual(report.verdict(1.03, 0.001, 10), "even")
        self.assertEqual(report.verdict(1.0301, 0.001, 10), "behind")
        self.assertEqual(report.verdict(0.97, 0.001, 10), "even")
        self.assertEqual(report.verdict(0.9699, 0.001, 10), "ahead")
        self.assertEqual(report.verdict(1.5, 0.05, 10), "even")
        self.assertEqual(report.verdict(1.5, 0.0499, 10), "behind")
        self.assertEqual(report.verdict(0.5, 0.05, 10), "even")
        self.assertEqual(report.verdict(1.5, None, 10), "even")

    def test_ten_rounds_needed(self):
        self.assertEqual(report.verdict(1.5, 0.001, 9), "short")
        self.assertEqual(report.verdict(None, None, 10), "short")
        self.assertEqual(cell("lat", [1.2] * 9)["verdict"], "short")

    def test_interval_of_the_median(self):
        # n = 10: the 2nd smallest and the 2nd largest (97.9%)
        self.assertEqual(report.median_interval(list(range(10, 0, -1))),
                         (2, 9))
        # n = 6: the extremes (96.9%); n = 5 is too few for 95%
        self.assertEqual(report.median_interval([3, 1, 2, 6, 5, 4]), (1, 6))
        self.assertIsNone(report.median_interval([1, 2, 3, 4, 5]))
        # n = 20: the 6th from each end (95.9%)
        self.assertEqual(report.median_interval(list(range(1, 21))), (6, 15))
        row = cell("lat", [1.10, 1.12, 1.08, 1.20, 1.05, 1.09, 1.15, 1.11,
                           1.07, 1.13])
        self.assertEqual(tuple(round(x, 2) for x in row["interval"]),
                         (1.07, 1.15))

    def test_the_last_line_counts_the_verdicts(self):
        rows = [cell("lat", [1.1] * 10), cell("lat", [0.9] * 10),
                cell("lat", [1.0] * 10), cell("bw", [0.9] * 10)]
        text = report.table(rows)
        self.assertEqual(text.splitlines()[-1], "2 ahead, 1 even, 1 behind")
        line = [x for x in text.splitlines() if x.startswith("two ")][0]
        self.assertIn(" 1.100   1.100-1.100    0.002 behind ", line)


class Report(unittest.TestCase):
    """bench-report.py run as bench.sh runs it: its exit status."""

    def run_report(self, ratios):
        with tempfile.TemporaryDirectory() as out:
            blocks = []
            for n, r in enumerate(ratios):
                blocks.append(ours_lat(n + 1, 2 * n, round(10.0 * r, 3)))
                blocks.append(perf_lat(n + 1, 2 * n + 1, "10.00"))
            with open(os.path.join(out, "guests-1.a.out"), "w") as f:
                f.write("".join(blocks))
            res = subprocess.run([sys.executable, SCRIPT, out, "1"],
                                 capture_output=True, text=True, timeout=120)
            path = os.path.join(out, "results.json")
            if os.path.exists(path):
                with open(path, encoding="utf-8") as f:
                    res.results = json.load(f)
        return res

    def test_results_json_keeps_the_histogram(self):
        res = self.run_report([1.0] * 2)
        ours = [m for m in res.results["measurements"]
                if m["tool"] == "ours"]
        self.assertEqual(len(ours), 2, res.stdout + res.stderr)
        self.assertEqual(ours[0]["figures"]["histogram"]["buckets"],
                         [[4.7568, 5.6569, 1], [5.6569, 6.7272, 998]])
        self.assertEqual(ours[0]["figures"]["cpu_client_percent"], 98.5)

    def test_exit_1_when_a_cell_is_behind(self):
        res = self.run_report([1.2] * 10)
        self.assertEqual(res.returncode, 1, res.stdout + res.stderr)
        self.assertIn("0 ahead, 0 even, 1 behind", res.stdout)

    def test_exit_0_when_none_is(self):
        res = self.run_report([0.8] * 10)
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        self.assertIn("1 ahead, 0 even, 0 behind", res.stdout)


class SizeLabels(unittest.TestCase):
    def test_binary_units(self):
        self.assertEqual([report.size_label(s)
                          for s in (2, 8, 4096, 65536, 1048576, 1536,
                                    8388608)],
                         ["2 B", "8 B", "4 KiB", "64 KiB", "1 MiB",
                          "1536 B", "8 MiB"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
