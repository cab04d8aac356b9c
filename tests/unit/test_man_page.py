#!/usr/bin/env python3
"""A man page in step with its program's --help, and free of warnings.

    test_man_page.py PROGRAM PAGE [--mandoc MANDOC] [--groff GROFF]

Every option --help lists (long name and short letter) is an item of the
page's option lists, and every option the page names anywhere is one that
--help lists; the operations --help lists under "operations:" are the items
of the page's Operations list. The page is linted by mandoc -Tlint (at
warning level: a STYLE message about a page not installed on this host is
no fault of the page) and rendered by groff -ww -z, as man -l would, each
of them when given: any warning fails the test."""
import argparse
import re
import subprocess
import sys
import unittest

ARGS = None
# --help's option lines: "  -p, --port PORT ..." or "      --json FILE ...".
# A long name may have underscores and capitals, as perftest's do
# (rdma_bench's --report_gbits, --out_json; perftest's --CPU-freq).
NAME = r"([A-Za-z][A-Za-z0-9_-]*)"
HELP_OPTION = re.compile(r"^\s+(?:-([A-Za-z]), )?--" + NAME)
HELP_MENTION = re.compile(r"(?<![\w-])--" + NAME)
# The page (mdoc): ".It Fl p , Fl -port Ar PORT", ".It Fl -json Ar FILE".
PAGE_MENTION = re.compile(r"\bFl -" + NAME)
PAGE_ITEM = re.compile(r"^\.It Fl (?:([A-Za-z]) , Fl )?-" + NAME)


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60)


def help_text():
    res = run([ARGS.program, "--help"])
    assert res.returncode == 0, f"{ARGS.program} --help: exit {res.returncode}"
    return res.stdout


def page_text():
    with open(ARGS.page, encoding="utf-8") as f:
        return f.read()


def help_options(text):
    """{long name: short letter or None} of every option line of --help."""
    opts = {}
    for line in text.splitlines():
        m = HELP_OPTION.match(line)
        if m:
            opts[m.group(2)] = m.group(1)
    return opts


def page_options(text):
    """{long name: short letter or None} of every option item of the page."""
    opts = {}
    for line in text.splitlines():
        m = PAGE_ITEM.match(line)
        if m:
            opts[m.group(2)] = m.group(1)
    return opts


def help_operations(text):
    """The names listed under "operations:" in --help, in order."""
    names, inside = [], False
    for line in text.splitlines():
        if line == "operations:":
            inside = True
        elif inside and not line.strip():
            break
        elif inside:
            m = re.match(r"^  (\w+)  ", line)
            if m:
                names.append(m.group(1))
    return names


def page_operations(text):
    """The .It Cm items of the page's "Operations" subsection, in order."""
    names, inside = [], False
    for line in text.splitlines():
        if line == ".Ss Operations":
            inside = True
        elif inside and line.startswith((".Ss", ".Sh")):
            break
        elif inside:
            m = re.match(r"^\.It Cm (\w+)$", line)
            if m:
                names.append(m.group(1))
    return names


class ManPage(unittest.TestCase):
    def test_every_help_option_is_in_the_page(self):
        want, got = help_options(help_text()), page_options(page_text())
        self.assertTrue(want, "no option found in --help")
        missing = sorted(set(want) - set(got))
        self.assertEqual(missing, [],
                         f"{ARGS.page} lacks options that --help lists")

    def test_every_page_option_is_in_help(self):
        want = help_options(help_text())
        named = set(PAGE_MENTION.findall(page_text()))
        extra = sorted(named - set(want))
        self.assertEqual(extra, [],
                         f"{ARGS.page} names options that --help does not list")

    def test_short_letters_agree(self):
        want, got = help_options(help_text()), page_options(page_text())
        differ = {name: (want[name], got[name])
                  for name in set(want) & set(got) if want[name] != got[name]}
        self.assertEqual(differ, {},
                         "short letter as --help gives it, as the page does")

    def test_options_help_mentions_are_options(self):
        text = help_text()
        extra = sorted(set(HELP_MENTION.findall(text)) - set(help_options(text)))
        self.assertEqual(extra, [], "--help names options it does not list")

    def test_operations_agree(self):
        want = help_operations(help_text())
        if not want:
            self.assertNotIn(".Ss Operations", page_text(),
                             "the page lists operations --help does not have")
            return
        self.assertEqual(page_operations(page_text()), want,
                         "the page's Operations, as --help lists them")

    def test_name_is_the_program(self):
        name = ARGS.program.rsplit("/", 1)[-1]
        text = page_text()
        self.assertIn(f"\n.Nm {name}\n", text)
        self.assertIn(f"\n.Dt {name.upper()} 1\n", text)

    def test_mandoc_lint(self):
        if not ARGS.mandoc:
            self.assertTrue(ARGS.groff, "neither mandoc nor groff was given")
            return
        res = run([ARGS.mandoc, "-Tlint", "-Wwarning", ARGS.page])
        faults = [line for line in (res.stdout + res.stderr).splitlines()
                  if re.search(r": (WARNING|ERROR|UNSUPP|BADARG|SYSERR):", line)]
        self.assertEqual((res.returncode, faults), (0, []),
                         f"mandoc -Tlint -Wwarning {ARGS.page}")

    def test_groff_renders_without_warning(self):
        if not ARGS.groff:
            self.assertTrue(ARGS.mandoc, "neither mandoc nor groff was given")
            return
        res = run([ARGS.groff, "-ww", "-z", "-mandoc", ARGS.page])
        self.assertEqual((res.returncode, res.stderr), (0, ""),
                         f"groff -ww -z -mandoc {ARGS.page}")


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    parser.add_argument("program")
    parser.add_argument("page")
    parser.add_argument("--mandoc")
    parser.add_argument("--groff")
    ARGS, rest = parser.parse_known_args()
    unittest.main(argv=[sys.argv[0], "-v", *rest])


if __name__ == "__main__":
    main()
