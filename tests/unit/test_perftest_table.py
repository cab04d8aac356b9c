#!/usr/bin/env python3
"""docs/benchmark-mode.md's table of perftest's options, held to rdma_bench.

    test_perftest_table.py RDMA_BENCH DOC

Each row of the "perftest's options" table gives a perftest command line
(`ib_write_bw -x 1`) and what rdma_bench does with it. The command line
is run as rdma_bench would take it (the tool's name becomes `lat|bw
--op OP`) against a device that does not exist, so that nothing connects:

- "same" and "accepted, changes nothing": the options are taken, and
  the run fails later, at the device (exit 1, not the usage error's 2),
  or prints help or version (exit 0);
- "not offered: WHY": exit 2 and exactly one line on stderr, naming the
  option as perftest's, with the table's WHY.

Where perftest is installed, every option its tools' --help lists must
have its row: the table cannot leave one out."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

ARGS = {}
ROW = re.compile(r"^\| `(?P<opt>[^`]+)` \| `(?P<cmd>[^`]+)` \| (?P<answer>.+?) \|"
                 r" (?P<default>.*?) ?\|$")
# The default column: "perftest `A`, `B`; rdma_bench `X`" (a side without
# backquoted values states none, or says "the same").
DEFAULTS = re.compile(r"^perftest (?P<perftest>.*?); rdma_bench (?P<ours>.*)$")
VALUE = re.compile(r"`([^`]+)`")
TOOL = re.compile(r"^ib_(send|write|read|atomic)_(lat|bw)$")
OPS = {"send": "send", "write": "write", "read": "read", "atomic": "fetch_add"}
# An option line of perftest's --help: "  -x, --gid-index=<index> ...".
PERFTEST_OPTION = re.compile(r"^\s+(?:-[A-Za-z0-9], )?--([A-Za-z0-9_-]+)")


def table_rows(doc):
    """The rows of the section "## perftest's options"."""
    rows, inside = [], False
    with open(doc, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("## "):
                inside = line == "## perftest's options"
                continue
            m = ROW.match(line) if inside else None
            if m:
                rows.append(m.groupdict())
    return rows


def as_rdma_bench(cmd):
    """`ib_write_bw -x 1` as rdma_bench's arguments."""
    words = cmd.split()
    m = TOOL.match(words[0])
    assert m, f"not a perftest tool: {words[0]}"
    return [m.group(2), "--op", OPS[m.group(1)], *words[1:]]


def run(args, cwd):
    return subprocess.run([ARGS["bench"], *args], capture_output=True,
                          text=True, timeout=30, cwd=cwd)


class PerftestTable(unittest.TestCase):
    def setUp(self):
        self.rows = table_rows(ARGS["doc"])
        self.assertGreater(len(self.rows), 50, "the table's rows")

    def test_each_row_gets_its_answer(self):
        with tempfile.TemporaryDirectory() as cwd:
            for row in self.rows:
                # -d last wins: no device of that name anywhere.
                args = as_rdma_bench(row["cmd"]) + [
                    "-d", "no_such_device", "--connect-timeout", "1",
                    "--accept-timeout", "1", "127.0.0.1"]
                res = run(args, cwd)
                with self.subTest(row=row["cmd"]):
                    answer = row["answer"]
                    if answer.startswith("not offered: "):
                        why = answer[len("not offered: "):]
                        lines = res.stderr.splitlines()
                        self.assertEqual(res.returncode, 2, res.stderr)
                        self.assertEqual(len(lines), 1, res.stderr)
                        self.assertRegex(lines[0],
                                         r"^rdma_bench: perftest's option ")
                        self.assertIn(row["opt"].split(", ")[-1], lines[0])
                        self.assertTrue(lines[0].endswith(": " + why),
                                        f"{lines[0]!r} ends with {why!r}")
                    else:
                        self.assertRegex(answer, r"^(same|taken|accepted)")
                        self.assertIn(res.returncode, (0, 1),
                                      f"{args}: {res.stderr}")
                        self.assertNotRegex(res.stderr, r"invalid|option")

    def test_same_rows_have_one_default(self):
        for row in self.rows:
            if not row["default"]:
                continue
            with self.subTest(row=row["opt"]):
                m = DEFAULTS.match(row["default"])
                self.assertIsNotNone(m, f"the default cell: {row['default']!r}")
                theirs = VALUE.findall(m.group("perftest"))
                ours = VALUE.findall(m.group("ours"))
                if theirs and ours and row["answer"].startswith("same"):
                    self.assertEqual(sorted(theirs), sorted(ours),
                                     "a 'same' row whose defaults differ")

    def test_defaults_are_the_tools_own(self):
        tools = perftest_tools(self)
        theirs = {}  # long option: its lines of perftest's --help
        for tool in tools:
            for line in help_text([tool]).splitlines():
                m = PERFTEST_OPTION.match(line)
                if m:
                    theirs.setdefault(m.group(1), []).append(line)
        ours = bench_help_blocks(help_text([ARGS["bench"], "--help"]))
        cells = 0
        for row in self.rows:
            name = re.search(r"--([A-Za-z0-9_-]+)", row["opt"]).group(1)
            stated = [l for l in theirs.get(name, [])
                      if "default" in l.lower()]
            offered = not row["answer"].startswith("not offered")
            with self.subTest(row=row["opt"]):
                if stated and offered:
                    self.assertTrue(row["default"],
                                    f"perftest states a default: {stated[0]}")
                if not row["default"]:
                    continue
                cells += 1
                m = DEFAULTS.match(row["default"])
                self.assertIsNotNone(m, row["default"])
                for value in VALUE.findall(m.group("perftest")):
                    after = [l[l.lower().index("default"):] for l in stated]
                    self.assertTrue(any(value in a for a in after),
                                    f"perftest's --help gives no default "
                                    f"{value!r} for --{name}: {stated}")
                for value in VALUE.findall(m.group("ours")):
                    self.assertIn(value, ours.get(name, ""),
                                  f"rdma_bench --help for --{name}")
        self.assertGreater(cells, 15, "rows with a default")

    def test_every_perftest_option_has_a_row(self):
        tools = perftest_tools(self)
        named = {re.search(r"--([A-Za-z0-9_-]+)", r["opt"]).group(1)
                 for r in self.rows}
        missing, seen = set(), 0
        for tool in tools:
            res = subprocess.run([tool, "--help"], capture_output=True,
                                 text=True, timeout=30)
            for line in (res.stdout + res.stderr).splitlines():
                m = PERFTEST_OPTION.match(line)
                if m:
                    seen += 1
                    if m.group(1) not in named:
                        missing.add(f"{os.path.basename(tool)} --{m.group(1)}")
        self.assertGreater(seen, 100, "options read from perftest's --help")
        self.assertEqual(sorted(missing), [], "perftest options with no row")


def perftest_tools(test):
    """The eight perftest tools' paths, or the test skipped without them."""
    tools = [shutil.which(f"ib_{op}_{mode}")
             for op in OPS for mode in ("lat", "bw")]
    if not all(tools):
        test.skipTest("perftest is not installed (Debian: perftest)")
    return tools


def help_text(argv):
    res = subprocess.run([*argv, "--help"] if len(argv) == 1 else argv,
                         capture_output=True, text=True, timeout=30)
    return res.stdout + res.stderr


def bench_help_blocks(text):
    """rdma_bench --help as {long option: its text, on one line}."""
    blocks, name = {}, None
    for line in text.splitlines():
        m = re.match(r"^  (?:-[A-Za-z0-9], | {4})--([A-Za-z0-9_-]+)", line)
        if m:
            name = m.group(1)
        elif not line.startswith(" " * 20):
            name = None
        if name:
            blocks[name] = " ".join((blocks.get(name, "") + " " +
                                     line.strip()).split())
    return blocks


def main():
    ARGS["bench"], ARGS["doc"] = os.path.abspath(sys.argv[1]), sys.argv[2]
    unittest.main(argv=[sys.argv[0], "-v"])


if __name__ == "__main__":
    main()
