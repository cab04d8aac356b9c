#!/usr/bin/env python3
"""Unit test of scripts/verb_depth.py, lint.sh's reader of cflow's tree: on
made-up trees, a verb 4 calls below main and a verb missing (reached only
through a function pointer) are both reported and fail the check; a tree
with every verb within 3 calls passes, each verb printed with its depth and
its shortest path; with --verbs manual (rdma_rc_example's main, which has
no --new-api) only the manual's verbs are looked for."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "verb_depth.py")

# Every verb of the manual's flow, and of its --new-api form, within 3
# calls, as cflow prints a tree:
# four spaces a level, "<...>" after a function it found the body of, and
# libibverbs's wrapper for ibv_reg_mr under its underscored name. A second,
# deeper path to ibv_modify_qp must not hide the shorter one, nor must a
# tree of another root (an unused function) count.
GOOD = """\
main() <int main (int argc, char **argv) at src/main.c:1>:
    resources_create() <int resources_create (void) at src/resources.c:1>:
        device_open() <int device_open (void) at src/device.c:1>:
            ibv_get_device_list()
            ibv_open_device()
        query_device() <int query_device (void) at src/resources.c:2>:
            ibv_query_device()
        device_query_port() <int device_query_port (void) at src/device.c:2>:
            ___ibv_query_port() <inline int ___ibv_query_port (void) at verbs.h:1>:
                ibv_query_port()
        ibv_alloc_pd()
        register_buffer() <int register_buffer (void) at src/resources.c:3>:
            __ibv_reg_mr()
        ibv_create_cq()
        ibv_create_cq_ex()
        create_qp() <int create_qp (void) at src/resources.c:4>:
            ibv_create_qp()
            ibv_create_qp_ex()
    connect_qp() <int connect_qp (void) at src/qp.c:1>:
        device_read_gid_table() <int device_read_gid_table (void) at src/device.c:3>:
            ibv_query_gid_table()
        exchange_info() <int exchange_info (void) at src/qp.c:2>:
            qp_modify() <int qp_modify (void) at src/qp.c:3>:
                ibv_modify_qp()
        modify_qp_to_init() <int modify_qp_to_init (void) at src/qp.c:4>:
            ibv_modify_qp()
        post_receive() <int post_receive (void) at src/post.c:1>:
            ibv_post_recv()
    op_send_server() <int op_send_server (void) at src/ops/send.c:1>:
        post_send() <int post_send (void) at src/post.c:2>:
            ibv_post_send()
        poll_completion() <int poll_completion (void) at src/completion.c:1>:
            ibv_poll_cq()
    op_read_client() <int op_read_client (void) at src/ops/read.c:1>:
        post_send() <int post_send (void) at src/post.c:2>:
            ibv_qp_to_qp_ex()
            ibv_wr_start()
            ibv_wr_send()
            ibv_wr_rdma_read()
            ibv_wr_rdma_write()
            ibv_wr_atomic_fetch_add()
            ibv_wr_atomic_cmp_swp()
            ibv_wr_set_sge()
            ibv_wr_complete()
        poll_completion() <int poll_completion (void) at src/completion.c:1>:
            ibv_start_poll()
            ibv_end_poll()
    resources_destroy() <int resources_destroy (void) at src/resources.c:5>:
        ibv_destroy_qp()
        ibv_dereg_mr()
"""

# The same tree with ibv_post_send one call deeper (behind a helper) and
# ibv_poll_cq gone (behind a function pointer, which cflow cannot see).
BAD = GOOD.replace(
    """        post_send() <int post_send (void) at src/post.c:2>:
            ibv_post_send()
        poll_completion() <int poll_completion (void) at src/completion.c:1>:
            ibv_poll_cq()
""",
    """        op_post_and_wait() <int op_post_and_wait (void) at src/ops/op.h:1>:
            post_send() <int post_send (void) at src/post.c:2>:
                ibv_post_send()
""")


# The GOOD tree without a call of --new-api's: rdma_rc_example's main.
NEW_API_CALLS = ("ibv_create_cq_ex", "ibv_create_qp_ex", "ibv_qp_to_qp_ex",
                 "ibv_wr_", "ibv_start_poll", "ibv_end_poll")
MANUAL_ONLY = "".join(
    line for line in GOOD.splitlines(keepends=True)
    if not line.strip().startswith(NEW_API_CALLS))


def run(tree, *options):
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write(tree)
    try:
        return subprocess.run([sys.executable, SCRIPT, *options, f.name],
                              capture_output=True, text=True, timeout=60)
    finally:
        os.unlink(f.name)


def line_of(out, verb):
    lines = [l for l in out.splitlines()
             if l.startswith(f"cflow: {verb} ")]
    assert len(lines) == 1, f"one line for {verb} expected in:\n{out}"
    return lines[0]


class VerbDepth(unittest.TestCase):
    def test_good_tree_passes_with_depths(self):
        res = run(GOOD)
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        # the manual's 15 verbs and the 13 of --new-api's flow
        self.assertEqual(len(res.stdout.splitlines()), 28, res.stdout)
        self.assertEqual(
            line_of(res.stdout, "ibv_wr_start"),
            "cflow: ibv_wr_start 3 "
            "(main -> op_read_client -> post_send -> ibv_wr_start)")
        self.assertEqual(
            line_of(res.stdout, "ibv_post_send"),
            "cflow: ibv_post_send 3 "
            "(main -> op_send_server -> post_send -> ibv_post_send)")
        self.assertEqual(
            line_of(res.stdout, "ibv_modify_qp"),
            "cflow: ibv_modify_qp 3 "
            "(main -> connect_qp -> modify_qp_to_init -> ibv_modify_qp)")
        self.assertEqual(line_of(res.stdout, "ibv_alloc_pd"),
                         "cflow: ibv_alloc_pd 2 "
                         "(main -> resources_create -> ibv_alloc_pd)")

    def test_wrappers_of_verbs_h_count_as_the_verb(self):
        res = run(GOOD)
        self.assertEqual(
            line_of(res.stdout, "ibv_query_port"),
            "cflow: ibv_query_port 3 "
            "(main -> resources_create -> device_query_port -> "
            "ibv_query_port)")
        self.assertEqual(
            line_of(res.stdout, "ibv_reg_mr"),
            "cflow: ibv_reg_mr 3 "
            "(main -> resources_create -> register_buffer -> ibv_reg_mr)")

    def test_deep_and_missing_verbs_fail(self):
        res = run(BAD)
        self.assertEqual(res.returncode, 1, res.stdout + res.stderr)
        deep = line_of(res.stdout, "ibv_post_send")
        self.assertEqual(
            deep,
            "cflow: ibv_post_send 4 (main -> op_send_server -> "
            "op_post_and_wait -> post_send -> ibv_post_send): "
            "deeper than 3")
        missing = line_of(res.stdout, "ibv_poll_cq")
        self.assertIn("not found below main", missing)
        # the verbs that stayed within 3 are still reported as such
        self.assertEqual(line_of(res.stdout, "ibv_destroy_qp"),
                         "cflow: ibv_destroy_qp 2 "
                         "(main -> resources_destroy -> ibv_destroy_qp)")

    def test_manual_verbs_alone(self):
        # --verbs manual: the manual's 15, and no --new-api verb asked for.
        res = run(MANUAL_ONLY, "--verbs", "manual")
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        self.assertEqual(len(res.stdout.splitlines()), 15, res.stdout)
        self.assertNotIn("ibv_wr_start", res.stdout)
        self.assertEqual(
            line_of(res.stdout, "ibv_post_send"),
            "cflow: ibv_post_send 3 "
            "(main -> op_send_server -> post_send -> ibv_post_send)")
        # The same tree held to both sets (the default, --verbs all)
        # misses every verb of --new-api.
        for options in ((), ("--verbs", "all")):
            res = run(MANUAL_ONLY, *options)
            self.assertEqual(res.returncode, 1, res.stdout + res.stderr)
            self.assertIn("not found below main",
                          line_of(res.stdout, "ibv_wr_start"))
        # A manual verb too deep still fails with --verbs manual.
        deep = MANUAL_ONLY.replace(
            """        post_send() <int post_send (void) at src/post.c:2>:
            ibv_post_send()
""",
            """        op_post_and_wait() <int op_post_and_wait (void) at src/ops/op.h:1>:
            post_send() <int post_send (void) at src/post.c:2>:
                ibv_post_send()
""")
        res = run(deep, "--verbs", "manual")
        self.assertEqual(res.returncode, 1, res.stdout + res.stderr)
        self.assertTrue(line_of(res.stdout, "ibv_post_send")
                        .endswith(": deeper than 3"), res.stdout)

    def test_unknown_verb_set_is_refused(self):
        res = run(GOOD, "--verbs", "bench")
        self.assertEqual(res.returncode, 2, res.stdout + res.stderr)
        self.assertIn("invalid choice", res.stderr)

    def test_another_root_does_not_count(self):
        tree = GOOD + """\
unused() <int unused (void) at src/x.c:1>:
    ibv_poll_cq()
"""
        res = run(tree.replace("            ibv_poll_cq()\n", ""))
        self.assertEqual(res.returncode, 1, res.stdout)
        self.assertIn("not found below main", line_of(res.stdout,
                                                      "ibv_poll_cq"))


if __name__ == "__main__":
    unittest.main()
