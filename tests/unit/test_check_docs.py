#!/usr/bin/env python3
"""Unit test of scripts/check_docs.py, lint.sh's check that the docs name
only paths and functions that exist: on a made-up tree, a README that
names a missing file and a missing function gets one line for each, with
its file and line, and exit status 1; the same tree with both fixed
passes with no output; the names the check must let be (libibverbs's,
struct members, paths with a placeholder) pass too."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "check_docs.py")

MAIN_C = """\
// SPDX-License-Identifier: MIT
/* The steps, in src/steps.c; the options, in config.c. */
struct res {
	int max_send_wr;
};

int device_open(void)
{
	return 0;
}

static int resources_create(struct res *res,
			    int flags)
{
	return res->max_send_wr + flags;
}
"""

GOOD_README = """\
# tiny

`device_open()` opens the device (src/steps.c), then `resources_create`
sizes the QP from `max_send_wr` and calls `ibv_create_qp`. See
[the lessons](docs/lesson.md) and tests/rxe/SCRIPT.

| step | function | file |
| --- | --- | --- |
| 1 | `device_open` | [src/steps.c](src/steps.c) |
| 2 | `resources_create` | src/steps.c |
"""

# One path that is not there and one function that is defined nowhere
# (device_close), on lines 3 and 10.
BAD_README = GOOD_README.replace(
    "(src/steps.c), then", "(src/gone.c), then").replace(
    "| 2 | `resources_create` |", "| 2 | `device_close` |")


def make_tree(root, readme):
    for folder in ("src", "docs", "tests/rxe"):
        os.makedirs(os.path.join(root, folder))
    files = {
        "src/steps.c": MAIN_C,
        "src/config.c": "// SPDX-License-Identifier: MIT\n",
        "docs/lesson.md": "# a lesson\n\nIt runs `device_open()`.\n",
        "tests/rxe/one.sh": "#!/bin/sh\n# runs src/steps.c's program\n",
        "README.md": readme,
    }
    for rel, text in files.items():
        with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
            f.write(text)


def run_check(readme):
    with tempfile.TemporaryDirectory() as root:
        make_tree(root, readme)
        proc = subprocess.run([sys.executable, SCRIPT, root],
                              capture_output=True, text=True, check=False)
    return proc.returncode, proc.stdout.splitlines()


class CheckDocs(unittest.TestCase):
    def test_missing_path_and_function_are_reported(self):
        status, lines = run_check(BAD_README)
        self.assertEqual(status, 1, lines)
        self.assertIn("README.md:3: names src/gone.c, which is not in the "
                      "tree", lines)
        self.assertIn("README.md:10: names device_close, a function "
                      "defined nowhere in the tree", lines)
        self.assertEqual(len(lines), 2, lines)

    def test_good_tree_passes(self):
        status, lines = run_check(GOOD_README)
        self.assertEqual((status, lines), (0, []))

    def test_called_name_must_be_a_function(self):
        # A struct member is no function, once it is called.
        status, lines = run_check(GOOD_README + "\n`max_send_wr()`\n")
        self.assertEqual(status, 1, lines)
        self.assertIn("README.md:12: names max_send_wr(), a function "
                      "defined nowhere in the tree", lines)

    def test_stale_file_in_a_comment_is_reported(self):
        with tempfile.TemporaryDirectory() as root:
            make_tree(root, GOOD_README)
            with open(os.path.join(root, "src", "steps.c"), "a",
                      encoding="utf-8") as f:
                f.write("/* the old step lived in cm.c */\n")
            proc = subprocess.run([sys.executable, SCRIPT, root],
                                  capture_output=True, text=True,
                                  check=False)
        self.assertEqual(proc.returncode, 1, proc.stdout)
        self.assertIn("src/steps.c:17: names cm.c, which is not in src/ or "
                      "./ or include/", proc.stdout)


sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
import glossary_links  # noqa: E402


def glossary_tree(root, readme, lesson):
    """A glossary with every entry, a README and one lesson page."""
    os.makedirs(os.path.join(root, "docs"))
    anchors = "".join(f'- <a id="{a}"></a>**{w}**: ...\n'
                      for w, a in glossary_links.TERMS.items())
    for rel, text in (("docs/glossary.md", anchors), ("README.md", readme),
                      ("docs/lesson.md", lesson)):
        with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
            f.write(text)


class GlossaryLinks(unittest.TestCase):
    LESSON = "A QP, an MR and a PD.\n"

    def findings(self, readme, lesson=LESSON):
        with tempfile.TemporaryDirectory() as root:
            glossary_tree(root, readme, lesson)
            return glossary_links.check(root)

    def test_first_use_must_be_a_link(self):
        lines = self.findings("# GID\n\nThe GIDs of a port; its GID.\n")
        self.assertIn("README.md:3: the first use of GID is not a link to "
                      "its glossary entry (docs/glossary.md#gid)", lines)
        self.assertIn("docs/lesson.md:1: the first use of QP is not a link "
                      "to its glossary entry (docs/glossary.md#qp)", lines)

    def test_linked_first_use_passes_and_code_does_not_count(self):
        lines = self.findings(
            "```\nGID 1\n```\n`GID` and [the GID page](docs/x.md), then "
            "[GID](docs/glossary.md#gid) and GID\n")
        self.assertFalse([l for l in lines if " of GID " in l], lines)

    def test_a_link_to_another_entry_is_not_one(self):
        lines = self.findings("[GID](docs/glossary.md#lid)\n")
        self.assertIn("README.md:1: the first use of GID is not a link to "
                      "its glossary entry (docs/glossary.md#gid)", lines)

    def test_every_word_used_somewhere(self):
        lines = self.findings("nothing\n")
        self.assertIn("docs/glossary.md: PSN is used on no page", lines)
        self.assertNotIn("docs/glossary.md: QP is used on no page", lines)

    def test_fix_links_each_first_use_once(self):
        with tempfile.TemporaryDirectory() as root:
            glossary_tree(root, "A GID, a GID.\n", self.LESSON)
            glossary_links.fix(root)
            with open(os.path.join(root, "docs", "lesson.md"),
                      encoding="utf-8") as f:
                lesson = f.read()
            with open(os.path.join(root, "README.md"),
                      encoding="utf-8") as f:
                readme = f.read()
            lines = glossary_links.check(root)
        self.assertEqual(readme, "A [GID](docs/glossary.md#gid), a GID.\n")
        self.assertEqual(lesson, "A [QP](glossary.md#qp), an "
                         "[MR](glossary.md#mr) and a [PD](glossary.md#pd).\n")
        self.assertFalse([l for l in lines if "first use" in l], lines)


if __name__ == "__main__":
    unittest.main()
