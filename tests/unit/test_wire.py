#!/usr/bin/env python3
"""Unit test of scripts/wire.py, the decoder behind scripts/wire.sh, on
captures of real runs between the two soft-RoCE guests (tests/unit/wire/:
each run's pcap and what its server and client printed): -R with the
manual's flow, the memory window's ACK and NAK, cmp_swap on a busy
host, whose NIC sent a Compare Swap again and again, and over iWARP
(siw) perftest's READ latency test and the program's own -R -o read.  It
runs tshark, as wire.sh does, and checks the rows and the chart against
the transcripts."""
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
WIRE = os.path.join(HERE, "..", "..", "scripts", "wire.py")
DATA = os.path.join(HERE, "wire")


def decode(run, client="192.0.2.2", server="192.0.2.1"):
    """wire.py on RUN, whose client and server had these addresses:
    (exit status, table, rows as dicts, chart lines)."""
    with tempfile.TemporaryDirectory() as tmp:
        rows_file = os.path.join(tmp, "rows")
        msc_file = os.path.join(tmp, "msc")
        proc = subprocess.run(
            [sys.executable, WIRE, os.path.join(DATA, f"{run}.pcap"),
             "--peer", f"client={client}={DATA}/{run}.client.out",
             "--peer", f"server={server}={DATA}/{run}.server.out",
             "--rows", rows_file, "--msc", msc_file],
            capture_output=True, text=True, check=False)
        rows = []
        if os.path.exists(rows_file):
            with open(rows_file, encoding="utf-8") as f:
                for line in f:
                    rows.append(dict(cell.split("=", 1)
                                     for cell in line.rstrip("\n").split("\t")))
        chart = []
        if os.path.exists(msc_file):
            with open(msc_file, encoding="utf-8") as f:
                chart = f.read().splitlines()
    return proc.returncode, proc.stdout + proc.stderr, rows, chart


def printed(run, side, pattern):
    """The groups of the first line of RUN's SIDE transcript matching."""
    with open(os.path.join(DATA, f"{run}.{side}.out"), encoding="utf-8") as f:
        for line in f:
            m = re.match(pattern, line.rstrip("\n"))
            if m:
                return m.groups()
    raise AssertionError(f"{run}.{side}.out has no line matching {pattern}")


def qpn(run, side):
    (value,) = printed(run, side, r"^Remote QP number = (0x[0-9a-f]+)$")
    return f"0x{int(value, 16):06x}"


def having(rows, **want):
    return [r for r in rows if all(r.get(k) == v for k, v in want.items())]


class ManualFlowOverRdmaCm(unittest.TestCase):
    """-R: the CM's MADs around the manual's SEND, READ and WRITE."""

    @classmethod
    def setUpClass(cls):
        cls.status, cls.table, cls.rows, cls.chart = decode("cm")

    def test_decodes(self):
        self.assertEqual(self.status, 0, self.table)

    def test_cm_connects_before_the_lesson_and_disconnects_after(self):
        names = [r["name"] for r in self.rows if r["name"].startswith("CM ")]
        self.assertEqual(names, ["CM ConnectRequest", "CM ConnectReply",
                                 "CM ReadyToUse", "CM DisconnectRequest",
                                 "CM DisconnectReply"])
        frames = {r["name"]: int(r["frame"]) for r in self.rows}
        lesson = [int(r["frame"]) for r in self.rows
                  if not r["name"].startswith("CM ")]
        self.assertLess(frames["CM ReadyToUse"], min(lesson))
        self.assertGreater(frames["CM DisconnectRequest"], max(lesson))

    def test_send_to_the_clients_qp_and_its_ack(self):
        (send,) = having(self.rows, name="RC Send Only", destqp=qpn("cm", "server"))
        self.assertEqual((send["from"], send["to"], send["payload"]),
                         ("server", "client", "SEND operation"))
        (ack,) = having(self.rows, name="RC Acknowledge", psn=send["psn"])
        self.assertEqual((ack["from"], ack["aeth"]), ("client", "ACK"))

    def test_read_names_what_the_client_posted(self):
        length, va, rkey = printed(
            "cm", "client", r"^\[verbs\] posted RDMA_READ: .* len (\d+) lkey "
            r".*, remote (0x[0-9a-f]+) rkey (0x[0-9a-f]+)$")
        (req,) = having(self.rows, name="RC RDMA Read Request")
        self.assertEqual((req["va"], req["rkey"], req["len"], req["destqp"]),
                         (va, rkey, length, qpn("cm", "client")))
        (resp,) = having(self.rows, name="RC RDMA Read Response Only")
        self.assertEqual((resp["psn"], resp["payload"]),
                         (req["psn"], "RDMA read operation"))

    def test_write_carries_the_servers_rkey_and_is_acked(self):
        (rkey,) = printed("cm", "client", r"^Remote rkey = (0x[0-9a-f]+)$")
        (write,) = having(self.rows, name="RC RDMA Write Only")
        self.assertEqual((write["rkey"], write["payload"]),
                         (rkey, "RDMA write operation"))
        self.assertEqual(len(having(self.rows, name="RC Acknowledge",
                                    psn=write["psn"], aeth="ACK")), 1)

    def test_chart_places_the_read_between_post_and_completion(self):
        def at(text):
            return next(i for i, line in enumerate(self.chart) if text in line)
        post, done = at('post RDMA_READ"'), at('completion RDMA_READ"')
        self.assertLess(post, at("RC RDMA Read Request"))
        self.assertLess(at("RC RDMA Read Request"), at("RC RDMA Read Response Only"))
        self.assertLess(at("RC RDMA Read Response Only"), done)
        # The server's program (lane p1) takes no part in the READ.
        self.assertFalse([line for line in self.chart[post:done + 1]
                          if re.search(r"\bp1\b", line)])


class MemoryWindow(unittest.TestCase):
    """-o mw: the WRITE through the window ACKed, the next one NAKed."""

    @classmethod
    def setUpClass(cls):
        cls.status, cls.table, cls.rows, cls.chart = decode("mw")

    def test_ack_then_remote_access_error(self):
        (rkey,) = printed("mw", "client",
                          r"^Server's memory window: .*, rkey (0x[0-9a-f]+)$")
        first, second = having(self.rows, name="RC RDMA Write Only", rkey=rkey)
        self.assertEqual(first["payload"], "written through the window")
        self.assertEqual(second["payload"],
                         "written after the window was invalidated")
        (ack,) = having(self.rows, name="RC Acknowledge", psn=first["psn"])
        self.assertEqual(ack["aeth"], "ACK")
        (nak,) = having(self.rows, name="RC NAK", psn=second["psn"])
        self.assertEqual((nak["aeth"], nak["error"]),
                         ("NAK", "remote access error"))

    def test_the_error_completion_is_red_and_after_the_nak(self):
        nak = next(i for i, line in enumerate(self.chart) if "RC NAK" in line)
        done = next(i for i, line in enumerate(self.chart)
                    if "completion RDMA WRITE: remote access error" in line)
        self.assertLess(nak, done)
        self.assertIn('linecolour="red"', self.chart[done])


class CompareSwapSentAgain(unittest.TestCase):
    """-o cmp_swap on a busy host: one request sent seven times."""

    @classmethod
    def setUpClass(cls):
        cls.status, cls.table, cls.rows, cls.chart = decode("cmp_swap")

    def test_operands_and_original_values_as_printed(self):
        for cmp, new, old in [("42", "7", "42"), ("42", "99", "7")]:
            printed("cmp_swap", "client",
                    rf"^cmp_swap expecting ({cmp}), new ({new}): old value ({old}),")
            requests = having(self.rows, name="RC Compare Swap",
                              compare=cmp, swap=new)
            self.assertTrue(requests)
            self.assertEqual({r["psn"] for r in requests}, {requests[0]["psn"]})
            acks = having(self.rows, name="RC Atomic Acknowledge",
                          psn=requests[0]["psn"])
            self.assertEqual({a["original"] for a in acks}, {old})

    def test_repeats_are_marked_and_carry_no_payload(self):
        requests = having(self.rows, name="RC Compare Swap", swap="7")
        self.assertGreater(len(requests), 1)
        self.assertNotIn("again", requests[0])
        self.assertTrue(all(r.get("again") == "yes" for r in requests[1:]))
        self.assertFalse([r for r in self.rows if "payload" in r])

    def test_one_post_and_one_completion_per_request(self):
        posts = [line for line in self.chart if "post ATOMIC_CMP_AND_SWP" in line]
        dones = [line for line in self.chart if "completion COMP_SWAP" in line]
        self.assertEqual((len(posts), len(dones)), (2, 2))


class ReadOverIwarp(unittest.TestCase):
    """perftest's ib_read_lat -R -s 64 -n 5 on siw0 between the guests'
    eth1 (198.51.100.x): iWARP's TCP handshake and MPA frames, then each
    READ as an RDMAP Read Request answered by one Read Response."""

    @classmethod
    def setUpClass(cls):
        cls.status, cls.table, cls.rows, cls.chart = decode(
            "read_lat_siw", client="198.51.100.2", server="198.51.100.1")
        cls.size, cls.iterations = printed(
            "read_lat_siw", "client", r"^ (\d+) +(\d+) +[0-9.]+ ")

    def test_decodes(self):
        self.assertEqual(self.status, 0, self.table)

    def test_handshake_and_mpa_before_the_first_rdmap_message(self):
        names = [r["name"] for r in self.rows]
        first = next(i for i, n in enumerate(names) if n.startswith("iWARP"))
        self.assertEqual(names[:first],
                         ["TCP SYN", "TCP SYN, ACK", "TCP ACK",
                          "MPA Request", "MPA Reply"])
        self.assertEqual([(r["from"], r["to"]) for r in self.rows[:first]],
                         [("client", "server"), ("server", "client"),
                          ("client", "server"), ("client", "server"),
                          ("server", "client")])
        self.assertIn("MPA Request: revision 2, CRC no, markers no",
                      self.table)

    def test_each_read_is_a_request_and_its_response(self):
        requests = having(self.rows, name="iWARP RDMA Read Request")
        responses = having(self.rows, name="iWARP RDMA Read Response")
        self.assertEqual(len(requests), int(self.iterations))
        self.assertEqual(len(responses), int(self.iterations))
        for req, resp in zip(requests, responses):
            self.assertEqual((req["from"], req["size"], req["qn"]),
                             ("client", self.size, "1"))
            self.assertEqual((resp["from"], resp["len"]),
                             ("server", self.size))
            # The response lands where the request said: its sink.
            self.assertEqual((resp["stag"], resp["to"]),
                             (req["sink_stag"], req["sink_to"]))
            self.assertLess(int(req["frame"]), int(resp["frame"]))
        self.assertEqual([r["msn"] for r in requests],
                         [str(n) for n in range(1, len(requests) + 1)])

    def test_table_reads_as_a_read(self):
        (req,) = having(self.rows, name="iWARP RDMA Read Request", msn="1")
        self.assertRegex(
            self.table,
            rf"\n +{req['frame']}  client -> server  iWARP RDMA Read Request"
            rf" +QN 1 MSN 1 MO 0 +read {self.size} bytes from STag "
            rf"{req['src_stag']} TO {req['src_to']} into STag "
            rf"{req['sink_stag']} TO {req['sink_to']}\n")

    def test_chart_draws_the_mpa_frames_and_each_read(self):
        self.assertTrue([line for line in self.chart
                         if "MPA Request" in line and "grey" in line])
        reads = [line for line in self.chart
                 if "iWARP RDMA Read Request" in line]
        self.assertEqual(len(reads), int(self.iterations))


class ReadLessonOverIwarp(unittest.TestCase):
    """rdma_rc_example -R -o read on siw0 between the guests' eth1, as
    scripts/wire.sh --siw -o read runs it: the READ names, as its source,
    the server's buffer that the client printed, and the response brings
    the server's text to the sink that the request named."""

    @classmethod
    def setUpClass(cls):
        cls.status, cls.table, cls.rows, cls.chart = decode(
            "read_siw", client="198.51.100.2", server="198.51.100.1")
        cls.local, cls.length, cls.lkey, cls.va, cls.rkey = printed(
            "read_siw", "client", r"^\[verbs\] posted RDMA_READ: .* local "
            r"(0x[0-9a-f]+) len (\d+) lkey (0x[0-9a-f]+), remote "
            r"(0x[0-9a-f]+) rkey (0x[0-9a-f]+)$")

    def test_decodes(self):
        self.assertEqual(self.status, 0, self.table)

    def test_the_source_is_the_buffer_the_client_printed(self):
        (rkey,) = printed("read_siw", "client", r"^Remote rkey = (0x[0-9a-f]+)$")
        (req,) = having(self.rows, name="iWARP RDMA Read Request")
        self.assertEqual(rkey, self.rkey)
        self.assertEqual((req["from"], req["src_stag"], req["src_to"],
                          req["size"]),
                         ("client", rkey, self.va, self.length))
        self.assertEqual((req["qn"], req["msn"]), ("1", "1"))

    def test_the_sink_is_the_clients_own_buffer(self):
        (req,) = having(self.rows, name="iWARP RDMA Read Request")
        self.assertEqual((req["sink_stag"], req["sink_to"]),
                         (self.lkey, self.local))

    def test_the_response_brings_the_servers_text_to_the_sink(self):
        (req,) = having(self.rows, name="iWARP RDMA Read Request")
        (resp,) = having(self.rows, name="iWARP RDMA Read Response")
        self.assertEqual((resp["from"], resp["stag"], resp["to"],
                          resp["len"], resp["payload"]),
                         ("server", req["sink_stag"], req["sink_to"],
                          self.length, "RDMA read operation"))
        self.assertLess(int(req["frame"]), int(resp["frame"]))

    def test_chart_places_the_read_between_post_and_completion(self):
        def at(text):
            return next(i for i, line in enumerate(self.chart) if text in line)
        self.assertLess(at('post RDMA_READ"'), at("iWARP RDMA Read Request"))
        self.assertLess(at("iWARP RDMA Read Request"),
                        at("iWARP RDMA Read Response"))
        self.assertLess(at("iWARP RDMA Read Response"),
                        at('completion RDMA_READ"'))


class NoPacket(unittest.TestCase):
    def test_a_capture_with_no_roce_packet_fails(self):
        with tempfile.TemporaryDirectory() as tmp:
            empty = os.path.join(tmp, "empty.pcap")
            with open(os.path.join(DATA, "mw.pcap"), "rb") as src, \
                    open(empty, "wb") as dst:
                dst.write(src.read(24))
            proc = subprocess.run(
                [sys.executable, WIRE, empty, "--peer", "b=192.0.2.2",
                 "--peer", "a=192.0.2.1"],
                capture_output=True, text=True, check=False)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("no RoCE or iWARP packet", proc.stderr)


if __name__ == "__main__":
    unittest.main()
