#!/usr/bin/env python3
"""Fail when a file of a program reaches itself through calls.

For each program built in BUILD_DIR, read from CMake's link line which
objects and static libraries make it, then from `nm` which file defines
each global symbol and which files use it. A file that uses a symbol
another file defines calls that file. Every group of files that call one
another round a ring (a strongly connected component of two or more) is
printed, and so is every ring between the program's libraries; the exit
status is 1 if there is one.

    scripts/call_cycles.py BUILD_DIR [PROGRAM ...]

PROGRAM defaults to rdma_rc_example, rdma_lessons and rdma_mc_example.
"""
import os
import subprocess
import sys


def link_inputs(build_dir, program):
    """The objects and archives on PROGRAM's link line, as absolute paths."""
    for root, dirs, files in os.walk(build_dir):
        if os.path.basename(root) == program + ".dir" and "link.txt" in files:
            with open(os.path.join(root, "link.txt")) as f:
                words = f.read().split()
            base = os.path.dirname(os.path.dirname(root))  # beside CMakeFiles
            return [os.path.normpath(os.path.join(base, w)) for w in words
                    if w.endswith((".o", ".a")) and not w.startswith("-")]
    sys.exit(f"call_cycles: no link line for {program} under {build_dir}")


def symbols(path):
    """(file, library, symbol, defined) for each global symbol in path."""
    out = subprocess.run(["nm", "-A", "-g", "-P", path], check=True,
                         capture_output=True, text=True).stdout
    library = os.path.basename(path) if path.endswith(".a") else None
    for line in out.splitlines():
        where, _, rest = line.partition(": ")
        fields = rest.split()
        if len(fields) < 2:
            continue
        name, kind = fields[0], fields[1]
        if "[" in where:  # an archive member: lib.a[qp.c.o]
            member = where[where.index("[") + 1:where.rindex("]")]
            unit = f"{library}:{member}"
        else:
            unit = os.path.basename(where)
        yield unit, library or "(program)", name, kind not in "Uvw"


def rings(graph):
    """Strongly connected components of two or more nodes (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    sys.setrecursionlimit(10000)
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def check(build_dir, program):
    defined, used, library_of = {}, [], {}
    for path in link_inputs(build_dir, program):
        for unit, library, name, is_def in symbols(path):
            library_of[unit] = library
            if is_def:
                defined.setdefault(name, unit)
            else:
                used.append((unit, name))
    files, libraries = {}, {}
    for unit, name in used:
        target = defined.get(name)
        if target and target != unit:
            files.setdefault(unit, set()).add(target)
            a, b = library_of[unit], library_of[target]
            if a != b:
                libraries.setdefault(a, set()).add(b)
    bad = 0
    for kind, graph in (("files", files), ("libraries", libraries)):
        for group in rings(graph):
            bad += 1
            print(f"call_cycles: {program}: {kind} that call one another "
                  f"round a ring: {', '.join(group)}")
            for a in group:
                calls = sorted(set(graph.get(a, ())) & set(group))
                print(f"  {a} calls {', '.join(calls)}")
    count = len({u for u, _ in used} | set(defined.values()))
    if not bad:
        print(f"call_cycles: {program}: no ring among {count} files "
              f"and {len(set(library_of.values()))} libraries")
    return bad


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip())
    programs = sys.argv[2:] or ["rdma_rc_example", "rdma_lessons",
                                "rdma_mc_example"]
    bad = sum(check(sys.argv[1], p) for p in programs)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
