#!/usr/bin/env python3
"""Unit test of scripts/cluster_plan.py, what scripts/cluster_check.py
decides without running anything: the schedules (each host in one pair a
round, every pair once), the ports, the reading of rdma_check's and
rdma_bench's output, the floors, the diagnosis and the report."""
import itertools
import json
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
import cluster_plan as plan  # noqa: E402

MARK = plan.MARK

CHECK_PASS = """PASS uverbs      ib_uverbs loaded (ABI 6), /dev/infiniband: uverbs0
PASS device      rxe0 (the first one, without -d), 1 port, firmware 0.0.0
PASS port        port 1 of rxe0: active, physical state LinkUp, 2.5 Gb/s (1X 2.5 Gb/s)
verdict: PASS: this host can do RDMA with these options (3 checks, warnings: 0)
"""
CHECK_PORT_DOWN = """PASS device      rxe0 (the first one, without -d), 1 port, firmware 0.0.0
FAIL port        port 1 of rxe0: down, physical state Disabled, netdev eth0; fix: ip link set eth0 up
verdict: FAIL: this host cannot do RDMA with these options (failed: port; warnings: 0)
"""
LAT = """ #bytes #iterations t_min[usec] t_max[usec] t_typical[usec] t_avg[usec] t_stdev[usec] 99% percentile[usec] 99.9% percentile[usec]
 2       100         310.20      900.00      350.50          360.00      20.00        800.00             900.00
test result is 0
"""
BW = """ #bytes #iterations BW peak[MiB/sec] BW average[MiB/sec] MsgRate[Mpps]
 65536   40          9.10             8.80                0.000140
 each way: client to server 4.50, server to client 4.30 MiB/sec (average; the row is their sum)
test result is 0
"""


def host_output(check=CHECK_PASS, rc=0):
    return f"{check}{MARK} check {rc}\n"


def pair_output(check=CHECK_PASS, lat=LAT, bw=BW):
    return (f"{check}{MARK} check 0\n{lat}{MARK} lat 0\n"
            f"{bw}{MARK} bw 0\n")


NO_FLOORS = (None, None, None)


class Schedules(unittest.TestCase):
    def assert_rounds_sound(self, rounds):
        for r in rounds:
            seen = list(itertools.chain(*r))
            self.assertEqual(len(seen), len(set(seen)),
                             f"a host twice in one round: {r}")

    def test_all_covers_every_pair_once(self):
        for n in range(2, 18):
            hosts = [f"n{i:02d}" for i in range(n)]
            rounds = plan.rounds_all(hosts)
            self.assertEqual(len(rounds), n - 1 if n % 2 == 0 else n, n)
            self.assert_rounds_sound(rounds)
            got = sorted(tuple(sorted(p)) for r in rounds for p in r)
            want = sorted(itertools.combinations(hosts, 2))
            self.assertEqual(got, want, n)
            if n % 2 == 0:
                for r in rounds:
                    self.assertEqual(len(r), n // 2)

    def test_ring(self):
        for n in range(2, 12):
            hosts = [f"h{i}" for i in range(n)]
            rounds = plan.rounds_ring(hosts)
            want_rounds = 1 if n == 2 else 2 if n % 2 == 0 else 3
            self.assertEqual(len(rounds), want_rounds, n)
            self.assert_rounds_sound(rounds)
            got = sorted(tuple(sorted(p)) for r in rounds for p in r)
            want = sorted({tuple(sorted((hosts[i], hosts[(i + 1) % n])))
                           for i in range(n)})
            self.assertEqual(got, want, n)
        self.assertEqual(plan.rounds_ring(["a", "b", "c", "d"]),
                         [[("a", "b"), ("c", "d")], [("b", "c"), ("d", "a")]])

    def test_pairs(self):
        hosts = ["a", "b", "c", "d"]
        self.assertEqual(plan.plan(hosts, "a:b,c:d,a:c"),
                         [[("a", "b"), ("c", "d")], [("a", "c")]])
        for bad, why in (("a:e", "e (in 'a:e') is not one of the hosts"),
                         ("a:a", "'a:a' pairs a host with itself"),
                         ("a-b", "'a-b' is not a pair HOST:HOST"),
                         ("a:b,", "'' is not a pair HOST:HOST")):
            with self.assertRaises(ValueError) as e:
                plan.parse_pairs(bad, hosts)
            self.assertEqual(str(e.exception), why)

    def test_ports_differ_within_a_round_and_from_the_last(self):
        rounds = plan.rounds_all([f"h{i}" for i in range(8)])
        previous = set()
        for k, r in enumerate(rounds):
            ports = [p for i in range(len(r))
                     for p in plan.pair_ports(19700, k, i, len(r))]
            self.assertEqual(len(ports), len(set(ports)))
            self.assertFalse(previous & set(ports))
            self.assertLessEqual(max(ports), plan.last_port(19700, len(r)))
            previous = set(ports)
        self.assertEqual(plan.pair_ports(19700, 1, 2, 4),
                         (19724, 19725, 19726, 19727))


class Reading(unittest.TestCase):
    def test_check_lines(self):
        checks, verdict = plan.parse_check(CHECK_PORT_DOWN)
        self.assertEqual(checks[1]["status"], "FAIL")
        self.assertEqual(checks[1]["name"], "port")
        self.assertEqual(checks[1]["value"],
                         "port 1 of rxe0: down, physical state Disabled, netdev eth0")
        self.assertEqual(checks[1]["fix"], "ip link set eth0 up")
        self.assertTrue(verdict.startswith("FAIL: this host cannot"))
        self.assertEqual(plan.check_device(checks), "rxe0")

    def test_rate(self):
        # From rdma_check's own port line: no other tool on the hosts.
        checks, _ = plan.parse_check(CHECK_PASS)
        self.assertEqual(plan.parse_rate(checks), 2.5)
        checks, _ = plan.parse_check(CHECK_PASS.replace(
            "2.5 Gb/s (1X 2.5 Gb/s)", "100 Gb/s (4X 25 Gb/s)"))
        self.assertEqual(plan.parse_rate(checks), 100.0)
        checks, _ = plan.parse_check(CHECK_PASS.replace(
            "2.5 Gb/s (1X 2.5 Gb/s)", "rate unknown (width code 3, speed code 1)"))
        self.assertIsNone(plan.parse_rate(checks))
        checks, _ = plan.parse_check(CHECK_PORT_DOWN)
        self.assertIsNone(plan.parse_rate(checks))

    def test_probe(self):
        rows = LAT.replace(" 2       100", " 512     20")
        self.assertEqual(plan.parse_probe(LAT + rows), 512)
        self.assertEqual(plan.parse_probe(rows), 512)
        self.assertEqual(plan.parse_probe(""), 0)

    def test_bench(self):
        self.assertEqual(plan.parse_bench(LAT), {"lat_usec": 350.5})
        self.assertEqual(plan.parse_bench(BW), {
            "bw_sum": 8.8, "bw_c2s": 4.5, "bw_s2c": 4.3, "bw": 4.3})

    def test_host(self):
        h = plan.judge_host("n1", True, host_output(), 0, 60)
        self.assertEqual((h["status"], h["device"], h["rate_gbps"]),
                         ("PASS", "rxe0", 2.5))
        self.assertEqual(plan.host_line(h), "PASS n1: rxe0, 2.5 Gb/s")
        h = plan.judge_host("n2", True, host_output(CHECK_PORT_DOWN, 1), 1, 60)
        self.assertEqual(plan.host_line(h), "FAIL n2: port: port 1 of rxe0: down, physical state Disabled, netdev eth0; fix: ip link set eth0 up")
        h = plan.judge_host("n3", False, "", None, 15)
        self.assertEqual(plan.host_line(h), "NO-ANSWER n3: no answer within 15 s: the host is down, unreachable or hung; fix: reach it by hand (ssh n3 true) and look at it")

    def test_host_not_reached_or_without_the_program(self):
        # ssh's own failure: the command never ran (no mark).
        h = plan.judge_host("n4", True, f"\n{plan.STDERR}\nssh: Could not resolve hostname n4: Name or service not known\n", 255, 60)
        self.assertEqual(plan.host_line(h), "UNREACHED n4: ssh did not run the check on it (exit status 255): ssh: Could not resolve hostname n4: Name or service not known; fix: make `ssh n4 true` work from here (the name, the key, sshd), or leave the host out")
        h = plan.judge_host("n4", True, "rxe-vm: no guest n4\n", 1, 60, via="rxe-vm exec --on %h")
        self.assertEqual(plan.host_line(h), "UNREACHED n4: the --via command did not run the check on it (exit status 1): rxe-vm: no guest n4; fix: make `rxe-vm exec --on n4 true` work")
        # The shell ran, the program is not there.
        h = plan.judge_host("n5", True, f"{MARK} check 127\n{plan.STDERR}\nbash: line 1: /opt/x/rdma_check: No such file or directory\n", 127, 60, "/opt/x/rdma_check")
        self.assertEqual(plan.host_line(h), "FAIL n5: /opt/x/rdma_check is not there on it (exit status 127): bash: line 1: /opt/x/rdma_check: No such file or directory; fix: install the project's package on it, or give --rdma-check the program's path on the hosts")
        # It refused its options: its usage line, once for the run.
        usage = f"{MARK} check 2\n{plan.STDERR}\nrdma_check: invalid -g value '-1' (expected 0 or more)\n"
        r = {h: plan.judge_host(h, True, usage, 2, 60) for h in ("a", "b")}
        self.assertEqual(r["a"]["usage"], "rdma_check: invalid -g value '-1' (expected 0 or more)")
        self.assertEqual(plan.refused_everywhere(["a", "b"], r), r["a"]["usage"])
        r["b"] = plan.judge_host("b", True, host_output(), 0, 60)
        self.assertIsNone(plan.refused_everywhere(["a", "b"], r))
        # A warning of the host's own check is kept.
        warn = CHECK_PASS.replace("verdict:", "WARN mtu         netdev eth0 MTU 700: path MTU 512; fix: ip link set eth0 mtu 1500\nverdict:")
        h = plan.judge_host("n6", True, host_output(warn), 0, 60)
        self.assertEqual(h["warnings"], ["mtu: netdev eth0 MTU 700: path MTU 512; fix: ip link set eth0 mtu 1500"])


class Verdicts(unittest.TestCase):
    def test_pass_and_floors(self):
        p = plan.judge_pair("a", "b", pair_output(), pair_output(), True,
                            NO_FLOORS, 2.5)
        self.assertEqual((p["status"], p["figures"]["bw"],
                          p["figures"]["lat_usec"]), ("PASS", 4.3, 350.5))
        # A pass keeps its check lines and figures, not its raw output.
        self.assertIn("output", p)
        self.assertNotIn("output", plan.settle(p))
        self.assertEqual(len(p["checks"]["client"]), 3)
        p = plan.judge_pair("a", "b", pair_output(), pair_output(), True,
                            (5.0, None, None), 2.5)
        self.assertEqual((p["status"], p["failed"]), ("FAIL", "bandwidth"))
        self.assertEqual(p["problem"], "bandwidth 4.3 MiB/s (the slower way) is under the floor 5.00 MiB/s")
        # 2% of 2.5 Gb/s is 5.96 MiB/s.
        p = plan.judge_pair("a", "b", pair_output(), pair_output(), True,
                            (None, 2.0, None), 2.5)
        self.assertEqual(p["floor"], "5.96 MiB/s (2% of the port's 2.5 Gb/s)")
        p = plan.judge_pair("a", "b", pair_output(), pair_output(), True,
                            (None, 1.0, None), 2.5)
        self.assertEqual(p["status"], "PASS")
        p = plan.judge_pair("a", "b", pair_output(), pair_output(), True,
                            (None, None, 300.0), 2.5)
        self.assertEqual((p["status"], p["failed"]), ("FAIL", "latency"))
        self.assertEqual(p["problem"], "latency 350.5 usec is over the floor 300 usec")
        # A share of a port whose rate is unknown is not a pass.
        p = plan.judge_pair("a", "b", pair_output(), pair_output(), True,
                            (None, 90.0, None), None, ["b"])
        self.assertEqual((p["status"], p["failed"]), ("FAIL", "floor"))
        self.assertEqual(p["problem"], "the floor 90% of the port's rate cannot be applied: rdma_check on b gave no port rate")

    def test_loss(self):
        # What --report-counters prints: each side's resends, the packets
        # it saw after a gap, and those it got twice.
        def counts(resent=0, gap=0, twice=0, sent=None, received=None):
            return ("port counters of this side (/sys/class/infiniband/mlx5_0/ports/1), moved over the run:\n"
                    + (f"  rcvd_pkts                 +{received}  packets received\n" if received else "")
                    + (f"  sent_pkts                 +{sent}  packets sent\n" if sent else "")
                    + (f"resent: this side sent packets again {resent} time(s) (after an ack timeout or a sequence NAK)\n" if resent else "resent: none\n")
                    + (f"out of sequence: {gap} packet(s) came after a gap: one before them was lost on the way here\n" if gap else "out of sequence: none\n")
                    + (f"twice: {twice} packet(s) came twice: the peer sent again what had arrived (its ack came late, or was lost)\n" if twice else "twice: none\n"))
        siw = "port counters: none (no counters or hw_counters in /sys/class/infiniband/siw0/ports/1)\n"
        self.assertEqual(plan.parse_loss(counts(7, 3, 1)),
                         {"resent": 7, "out_of_seq": 3, "duplicate": 1,
                          "sent": 0, "received": 0})
        self.assertEqual(plan.parse_loss(counts(sent=975, received=970)),
                         {"resent": 0, "out_of_seq": 0, "duplicate": 0,
                          "sent": 975, "received": 970})
        # Soft-RoCE counts its packets: those sent and never received.
        self.assertEqual(plan.lost_toward(plan.parse_loss(counts(1, sent=980)),
                                          plan.parse_loss(counts(twice=3, received=979))), 1)
        self.assertEqual(plan.lost_toward(plan.parse_loss(counts(1, sent=980)),
                                          plan.parse_loss(counts(twice=1, received=980))), 0)
        self.assertIsNone(plan.parse_loss(siw))
        self.assertIsNone(plan.parse_loss(LAT))
        # A gap at the receiver is a loss; a resend it got twice is none.
        self.assertEqual(plan.lost_toward(plan.parse_loss(counts(5)),
                                          plan.parse_loss(counts(gap=40))), 40)
        self.assertEqual(plan.lost_toward(plan.parse_loss(counts(50)),
                                          plan.parse_loss(counts(gap=40))), 50)
        self.assertEqual(plan.lost_toward(plan.parse_loss(counts(1)),
                                          plan.parse_loss(counts(twice=1))), 0)
        self.assertEqual(plan.lost_toward(plan.parse_loss(counts(3)),
                                          plan.parse_loss(counts(twice=1))), 2)
        self.assertEqual(plan.lost_toward(plan.parse_loss(counts(3)), None), 3)
        self.assertIsNone(plan.lost_toward(None, plan.parse_loss(counts())))
        out = lambda lat, bw: pair_output(lat=LAT + lat, bw=BW + bw)
        # A clean pair, and one whose resends each arrived twice (a busy
        # peer's late acks): no loss, no word of it.
        for server, client in ((out(counts(), counts()), out(counts(), counts())),
                               (out(counts(1), counts()), out(counts(twice=1), counts()))):
            p = plan.judge_pair("a", "b", server, client, True, NO_FLOORS, 2.5)
            self.assertEqual((p["status"], p["lost"], p["warnings"]),
                             ("PASS", {"server": 0, "client": 0}, []))
        # b lost packets toward a: a saw the gaps, b sent again.
        server = out(counts(gap=2), counts(gap=25))
        client = out(counts(2), counts(30))
        p = plan.judge_pair("a", "b", server, client, True, NO_FLOORS, 2.5)
        self.assertEqual((p["status"], p["failed"], p["lost"]),
                         ("FAIL", "loss", {"server": 0, "client": 32}))
        self.assertEqual(p["problem"], "packets lost: 32 of b's toward a, by the ports' counters over the latency and bandwidth runs")
        self.assertTrue(p["fix"].endswith("; to accept this many, --max-lost 32"))
        self.assertEqual(plan.cell(p), "LOSS 4.3")
        lines = plan.diagnose(["a", "b"], result(["a", "b"]), [p])
        self.assertEqual(lines, ["pair a-b: a lossy link (RoCE needs a lossless one): " + p["problem"] + "; fix: " + p["fix"]])
        self.assertEqual(plan.heat_lossy(["a", "b", "c"], [p]), [(1, 0), (0, 1)])
        self.assertEqual(plan.heat_cells(["a", "b"], [p]), ([(0, 0, "diagonal"), (1, 1, "diagonal")], []))
        # Up to the operator's bound, a warning and a pass.
        p = plan.judge_pair("a", "b", server, client, True, NO_FLOORS, 2.5,
                            max_lost=40)
        self.assertEqual(p["status"], "PASS")
        self.assertEqual(len(p["warnings"]), 1)
        self.assertIn("32 of b's toward a", p["warnings"][0])
        self.assertIn("(at most 40 allowed by --max-lost)", p["warnings"][0])
        self.assertEqual(plan.heat_lossy(["a", "b"], [p]), [(1, 0), (0, 1)])
        # Under a floor as well: the floor names the pair, the loss warns.
        p = plan.judge_pair("a", "b", server, client, True, (5.0, None, None),
                            2.5)
        self.assertEqual((p["status"], p["failed"]), ("FAIL", "bandwidth"))
        self.assertEqual(p["warnings"], ["packets lost: 32 of b's toward a, by the ports' counters over the latency and bandwidth runs; fix: look at the link from the side whose packets were lost: the cable, the switch port's error and discard counters, PFC or ECN (ethtool -S)"])
        # A port without counters (soft-iWARP): its own way unknown; the
        # other side's resends are losses then.
        p = plan.judge_pair("a", "b", out(siw, siw), client, True, NO_FLOORS,
                            2.5)
        self.assertEqual((p["status"], p["lost"]),
                         ("FAIL", {"server": None, "client": 32}))

    def test_pair_check_fails(self):
        client = ("PASS tcp         connected to 192.0.2.1 port 19700 in 8 ms\n"
                  "FAIL send        send failed after 7512 ms: retry exceeded; fix: check the GIDs\n"
                  f"{MARK} check 1\n")
        server = "FAIL send        send served with an error\n" f"{MARK} check 1\n"
        p = plan.judge_pair("a", "b", server, client, True, NO_FLOORS, None)
        self.assertEqual((p["status"], p["failed"]), ("FAIL", "send"))
        self.assertEqual(p["problem"], "the client's send: send failed after 7512 ms: retry exceeded")
        self.assertEqual(p["fix"], "check the GIDs")
        self.assertIn("output", plan.settle(p))
        # The receiver only timed out; the sender knows why.
        client = ("FAIL send        send failed after 20008 ms: no completion within the timeout (-t): the packets do not arrive; fix: raise -t\n"
                  f"{MARK} check 1\n")
        server = ("FAIL send        send failed after 8068 ms: retry exceeded: no acknowledgement came back; fix: ping the GIDs\n"
                  f"{MARK} check 1\n")
        p = plan.judge_pair("a", "b", server, client, True, NO_FLOORS, None)
        self.assertEqual(p["problem"], "the server's send: send failed after 8068 ms: retry exceeded: no acknowledgement came back")
        self.assertEqual(p["fix"], "ping the GIDs")
        # The receiver heard the sender's check end: the sender knows why.
        client = ("FAIL send        send failed after 8225 ms: the peer closed the TCP connection: see its own lines\n"
                  f"{MARK} check 1\n")
        p = plan.judge_pair("a", "b", server, client, True, NO_FLOORS, None)
        self.assertEqual(p["problem"], "the server's send: send failed after 8068 ms: retry exceeded: no acknowledgement came back")

    def test_mtu_black_hole(self):
        # Small messages pass, the bandwidth run fails; the probe's
        # SENDs pass up to 512 bytes.
        probe = LAT.replace(" 2       100", " 512     20")
        side = (f"{CHECK_PASS}{MARK} check 0\n{LAT}{MARK} lat 0\n"
                f"test result is -5\n{MARK} bw 1\n{probe}{MARK} probe 1\n"
                f"{plan.STDERR}\nrdma_bench: failed completion of wr_id 3 on QP 0x000011: transport retry counter exceeded (vendor error 0x0)\n"
                "rdma_bench: failed completion of wr_id 9: the same\n")
        # The server prints no probe row and heard the client close.
        server = (f"{CHECK_PASS}{MARK} check 0\n{LAT}{MARK} lat 0\n"
                  f"{MARK} bw 1\n{MARK} probe 1\n{plan.STDERR}\n"
                  "rdma_bench: failed to hear from the peer in the 65536-byte size: Connection reset by peer; the peer closed its connection\n")
        p = plan.judge_pair("a", "b", server, side, True, NO_FLOORS, 2.5)
        self.assertEqual((p["status"], p["failed"]), ("FAIL", "bw"))
        self.assertEqual(p["problem"], "the client's bw exited 1: rdma_bench: failed completion of wr_id 3 on QP 0x000011: transport retry counter exceeded (vendor error 0x0)")
        self.assertEqual(p["probe"], {"passed": 512, "failed": 1024})
        self.assertTrue(p["cause"].startswith("an MTU black hole: SENDs of up to 512 bytes arrive and of 1024 bytes do not"), p["cause"])
        self.assertIn("switch ports", p["fix"])
        # Every size of the probe arrived: loss under load, not the MTU.
        passing = side.replace(f"{MARK} probe 1", f"{MARK} probe 0")
        p = plan.judge_pair("a", "b", passing, passing, True, NO_FLOORS, 2.5)
        self.assertEqual(p["probe"], {"passed": 512, "failed": None})
        self.assertIn("the path loses data under load", p["cause"])

    def test_path_check_names_the_black_hole(self):
        # rdma_check's own path check found it: the pair fails there, with
        # the check's way, size and -m, and no run after it.
        line = ("FAIL path        frames of 1024 bytes never arrived from the server toward this side (the client), as READ responses, while frames of 512 bytes did: the path carries a smaller MTU than the ports' 1024 one way, and every transfer that fills a frame fails; "
                "fix: -m 512 (rdma_check, rdma_bench), or give the switch ports, tunnel or VLAN on that way an MTU of 1116 bytes (1024 of payload and a RoCE packet's headers)\n")
        client = f"{CHECK_PASS}{line}{MARK} check 1\n"
        p = plan.judge_pair("a", "b", client.replace("this side (the client)", "the client"),
                            client, True, NO_FLOORS, 2.5)
        self.assertEqual((p["status"], p["failed"]), ("FAIL", "path"))
        self.assertEqual(p["cause"], "an MTU black hole: the path loses frames that the hosts' MTU allows")
        self.assertTrue(p["problem"].startswith("the client's path: frames of 1024 bytes never arrived from the server toward this side (the client)"), p["problem"])
        self.assertTrue(p["fix"].startswith("-m 512 "), p["fix"])

    def test_gids_each_host_used(self):
        line = "PASS gid-pair    both RoCE v2 IPv4: ours ::ffff:192.0.2.2, the peer's ::ffff:192.0.2.1, routed from 192.0.2.2\n"
        check = CHECK_PASS.replace("verdict:", line + "verdict:")
        p = plan.judge_pair("a", "b", pair_output(), pair_output(check=check), True, NO_FLOORS, 2.5)
        self.assertEqual(p["gids"], {"client": "::ffff:192.0.2.2 (RoCE v2)", "server": "::ffff:192.0.2.1 (RoCE v2)"})
        self.assertEqual(plan.host_gids("a", [p]), ["::ffff:192.0.2.1 (RoCE v2)"])
        h = plan.judge_host("b", True, host_output(), 0, 60)
        self.assertEqual(plan.host_line(h, plan.host_gids("b", [p])), "PASS b: rxe0, 2.5 Gb/s, GID ::ffff:192.0.2.2 (RoCE v2)")

    def test_pair_warnings_said_once(self):
        warn = CHECK_PASS.replace("verdict:", "WARN path-mtu    ours 1024, the peer's 512: the path takes 512\nverdict:")
        mirror = CHECK_PASS.replace("verdict:", "WARN path-mtu    ours 512, the peer's 1024: the path takes 512\nverdict:")
        p = plan.judge_pair("a", "b", pair_output(check=mirror), pair_output(check=warn), True, NO_FLOORS, 2.5)
        self.assertEqual(p["status"], "PASS")
        self.assertEqual(p["warnings"], ["path-mtu: ours 1024, the peer's 512: the path takes 512"])

    def test_pair_step_cut_short(self):
        client = pair_output().split(f"{MARK} bw")[0] + f"\n{plan.STDERR}\nrxe-vm: guest b: the link stopped\n"
        p = plan.judge_pair("a", "b", pair_output(), client, True, NO_FLOORS, None)
        self.assertEqual((p["status"], p["failed"]), ("FAIL", "bw"))
        self.assertEqual(p["problem"], "the client's bw did not finish: rxe-vm: guest b: the link stopped")


def result(hosts, failing=(), silent=()):
    r = {}
    for h in hosts:
        if h in silent:
            r[h] = plan.judge_host(h, False, "", None, 15)
        elif h in failing:
            r[h] = plan.judge_host(h, True, host_output(CHECK_PORT_DOWN, 1), 1, 60)
        else:
            r[h] = plan.judge_host(h, True, host_output(), 0, 60)
    return r


def run_pairs(hosts, results, bad_links=(), slow=(), floors=(2.0, None, None)):
    """Every pair of HOSTS, judged as the runner would: those with a host
    that failed alone are skipped, BAD_LINKS fail their send, a pair with
    a host in SLOW gets 1 MiB/s."""
    out = []
    for rnd in plan.rounds_all(hosts):
        for s, c in rnd:
            if results[s]["status"] != "PASS" or results[c]["status"] != "PASS":
                out.append(plan.skipped_pair(s, c, "failed alone"))
                continue
            if {s, c} in [set(x) for x in bad_links]:
                client = ("FAIL send        send failed after 7512 ms: retry exceeded; fix: ping the GIDs\n"
                          f"{MARK} check 1\n")
                out.append(plan.judge_pair(s, c, f"{MARK} check 1\n", client, True, floors, 2.5))
                continue
            bw = BW.replace("4.30", "1.00") if {s, c} & set(slow) else BW
            out.append(plan.judge_pair(s, c, pair_output(bw=bw), pair_output(bw=bw), True, floors, 2.5))
    return out


class Diagnosis(unittest.TestCase):
    hosts = ["a", "b", "c", "d"]

    def test_healthy(self):
        r = result(self.hosts)
        pairs = run_pairs(self.hosts, r)
        self.assertEqual(plan.diagnose(self.hosts, r, pairs), [])
        self.assertTrue(plan.passed(self.hosts, r, pairs))
        m = plan.matrix(self.hosts, pairs)
        self.assertEqual(m[1].split(), ["a", "-", "4.3", "4.3", "4.3"])

    def test_host_fails_alone(self):
        r = result(self.hosts, failing=["d"])
        pairs = run_pairs(self.hosts, r)
        self.assertEqual(plan.diagnose(self.hosts, r, pairs), [
            "host d: its own check fails, so its pairs were not run: port: port 1 of rxe0: down, physical state Disabled, netdev eth0; fix: ip link set eth0 up"])
        self.assertFalse(plan.passed(self.hosts, r, pairs))
        self.assertEqual(plan.matrix(self.hosts, pairs)[4].split(),
                         ["d", "skip", "skip", "skip", "-"])

    def test_link(self):
        r = result(self.hosts)
        pairs = run_pairs(self.hosts, r, bad_links=[("b", "c")])
        lines = plan.diagnose(self.hosts, r, pairs)
        self.assertEqual(len(lines), 1)
        self.assertRegex(lines[0], r"^link [bc]-[bc]: the pair check's send fails while both hosts pass with others: a dead path for RDMA: TCP reaches the peer, RoCE does not \(a filter on UDP 4791, an ACL, or GIDs on different subnets without a route\): the client's send: send failed after 7512 ms: retry exceeded; fix: ping the GIDs$")

    def test_host_fails_with_every_peer(self):
        r = result(self.hosts)
        pairs = run_pairs(self.hosts, r, bad_links=[("a", "b"), ("b", "c"), ("b", "d")])
        lines = plan.diagnose(self.hosts, r, pairs)
        self.assertEqual(len(lines), 1)
        self.assertTrue(lines[0].startswith("host b: fails with every peer (send), though its own check passes; first: "), lines[0])

    def test_slow_host(self):
        r = result(self.hosts)
        pairs = run_pairs(self.hosts, r, slow=["c"])
        lines = plan.diagnose(self.hosts, r, pairs)
        self.assertEqual(lines, ["host c: every pair with it is under the bandwidth floor: its own link is slow; fix: look at the slower host's link: its speed, errors, pause frames and shaping (ethtool -S, tc qdisc show)"])
        self.assertEqual(plan.matrix(self.hosts, pairs)[3].split(),
                         ["c", "FAIL", "1.0", "FAIL", "1.0", "-", "FAIL", "1.0"])

    def test_silent_host(self):
        r = result(self.hosts, silent=["b"])
        pairs = run_pairs(self.hosts, r)
        self.assertEqual(plan.diagnose(self.hosts, r, pairs)[0], "host b: no answer within 15 s: the host is down, unreachable or hung; its pairs were not run; fix: reach it by hand (ssh b true) and look at it")

    def test_cut_short_in_the_local_check(self):
        # Interrupted while c and d were still checking themselves: no
        # pair ran, a and b passed; nothing has failed so far.
        r = result(["a", "b"])
        r["c"] = plan.not_run("c")
        r["d"] = plan.not_run("d")
        self.assertEqual(plan.diagnose(self.hosts, r, []), [])
        self.assertFalse(plan.fault_found(self.hosts, r, []))
        self.assertFalse(plan.passed(self.hosts, r, []))
        self.assertEqual(plan.host_line(r["c"]), "NOT-RUN c: the run was cut short before its check ended")
        # A host that did fail before the cut still counts.
        r["b"] = result(["b"], failing=["b"])["b"]
        self.assertTrue(plan.fault_found(self.hosts, r, []))
        self.assertEqual(len(plan.diagnose(self.hosts, r, [])), 1)

    def test_outputs(self):
        r = result(self.hosts, failing=["d"])
        pairs = run_pairs(self.hosts, r)
        doc = json.loads(plan.to_json(self.hosts, r, pairs, ["x"], {"rounds": 3}))
        self.assertEqual(doc["verdict"], "FAIL")
        self.assertEqual([h["status"] for h in doc["hosts"]], ["PASS", "PASS", "PASS", "FAIL"])
        self.assertEqual(len(doc["pairs"]), 6)
        self.assertEqual(doc["rounds"], 3)
        rows = plan.to_csv(pairs).splitlines()
        self.assertEqual(rows[0], "server,client,status,failed,bw_mibs,bw_client_to_server,bw_server_to_client,lat_usec,problem")
        self.assertEqual(len(rows), 7)
        heat = plan.heat_data(self.hosts, pairs).splitlines()
        self.assertEqual(heat[0].split(), ["NaN", "4.3", "4.3", "NaN"])

    def test_picture_marks_the_faults(self):
        # d fails alone, a-b fails with no figure, c is under the floor.
        r = result(self.hosts, failing=["d"])
        pairs = run_pairs(self.hosts, r, bad_links=[("a", "b")], slow=["c"])
        fills, frames = plan.heat_cells(self.hosts, pairs)
        kinds = {(x, y): k for x, y, k in fills}
        self.assertEqual([kinds[(i, i)] for i in range(4)], ["diagonal"] * 4)
        self.assertEqual((kinds[(1, 0)], kinds[(0, 1)]), ("fail", "fail"))
        self.assertEqual({kinds[(3, y)] for y in range(3)}, {"skip"})
        self.assertEqual(sorted(frames), [(0, 2), (1, 2), (2, 0), (2, 1)])
        self.assertEqual(plan.heat_tics(self.hosts, r), ["a", "b", "c", "d (FAIL)"])
        # A pair outside the pattern is told apart from the diagonal.
        fills, _ = plan.heat_cells(self.hosts, pairs[:1])
        self.assertIn("outside", {k for _, _, k in fills})

    def test_sweep_finds_a_bad_host_and_a_bad_link(self):
        hosts = [f"h{i:02d}" for i in range(12)]
        r = result(hosts)
        first = plan.plan(hosts, "sweep")
        self.assertEqual(first, plan.rounds_ring(hosts))
        bad = {frozenset(("h02", x)) for x in hosts if x != "h02"}
        bad.add(frozenset(("h07", "h08")))
        def judge(rounds):
            out = []
            for rnd in rounds:
                for s_, c in rnd:
                    if frozenset((s_, c)) in bad:
                        client = ("FAIL send        send failed after 7512 ms: retry exceeded; fix: ping the GIDs\n"
                                  f"{MARK} check 1\n")
                        out.append(plan.judge_pair(s_, c, f"{MARK} check 1\n", client, True, NO_FLOORS, 2.5))
                    else:
                        out.append(plan.judge_pair(s_, c, pair_output(), pair_output(), True, NO_FLOORS, 2.5))
            return out
        pairs = judge(first)
        more = plan.sweep_rounds(hosts, r, pairs)
        pairs += judge(more)
        # The second pass is the suspects and their neighbours, not all.
        self.assertEqual(len(more), 3)
        lines = plan.diagnose(hosts, r, pairs)
        self.assertTrue(lines[0].startswith("host h02: fails with every peer (send)"), lines)
        self.assertTrue(lines[1].startswith("link h07-h08: the pair check's send fails while both hosts pass with others"), lines)
        self.assertEqual(len(lines), 2, lines)
        # Nothing failed: nothing more to run.
        self.assertEqual(plan.sweep_rounds(hosts, r, judge(first)[:0]), [])


SCRIPT = os.path.join(HERE, "..", "..", "scripts", "cluster_check.py")


class BadInput(unittest.TestCase):
    """cluster_check.py itself (ClusterShell's library, for
    /usr/bin/python3): each bad input one line, status 2, before any
    host is reached."""

    def run_check(self, *args):
        r = subprocess.run(["/usr/bin/python3", SCRIPT, *args],
                           capture_output=True, text=True, timeout=60)
        return r.returncode, r.stdout, r.stderr

    def test_help_names_the_ports_a_pair_takes(self):
        # what the plan gives each pair, in the words of docs/cluster-check.md
        status, out, err = self.run_check("--help")
        self.assertEqual(status, 0, err)
        self.assertIn(f"each pair of a round takes {plan.PORTS_PER_PAIR}, in",
                      " ".join(out.split()))
        self.assertEqual(plan.PORTS_PER_PAIR, 4)

    def test_refusals(self):
        for args, line in (
            (["node[01-"], "cluster_check: invalid NODESET 'node[01-': "),
            (["n1"], "cluster_check: NODESET 'n1' names 1 host: a pair needs two (see --help)"),
            (["--pattern", "n1:n9", "n[1-3]"], "cluster_check: invalid --pattern 'n1:n9': n9 (in 'n1:n9') is not one of the hosts (see --help)"),
            (["--bw-min", "120%", "n[1-3]"], "cluster_check: argument --bw-min: '120%' is more than 100% (see --help)"),
            (["--bw-min", "fast", "n[1-3]"], "cluster_check: argument --bw-min: 'fast' is not a number (see --help)"),
            (["--max-lost", "-1", "n[1-3]"], "cluster_check: argument --max-lost: '-1' is not a whole number of 0 or more (see --help)"),
            (["--timeout", "0", "n[1-3]"], "cluster_check: argument --timeout: '0' is not above 0 (see --help)"),
            (["-p", "65531", "n[1-3]"], "cluster_check: invalid --port 65531: the widest round (1 pair) needs ports up to 65538"),
        ):
            status, out, err = self.run_check(*args)
            self.assertEqual(status, 2, args)
            self.assertEqual(out, "", args)
            self.assertEqual(len(err.splitlines()), 1, err)
            self.assertTrue(err.startswith(line), (args, err))


class Commands(unittest.TestCase):
    def test_pair_commands(self):
        s, c = plan.pair_commands("rdma_check", "rdma_bench", ["-d", "rxe0"],
                                  (19700, 19701, 19702, 19703), "n01-ib",
                                  (30, 40, 50), (100, 40))
        self.assertTrue(s.startswith("rdma_check --pair -p 19700 -d rxe0 --accept-timeout 40 -t 50; rc=$?; "))
        self.assertIn("rdma_bench lat --op send -s 2 --report-counters -n 100 -p 19701 -d rxe0 --connect-timeout 30 --timeout 50 n01-ib;", c)
        self.assertIn("rdma_bench bw --op write -b -s 65536 --report-counters -n 40 -p 19702 -d rxe0 --connect-timeout 30 --timeout 50 n01-ib;", c)
        self.assertIn(f'echo "{MARK} bw $rc"; if [ $rc -ne 0 ]; then rdma_bench lat --op send -a -s 4096 -n 20 -p 19703 -d rxe0 --connect-timeout 30 --timeout 50 n01-ib; echo "{MARK} probe $?"; fi; exit $rc', c)

    def test_pair_commands_bound_the_check_s_losses_as_the_runs(self):
        s, c = plan.pair_commands("rdma_check", "rdma_bench", ["-d", "rxe0"],
                                  (19700, 19701, 19702, 19703), "n01-ib",
                                  (30, 40, 50), max_lost=25)
        self.assertTrue(s.startswith("rdma_check --pair -p 19700 -d rxe0 --max-lost 25 --accept-timeout 40 -t 50; rc=$?; "))
        self.assertTrue(c.startswith("rdma_check -p 19700 -d rxe0 --max-lost 25 --connect-timeout 30 -t 50 n01-ib; rc=$?; "))
        for cmd in (s, c):
            for step in cmd.split("; "):
                if step.startswith("rdma_bench"):
                    self.assertNotIn("--max-lost", step)

    def test_pair_commands_spell_each_program_s_options(self):
        # rdma_check's -g and -t are rdma_bench's -x and --timeout (its -g
        # is perftest's multicast, its -t the send queue's depth).
        s, c = plan.pair_commands("rdma_check", "rdma_bench",
                                  ["-d", "rxe0", "-i", "1", "-g", "3"],
                                  (19700, 19701, 19702, 19703), "n01-ib",
                                  (30, 40, 50))
        self.assertTrue(s.startswith("rdma_check --pair -p 19700 -d rxe0 -i 1 -g 3 --accept-timeout 40 -t 50; rc=$?; "))
        self.assertIn("rdma_bench lat --op send -s 2 --report-counters -p 19701 -d rxe0 -i 1 -x 3 --accept-timeout 40 --timeout 50;", s)
        self.assertTrue(c.startswith("rdma_check -p 19700 -d rxe0 -i 1 -g 3 --connect-timeout 30 -t 50 n01-ib; rc=$?; "))
        self.assertIn("rdma_bench bw --op write -b -s 65536 --report-counters -p 19702 -d rxe0 -i 1 -x 3 --connect-timeout 30 --timeout 50 n01-ib;", c)
        for cmd in (s, c):
            for step in cmd.split("; "):
                if step.startswith("rdma_bench"):
                    self.assertNotIn(" -g ", step)
                    self.assertNotIn(" -t ", step)


if __name__ == "__main__":
    unittest.main()
