#!/usr/bin/python3
"""Builds fp4lab's `prose` corpus: English prose from installed Debian documentation packages.

Usage: scripts/build_corpus.py [--out DIR] [--only PKG,...] [--jobs N]
       scripts/build_corpus.py --list-packages   package names to apt-get install, one a line
       scripts/build_corpus.py --check [--out DIR]  verify a built corpus (exit 1 if broken)

Output (DIR defaults to ${FP4LAB_DATA:-${XDG_DATA_HOME:-$HOME/.local/share}/fp4lab}/corpora/prose):
  corpus.txt     every document's cleaned text, each ending in exactly one "\\n", concatenated
  documents.tsv  offset, bytes, package, document (path inside the package, "#N" for a part)
  sources.tsv    package, version, licence, documents, bytes, duplicates_removed
  MANIFEST       "key: value" lines: corpus, bytes, documents, sha256, builder, packages
DIR is written as DIR.tmp and renamed into place, so a DIR that exists is complete.

Pipeline, per source file (in SOURCES order, files in sorted path order, so the same installed
packages always give byte-identical output):
  1. extract paragraphs (the `kind` column: html, text, info, pod, dictd, wordnet, osis);
     HTML drops script/style/head/nav/header/footer/aside/pre/code-block/table-of-contents/
     sidebar/signature parts, and pages whose text is mostly link text (tables of contents,
     indexes) are dropped whole;
  2. normalise: NFC, "\\n" line ends, control and zero-width characters removed, whitespace
     inside a line collapsed, blank-line runs collapsed;
  3. keep prose (see is_prose): a paragraph is prose when it has >= 6 words, >= 70% of its
     non-space characters are letters, it has sentence punctuation (. ! ? followed by a space or
     the end), at least 3 words per line on average and a mean word length under 12; a short
     paragraph (< 6 words, mostly letters: a heading) is kept only just before a prose paragraph;
     everything else (code, tables, lists of names, option lists) is dropped;
  4. drop the document when what was kept is under MIN_DOC_BYTES, under MIN_KEPT_SHARE of the
     document's text (then it is mostly code or tables), or not English (under
     MIN_ENGLISH_SHARE of its words are common English function words, or more than 10% of its
     letters are outside Latin-1);
  5. split documents over MAX_DOC_BYTES at paragraph boundaries ("path#1", "path#2", ...);
  6. drop exact duplicate documents (sha256 of the cleaned text), then paragraphs longer than
     DEDUP_PARAGRAPH_CHARS already seen in an earlier document (boilerplate); the first
     occurrence in build order is kept. A document left with under MIN_DOC_BYTES is dropped too
     (counted with the duplicates).
Standard library only; extraction runs in a process pool (ordered, so still deterministic).
"""
import argparse
import base64
import collections
import fnmatch
import gzip
import hashlib
import html
import html.parser
import multiprocessing
import os
import re
import shutil
import struct
import subprocess
import sys
import unicodedata
import zlib
from pathlib import Path

# ---------------------------------------------------------------------------------------------
# THE source table. One row per Debian package:
#   package  Debian package name (must be installed; --list-packages prints these)
#   globs    files to read, relative to the file-system root (sorted; "**" recurses)
#   kind     extractor: html | text (plain or .gz) | info (.info[-N].gz) | pod | dictd (.dict.dz
#            with its .index) | wordnet (data.* glosses) | osis (SWORD zText module, .bzz)
#   licence  short SPDX-like name, read from /usr/share/doc/<package>/copyright
#   exclude  globs (same form) to leave out
Source = collections.namedtuple("Source", "package globs kind licence exclude")
SOURCES = [
    Source("linux-doc-6.1", ["usr/share/doc/linux-doc-6.1/html/**/*.html"], "html", "GPL-2",
           ["usr/share/doc/linux-doc-6.1/html/_*/**", "**/genindex.html", "**/search.html",
            "usr/share/doc/linux-doc-6.1/html/translations/**"]),
    Source("debian-handbook", ["usr/share/doc/debian-handbook/html/en-US/*.html"], "html",
           "GPL-2+ or CC-BY-SA-3.0", []),
    Source("debian-reference-en", ["usr/share/debian-reference/*.en.html"], "html", "GPL-2+", []),
    Source("developers-reference", ["usr/share/developers-reference/*.html"], "html", "GPL-2", []),
    Source("debian-policy", ["usr/share/doc/debian-policy/policy.html/*.html"], "html", "GPL-2+", []),
    Source("debian-faq", ["usr/share/doc/debian/FAQ/*.html"], "html", "permissive (verbatim copying)", []),
    Source("debian-history", ["usr/share/doc/debian-history/docs/*.en.html"], "html", "GPL-2+", []),
    Source("doc-debian", ["usr/share/doc/debian/*.txt.gz", "usr/share/doc/debian/debian-manifesto.gz",
                          "usr/share/doc/debian/social-contract.txt"], "text", "GPL-2+ and OPL-1.0", []),
    Source("maint-guide", ["usr/share/doc/maint-guide/html/*.en.html"], "html", "GPL-2+", []),
    Source("debmake-doc", ["usr/share/doc/debmake-doc/html/*.en.html"], "html", "Expat", []),
    Source("harden-doc", ["usr/share/doc/harden-doc/html/en-US/*.html"], "html", "GPL-2", []),
    Source("debian-kernel-handbook", ["usr/share/doc/debian-kernel-handbook/kernel-handbook.html/*.html"],
           "html", "GPL-2+", []),
    Source("debian-edu-doc-en", ["usr/share/doc/debian-edu-doc-en/*.html"], "html", "GPL-2+", []),
    Source("installation-guide-amd64", ["usr/share/doc/installation-guide-amd64/en/*.html"], "html",
           "GPL-2", []),
    Source("gnu-standards", ["usr/share/info/standards.info.gz", "usr/share/info/maintain.info.gz"],
           "info", "GFDL-1.3+", []),
    Source("bash-doc", ["usr/share/doc/bash-doc/bashref.html"], "html", "GPL-3+", []),
    Source("zsh-doc", ["usr/share/doc/zsh-common/html/*.html"], "html", "Zsh", []),
    Source("perl-doc", ["usr/share/perl/*/pod/*.pod"], "pod", "GPL-1+ or Artistic", []),
    Source("git-doc", ["usr/share/doc/git-doc/*.html", "usr/share/doc/git-doc/*/*.html"], "html",
           "GPL-2", []),
    Source("postgresql-doc-15", ["usr/share/doc/postgresql-doc-15/html/*.html"], "html",
           "PostgreSQL", ["**/bookindex.html", "**/index.html"]),
    Source("sqlite3-doc", ["usr/share/doc/sqlite3/**/*.html"], "html", "public-domain",
           ["**/sitemap.html", "**/keyword_index.html", "**/doclist.html"]),
    Source("python3.11-doc", ["usr/share/doc/python3.11/html/**/*.html"], "html", "PSF-2.0",
           ["usr/share/doc/python3.11/html/_*/**", "**/genindex*.html", "**/py-modindex.html",
            "**/search.html", "usr/share/doc/python3.11/html/c-api/**"]),
    Source("python-django-doc", ["usr/share/doc/python-django-doc/html/**/*.html"], "html",
           "BSD-3-Clause", ["usr/share/doc/python-django-doc/html/_*/**", "**/genindex*.html",
                            "**/py-modindex.html", "**/search.html"]),
    Source("rust-doc", ["usr/share/doc/rust-doc/html/%s/**/*.html" % d for d in
                        ("book", "reference", "nomicon", "edition-guide", "embedded-book", "rustc",
                         "rustdoc", "rust-by-example")], "html", "MIT or Apache-2.0",
           ["**/print.html", "**/toc.html", "usr/share/doc/rust-doc/html/book/*-edition/**"]),
    Source("octave-doc", ["usr/share/doc/octave/octave.html/*.html"], "html", "GPL-3+", []),
    Source("gimp-help-en", ["usr/share/gimp/2.0/help/en/**/*.html"], "html", "GFDL-NIV-1.2+", []),
    Source("gnome-user-docs", ["usr/share/help/C/*/*.page"], "html", "CC-BY-SA-3.0", []),
    Source("kicad-doc-en", ["usr/share/doc/kicad/help/en/**/*.html"], "html", "GPL-3+", []),
    Source("jargon-text", ["usr/share/doc/jargon-text/jargon.txt.gz"], "text", "public-domain", []),
    Source("dict-foldoc", ["usr/share/dictd/foldoc.dict.dz"], "dictd", "GFDL-1.1+", []),
    Source("dict-devil", ["usr/share/dictd/devil.dict.dz"], "dictd", "public-domain", []),
    Source("dict-gcide", ["usr/share/dictd/gcide.dict.dz"], "dictd", "GPL-2+", []),
    Source("wordnet-base", ["usr/share/wordnet/data.noun", "usr/share/wordnet/data.verb",
                            "usr/share/wordnet/data.adj", "usr/share/wordnet/data.adv"],
           "wordnet", "WordNet-3.0", []),
    Source("sword-text-web", ["usr/share/sword/modules/texts/ztext/engWEB2015eb/*.bzz"], "osis",
           "public-domain", []),
]

MIN_WORDS = 6                 # prose paragraph: at least this many words ...
MIN_ALPHA_SHARE = 0.70        # ... this share of non-space characters letters ...
MIN_WORDS_PER_LINE = 3.0      # ... this many words per line (lists and tables have fewer) ...
MAX_MEAN_WORD_LEN = 12.0      # ... and words shorter than this on average (no hashes, URLs)
MIN_DOC_BYTES = 200           # documents with less kept text are dropped
MIN_KEPT_SHARE = 0.25         # ... and so are those where prose is under this share of the text
MIN_ENGLISH_SHARE = 0.12      # share of words that must be common English function words
MAX_DOC_BYTES = 2_000_000     # bigger documents are split at paragraph boundaries ...
SPLIT_BYTES = 1_000_000       # ... into parts of about this size
DICT_ENTRIES_PER_DOC = 500    # a dictionary document is a block of this many entries
WORDNET_SYNSETS_PER_DOC = 2000
DEDUP_PARAGRAPH_CHARS = 200   # repeated paragraphs longer than this are dropped after the first

ENGLISH_WORDS = frozenset("""
the of and to a in is that for it as with was on be by this are or from at an not which but have
has can if you we they he she his her their its will would there been were all one so no more
when what who how than then also these those may into only other any some should must such each
use used using does do our your them out about because while where both between through after
before over under very most many same""".split())

SKIP_TAGS = {"script", "style", "head", "nav", "header", "footer", "aside", "pre", "noscript",
             "textarea", "svg", "math", "form", "button", "select", "iframe", "object", "template",
             "title", "map", "info", "screen", "synopsis"}
SKIP_CLASSES = {"toc", "navheader", "navfooter", "navigation", "sphinxsidebar", "related",
                "footer", "header", "breadcrumb", "breadcrumbs", "wy-breadcrumbs", "docnav",
                "headerlink", "highlight", "programlisting", "screen", "synopsis", "cmdsynopsis",
                "funcsynopsis", "literal-block", "literal-block-wrapper", "code-block-caption",
                "doctest", "sig", "sig-object", "indextable", "genindextable", "toctree-wrapper",
                "contents", "topic", "wy-nav-side", "rst-footer-buttons", "mw-editsection",
                "nav", "copyright"}
SKIP_ROLES = {"navigation", "search", "contentinfo", "banner", "complementary"}
BLOCK_TAGS = {"p", "div", "li", "dd", "dt", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th", "tr",
              "blockquote", "section", "article", "br", "table", "ul", "ol", "dl", "caption",
              "figcaption", "figure", "hr", "main", "body", "center", "address", "legend",
              "item", "note", "steps", "list", "terms", "tree", "page", "links", "media"}
VOID_TAGS = {"br", "img", "hr", "meta", "link", "input", "area", "base", "col", "embed",
             "source", "track", "wbr", "param"}

WORD_RE = re.compile(r"[A-Za-z\u00c0-\u024f]+(?:'[A-Za-z]+)?")
SENTENCE_RE = re.compile(r"[a-z)\]\"'\u201d%][.!?][\"')\]\u201d]*(?:\s|$)")
CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028\u2029\u2060\ufeff]")
SPACES_RE = re.compile(r"[ \t\f\v\u00a0\u2000-\u200a\u202f\u205f\u3000]+")


class BuildError(Exception):
    """A problem for the user; exit status `code`."""

    def __init__(self, message, code=2):
        super().__init__(message)
        self.code = code


# ---------------------------------------------------------------------------------------------
# Text normalisation and the prose test.

def normalize(text):
    """NFC, "\\n" line ends, no control/zero-width characters, single spaces, no blank-line runs."""
    text = unicodedata.normalize("NFC", text.replace("\r\n", "\n").replace("\r", "\n"))
    text = CONTROL_RE.sub("", text.replace("\t", " "))
    lines = [SPACES_RE.sub(" ", line).strip() for line in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n")


def split_paragraphs(text):
    return [p for p in normalize(text).split("\n\n") if p.strip()]


def paragraph_kind(par):
    """'prose', 'short' (a heading-like line) or 'junk'; see the module docstring."""
    chars = [c for c in par if not c.isspace()]
    if not chars:
        return "junk"
    alpha = sum(c.isalpha() for c in chars) / len(chars)
    words = par.split()
    if alpha < MIN_ALPHA_SHARE:
        return "junk"
    if len(words) < MIN_WORDS:
        return "short" if len(par) <= 120 else "junk"
    lines = par.count("\n") + 1
    if len(words) / lines < MIN_WORDS_PER_LINE:
        return "junk"
    if len(chars) / len(words) > MAX_MEAN_WORD_LEN:
        return "junk"
    if not SENTENCE_RE.search(par):
        return "junk"
    return "prose"


def keep_prose(paragraphs):
    """The prose paragraphs, each with the short paragraph (heading) right before it, if any."""
    kinds = [paragraph_kind(p) for p in paragraphs]
    kept = []
    for i, (par, kind) in enumerate(zip(paragraphs, kinds)):
        if kind == "prose" or (kind == "short" and i + 1 < len(kinds) and kinds[i + 1] == "prose"):
            kept.append(par)
    return kept


def is_english(text):
    words = WORD_RE.findall(text)
    if len(words) < 20:
        return len(words) > 0 and sum(w.lower() in ENGLISH_WORDS for w in words) >= 2
    letters = [c for c in text if c.isalpha()]
    if sum(ord(c) > 0xff for c in letters) > 0.10 * len(letters):
        return False
    return sum(w.lower() in ENGLISH_WORDS for w in words) >= MIN_ENGLISH_SHARE * len(words)


# ---------------------------------------------------------------------------------------------
# Extractors: each yields (document name suffix or "", list of paragraphs, total text bytes).

def read_bytes(path):
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".gz") or path.endswith(".dz"):
        data = gzip.decompress(data)
    return data


def decode(data):
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


class _HTMLText(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts = []          # text pieces; "\n\n" marks a paragraph break
        self.skip = []           # stack of [tag, depth] for skipped elements
        self.link_depth = 0
        self.link_chars = 0
        self.text_chars = 0

    def handle_starttag(self, tag, attrs):
        if self.skip:
            top = self.skip[-1]
            if tag == top[0] and tag not in VOID_TAGS:
                top[1] += 1
            return
        a = dict(attrs)
        classes = set((a.get("class") or "").split())
        if (tag in SKIP_TAGS or classes & SKIP_CLASSES or (a.get("role") or "") in SKIP_ROLES
                or (a.get("id") or "") in ("toc", "sidebar", "navigation", "footer", "header")):
            if tag not in VOID_TAGS:
                self.skip.append([tag, 1])
            return
        if tag in BLOCK_TAGS:
            self.parts.append("\n\n")
        elif tag == "a":
            self.link_depth += 1

    def handle_startendtag(self, tag, attrs):
        if not self.skip and tag in BLOCK_TAGS:
            self.parts.append("\n\n")

    def handle_endtag(self, tag):
        if self.skip:
            top = self.skip[-1]
            if tag == top[0]:
                top[1] -= 1
                if top[1] == 0:
                    self.skip.pop()
            return
        if tag in BLOCK_TAGS:
            self.parts.append("\n\n")
        elif tag == "a" and self.link_depth:
            self.link_depth -= 1

    def handle_data(self, data):
        if self.skip:
            return
        data = data.replace("\n", " ")
        n = len(data.strip())
        self.text_chars += n
        if self.link_depth:
            self.link_chars += n
        self.parts.append(data)


def extract_html(path, data):
    parser = _HTMLText()
    parser.feed(decode(data))
    parser.close()
    if parser.text_chars == 0 or parser.link_chars > 0.5 * parser.text_chars:
        return  # nothing, or a table of contents / index page
    text = "".join(parser.parts)
    paragraphs = [re.sub(r"\s+", " ", p).strip() for p in re.split(r"\n\n+", text)]
    paragraphs = split_paragraphs("\n\n".join(p for p in paragraphs if p))
    yield "", paragraphs


def extract_text(path, data):
    yield "", split_paragraphs(decode(data))


INFO_HEADER_RE = re.compile(r"^File: .*Node: ", re.M)


def extract_info(path, data):
    """An info file (and its -N parts): nodes without headers, menus, underlines, tag tables."""
    text = decode(data)
    base = path[:-len(".gz")] if path.endswith(".gz") else path
    part = 1
    while os.path.exists("%s-%d.gz" % (base, part)):
        text += decode(read_bytes("%s-%d.gz" % (base, part)))
        part += 1
    paragraphs = []
    for node in text.split("\x1f"):
        node = node.lstrip("\n")
        if not INFO_HEADER_RE.match(node):
            continue  # preamble, indirect table, tag table
        body = node.split("\n", 1)[1] if "\n" in node else ""
        body = body.split("\n* Menu:", 1)[0]
        body = re.sub(r"^[*=\-.]{3,}$", "", body, flags=re.M)
        paragraphs += split_paragraphs(body)
    yield "", paragraphs


POD_CODE_RE = re.compile(r"([BCEFILSXZ])(?:<<<<\s+(.*?)\s+>>>>|<<<\s+(.*?)\s+>>>|<<\s+(.*?)\s+>>|<([^<>]*)>)", re.S)


def _pod_inline(text):
    def repl(m):
        code = m.group(1)
        inner = next(g for g in m.groups()[1:] if g is not None)
        if code in "XZ":
            return ""
        if code == "E":
            named = {"lt": "<", "gt": ">", "verbar": "|", "sol": "/"}
            return named.get(inner, html.unescape("&%s;" % inner) if not inner.isdigit() else chr(int(inner)))
        if code == "L":
            inner = inner.split("|", 1)[0] if "|" in inner else inner
            inner = inner.replace('"', "").replace("/", " ") if "://" not in inner else inner
        return inner
    for _ in range(6):  # nested codes, innermost first
        new = POD_CODE_RE.sub(repl, text)
        if new == text:
            break
        text = new
    return text


def extract_pod(path, data):
    """Ordinary paragraphs and headings; verbatim (indented) paragraphs and =begin blocks dropped."""
    paragraphs, in_pod, in_begin = [], True, 0
    for block in re.split(r"\n[ \t]*\n", decode(data).replace("\r\n", "\n")):
        if not block.strip():
            continue
        if block.startswith("="):
            cmd = block.split(None, 1)
            name, rest = cmd[0], (cmd[1] if len(cmd) > 1 else "")
            if name == "=cut":
                in_pod = False
            elif name == "=pod":
                in_pod = True
            elif name == "=begin":
                in_pod, in_begin = True, in_begin + 1
            elif name == "=end":
                in_begin = max(0, in_begin - 1)
            elif name in ("=head1", "=head2", "=head3", "=head4", "=item") and not in_begin:
                in_pod = True
                rest = rest.strip()
                if rest and rest not in ("*", "-") and not rest.isdigit():
                    paragraphs.append(_pod_inline(rest))
            else:
                in_pod = True
            continue
        if not in_pod or in_begin or block[0] in " \t":
            continue
        paragraphs.append(_pod_inline(block))
    yield "", split_paragraphs("\n\n".join(paragraphs))


GCIDE_TAG_RE = re.compile(r"[ \t]*\[(?:1913 Webster|PJC|Webster 1913 Suppl\.|WordNet 1\.5|RH|Century Dict\.|"
                          r"Chambers 1881)[^\]\n]*\]")


def _dict_index(path):
    """dictd .index: (offset, length) of each entry, sorted, meta entries (00-database-*) left out."""
    digits = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}

    def b64(s):
        n = 0
        for c in s:
            n = n * 64 + digits[c]
        return n
    entries = set()
    with open(path, "rb") as f:
        for line in f:
            fields = line.rstrip(b"\n").split(b"\t")
            if len(fields) < 3 or fields[0].startswith(b"00-database") or fields[0].startswith(b"00database"):
                continue
            entries.add((b64(fields[1].decode("ascii")), b64(fields[2].decode("ascii"))))
    return sorted(entries)


GCIDE_ACCENTS = {"=": "\u0304", "-": "\u0304", "'": "\u0301", "`": "\u0300", '"': "\u0308",
                 "~": "\u0303", ".": "\u0307", ",": "\u0327", "^": "\u0302"}
GCIDE_SYMBOLS = {"ae": "\u00e6", "AE": "\u00c6", "oe": "\u0153", "OE": "\u0152", "imac": "\u012b",
                 "aum": "\u00e4", "eth": "\u00f0", "thorn": "\u00fe", "root": "\u221a", "deg": "\u00b0",
                 "sect": "\u00a7", "asl": "a", "ng": "\u014b", "th": "th", "add": "a", "udd": "u"}


def _gcide_chars(text):
    """GCIDE's ASCII escapes for accented letters ([=a], [e^], ['e], [ae], ...) as Unicode."""
    text = re.sub(r"\[([=\-'`\"~.,^])([A-Za-z]{1,2})\]",
                  lambda m: m.group(2)[0] + GCIDE_ACCENTS[m.group(1)] + m.group(2)[1:], text)
    text = re.sub(r"\[([A-Za-z]{1,2})\^\]", lambda m: m.group(1)[0] + "\u0306" + m.group(1)[1:], text)
    return re.sub(r"\[([A-Za-z]{2,5})\]", lambda m: GCIDE_SYMBOLS.get(m.group(1), m.group(0)), text)


def extract_dictd(path, data):
    """Blocks of DICT_ENTRIES_PER_DOC entries; an entry is one paragraph (lines kept, indentation,
    GCIDE source tags, pronunciation \\...\\ and {link} braces removed)."""
    index = path[:-len(".dict.dz")] + ".index"
    entries = _dict_index(index)
    for block in range(0, len(entries), DICT_ENTRIES_PER_DOC):
        paragraphs = []
        for off, length in entries[block:block + DICT_ENTRIES_PER_DOC]:
            entry = decode(data[off:off + length])
            if "[WordNet 1.5]" in entry and "[1913 Webster]" not in entry and "[PJC]" not in entry:
                continue  # GCIDE's copy of WordNet 1.5: wordnet-base has WordNet 3.0
            entry = _gcide_chars(GCIDE_TAG_RE.sub("", entry))
            entry = re.sub(r"\\[^\\\n]{1,60}\\", "", entry)
            entry = entry.replace("{", "").replace("}", "")
            entry = normalize(entry).replace("\n\n", "\n")
            if entry:
                paragraphs.append(entry)
        yield "#%d" % (block // DICT_ENTRIES_PER_DOC + 1), paragraphs


def extract_wordnet(path, data):
    """WordNet data.*: one line per synset, "word, word (pos): gloss." blocks of synsets."""
    pos_name = {"n": "noun", "v": "verb", "a": "adjective", "s": "adjective", "r": "adverb"}
    synsets = []
    for line in decode(data).split("\n"):
        if not line or line.startswith("  ") or "|" not in line:
            continue  # licence header
        head, gloss = line.split("|", 1)
        fields = head.split()
        count = int(fields[3], 16)
        words = [fields[4 + 2 * i].replace("_", " ") for i in range(count)]
        words = [re.sub(r"\([a-z]+\)$", "", w) for w in words]
        gloss = gloss.strip()
        if gloss and gloss[-1] not in ".!?\"":
            gloss += "."
        synsets.append("%s (%s): %s" % (", ".join(words), pos_name.get(fields[2], fields[2]), gloss))
    for block in range(0, len(synsets), WORDNET_SYNSETS_PER_DOC):
        yield "#%d" % (block // WORDNET_SYNSETS_PER_DOC + 1), split_paragraphs(
            "\n\n".join(synsets[block:block + WORDNET_SYNSETS_PER_DOC]))


def extract_osis(path, data):
    """SWORD zText (.bzz, blocks described by the .bzs next to it): one document per book, a
    paragraph per OSIS paragraph; notes and Strong's markup dropped."""
    with open(path[:-1] + "s", "rb") as f:
        index = f.read()
    book_text = []
    for i in range(0, len(index) - 11, 12):
        off, size, _ = struct.unpack("<III", index[i:i + 12])
        if size:
            book_text.append(zlib.decompress(data[off:off + size]).decode("utf-8", errors="replace"))
    for n, text in enumerate(book_text, 1):
        text = re.sub(r"<note\b.*?</note>", "", text, flags=re.S)
        text = re.sub(r"<title\b[^>]*>(.*?)</title>", r"\n\n\1\n\n", text, flags=re.S)
        text = re.sub(r"<(?:div|chapter|lb|l)\b[^>]*>", "\n\n", text)
        text = html.unescape(re.sub(r"<[^>]+>", "", text))
        paragraphs = [re.sub(r"\s+", " ", p).strip() for p in text.split("\n\n")]
        yield "#%d" % n, split_paragraphs("\n\n".join(p for p in paragraphs if p))


EXTRACTORS = {"html": extract_html, "text": extract_text, "info": extract_info, "pod": extract_pod,
              "dictd": extract_dictd, "wordnet": extract_wordnet, "osis": extract_osis}


# ---------------------------------------------------------------------------------------------
# Building.

def _glob_to_re(pattern):
    out, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif pattern[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif pattern[i] == "?":
            out, i = out + "[^/]", i + 1
        else:
            out, i = out + re.escape(pattern[i]), i + 1
    return re.compile(out + r"\Z")


def source_files(source, root):
    """The source's files (paths relative to root), sorted; symlinks to files already listed and
    excluded paths left out."""
    root = Path(root)
    excludes = [_glob_to_re(e) for e in source.exclude]
    found = set()
    for pattern in source.globs:
        for p in root.glob(pattern):
            rel = p.relative_to(root).as_posix()
            if p.is_file() and not any(e.match(rel) for e in excludes):
                found.add(rel)
    seen, files = set(), []
    for rel in sorted(found):
        real = os.path.realpath(root / rel)
        if real not in seen:
            seen.add(real)
            files.append(rel)
    return files


def clean_file(task):
    """Worker: (kind, root, rel) -> list of (document name, kept paragraphs, status)."""
    kind, root, rel = task
    path = os.path.join(root, rel)
    out = []
    for suffix, paragraphs in EXTRACTORS[kind](path, read_bytes(path)):
        name = rel + suffix
        total = sum(len(p) for p in paragraphs)
        kept = keep_prose(paragraphs)
        size = sum(len(p) + 2 for p in kept)
        if size < MIN_DOC_BYTES:
            out.append((name, None, "short"))
        elif size < MIN_KEPT_SHARE * total:
            out.append((name, None, "not prose"))
        elif not is_english("\n".join(kept)):
            out.append((name, None, "not English"))
        else:
            out.append((name, kept, "ok"))
    return out


def split_document(name, paragraphs):
    if sum(len(p.encode()) + 2 for p in paragraphs) <= MAX_DOC_BYTES:
        return [(name, paragraphs)]
    parts, cur, size = [], [], 0
    for p in paragraphs:
        if cur and size + len(p.encode()) > SPLIT_BYTES:
            parts.append(cur)
            cur, size = [], 0
        cur.append(p)
        size += len(p.encode()) + 2
    parts.append(cur)
    return [("%s#%d" % (name, i), part) for i, part in enumerate(parts, 1)]


def installed_version(package):
    """The installed version (dpkg-query), or None."""
    try:
        r = subprocess.run(["dpkg-query", "-W", "-f", "${db:Status-Status}\t${Version}", package],
                           capture_output=True, text=True)
    except OSError:
        return None
    if r.returncode != 0 or not r.stdout.startswith("installed\t"):
        return None
    return r.stdout.split("\t", 1)[1].strip()


def default_out():
    base = os.environ.get("FP4LAB_DATA") or os.path.join(
        os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share"), "fp4lab")
    return os.path.join(base, "corpora", "prose")


def build(out, sources=SOURCES, root="/", version_of=installed_version, jobs=None, log=print):
    """Builds the corpus from `sources` (files under `root`) into `out`, atomically. Returns the
    per-package stats. `version_of(package)` gives the installed version or None."""
    versions = {}
    missing = []
    for s in sources:
        v = version_of(s.package)
        if v is None:
            missing.append(s.package)
        versions[s.package] = v
    if missing:
        raise BuildError("package%s not installed: %s\n  install with: apt-get install -y --no-install-recommends %s"
                         % ("s" if len(missing) > 1 else "", ", ".join(missing), " ".join(missing)))
    tasks, owner = [], []
    for s in sources:
        files = source_files(s, root)
        if not files:
            raise BuildError("package %s is installed but none of its files match %s (has the package changed?)"
                             % (s.package, ", ".join(s.globs)))
        for rel in files:
            tasks.append((s.kind, str(root), rel))
            owner.append(s.package)

    out = os.path.abspath(out)
    tmp = out + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    stats = {s.package: collections.Counter() for s in sources}
    seen_docs, seen_pars = set(), set()
    sha = hashlib.sha256()
    offset = 0
    jobs = jobs or os.cpu_count() or 1
    pool = multiprocessing.Pool(jobs) if jobs > 1 and len(tasks) > 1 else None
    results = pool.imap(clean_file, tasks, chunksize=4) if pool else map(clean_file, tasks)
    try:
        with open(os.path.join(tmp, "corpus.txt"), "wb") as corpus, \
                open(os.path.join(tmp, "documents.tsv"), "w", encoding="utf-8", newline="\n") as index:
            index.write("offset\tbytes\tpackage\tdocument\n")
            for package, docs in zip(owner, results):
                st = stats[package]
                for name, paragraphs, status in docs:
                    if paragraphs is None:
                        st["dropped " + status] += 1
                        continue
                    for part_name, part in split_document(name, paragraphs):
                        digest = hashlib.sha256("\n\n".join(part).encode()).digest()
                        if digest in seen_docs:
                            st["duplicates"] += 1
                            continue
                        seen_docs.add(digest)
                        kept = []
                        for p in part:
                            if len(p) > DEDUP_PARAGRAPH_CHARS:
                                h = hashlib.blake2b(p.encode(), digest_size=16).digest()
                                if h in seen_pars:
                                    st["duplicate paragraphs"] += 1
                                    continue
                                seen_pars.add(h)
                            kept.append(p)
                        if sum(len(p) + 2 for p in kept) < MIN_DOC_BYTES:  # mostly repeated boilerplate
                            st["duplicates"] += 1
                            continue
                        data = ("\n\n".join(kept) + "\n").encode("utf-8")
                        part_name = re.sub(r"[\t\n\r]", " ", part_name)
                        corpus.write(data)
                        sha.update(data)
                        index.write("%d\t%d\t%s\t%s\n" % (offset, len(data), package, part_name))
                        offset += len(data)
                        st["documents"] += 1
                        st["bytes"] += len(data)
    finally:
        if pool:
            pool.close()
            pool.join()
    total_docs = sum(st["documents"] for st in stats.values())
    if total_docs == 0:
        shutil.rmtree(tmp, ignore_errors=True)
        raise BuildError("no documents survived cleaning", 1)
    with open(os.path.join(tmp, "sources.tsv"), "w", encoding="utf-8", newline="\n") as f:
        f.write("package\tversion\tlicence\tdocuments\tbytes\tduplicates_removed\n")
        for s in sources:
            st = stats[s.package]
            f.write("%s\t%s\t%s\t%d\t%d\t%d\n" % (s.package, versions[s.package], s.licence,
                                                  st["documents"], st["bytes"], st["duplicates"]))
    with open(os.path.join(tmp, "MANIFEST"), "w", encoding="utf-8", newline="\n") as f:
        f.write("corpus: prose\nbytes: %d\ndocuments: %d\nsha256: %s\nbuilder: scripts/build_corpus.py\n"
                % (offset, total_docs, sha.hexdigest()))
        f.write("packages: %s\n" % " ".join("%s=%s" % (s.package, versions[s.package]) for s in sources))
    for name in ("corpus.txt", "documents.tsv", "sources.tsv", "MANIFEST"):
        fd = os.open(os.path.join(tmp, name), os.O_RDONLY)
        os.fsync(fd)
        os.close(fd)
    old = out + ".old"
    shutil.rmtree(old, ignore_errors=True)
    if os.path.exists(out):
        os.rename(out, old)
    os.rename(tmp, out)
    shutil.rmtree(old, ignore_errors=True)

    log("%-24s %6s %9s %6s %8s  %s" % ("package", "docs", "MB", "dups", "dup-par", "dropped"))
    for s in sources:
        st = stats[s.package]
        dropped = ", ".join("%d %s" % (st[k], k[8:]) for k in sorted(st) if k.startswith("dropped "))
        log("%-24s %6d %9.2f %6d %8d  %s" % (s.package, st["documents"], st["bytes"] / 1e6, st["duplicates"],
                                             st["duplicate paragraphs"], dropped))
    log("total: %d documents, %.2f MB (%d bytes) in %s" % (total_docs, offset / 1e6, offset, out))
    return stats


# ---------------------------------------------------------------------------------------------
# Checking.

def check(out):
    """Problems with a built corpus in `out`, as a list of messages (empty: fine)."""
    names = ("corpus.txt", "documents.tsv", "sources.tsv", "MANIFEST")
    missing = [n for n in names if not os.path.isfile(os.path.join(out, n))]
    if missing:
        return ["%s: missing %s" % (out, ", ".join(missing))]
    problems = []
    manifest = {}
    with open(os.path.join(out, "MANIFEST"), encoding="utf-8") as f:
        for line in f:
            if ": " in line:
                k, v = line.rstrip("\n").split(": ", 1)
                manifest[k] = v
    with open(os.path.join(out, "corpus.txt"), "rb") as f:
        data = f.read()
    if manifest.get("corpus") != "prose":
        problems.append("MANIFEST: corpus is not 'prose'")
    digest = hashlib.sha256(data).hexdigest()
    if manifest.get("sha256") != digest:
        problems.append("corpus.txt sha256 %s does not match MANIFEST's %s" % (digest, manifest.get("sha256")))
    if manifest.get("bytes") != str(len(data)):
        problems.append("corpus.txt has %d bytes, MANIFEST says %s" % (len(data), manifest.get("bytes")))
    with open(os.path.join(out, "documents.tsv"), encoding="utf-8") as f:
        rows = f.read().split("\n")
    if rows[0] != "offset\tbytes\tpackage\tdocument" or rows[-1] != "":
        problems.append("documents.tsv: bad header or no final newline")
    expect, count, per_package = 0, 0, collections.Counter()
    for i, row in enumerate(rows[1:-1], 2):
        fields = row.split("\t")
        if (len(fields) != 4 or not fields[0].isdigit() or not fields[1].isdigit()
                or int(fields[0]) != expect or int(fields[1]) < 2):
            problems.append("documents.tsv:%d: row does not continue the previous one at offset %d" % (i, expect))
            break
        off, size = int(fields[0]), int(fields[1])
        end = off + size
        if end > len(data) or data[end - 1:end] != b"\n" or data[end - 2:end - 1] == b"\n":
            problems.append("documents.tsv:%d: document does not end in exactly one newline" % i)
            break
        expect, count = end, count + 1
        per_package[fields[2]] += size
    if not problems and expect != len(data):
        problems.append("documents.tsv covers %d bytes but corpus.txt has %d" % (expect, len(data)))
    if manifest.get("documents") != str(count):
        problems.append("documents.tsv lists %d documents, MANIFEST says %s" % (count, manifest.get("documents")))
    with open(os.path.join(out, "sources.tsv"), encoding="utf-8") as f:
        srows = [r.split("\t") for r in f.read().split("\n")[1:] if r]
    if not problems and any(per_package[r[0]] != int(r[4]) for r in srows if len(r) == 6):
        problems.append("sources.tsv byte counts do not match documents.tsv")
    return problems


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=None, help="output directory (default: %s)" % default_out())
    ap.add_argument("--list-packages", action="store_true", help="print the packages to install")
    ap.add_argument("--check", action="store_true", help="verify an existing corpus in --out")
    ap.add_argument("--only", default=None, help="comma-separated packages to build (trials)")
    ap.add_argument("--jobs", type=int, default=None, help="worker processes (default: all cores)")
    args = ap.parse_args(argv)
    out = args.out or default_out()
    if args.list_packages:
        print("\n".join(s.package for s in SOURCES))
        return 0
    if args.check:
        problems = check(out)
        for p in problems:
            print("build_corpus.py --check: " + p, file=sys.stderr)
        if not problems:
            print("%s: ok" % out)
        return 1 if problems else 0
    sources = SOURCES
    if args.only:
        wanted = args.only.split(",")
        unknown = [w for w in wanted if w not in {s.package for s in SOURCES}]
        if unknown:
            print("build_corpus.py: not in the source table: %s" % ", ".join(unknown), file=sys.stderr)
            return 2
        sources = [s for s in SOURCES if s.package in wanted]
    try:
        build(out, sources, jobs=args.jobs)
    except BuildError as e:
        print("build_corpus.py: %s" % e, file=sys.stderr)
        return e.code
    return 0


if __name__ == "__main__":
    sys.exit(main())
