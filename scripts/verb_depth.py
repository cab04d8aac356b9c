#!/usr/bin/env python3
"""Fail when a verb of the manual's flow is more than MAX calls below main.

Reads the call tree GNU cflow prints for main (`cflow --cpp --main main
...`, the default layout: one call per line, four spaces of indent per
level) on stdin or from FILE, and prints for each verb the smallest number
of calls between main and it, with that path:

    cflow: ibv_post_send 3 (main -> op_send_server -> post_send -> ibv_post_send)

A verb deeper than MAX, or nowhere below main (reached only through a
function pointer, which cflow cannot follow), is printed as such and makes
the exit status 1. The verbs are the manual's and --new-api's (--verbs
all, the default: rdma_lessons), or the manual's alone (--verbs manual:
rdma_rc_example, which has no --new-api).

    scripts/verb_depth.py [--max N] [--verbs manual|all] [FILE]
"""
import argparse
import re
import sys

# The verbs of the manual's RC example, in the order its flow calls them.
MANUAL_VERBS = (
    "ibv_get_device_list", "ibv_open_device", "ibv_query_device",
    "ibv_query_port", "ibv_query_gid_table", "ibv_alloc_pd", "ibv_reg_mr", "ibv_create_cq",
    "ibv_create_qp", "ibv_modify_qp", "ibv_post_recv", "ibv_post_send",
    "ibv_poll_cq", "ibv_destroy_qp", "ibv_dereg_mr",
)
# --new-api (docs/new-api.md): the same flow on today's post and poll
# calls, held to the same depth.
NEW_API_VERBS = (
    "ibv_create_cq_ex", "ibv_create_qp_ex", "ibv_qp_to_qp_ex",
    "ibv_wr_start", "ibv_wr_send", "ibv_wr_rdma_read", "ibv_wr_rdma_write",
    "ibv_wr_atomic_fetch_add", "ibv_wr_atomic_cmp_swp", "ibv_wr_set_sge",
    "ibv_wr_complete", "ibv_start_poll", "ibv_end_poll",
)
VERBS = MANUAL_VERBS + NEW_API_VERBS
# --verbs: the set a program is held to.
VERB_SETS = {"manual": MANUAL_VERBS, "all": VERBS}
# The manual's own example: every verb at most 3 calls below main.
MAX_DEPTH = 3
INDENT = 4
CALL = re.compile(r"^( *)([A-Za-z_][A-Za-z0-9_]*)\(\)")


def source_name(name, verbs):
    """The name the source wrote. libibverbs's verbs.h makes a few verbs
    macros over inline wrappers whose names add leading underscores
    (ibv_query_port -> ___ibv_query_port, ibv_reg_mr -> __ibv_reg_mr),
    which is what cflow --cpp sees: such a wrapper is the verb."""
    bare = name.lstrip("_")
    return bare if bare != name and bare in verbs else name


def shortest_paths(lines, root="main", verbs=VERBS):
    """{function: path from root} for every function in root's tree, the
    path being the shortest, and the first found among equally short."""
    paths = {}
    stack = []
    in_root = False
    for line in lines:
        m = CALL.match(line)
        if not m:
            continue
        level = len(m.group(1)) // INDENT
        name = source_name(m.group(2), verbs)
        if level == 0:
            in_root = name == root
            stack = []
        if not in_root:
            continue
        del stack[level:]
        stack.append(name)
        if name not in paths or len(stack) < len(paths[name]):
            paths[name] = list(stack)
    return paths


def report(paths, verbs=VERBS, max_depth=MAX_DEPTH):
    """The lines to print, and whether every verb is within max_depth."""
    out = []
    ok = True
    for verb in verbs:
        path = paths.get(verb)
        if path is None:
            out.append(f"cflow: {verb} not found below main "
                       "(reached only through a function pointer?)")
            ok = False
            continue
        depth = len(path) - 1
        line = f"cflow: {verb} {depth} ({' -> '.join(path)})"
        if depth > max_depth:
            line += f": deeper than {max_depth}"
            ok = False
        out.append(line)
    return out, ok


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max", type=int, default=MAX_DEPTH,
                    help="the deepest a verb may be (default %(default)s)")
    ap.add_argument("--verbs", choices=sorted(VERB_SETS), default="all",
                    help="the manual's verbs alone, or with --new-api's "
                    "(default %(default)s)")
    ap.add_argument("file", nargs="?", help="cflow's output (default stdin)")
    args = ap.parse_args(argv)
    if args.file:
        with open(args.file) as f:
            lines = f.read().splitlines()
    else:
        lines = sys.stdin.read().splitlines()
    verbs = VERB_SETS[args.verbs]
    out, ok = report(shortest_paths(lines, verbs=verbs), verbs=verbs,
                     max_depth=args.max)
    print("\n".join(out))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
