#!/usr/bin/env python3
"""Docs that cannot drift: every path of the tree and every function that
the docs name must exist.

    check_docs.py [ROOT]

Reads README.md, docs/*.md, man/*.1 and the comments of the code (src/,
include/, tests/, scripts/) under ROOT (default: the repository this
script is in) and prints one line per finding, FILE:LINE: what is missing;
exit status 1 when there is one, 0 when there is none.

What counts:
  - a path of the tree: a token that starts with one of ROOT's top-level
    folders (src/ops/rnr.c, tests/rxe/, docs/wire.md, .ci/run), or a
    relative link of a Markdown page (resolved from the page's folder);
    a token with * is a pattern, which must match something;
  - in a comment, a bare C file name (cm.c, qp.h) must also be a file of
    the comment's folder or of a folder above it (for tests/, also of
    src/ and include/, which they test; for src/X/, also of include/X/);
  - a function, in README.md and docs/*.md only: a backquoted name with an
    underscore, lower case, followed by () or in a table's "function"
    column, must be defined in the tree (a C function or function-like
    macro, a shell or Python function); a plain backquoted name of that
    shape must be defined, or at least be an identifier of the code (a
    struct member, a variable, a CMake target) or of the system's
    libibverbs and librdmacm headers. Names of libibverbs, librdmacm, the
    kernel's RDMA modules and the few libc and tool names below are
    external and never flagged;
  - the glossary's words: the first use of each on every page is a link
    to its entry (glossary_links.py, which also makes them: --fix).
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import glossary_links  # noqa: E402

# Names that belong to other projects: libibverbs (ibv_), librdmacm
# (rdma_), the kernel's modules (ib_, rdma_rxe), cmocka, pthreads.
EXTERNAL_PREFIXES = ("ibv_", "rdma_", "ib_", "mlx5", "mlx4", "cmocka_",
                     "assert_", "pthread_", "siw_", "rxe_", "cma_")
# libc calls and tools outside the tree that docs name by their own names.
EXTERNAL_NAMES = {
    "aligned_alloc", "clock_gettime", "posix_memalign", "sched_yield",
    "show_gids",  # MLNX_OFED's script, not rdma-core's
    "default_roce_mode",  # the kernel RDMA_CM's configfs attribute
}
SYSTEM_HEADERS = ("/usr/include/infiniband/*.h", "/usr/include/rdma/*.h")
# Files whose comments are read, by their ending; and files read whole.
C_ENDINGS = (".c", ".h")
HASH_ENDINGS = (".sh", ".py", ".cmake", "CMakeLists.txt")
CODE_FOLDERS = ("src", "include", "tests", "scripts")

FUNC_SHAPE = re.compile(r"^([a-z][a-z0-9]*(?:_[a-z0-9]+)+)(\(\))?$")
BACKQUOTED = re.compile(r"`([^`\n]+)`")
C_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
HASH_COMMENT = re.compile(r"(?:^|(?<=\s))#[^\n]*", re.M)
MD_LINK = re.compile(r"\]\(([^)\s]+)\)")
BARE_C_FILE = re.compile(r"(?<![\w./-])([A-Za-z_][\w-]*\.[ch])(?![\w/-])")
IDENT = re.compile(r"\b[A-Za-z_]\w*\b")
C_DEF = re.compile(
    r"^(?!(?:return|else|if|while|for|switch|typedef)\b)"
    r"[A-Za-z_][\w \t\*]*?[\s\*](\w+)\s*\([^;{]*?\)\s*\{",
    re.M | re.S)
C_MACRO = re.compile(r"^#\s*define\s+(\w+)\(", re.M)
SH_DEF = re.compile(r"^\s*(?:function\s+)?([A-Za-z_]\w*)\s*\(\)\s*\{", re.M)
CTEST_NAME = re.compile(r"add_test\(\s*NAME\s+([\w${}]+)")
PY_DEF = re.compile(r"^\s*def\s+(\w+)\s*\(", re.M)


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def top_entries(root):
    """The tree's top-level folders and files (not .git, not build dirs)."""
    folders, files = [], []
    for name in sorted(os.listdir(root)):
        if name == ".git" or name.startswith("build"):
            continue
        (folders if os.path.isdir(os.path.join(root, name)) else
         files).append(name)
    return folders, files


def tree_files(root, folders):
    """Every file under the top-level folders, relative to root."""
    out = []
    for folder in folders:
        for dirpath, dirnames, filenames in os.walk(
                os.path.join(root, folder)):
            dirnames[:] = [d for d in dirnames if d != "__pycache__"]
            for name in filenames:
                out.append(os.path.relpath(os.path.join(dirpath, name),
                                           root))
    return sorted(out)


def is_shell_script(path):
    try:
        with open(path, "rb") as f:
            first = f.readline(200)
    except OSError:
        return False
    return re.match(rb"#!.*[/ ](ba|da|k)?sh( |$)", first) is not None or \
        re.match(rb"#!.*python", first) is not None


def comment_spans(rel, text, root):
    """(offset, comment text) for each comment of a code file."""
    if rel.endswith(C_ENDINGS):
        pattern = C_COMMENT
    elif rel.endswith(HASH_ENDINGS) or is_shell_script(
            os.path.join(root, rel)):
        pattern = HASH_COMMENT
    else:
        return []
    return [(m.start(), m.group(0)) for m in pattern.finditer(text)]


def roff_text(text):
    """A man page as plain text, line for line: escapes and fonts off."""
    text = re.sub(r"\\f(\[[^]]*\]|.)", "", text)
    text = text.replace("\\-", "-").replace("\\&", "").replace("\\e", "\\")
    return text


class Checker:
    def __init__(self, root):
        self.root = root
        self.folders, self.top_files = top_entries(root)
        self.files = tree_files(root, self.folders)
        self.findings = []
        self.reported = set()
        self.functions = set()
        self.src_prefixes = set()
        self.identifiers = set()
        self.test_names = []  # ctest names, some made in a foreach
        self._collect_names()
        top = "|".join(re.escape(f) for f in self.folders)
        self.path_token = re.compile(
            r"(?<![\w./~$@-])((?:%s)(?:/[\w.*+@{},-]*)+|(?:%s)(?=[\s`'\")\],;:]|$))"
            % (top, top), re.M) if top else None

    # What the tree defines, and every identifier its code uses.
    def _collect_names(self):
        for rel in self.files:
            if not rel.startswith(CODE_FOLDERS) and \
                    not rel.endswith("CMakeLists.txt"):
                continue
            path = os.path.join(self.root, rel)
            if rel.endswith(C_ENDINGS):
                text = C_COMMENT.sub(" ", read(path))
                defined = C_DEF.findall(text) + C_MACRO.findall(text)
                self.functions.update(defined)
                if rel.startswith(("src/", "include/")):
                    self.src_prefixes.update(
                        n.split("_")[0] + "_" for n in defined if "_" in n)
            elif rel.endswith(HASH_ENDINGS) or is_shell_script(path):
                text = HASH_COMMENT.sub(" ", read(path))
                self.functions.update(SH_DEF.findall(text))
                self.functions.update(PY_DEF.findall(text))
            else:
                continue
            self.identifiers.update(IDENT.findall(text))
            for name in CTEST_NAME.findall(text):
                if name.startswith("${"):
                    continue  # a name made whole elsewhere: no shape
                self.test_names.append(re.compile(
                    re.sub(r"\\\$\\\{\w+\\\}", r"\\w+", re.escape(name))
                    + "$"))
        for pattern in SYSTEM_HEADERS:
            for header in glob.glob(pattern):
                self.identifiers.update(
                    IDENT.findall(C_COMMENT.sub(" ", read(header))))

    def report(self, rel, line, what, name=None):
        """One line per name missing on a line, however it was named."""
        key = (rel, line, name or what)
        if key in self.reported:
            return
        self.reported.add(key)
        self.findings.append("%s:%d: %s" % (rel, line, what))

    # Paths.
    def exists(self, path):
        path = path.split("#", 1)[0]
        # A component in capitals is a placeholder: tests/rxe/SCRIPT.
        path = "/".join("*" if re.fullmatch(r"[A-Z][A-Z_]*", part) else part
                        for part in path.split("/"))
        if not path:
            return True
        full = os.path.normpath(os.path.join(self.root, path))
        if any(c in path for c in "*{"):
            return self._pattern_matches(full)
        return os.path.exists(full)

    def _pattern_matches(self, full):
        braces = re.search(r"\{([^{}]*)\}", full)
        if braces:
            return all(
                self._pattern_matches(full[:braces.start()] + alt +
                                      full[braces.end():])
                for alt in braces.group(1).split(","))
        return bool(glob.glob(full))

    def check_paths(self, rel, text, base=0, whole=None):
        """Paths of the tree named in text (which starts at base)."""
        whole = whole if whole is not None else text
        if not self.path_token:
            return
        for m in self.path_token.finditer(text):
            token = m.group(1).rstrip(".,:;'")
            if not self.exists(token):
                self.report(rel, line_of(whole, base + m.start()),
                            "names %s, which is not in the tree" % token,
                            os.path.normpath(token))

    def check_md_links(self, rel, text):
        here = os.path.dirname(rel)
        for m in MD_LINK.finditer(text):
            target = m.group(1)
            if re.match(r"[a-z][a-z0-9+.-]*:", target) or \
                    target.startswith(("#", "/")):
                continue
            if not self.exists(os.path.join(here, target)):
                self.report(rel, line_of(text, m.start()),
                            "links to %s, which is not in the tree" % target,
                            os.path.normpath(os.path.join(
                                here, target.split("#", 1)[0])))

    def check_bare_files(self, rel, comment, base, whole):
        for m in BARE_C_FILE.finditer(comment):
            name = m.group(1)
            # A test may name any file of the code it tests.
            if rel.startswith("tests/") and any(
                    f.startswith(("src/", "include/")) and
                    os.path.basename(f) == name for f in self.files):
                continue
            if not any(os.path.exists(os.path.join(self.root, d, name))
                       for d in self._bare_dirs(rel)):
                self.report(rel, line_of(whole, base + m.start()),
                            "names %s, which is not in %s" %
                            (name, " or ".join(
                                (d or ".") + "/"
                                for d in self._bare_dirs(rel))))

    @staticmethod
    def _bare_dirs(rel):
        """Where a bare file name in a comment of rel may live."""
        parts = os.path.dirname(rel).split(os.sep)
        dirs = [os.path.join(*parts[:i]) if i else ""
                for i in range(len(parts), -1, -1)]
        if parts[0] == "src" and len(parts) > 1:
            dirs.append(os.path.join("include", *parts[1:]))
        if parts[0] == "include" and len(parts) > 1:
            dirs.append(os.path.join("src", *parts[1:]))
        if parts[0] in ("src", "include"):
            dirs += ["src", "include"]
        seen = []
        for d in dirs:
            if d not in seen:
                seen.append(d)
        return seen

    # Functions.
    def check_functions(self, rel, text):
        fenced = False
        function_col = None
        for number, line in enumerate(text.split("\n"), 1):
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            if fenced or line.startswith(("    ", "\t")):
                continue
            cells = self._table_cells(line)
            if cells is None:
                function_col = None
            elif any(c.strip().lower() == "function" for c in cells):
                function_col = [c.strip().lower() for c in
                                cells].index("function")
                continue
            strict_span = None
            if cells is not None and function_col is not None and \
                    function_col < len(cells):
                strict_span = cells[function_col]
            for m in BACKQUOTED.finditer(line):
                self._check_name(rel, number, m.group(1),
                                 strict_span is not None and
                                 m.group(0) in strict_span)

    @staticmethod
    def _table_cells(line):
        s = line.strip()
        if not (s.startswith("|") and s.endswith("|")):
            return None
        return re.split(r"(?<!\\)\|", s[1:-1])

    def _check_name(self, rel, number, span, strict):
        m = FUNC_SHAPE.match(span.strip())
        if not m:
            return
        name, called = m.group(1), m.group(2)
        if name.startswith(EXTERNAL_PREFIXES) or name in EXTERNAL_NAMES:
            return
        if name in self.functions:
            return
        # A plain name is a function of ours only if it looks like one: no
        # identifier of the code, and it starts as a function of src/ does
        # (resources_, sock_, op_, ...); ctest names, kernel names, struct
        # members are not.
        if not (called or strict) and (
                name in self.identifiers or
                any(t.match(name) for t in self.test_names) or
                name.split("_")[0] + "_" not in self.src_prefixes):
            return
        self.report(rel, number, "names %s%s, a function defined nowhere "
                    "in the tree" % (name, "()" if called else ""))

    def run(self):
        docs = ["README.md"] + sorted(
            os.path.relpath(p, self.root)
            for p in glob.glob(os.path.join(self.root, "docs", "*.md")))
        for rel in docs:
            if not os.path.exists(os.path.join(self.root, rel)):
                continue
            text = read(os.path.join(self.root, rel))
            self.check_paths(rel, text)
            self.check_md_links(rel, text)
            self.check_functions(rel, text)
        self.findings += glossary_links.check(self.root)
        for page in sorted(glob.glob(os.path.join(self.root, "man", "*.1"))):
            rel = os.path.relpath(page, self.root)
            self.check_paths(rel, roff_text(read(page)))
        for rel in self.files:
            if not rel.startswith(CODE_FOLDERS) or "/corpus/" in rel:
                continue
            text = read(os.path.join(self.root, rel))
            for base, comment in comment_spans(rel, text, self.root):
                self.check_paths(rel, comment, base, text)
                if rel.endswith(C_ENDINGS):
                    self.check_bare_files(rel, comment, base, text)
        return self.findings


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..")
    findings = Checker(os.path.abspath(root)).run()
    for finding in findings:
        print(finding)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
