#!/usr/bin/python3
"""Tests for scripts/build_corpus.py on small fixture files (stdlib only, no network, no packages).

Run: /usr/bin/python3 tests/build_corpus_test.py
"""
import gzip
import hashlib
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPT = HERE.parent / "scripts" / "build_corpus.py"
sys.path.insert(0, str(SCRIPT.parent))
import build_corpus as bc  # noqa: E402

PROSE_1 = ("The quick brown fox jumps over the lazy dog, and then it runs into the forest where "
           "the other animals are waiting for it.")
PROSE_2 = ("When you install a package, the system checks which other packages it depends on and "
           "installs those as well. This is why a small package can bring in many others.")
PROSE_3 = ("Plain text files are read as they are: paragraphs are separated by blank lines, and "
           "the lines inside a paragraph are kept as they were written by the author.")
PROSE_4 = ("A second document has its own text, which is different from the first one, so that it "
           "is not a duplicate of it. It still shares the licence paragraph with the first page, which "
           "the builder keeps only once.")
BOILERPLATE = ("Permission is granted to copy, distribute and modify this document under the terms "
               "of the licence that comes with it, provided that this notice is kept intact in all "
               "copies and that the name of the author is not used to endorse anything at all.")
GERMAN = ("Die Paketverwaltung installiert automatisch alle Abhängigkeiten eines Pakets. Dabei "
          "werden auch Bibliotheken heruntergeladen, die von anderen Programmen benötigt werden, "
          "und die Konfiguration wird nach der Installation ohne weitere Rückfragen angepasst.")
CODE = "int main(void) { return foo_bar(x[0], y->z) + 0x1f; } /* 1 */"

PAGE = """<!DOCTYPE html><html><head><title>Page title</title>
<style>body {{ color: red; }}</style><script>alert("SCRIPTTEXT");</script></head>
<body><nav><a href="a.html">NAVTEXT one</a> <a href="b.html">NAVTEXT two</a></nav>
<div role="navigation">ROLENAV</div><header>HEADERTEXT</header>
<h1>Getting started</h1>
<p>{p1}</p>
<pre>for (i = 0; i &lt; 10; i++) printf("PRETEXT");</pre>
<div class="highlight"><pre>HIGHLIGHTTEXT = 1</pre></div>
<p>{p2}</p>
<table><tr><td>42</td><td>0x2a</td></tr></table>
<p>{boiler}</p>
<footer>FOOTERTEXT</footer></body></html>
""".format(p1=PROSE_1, p2=PROSE_2.replace("package", "<code>package</code>", 1), boiler=BOILERPLATE)
OTHER = "<html><body><h2>Another page</h2><p>{}</p><p>{}</p></body></html>".format(PROSE_4, BOILERPLATE)
GERMAN_PAGE = "<html><body><p>{0}</p><p>{0}</p></body></html>".format(GERMAN)
CODE_PAGE = "<html><body><p>{}</p>{}</body></html>".format(
    PROSE_1 + " " + PROSE_1.replace("fox", "cat"), "".join("<p>%s</p>" % CODE.replace("1", str(i)) for i in range(40)))
TOC_PAGE = "<html><body><ul>{}</ul><p>Contents.</p></body></html>".format(
    "".join('<li><a href="s%d.html">Section number %d of the manual about things</a></li>' % (i, i) for i in range(30)))
TEXT = "{}\r\n\r\n\r\n\r\n{}\x07\n\n    $ ls -l /tmp | grep x ; echo $?\n".format(
    PROSE_3.replace("lines inside", "lines\ninside"), PROSE_1.replace("dog", "hound"))

VERSIONS = {"alpha": "1.0-1", "beta": "2:3.4"}


def write(root, rel, data):
    path = Path(root) / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if rel.endswith(".gz"):
        data = gzip.compress(data.encode(), mtime=0)
    path.write_bytes(data if isinstance(data, bytes) else data.encode())


def make_fixtures(root):
    write(root, "usr/share/doc/alpha/html/a-page.html", PAGE)
    write(root, "usr/share/doc/alpha/html/b-dup.html", PAGE)  # duplicate document
    write(root, "usr/share/doc/alpha/html/c-code.html", CODE_PAGE)
    write(root, "usr/share/doc/alpha/html/d-german.html", GERMAN_PAGE)
    write(root, "usr/share/doc/alpha/html/e-other.html", OTHER)
    write(root, "usr/share/doc/alpha/html/f-toc.html", TOC_PAGE)
    write(root, "usr/share/doc/alpha/html/_static/skip.html", OTHER.replace("Another", "Static"))
    write(root, "usr/share/doc/beta/notes.txt.gz", TEXT)
    return [
        bc.Source("alpha", ["usr/share/doc/alpha/html/**/*.html"], "html", "MIT",
                  ["usr/share/doc/alpha/html/_*/**"]),
        bc.Source("beta", ["usr/share/doc/beta/*.txt.gz"], "text", "GPL-2+", []),
    ]


def quiet(*args):
    pass


class BuildCorpusTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = os.path.join(self.tmp.name, "root")
        self.sources = make_fixtures(self.root)

    def tearDown(self):
        self.tmp.cleanup()

    def build(self, name="out", sources=None, jobs=1):
        out = os.path.join(self.tmp.name, name)
        stats = bc.build(out, sources or self.sources, root=self.root, version_of=VERSIONS.get,
                         jobs=jobs, log=quiet)
        return out, stats

    def documents(self, out):
        rows = Path(out, "documents.tsv").read_text().split("\n")
        self.assertEqual(rows[0], "offset\tbytes\tpackage\tdocument")
        self.assertEqual(rows[-1], "")
        return [r.split("\t") for r in rows[1:-1]]

    def test_cleaned_text_and_documents(self):
        out, stats = self.build()
        text = Path(out, "corpus.txt").read_text()
        for word in ("SCRIPTTEXT", "NAVTEXT", "ROLENAV", "HEADERTEXT", "PRETEXT", "HIGHLIGHTTEXT",
                     "FOOTERTEXT", "0x2a", "Page title", "ls -l", "\r", "\x07", "Paketverwaltung",
                     "foo_bar", "Section number", "Static page"):
            self.assertNotIn(word, text)
        for par in (PROSE_1, PROSE_2, PROSE_4, "Getting started", "Another page"):
            self.assertIn(par, text)
        # plain text keeps its lines; blank-line runs collapse to one blank line
        self.assertIn(PROSE_3.replace("lines inside", "lines\ninside") + "\n\n" + PROSE_1.replace("dog", "hound") + "\n",
                      text)
        self.assertNotIn("\n\n\n", text)
        docs = self.documents(out)
        self.assertEqual([(d[2], d[3]) for d in docs], [
            ("alpha", "usr/share/doc/alpha/html/a-page.html"),
            ("alpha", "usr/share/doc/alpha/html/e-other.html"),
            ("beta", "usr/share/doc/beta/notes.txt.gz"),
        ])
        # the page's text: heading, prose, inline <code> kept, boilerplate; one "\n" at the end
        first = text[:int(docs[0][1])]
        self.assertEqual(first, "Getting started\n\n%s\n\n%s\n\n%s\n" % (PROSE_1, PROSE_2, BOILERPLATE))
        self.assertEqual(stats["alpha"]["duplicates"], 1)
        self.assertEqual(stats["alpha"]["dropped not English"], 1)
        self.assertEqual(stats["alpha"]["dropped not prose"], 1)

    def test_dedup_boilerplate_paragraph(self):
        out, stats = self.build()
        text = Path(out, "corpus.txt").read_text()
        self.assertEqual(text.count(BOILERPLATE), 1)
        self.assertEqual(stats["alpha"]["duplicate paragraphs"], 1)
        sources = Path(out, "sources.tsv").read_text().split("\n")
        self.assertEqual(sources[0], "package\tversion\tlicence\tdocuments\tbytes\tduplicates_removed")
        alpha = sources[1].split("\t")
        self.assertEqual(alpha[:4], ["alpha", "1.0-1", "MIT", "2"])
        self.assertEqual(alpha[5], "1")
        self.assertEqual(sources[2].split("\t")[:3], ["beta", "2:3.4", "GPL-2+"])

    def test_offsets_tile_corpus(self):
        out, _ = self.build()
        data = Path(out, "corpus.txt").read_bytes()
        expect = 0
        for off, size, _, _ in self.documents(out):
            self.assertEqual(int(off), expect)
            doc = data[int(off):int(off) + int(size)]
            self.assertTrue(doc.endswith(b"\n") and not doc.endswith(b"\n\n"))
            expect += int(size)
        self.assertEqual(expect, len(data))
        manifest = Path(out, "MANIFEST").read_text()
        self.assertIn("corpus: prose\n", manifest)
        self.assertIn("sha256: %s\n" % hashlib.sha256(data).hexdigest(), manifest)
        self.assertIn("bytes: %d\n" % len(data), manifest)
        self.assertIn("documents: 3\n", manifest)
        self.assertIn("builder: scripts/build_corpus.py\n", manifest)
        self.assertEqual(bc.check(out), [])

    def test_deterministic(self):
        a, _ = self.build("a", jobs=1)
        b, _ = self.build("b", jobs=2)
        for name in ("corpus.txt", "documents.tsv", "sources.tsv", "MANIFEST"):
            self.assertEqual(Path(a, name).read_bytes(), Path(b, name).read_bytes(), name)

    def test_atomic_output(self):
        out, _ = self.build()
        self.assertFalse(os.path.exists(out + ".tmp"))
        before = {n: Path(out, n).read_bytes() for n in os.listdir(out)}
        # a failing build (a corrupt .gz) leaves the existing corpus as it was
        write(self.root, "usr/share/doc/beta/zz-broken.txt.gz", "x")
        Path(self.root, "usr/share/doc/beta/zz-broken.txt.gz").write_bytes(b"not gzip at all")
        with self.assertRaises(Exception):
            self.build()
        self.assertEqual({n: Path(out, n).read_bytes() for n in os.listdir(out)}, before)
        self.assertFalse(os.path.exists(os.path.join(out + ".tmp", "MANIFEST")))
        # a rebuild replaces it whole
        os.remove(os.path.join(self.root, "usr/share/doc/beta/zz-broken.txt.gz"))
        Path(out, "stale-file").write_text("old")
        self.build()
        self.assertFalse(os.path.exists(os.path.join(out, "stale-file")))
        self.assertEqual(bc.check(out), [])

    def test_missing_package_is_an_error(self):
        sources = self.sources + [bc.Source("gamma", ["x/*"], "text", "MIT", [])]
        with self.assertRaises(bc.BuildError) as cm:
            self.build(sources=sources)
        self.assertEqual(cm.exception.code, 2)
        self.assertIn("gamma", str(cm.exception))
        self.assertIn("apt-get install", str(cm.exception))
        self.assertFalse(os.path.exists(os.path.join(self.tmp.name, "out")))

    def test_check_catches_corruption(self):
        out, _ = self.build()
        run = lambda: subprocess.run([sys.executable, str(SCRIPT), "--check", "--out", out],
                                     capture_output=True, text=True)
        self.assertEqual(run().returncode, 0)
        data = bytearray(Path(out, "corpus.txt").read_bytes())
        data[10] = ord("X") if data[10] != ord("X") else ord("Y")
        Path(out, "corpus.txt").write_bytes(bytes(data))
        r = run()
        self.assertEqual(r.returncode, 1)
        self.assertIn("sha256", r.stderr)
        Path(out, "corpus.txt").write_bytes(bytes(data[:-5]))
        r = run()
        self.assertEqual(r.returncode, 1)
        os.remove(os.path.join(out, "MANIFEST"))
        r = run()
        self.assertEqual(r.returncode, 1)
        self.assertIn("missing MANIFEST", r.stderr)

    def test_list_packages(self):
        r = subprocess.run([sys.executable, str(SCRIPT), "--list-packages"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0)
        self.assertEqual(r.stdout.split(), [s.package for s in bc.SOURCES])

    def test_other_extractors(self):
        # dictd: .dict.dz (gzip) + .index with base64 offsets; meta entries skipped
        entries = ["00-database-info\nThis file was converted by a tool from the original data.\n",
                   "Abandon\n   To give up completely; to leave behind, as a plan, a house or a ship, and\n"
                   "   not return to it again. [1913 Webster]\n"]
        blob = "".join(entries).encode()
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
        b64 = lambda n: alphabet[n] if n < 64 else b64(n // 64) + alphabet[n % 64]
        index = "00-database-info\tA\t%s\nabandon\t%s\t%s\n" % (
            b64(len(entries[0].encode())), b64(len(entries[0].encode())), b64(len(entries[1].encode())))
        Path(self.root, "dict").mkdir()
        Path(self.root, "dict/test.dict.dz").write_bytes(gzip.compress(blob, mtime=0))
        Path(self.root, "dict/test.index").write_text(index)
        docs = list(bc.extract_dictd(os.path.join(self.root, "dict/test.dict.dz"), gzip.decompress(
            Path(self.root, "dict/test.dict.dz").read_bytes())))
        self.assertEqual(docs, [("#1", ["Abandon\nTo give up completely; to leave behind, as a plan, a house or a ship, and\n"
                                        "not return to it again."])])
        # pod: verbatim paragraphs and =begin blocks dropped, formatting codes resolved
        pod = ("=head1 NAME\n\nperlfoo - a test\n\n=head1 DESCRIPTION\n\nThis is B<bold> and C<< $x->y >> "
               "and L<perlfunc/open> text E<gt> more.\n\n    my $code = 1;\n\n=begin html\n\n<b>x</b>\n\n"
               "=end html\n\n=cut\n\nsub x { 1 }\n")
        (_, pars), = bc.extract_pod("x.pod", pod.encode())
        self.assertEqual(pars, ["NAME", "perlfoo - a test", "DESCRIPTION",
                                "This is bold and $x->y and perlfunc open text > more."])
        # info: node headers, menus and underlines dropped
        info = ("preamble\n\x1f\nFile: x.info,  Node: Top,  Next: A,  Up: (dir)\n\nTitle\n*****\n\n"
                "Some text here.\n\n* Menu:\n\n* A::  The A node.\n\x1f\nTag Table:\nNode: Top\x7f1\n\x1f\nEnd Tag Table\n")
        (_, pars), = bc.extract_info("x.info", info.encode())
        self.assertEqual(pars, ["Title", "Some text here."])


if __name__ == "__main__":
    unittest.main(verbosity=2)
