#!/usr/bin/env python3
"""Unit test of scripts/bench-report.py, the host side of bench.sh: it reads
a made-up guest output (our JSON, perftest's text tables, a failed
measurement) and checks the figures, medians, ratios, paired wins and ties,
and the rank-sum and signed-rank p-values the table is built from."""
import importlib.util
import os
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
  {{"bytes": 2, "iterations": 1000, "t_min": 5.0, "t_max": 90.0, "t_typical": {typical}, "t_avg": 20.0, "t_stdev": 3.0, "p99": 40.0, "p99_9": 80.0}}
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
        self.assertAlmostEqual(lat["ratio"], 11.0 / 12.0)
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

    def test_table_marks_the_goal(self):
        text = report.table(report.medians(self.records))
        lat = [line for line in text.splitlines() if " lat " in line][0]
        self.assertIn(" 0.9167 ok ", lat)
        self.assertIn(" 2/2 0.667  0.500  t_typical [usec]", lat)
        bw = [line for line in text.splitlines() if " bw " in line][0]
        self.assertIn(" n/a ", bw)


def turn(block, name):
    """BLOCK (one of the made-up outputs above) as run in NAME's turn."""
    head, _, rest = block.partition("\n")
    fields = head.split()
    fields[5] = name
    return " ".join(fields) + "\n" + rest


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
        self.assertIn(" 0.8000 ok ", lines[3])

    def test_ours_in_both_turns(self):
        records = self.run_with(
            "ours", ours_lat(1, 0, 10.0) + turn(ours_lat(1, 1, 8.0),
                                                 "perftest"))
        self.assertEqual([r["figures"]["t_typical"] for r in records],
                         [10.0, 8.0])
        self.assertAlmostEqual(report.medians(records)[0]["ratio"], 1.25)

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


if __name__ == "__main__":
    unittest.main(verbosity=2)
