#!/usr/bin/env python3
"""Unit test of scripts/transcripts.py on made-up pages, recipes and runs
(no guests): the marked blocks are found (fenced and indented), a block
that differs from the run in one word fails with its page, line and
recipe, one that differs only in an address, a key, a QP number, a PSN or
a time passes, a marker naming an unknown recipe fails, each selection
picks what it says, and --update writes the run's real values."""
import importlib.util
import io
import os
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, '..', '..', 'scripts', 'transcripts.py')
spec = importlib.util.spec_from_file_location('transcripts', SCRIPT)
tx = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tx)

RECIPES = """
[flow]
on = a b
server = rdma_rc_example -p 19875
client = rdma_rc_example -p 19875 192.0.2.1
ready = waiting on port
show flow-server = server stdout
show flow-client-ops = client stdout | grep ^Message is | grep ^fetch_add
show flow-client-range = client stdout | from ^Message | to ^fetch_add 10 | drop ^Remote | elide

[refused]
on = b
command = rdma_rc_example -c uc --ops send,read
show refused = stderr | prompt | status
"""

SERVER_OUT = """waiting on port 19875 for TCP connection
Remote address = 0x55c5aa168000
Remote rkey = 0x253
Remote QP number = 0x11
Remote LID = 0x0
[verbs] QP 0x000011 RTR -> RTS: sq PSN 0xe955d7
PASS tcp         connected to 192.0.2.1 port 19980 in 226 ms
going to send the message: 'SEND operation' with immediate data 0x1234abcd

test result is 0
"""

CLIENT_OUT = """TCP connection was established
Message is: 'SEND operation'
Remote QP number = 0x12
fetch_add 1: old value 1000
fetch_add 10: old value 1001
fetch_add 100: old value 1011
"""

REFUSED_ERR = ("rdma_rc_example: invalid --ops value 'send,read' for "
               "--connection uc: UC has no RDMA READ (operation read)\n")


def fence(name, text):
    return '<!-- transcript: %s -->\n```\n%s```\n' % (name, text)


def indented(name, text):
    body = ''.join('    ' + l + '\n' if l else '\n'
                   for l in text.rstrip('\n').split('\n'))
    return '<!-- transcript: %s -->\n\n%s' % (name, body)


class Tree:
    """A made-up source tree (README.md, docs/, the recipes) and runs."""

    def __init__(self, pages):
        self.dir = tempfile.TemporaryDirectory()
        root = self.dir.name
        os.mkdir(os.path.join(root, 'docs'))
        self.recipes = os.path.join(root, 'transcripts.recipes')
        with open(self.recipes, 'w') as f:
            f.write(RECIPES)
        for page, text in pages.items():
            with open(os.path.join(root, page), 'w') as f:
                f.write(text)
        if 'README.md' not in pages:
            open(os.path.join(root, 'README.md'), 'w').close()
        self.runs = os.path.join(root, 'runs')
        os.mkdir(self.runs)
        for name, text in (('flow.server.out', SERVER_OUT),
                           ('flow.client.out', CLIENT_OUT),
                           ('refused.err', REFUSED_ERR),
                           ('refused.rc', '2\n')):
            with open(os.path.join(self.runs, name), 'w') as f:
                f.write(text)

    def check(self):
        _, shows = tx.read_recipes(self.recipes)
        out = io.StringIO()
        status = tx.check(tx.default_pages(self.dir.name), self.dir.name,
                          shows, self.runs, out=out)
        return status, out.getvalue()

    def update(self):
        _, shows = tx.read_recipes(self.recipes)
        out = io.StringIO()
        status = tx.update(tx.default_pages(self.dir.name), self.dir.name,
                           shows, self.runs, out=out)
        return status, out.getvalue()

    def read(self, page):
        with open(os.path.join(self.dir.name, page)) as f:
            return f.read()


def run_text(new_server):
    """The page of the server's block, its text replaced by NEW_SERVER."""
    return '# A page\n\nThe server:\n\n' + fence('flow-server', new_server) \
        + '\nMore prose.\n'


class TestCompare(unittest.TestCase):
    def expect(self, status, out, want):
        self.assertEqual(status, want, 'status %d, wanted %d; output:\n%s' %
                         (status, want, out))

    def test_same_text_passes(self):
        status, out = Tree({'docs/a.md': run_text(SERVER_OUT)}).check()
        self.expect(status, out, 0)
        self.assertIn('1 blocks compared, 0 differ', out)

    def test_other_addresses_keys_qpns_psns_times_pass(self):
        page = SERVER_OUT.replace('0x55c5aa168000', '0x560501f8a000') \
            .replace('rkey = 0x253', 'rkey = 0x22b') \
            .replace('number = 0x11', 'number = 0x2b') \
            .replace('QP 0x000011', 'QP 0x000065') \
            .replace('PSN 0xe955d7', 'PSN 0x24239e') \
            .replace('in 226 ms', 'in 17 ms')
        self.assertNotEqual(page, SERVER_OUT)
        status, out = Tree({'docs/a.md': run_text(page)}).check()
        self.expect(status, out, 0)

    def test_one_word_changed_fails_naming_page_line_recipe(self):
        page = SERVER_OUT.replace("'SEND operation'", "'SEND message'")
        status, out = Tree({'docs/a.md': run_text(page)}).check()
        self.expect(status, out, 1)
        # The block starts at line 7 of the page; the word is in its 8th.
        self.assertIn('docs/a.md:14: transcript flow-server differs', out)
        self.assertIn('the block starts at line 7', out)
        self.assertIn("-going to send the message: 'SEND message'", out)
        self.assertIn("+going to send the message: 'SEND operation'", out)

    def test_constant_hex_stays_literal(self):
        # Immediate data and a LID are not masked: a change there fails.
        for old, new in (('0x1234abcd', '0x1234abce'),
                         ('LID = 0x0', 'LID = 0x1')):
            page = SERVER_OUT.replace(old, new)
            status, out = Tree({'docs/a.md': run_text(page)}).check()
            self.expect(status, out, 1)

    def test_missing_line_fails(self):
        page = SERVER_OUT.replace('Remote LID = 0x0\n', '')
        status, out = Tree({'docs/a.md': run_text(page)}).check()
        self.expect(status, out, 1)
        self.assertIn('+Remote LID = 0x0', out)

    def test_unknown_recipe_fails(self):
        page = run_text(SERVER_OUT) + '\n' + fence('no-such-run', 'x\n')
        status, out = Tree({'README.md': page}).check()
        self.expect(status, out, 1)
        self.assertIn('README.md:', out)
        self.assertIn('transcript no-such-run: no such recipe', out)

    def test_marker_without_block_fails(self):
        page = '<!-- transcript: flow-server -->\nprose, no block\n'
        with self.assertRaises(tx.TranscriptError) as e:
            tx.find_blocks('docs/a.md', page)
        self.assertIn('docs/a.md:1: transcript flow-server', str(e.exception))

    def test_no_marked_block_fails(self):
        status, out = Tree({'docs/a.md': '# nothing marked\n'}).check()
        self.expect(status, out, 1)


class TestSelect(unittest.TestCase):
    def test_grep_keeps_only_matching_lines(self):
        page = fence('flow-client-ops', "Message is: 'SEND operation'\n"
                     'fetch_add 1: old value 1000\n'
                     'fetch_add 10: old value 1001\n'
                     'fetch_add 100: old value 1011\n')
        status, out = Tree({'docs/a.md': page}).check()
        self.assertEqual(status, 0, out)

    def test_range_with_elision(self):
        page = fence('flow-client-range', "Message is: 'SEND operation'\n"
                     '...\n'
                     'fetch_add 1: old value 1000\n'
                     'fetch_add 10: old value 1001\n')
        # The range's QP line is dropped: one "..." in its place.
        status, out = Tree({'docs/a.md': page}).check()
        self.assertEqual(status, 0, out)

    def test_once_keeps_the_first_match(self):
        show = tx.Show(tx.Run('r', {'command': 'x'}), 'r',
                       'stdout | once ^armed | once ^event')
        lines = ['send', 'armed', 'event', 'armed', 'event', 'done']
        self.assertEqual(show.select(lines), ['send', 'armed', 'event',
                                              'done'])

    def test_prompt_and_status_from_the_recipe(self):
        page = indented('refused', '$ rdma_rc_example -c uc --ops send,read\n'
                        + REFUSED_ERR + '$ echo $?\n2\n')
        status, out = Tree({'docs/a.md': page}).check()
        self.assertEqual(status, 0, out)
        wrong = page.replace('\n    2\n', '\n    1\n')
        status, out = Tree({'docs/a.md': wrong}).check()
        self.assertEqual(status, 1, out)

    def test_indented_block_is_found_whole(self):
        page = 'Server:\n\n' + indented('flow-server', SERVER_OUT) + \
            '\nAfter.\n'
        blocks = tx.find_blocks('docs/a.md', page)
        self.assertEqual(len(blocks), 1)
        self.assertEqual(blocks[0].lines, SERVER_OUT.rstrip('\n').split('\n'))


class TestUpdate(unittest.TestCase):
    def test_update_writes_real_values_and_keeps_prose(self):
        old = SERVER_OUT.replace('0x55c5aa168000', '0x560501f8a000') \
            .replace("'SEND operation'", "'SEND message'")
        tree = Tree({'docs/a.md': run_text(old),
                     'docs/b.md': 'Server:\n\n' +
                     indented('flow-server', old) + '\nAfter.\n'})
        status, out = tree.update()
        self.assertEqual(status, 0, out)
        self.assertEqual(tree.read('docs/a.md'), run_text(SERVER_OUT))
        self.assertEqual(tree.read('docs/b.md'), 'Server:\n\n' +
                         indented('flow-server', SERVER_OUT) + '\nAfter.\n')
        status, out = tree.check()
        self.assertEqual(status, 0, out)


class TestPlan(unittest.TestCase):
    """The lib.sh calls a recipe becomes."""

    def recipes(self, text):
        with tempfile.NamedTemporaryFile('w', suffix='.recipes',
                                         delete=False) as f:
            f.write(text)
        self.addCleanup(os.unlink, f.name)
        return tx.read_recipes(f.name)[0]

    def test_several_clients_start_at_once_after_the_server(self):
        runs = self.recipes('[srq]\non = a b\n'
                            'server = rdma_rc_example --clients 2 --srq\n'
                            'client = rdma_rc_example 192.0.2.1\n'
                            'ready = waiting on port\nclients = 2\n')
        lines = tx.plan(runs, '/b').splitlines()
        self.assertEqual([l.split(' ', 2)[:2] for l in lines], [
            ['rxe_start', 'srq.server'], ['rxe_wait_text', 'srq.server'],
            ['rxe_start', 'srq.client'], ['rxe_start', 'srq.client2'],
            ['rxe_end', 'srq.client'], ['rxe_end', 'srq.client2'],
            ['rxe_end', 'srq.server']])
        self.assertIn('--on b', lines[2])
        self.assertIn('--on a', lines[0])

    def test_clients_without_a_server_is_refused(self):
        with self.assertRaises(tx.TranscriptError):
            self.recipes('[x]\non = a\ncommand = rdma_check\nclients = 2\n')


class TestMask(unittest.TestCase):
    def test_masks(self):
        cases = (
            ('Remote address = 0x55c5aa168000', 'Remote address = <addr>'),
            ('Remote rkey = 0x253', 'Remote rkey = <key>'),
            ('local 0x55b2cb9cf000 len 27 lkey 0x7df, remote 0x0 rkey 0x0',
             'local <addr> len 27 lkey <key>, remote <addr> rkey <key>'),
            ('Server QP 0x00002f is still in state RTS',
             'Server QP <qpn> is still in state RTS'),
            ('dest QPN 0x000066, rq PSN 0x24239e',
             'dest QPN <qpn>, rq PSN <psn>'),
            ('PASS send        send done in 14 ms',
             'PASS send        send done in <time>'),
            ('No async event within 500 ms', 'No async event within 500 ms'),
            ('immediate data 0x1234abcd', 'immediate data 0x1234abcd'),
            ('Q_Key 0x11111111', 'Q_Key 0x11111111'),
            ("client 1 (QP 0x00002d): 'hello 1 of 8 from pid 176'",
             "client 1 (QP <qpn>): 'hello 1 of 8 from pid <pid>'"),
        )
        for line, want in cases:
            self.assertEqual(tx.mask(line), want, line)


if __name__ == '__main__':
    unittest.main()
