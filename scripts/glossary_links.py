#!/usr/bin/env python3
"""The glossary's words, linked where a reader first meets them.

    glossary_links.py [--fix] [ROOT]

docs/glossary.md defines the words the manual, the code and the pages use
without explaining them. On README.md and every other page of docs/, the
first use of each word of TERMS in the prose (not in code, a heading, or
the text of another link) must be a link to its entry; and each word must
be used on some page. Prints one line per finding, FILE:LINE: what is
wrong, and exits 1 when there is one. check_docs.py runs the same check.

--fix makes each first use that is not a link into one, in place, and
prints what it changed.
"""
import glob
import os
import re
import sys

GLOSSARY = "docs/glossary.md"
# The word as the pages write it, and the anchor of its entry.
TERMS = {
    "LID": "lid", "GID": "gid", "GRH": "grh",
    "RoCE v1": "roce", "RoCE v2": "roce",
    "PD": "pd", "MR": "mr", "lkey": "mr", "rkey": "mr",
    "CQ": "cq", "QP": "qp", "QPN": "qp", "SRQ": "srq",
    "RTR": "qp-states", "RTS": "qp-states", "PSN": "psn",
}

FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"`[^`]*`")
HTML = re.compile(r"<!--.*?-->|<[^>]+>")
LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]*)\)")


def word_pattern(word):
    """WORD, or its plural or possessive, as a word of its own."""
    return re.compile(r"(?<![\w/#.`-])" + re.escape(word) +
                      r"(?=(?:s|'s)?(?![\w-]))")


PATTERNS = {word: word_pattern(word) for word in TERMS}


def prose_lines(text):
    """(line number, line) of the lines that are prose: not in a fenced or
    indented code block, not a heading."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced or line.startswith(("    ", "\t", "#")):
            continue
        yield number, line


def blank(line, spans):
    """LINE with the SPANS (start, end) replaced by spaces: same offsets."""
    chars = list(line)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def uses(line):
    """Where each word of TERMS is used in LINE: (word, start, glossary
    link or None, or False inside another link's text)."""
    hidden = [m.span() for m in INLINE_CODE.finditer(line)]
    hidden += [m.span() for m in HTML.finditer(line)]
    links = []
    for m in LINK.finditer(line):
        links.append((m.start(1), m.end(1), m.group(2)))
        hidden.append(m.span(2))
    plain = blank(line, hidden)
    for word, pattern in PATTERNS.items():
        for m in pattern.finditer(plain):
            target = None
            for start, end, href in links:
                if start <= m.start() < end:
                    target = href if "glossary.md" in href else False
            yield word, m.start(), target


def pages(root):
    found = [os.path.join(root, "README.md")]
    found += sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    return [p for p in found if os.path.exists(p)
            and os.path.relpath(p, root) != GLOSSARY]


def first_uses(text):
    """{word: (line number, start, target)} of each word's first use that
    is not in another link's text."""
    first = {}
    for number, line in prose_lines(text):
        for word, start, target in sorted(uses(line), key=lambda u: u[1]):
            if target is False or word in first:
                continue
            first[word] = (number, start, target)
    return first


def check(root):
    glossary = os.path.join(root, GLOSSARY)
    if not os.path.exists(glossary):
        return []
    findings = []
    anchors = set(re.findall(r'<a id="([^"]+)"></a>', open(
        glossary, encoding="utf-8").read()))
    for word, anchor in TERMS.items():
        if anchor not in anchors:
            findings.append(f"{GLOSSARY}: no entry <a id=\"{anchor}\"> "
                            f"for {word}")
    used = set()
    for path in pages(root):
        rel = os.path.relpath(path, root)
        for word, (number, _, target) in first_uses(
                open(path, encoding="utf-8").read()).items():
            used.add(word)
            if not target or not target.endswith("#" + TERMS[word]):
                findings.append(
                    f"{rel}:{number}: the first use of {word} is not a "
                    f"link to its glossary entry ({GLOSSARY}#"
                    f"{TERMS[word]})")
    for word in TERMS:
        if word not in used:
            findings.append(f"{GLOSSARY}: {word} is used on no page")
    return findings


def fix(root):
    for path in pages(root):
        rel = os.path.relpath(path, root)
        prefix = os.path.relpath(os.path.join(root, GLOSSARY),
                                 os.path.dirname(path))
        lines = open(path, encoding="utf-8").read().split("\n")
        text = "\n".join(lines)
        todo = sorted(((n, s, w) for w, (n, s, t) in first_uses(text).items()
                       if t is None), reverse=True)
        for number, start, word in todo:
            line = lines[number - 1]
            lines[number - 1] = (line[:start] +
                                 f"[{word}]({prefix}#{TERMS[word]})" +
                                 line[start + len(word):])
            print(f"{rel}:{number}: linked {word}")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))


def main(argv):
    args = [a for a in argv[1:] if a != "--fix"]
    root = os.path.abspath(args[0] if args else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), ".."))
    if "--fix" in argv:
        fix(root)
        return 0
    findings = check(root)
    for finding in findings:
        print(finding)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
