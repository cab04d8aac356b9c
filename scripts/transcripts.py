#!/usr/bin/env python3
"""The transcripts the pages show, against what the programs print now.

A page marks a block it wants kept true with an HTML comment on the line
(or the blank line) before it:

    <!-- transcript: NAME -->
    ```
    ...what a program printed...
    ```

An indented (four spaces) code block may follow the marker as well.  NAME
is a recipe of tests/rxe/transcripts.recipes, which says what to run in the
rig and which part of the output the block shows (the file's header tells
how).  tests/rxe/transcripts.sh runs every recipe in one plan on the shared
guests, then this script compares or rewrites the blocks:

    transcripts.py plan --build DIR           bash lines for lib.sh's plan
    transcripts.py check --runs DIR           compare every marked block
    transcripts.py update --runs DIR          write the fresh output in
    transcripts.py list                       the marked blocks, by page

Before comparing, mask() replaces in both the page's block and the fresh
output what changes from run to run: user-space addresses, rkeys and lkeys,
QP numbers, PSNs and times ("in 226 ms").  Everything else is compared
literally, so a changed word fails.  `update` writes the real values, not
the placeholders.

Which blocks are marked: every block that shows what rdma_rc_example,
rdma_lessons, rdma_check, rdma_bench or rdma_mc_example print (their
stdout, their stderr, and a "$ command" line when the block shows one).  Left unmarked, on
purpose: command lines alone and shell snippets (nothing was printed);
benchmark figure tables (measurements: a fresh run never repeats them, and
masking every figure would leave nothing to compare); the packet tables of
scripts/wire.sh (a decode of a capture whose frame numbers depend on the
TCP traffic around the lesson; tests/rxe/wire_two_guests.sh checks each
packet against what the programs printed); mermaid diagrams.
"""

import argparse
import configparser
import difflib
import os
import re
import shlex
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.dirname(HERE)
RECIPES = os.path.join(SOURCE_DIR, 'tests', 'rxe', 'transcripts.recipes')
PROGRAMS = ('rdma_rc_example', 'rdma_lessons', 'rdma_check', 'rdma_bench',
            'rdma_mc_example')

MARKER = re.compile(r'^<!--\s*transcript:\s*(\S+)\s*-->\s*$')
FENCE = re.compile(r'^(`{3,}|~{3,})')
INDENT = '    '


class TranscriptError(Exception):
    """A page or a recipe that cannot be read: named, with its line."""


# ---------------------------------------------------------------------------
# Masking
# ---------------------------------------------------------------------------

# Each rule: the words a changing value follows, and its placeholder.  A
# value is masked only after these words, so that a constant printed in
# hex (immediate data, a Q_Key, LID 0x0) stays literal.
MASKS = (
    (re.compile(r'\b(Remote address = |local |remote |at |va )0x[0-9a-f]+'),
     r'\1<addr>'),
    (re.compile(r'\b(rkey|lkey)( = | )0x[0-9a-f]+'), r'\1\2<key>'),
    (re.compile(r'\b(QP number = |QP |QPN )0x[0-9a-f]+'), r'\1<qpn>'),
    (re.compile(r'\bPSN 0x[0-9a-f]+'), 'PSN <psn>'),
    (re.compile(r'\bfrom pid [0-9]+'), 'from pid <pid>'),
    # Any other hex of nine digits or more is a user-space address.
    (re.compile(r'\b0x[0-9a-f]{9,}\b'), '<addr>'),
    (re.compile(r'\b(in|after) [0-9]+(\.[0-9]+)? ?(ns|us|ms|s)\b'),
     r'\1 <time>'),
)


def mask(line):
    """LINE with what changes from run to run replaced by placeholders."""
    for pattern, placeholder in MASKS:
        line = pattern.sub(placeholder, line)
    return line


# ---------------------------------------------------------------------------
# Pages: finding the marked blocks
# ---------------------------------------------------------------------------

class Block:
    """A marked block: its page, lines and recipe."""

    def __init__(self, page, marker_line, recipe, start, end, indented):
        self.page = page
        self.marker_line = marker_line  # 1-based
        self.recipe = recipe
        self.start = start  # index of the first content line
        self.end = end  # index after the last content line
        self.indented = indented
        self.lines = []

    def where(self):
        return '%s:%d' % (self.page, self.start + 1)


def _fenced(lines, i):
    """The end (exclusive) of the content of the fence opened at I: the
    line that closes it, made of the same character, at least as long."""
    fence = FENCE.match(lines[i]).group(1)
    closing = re.compile(r'^%s%s*\s*$' % (re.escape(fence),
                                          re.escape(fence[0])))
    for j in range(i + 1, len(lines)):
        if closing.match(lines[j]):
            return j
    return None


def _indented_end(lines, i):
    """The end (exclusive) of the indented block starting at I."""
    end = i
    j = i
    while j < len(lines):
        if lines[j].startswith(INDENT):
            end = j + 1
        elif lines[j].strip():
            break
        j += 1
    return end


def find_blocks(page, text):
    """The marked blocks of TEXT (the page PAGE), in page order."""
    lines = text.split('\n')
    blocks = []
    for i, line in enumerate(lines):
        m = MARKER.match(line)
        if not m:
            continue
        j = i + 1
        if j < len(lines) and not lines[j].strip():
            j += 1
        if j < len(lines) and FENCE.match(lines[j]):
            end = _fenced(lines, j)
            if end is None:
                raise TranscriptError('%s:%d: transcript %s: its fence '
                                      'is never closed' %
                                      (page, j + 1, m.group(1)))
            block = Block(page, i + 1, m.group(1), j + 1, end, False)
            block.lines = lines[j + 1:end]
        elif j < len(lines) and lines[j].startswith(INDENT):
            end = _indented_end(lines, j)
            block = Block(page, i + 1, m.group(1), j, end, True)
            block.lines = [l[len(INDENT):] for l in lines[j:end]]
        else:
            raise TranscriptError('%s:%d: transcript %s: the marker is not '
                                  'followed by a code block' %
                                  (page, i + 1, m.group(1)))
        blocks.append(block)
    return blocks


def replace_blocks(text, replacements):
    """TEXT with each (block, new lines) of REPLACEMENTS written in."""
    lines = text.split('\n')
    for block, new in sorted(replacements, key=lambda r: -r[0].start):
        if block.indented:
            new = [INDENT + l if l else '' for l in new]
        lines[block.start:block.end] = new
    return '\n'.join(lines)


def default_pages(source_dir=SOURCE_DIR):
    """README.md and docs/*.md, relative to SOURCE_DIR."""
    pages = ['README.md']
    docs = os.path.join(source_dir, 'docs')
    pages += sorted('docs/' + f for f in os.listdir(docs) if f.endswith('.md'))
    return pages


# ---------------------------------------------------------------------------
# Recipes
# ---------------------------------------------------------------------------

class Show:
    """Which part of a run's output a block shows."""

    def __init__(self, run, name, spec):
        self.run = run
        self.name = name
        clauses = [c.strip() for c in spec.split('|')]
        words = clauses[0].split()
        sides = ('server', 'client') if run.is_pair else ()
        if run.is_pair and (len(words) != 2 or words[0] not in sides):
            raise TranscriptError('transcript %s: say server or client, '
                                  'then the stream: %r' % (name, spec))
        self.side = words[0] if run.is_pair else None
        self.stream = words[-1]
        if self.stream not in ('stdout', 'stderr', 'stdout+stderr') or \
           len(words) != (2 if run.is_pair else 1):
            raise TranscriptError('transcript %s: no stream stdout, stderr '
                                  'or stdout+stderr in %r' % (name, spec))
        self.grep, self.drop, self.once = [], [], []
        self.start = self.stop = None
        self.elide = self.prompt = self.status = False
        for clause in clauses[1:]:
            self._clause(clause)

    def _clause(self, clause):
        word, _, arg = clause.partition(' ')
        if word in ('grep', 'drop', 'once', 'from', 'to') and not arg:
            raise TranscriptError('transcript %s: %s needs a pattern' %
                                  (self.name, word))
        if word == 'grep':
            self.grep.append(re.compile(arg))
        elif word == 'drop':
            self.drop.append(re.compile(arg))
        elif word == 'once':
            self.once.append(re.compile(arg))
        elif word == 'from':
            self.start = re.compile(arg)
        elif word == 'to':
            self.stop = re.compile(arg)
        elif clause in ('elide', 'prompt', 'status'):
            setattr(self, clause, True)
        else:
            raise TranscriptError('transcript %s: unknown clause %r' %
                                  (self.name, clause))

    def files(self):
        """The run's files (under RUNS) this block reads."""
        base = self.run.name + ('.' + self.side if self.side else '')
        return base, self.stream.split('+')

    def select(self, lines):
        """The lines of LINES this block shows."""
        if self.start:
            first = [i for i, l in enumerate(lines) if self.start.search(l)]
            if not first:
                raise TranscriptError('transcript %s: no line matches from '
                                      '/%s/' % (self.name, self.start.pattern))
            lines = lines[first[0]:]
        if self.stop:
            last = [i for i, l in enumerate(lines) if self.stop.search(l)]
            if not last:
                raise TranscriptError('transcript %s: no line matches to '
                                      '/%s/' % (self.name, self.stop.pattern))
            lines = lines[:last[0] + 1]
        kept = []
        seen = set()
        gap = False
        for line in lines:
            keep = (not self.grep or any(p.search(line) for p in self.grep)) \
                and not any(p.search(line) for p in self.drop)
            for p in self.once:
                if keep and p.search(line):
                    keep = p.pattern not in seen
                    seen.add(p.pattern)
            if keep:
                if gap and kept and self.elide:
                    kept.append('...')
                kept.append(line)
                gap = False
            else:
                gap = True
        return kept


class Run:
    """One thing to run in the rig: a server and its client, or a solo."""

    def __init__(self, name, section):
        self.name = name
        self.on = section.get('on', 'a').split()
        self.is_pair = 'server' in section
        if self.is_pair:
            self.server = section['server']
            self.client = section['client']
            if len(self.on) != 2:
                raise TranscriptError('run %s: on = SERVER_GUEST '
                                      'CLIENT_GUEST' % name)
        else:
            self.command = section.get('command')
            if not self.command or len(self.on) != 1:
                raise TranscriptError('run %s: a command on one guest, or '
                                      'a server and a client' % name)
        # a pair's client started this many times at once (--clients)
        self.clients = int(section.get('clients', '1'))
        if self.clients > 1 and not self.is_pair:
            raise TranscriptError('run %s: clients goes with a server' %
                                  name)
        self.ready = section.get('ready')
        self.signal = section.get('signal')
        self.before = section.get('before')
        self.after = section.get('after')
        self.shows = {}
        for key, value in section.items():
            if key.startswith('show '):
                show_name = key[len('show '):].strip()
                self.shows[show_name] = Show(self, show_name, value)

    def display(self, side):
        return self.command if side is None else getattr(self, side)


def read_recipes(path=RECIPES):
    """The runs of PATH, in order, and every transcript name's Show."""
    parser = configparser.ConfigParser(delimiters=('=',), interpolation=None,
                                       comment_prefixes=('#',),
                                       default_section='no defaults')
    parser.optionxform = str
    with open(path, encoding='utf-8') as f:
        parser.read_file(f)
    runs, shows = [], {}
    for name in parser.sections():
        run = Run(name, parser[name])
        runs.append(run)
        for show_name, show in run.shows.items():
            if show_name in shows:
                raise TranscriptError('transcript %s: named twice' %
                                      show_name)
            shows[show_name] = show
    return runs, shows


def _guest_command(text, build):
    """TEXT, run with BUILD first in PATH when it starts with a program:
    the program is then started by the name the page shows, which is
    also what it calls itself in its usage and error lines."""
    if text.split(' ', 1)[0] in PROGRAMS:
        return 'env PATH=%s:/usr/sbin:/usr/bin:/sbin:/bin %s' % (
            shlex.quote(os.path.abspath(build)), text)
    return text


def _several_clients(run, build):
    """lib.sh calls for RUN's server and its clients, started at once:
    NAME.client is the first, NAME.client2 the second, and so on."""
    q = shlex.quote
    server_guest, client_guest = run.on
    names = ['%s.client%s' % (run.name, i if i > 1 else '')
             for i in range(1, run.clients + 1)]
    out = ['rxe_start %s --on %s %s' % (
        q(run.name + '.server'), server_guest,
        q(_guest_command(run.server, build)))]
    if run.ready:
        out.append('rxe_wait_text %s %s --on %s' % (
            q(run.name + '.server'), q(run.ready), client_guest))
    out += ['rxe_start %s --on %s %s' % (
        q(name), client_guest, q(_guest_command(run.client, build)))
        for name in names]
    out += ['rxe_end %s --on %s' % (q(name), client_guest) for name in names]
    out.append('rxe_end %s --on %s' % (q(run.name + '.server'),
                                       server_guest))
    return out


def plan(runs, build):
    """lib.sh calls (bash) that add every run to one plan."""
    out = []
    q = shlex.quote
    for run in runs:
        args = []
        guests = sorted(set(run.on))
        if run.before:
            out += ['rxe_step --on %s %s' % (g, q(run.before)) for g in guests]
        if run.is_pair and run.clients > 1:
            out += _several_clients(run, build)
        elif run.is_pair:
            args = ['rxe_pair', run.name, '--on'] + run.on
            if run.ready:
                args += ['--ready', run.ready]
            if run.signal:
                args += ['--signal'] + run.signal.split(' ', 3)
            args += [_guest_command(run.server, build),
                     _guest_command(run.client, build)]
        else:
            args = ['rxe_solo', run.name, '--on', run.on[0]]
            if run.signal:
                args += ['--signal'] + run.signal.split(' ', 1)
            args.append(_guest_command(run.command, build))
        if args:
            out.append(' '.join(q(a) for a in args))
        if run.after:
            out += ['rxe_step --on %s %s' % (g, q(run.after)) for g in guests]
    return '\n'.join(out) + '\n'


def fresh(show, runs_dir):
    """The lines of the fresh run that the block of SHOW shows."""
    base, streams = show.files()
    lines = []
    for stream in streams:
        path = os.path.join(runs_dir, '%s.%s' % (base, stream[3:]))
        try:
            with open(path, encoding='utf-8', errors='replace') as f:
                text = f.read()
        except OSError as e:
            raise TranscriptError('transcript %s: cannot read %s: %s' %
                                  (show.name, path, e.strerror)) from e
        if text:
            lines += text[:-1].split('\n') if text.endswith('\n') \
                else text.split('\n')
    lines = show.select(lines)
    if show.prompt:
        lines.insert(0, '$ ' + show.run.display(show.side))
    if show.status:
        try:
            with open(os.path.join(runs_dir, base + '.rc')) as f:
                rc = f.read().strip()
        except OSError:
            rc = '(none)'
        lines += ['$ echo $?', rc]
    return lines


# ---------------------------------------------------------------------------
# Comparing and updating
# ---------------------------------------------------------------------------

def page_blocks(pages, source_dir, shows):
    """Every marked block of PAGES; an unknown recipe is an error."""
    found, errors = [], []
    for page in pages:
        with open(os.path.join(source_dir, page), encoding='utf-8') as f:
            text = f.read()
        for block in find_blocks(page, text):
            if block.recipe not in shows:
                errors.append('%s:%d: transcript %s: no such recipe in %s' %
                              (page, block.marker_line, block.recipe,
                               os.path.relpath(RECIPES, source_dir)))
            found.append(block)
    return found, errors


def compare(block, new):
    """An empty list, or a diff naming the block's page, the line where it
    first differs, and its recipe."""
    old_masked = [mask(l) for l in block.lines]
    new_masked = [mask(l) for l in new]
    if old_masked == new_masked:
        return []
    matcher = difflib.SequenceMatcher(None, old_masked, new_masked,
                                      autojunk=False)
    first = next(op[1] for op in matcher.get_opcodes() if op[0] != 'equal')
    head = '%s:%d: transcript %s differs from a fresh run (the block ' \
        'starts at line %d; masked, - page, + run):' % (
            block.page, block.start + 1 + first, block.recipe,
            block.start + 1)
    diff = difflib.unified_diff(old_masked, new_masked, lineterm='', n=1,
                                fromfile=block.where(), tofile='fresh run')
    return [head] + ['  ' + l for l in diff]


def check(pages, source_dir, shows, runs_dir, out=sys.stdout):
    """Compare every block: 0 when all match, 1 otherwise."""
    blocks, errors = page_blocks(pages, source_dir, shows)
    failed = len(errors)
    for line in errors:
        print(line, file=out)
    for block in blocks:
        if block.recipe not in shows:
            continue
        try:
            diff = compare(block, fresh(shows[block.recipe], runs_dir))
        except TranscriptError as e:
            diff = ['%s: %s' % (block.where(), e)]
        if diff:
            failed += 1
            print('\n'.join(diff), file=out)
        else:
            print('ok: %s: transcript %s' % (block.where(), block.recipe),
                  file=out)
    print('%d blocks compared, %d differ' % (len(blocks), failed), file=out)
    return 1 if failed or not blocks else 0


def update(pages, source_dir, shows, runs_dir, out=sys.stdout):
    """Write each block's fresh output into its page: 0, or 1 on error."""
    status = 0
    for page in pages:
        path = os.path.join(source_dir, page)
        with open(path, encoding='utf-8') as f:
            text = f.read()
        replacements = []
        for block in find_blocks(page, text):
            if block.recipe not in shows:
                print('%s:%d: transcript %s: no such recipe' %
                      (page, block.marker_line, block.recipe), file=out)
                status = 1
                continue
            new = fresh(shows[block.recipe], runs_dir)
            if new != block.lines:
                print('updated %s: transcript %s' %
                      (block.where(), block.recipe), file=out)
            replacements.append((block, new))
        new_text = replace_blocks(text, replacements)
        if new_text != text:
            with open(path, 'w', encoding='utf-8') as f:
                f.write(new_text)
    return status


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('action', choices=('plan', 'check', 'update', 'list'))
    parser.add_argument('--recipes', default=RECIPES)
    parser.add_argument('--source', default=SOURCE_DIR,
                        help='the tree whose pages are read')
    parser.add_argument('--build', help='plan: where the programs are')
    parser.add_argument('--runs', help='check, update: the runs folder')
    parser.add_argument('pages', nargs='*',
                        help='pages, relative to --source (default '
                        'README.md and docs/*.md)')
    args = parser.parse_args(argv)
    try:
        runs, shows = read_recipes(args.recipes)
        pages = args.pages or default_pages(args.source)
        if args.action == 'plan':
            sys.stdout.write(plan(runs, args.build or 'build'))
            return 0
        if args.action == 'list':
            blocks, errors = page_blocks(pages, args.source, shows)
            for block in blocks:
                print('%s %s' % (block.where(), block.recipe))
            print('\n'.join(errors), file=sys.stderr)
            return 1 if errors else 0
        if not args.runs:
            parser.error('%s needs --runs' % args.action)
        if args.action == 'check':
            return check(pages, args.source, shows, args.runs)
        return update(pages, args.source, shows, args.runs)
    except (TranscriptError, configparser.Error, re.error) as e:
        print('transcripts.py: %s' % e, file=sys.stderr)
        return 1


if __name__ == '__main__':
    sys.exit(main())
