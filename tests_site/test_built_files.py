"""What a reader would notice, read from the built files of every page in every language.

- every address a page names (``href``, ``src``, ``srcset``: links, scripts, stylesheets, the
  2x and phone figures) is a file of the site, and every ``#anchor`` into a page is an ``id`` of
  it: a reader never follows a link or waits for an image into a 404; a ``2x`` image has twice
  the pixels of its ``1x``;
- every page is in its edition's search index (``searchindex.js``): search finds every page;
- the prose of a Chinese page is Chinese. What may stay English there: code (``code``, ``pre``,
  ``kbd``), math, the names and units GLOSSARY.md keeps (PyTorch, GiB), names shaped like code
  (``nn.MultiheadAttention``), the papers' titles ("Attention Is All You Need": the glossary's
  rule), the sentences the model reads, quoted (“the keys to the cabinet are”), their words in
  italics, glosses (词元（token）), and the API reference's own words (its generated pages and
  summary tables, from the docstrings), which stay English. A run of four English words fails,
  and so does any one word none of these lets stay.
  So are a page's title, description (search engines, link previews) and figures' alt texts,
  and the words around the article (sidebars, header, footer) but for names;
- each figure shows the words of its edition, read from what was drawn: the gallery's scraper
  writes the text of each figure into its PNG (``Description``, docs/_ext/gallery_figures.py),
  so a Chinese page showing an English figure fails whatever its file name and alt text say;
- each download holds the code its page shows: a gallery example's ``.py`` its page's code
  blocks, a tutorial notebook its page's code cells (after the install cell), in each edition
  (``nox -s downloads`` runs them; test_downloads.py checks a notebook against its script);
- each notebook page shows the code the build ran and what it printed, cell by cell (the
  build's record, ``_build/jupyter_execute``, beside the site), and each gallery example what
  its run printed (the pages sphinx-gallery wrote: docs/auto_examples, _build/sources/zh_CN);
- every zip holds the downloads beside it; every gallery card shows its own thumbnail; what a
  page shows comes from its own edition; the sidebar's entries and API names lead to the pages
  they name; each page is found in search by its own words; each API signature is the
  package's; each code colour reads in both themes; a Chinese table cell is Chinese;
- a Chinese paragraph keeps the inline code and the numbers of its English twin;
- the Performance page's method states the goals its measured rows are checked against.
"""

from __future__ import annotations

import ast
import functools
import html
import itertools
import json
import re
import struct
import sys
import textwrap
import zipfile
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from pagechecks import CJK, ENGLISH_RUN, element_end
from sitescan import html_pages

EDITIONS = {"en", "zh_CN"}  # the site's languages (docs/_ext/site_facts.py)


def test_every_edition_is_built(layout) -> None:
    """Both editions, each with its search index: the checks that read one edition skip when it
    is missing (a one-language build), and this one fails."""
    assert set(layout.languages) == EDITIONS, f"editions built: {sorted(layout.languages)}"


# ---------------------------------------------------------------------------------------------
# Every address resolves

URL_ATTRIBUTES = {"href", "src", "srcset", "data"}


class _Addresses(HTMLParser):
    """The local addresses a page names, and the ids it defines."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.addresses: list[tuple[str, str]] = []  # (tag, address)
        self.ids: set[str] = set()
        self.switches: set[str] = set()  # the language switch's addresses

    def handle_starttag(self, tag: str, attrs) -> None:
        if "mha-language-switch" in (dict(attrs).get("class") or ""):
            self.switches.add(dict(attrs).get("href"))
        for name, value in attrs:
            if name == "id" and value:
                self.ids.add(value)
            if name not in URL_ATTRIBUTES or not value:
                continue
            urls = [part.split()[0] for part in value.split(",") if part.strip()]
            self.addresses += [(tag, url) for url in (urls if name == "srcset" else [value])]


def _parse(page: Path) -> _Addresses:
    parser = _Addresses()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def broken_addresses(root: Path) -> tuple[list[str], int]:
    """(each address of a page of ``root`` that names no file or no id, how many were checked)."""
    root = root.resolve()
    pages = {page.resolve(): _parse(page) for page in html_pages(root)}
    problems, checked = [], 0
    for page, found in pages.items():
        for tag, address in found.addresses:
            parts = urlsplit(address)
            if parts.scheme or parts.netloc or address.startswith(("#", "javascript:")):
                if address.startswith("#") and len(address) > 1:  # an anchor on this page
                    checked += 1
                    if unquote(address[1:]) not in found.ids:
                        problems.append(f"{page.relative_to(root)}: <{tag}> {address}: no such id")
                continue
            checked += 1
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            where = f"{page.relative_to(root)}: <{tag}> {address}"
            edition = page.relative_to(root).parts[0]  # en, zh_CN: what a page shows is its own
            other = edition in EDITIONS and target.relative_to(root).parts[0] != edition
            if other and address not in found.switches:
                problems.append(f"{where}: another edition's file")
            if not target.is_file():
                problems.append(f"{where}: no such file")
            elif parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else _parse(target).ids
                if unquote(parts.fragment) not in ids:
                    problems.append(f"{where}: no id {parts.fragment!r} there")
    return problems, checked


def test_every_address_resolves(site_dir: Path) -> None:
    problems, checked = broken_addresses(site_dir)
    assert checked > 20_000, f"only {checked} addresses found: is the parser reading the pages?"
    assert not problems, f"{len(problems)} addresses lead nowhere:\n" + "\n".join(problems[:30])


SRCSET = re.compile(r'srcset="([^"]+)"')


def png_size(path: Path) -> tuple[int, int]:
    """A PNG's (width, height) in pixels, from its header."""
    return struct.unpack(">II", path.read_bytes()[16:24])


def test_each_2x_image_has_twice_the_pixels(site_dir: Path) -> None:
    """A high-density screen takes an image's ``2x`` candidate (``2.00x``, sphinx-gallery's):
    it has twice the width and height of the ``1x`` one beside it (±1 px), or the figure shows
    blurred there where the page looks sharp on a laptop's screen."""
    problems, checked = [], 0
    for page in html_pages(site_dir):
        for srcset in SRCSET.findall(page.read_text(encoding="utf-8")):
            candidates = dict(reversed(part.split()) if " " in part.strip() else ("1x", part.strip())
                              for part in srcset.split(","))  # fmt: skip
            one, two = candidates.get("1x"), candidates.get("2x") or candidates.get("2.00x")
            if not (one and two and one.endswith(".png") and two.endswith(".png")):
                continue
            checked += 1
            (w1, h1), (w2, h2) = (png_size(page.parent / unquote(u)) for u in (one, two))
            if abs(w2 - 2 * w1) > 1 or abs(h2 - 2 * h1) > 1:
                problems.append(
                    f"{page.relative_to(site_dir)}: {two} is {w2}x{h2} px, {one} {w1}x{h1}"
                )
    assert checked > 100, f"only {checked} 1x and 2x pairs read"
    assert not problems, "2x images without twice the pixels:\n" + "\n".join(problems[:20])


IMG_TAG = re.compile(r"<img\b[^>]*>")


def test_each_figure_is_laid_out_at_its_drawn_size(site_dir: Path) -> None:
    """A figure's ``width`` and ``height`` are its 1x PNG's pixels: larger, a wide window shows
    it enlarged (blurred, its text too large); smaller, every window shows it shrunk."""
    problems, checked = [], 0
    for page in html_pages(site_dir):
        for tag in IMG_TAG.findall(page.read_text(encoding="utf-8")):
            given = dict(re.findall(r'\b(width|height|src)="([^"]*)"', tag))
            width, height, src = given.get("width"), given.get("height"), given.get("src", "")
            if not (width and height and src.endswith(".png")):
                continue
            checked += 1
            drawn = png_size(page.parent / unquote(src))
            if (int(width), int(height)) != drawn:
                problems.append(f"{page.relative_to(site_dir)}: {src} laid out at {width}x{height}, "
                                f"drawn {drawn[0]}x{drawn[1]}")  # fmt: skip
    assert checked > 60, f"only {checked} figures with a size read"
    assert not problems, "figures laid out at another size than drawn:\n" + "\n".join(problems[:20])


# Links that say where they go: the language switch to this page in the other edition, the
# footer's previous and next page to the page they name, "page 4" to the tutorial's page 4
SWITCH = re.compile(r'mha-language-switch" href="([^"]+)"')
NEIGHBOUR = re.compile(r'<a class="(?:left-prev|right-next)"\s+href="([^"]+)".*?'
                       r'<p class="prev-next-title">(.*?)</p>', re.DOTALL)  # fmt: skip
PAGE_N = re.compile(r'href="([^"#]+)[^"]*"><span class="doc">(?:page (\d+)|第 (\d+) 页)</span>')
H1 = re.compile(r"<h1>(.*?)<a class=\"headerlink\"", re.DOTALL)


SIDEBAR = re.compile(r'<nav class="bd-docs-nav.*?</nav>', re.DOTALL)
SIDE_LINK = re.compile(
    r'<a class="reference internal" href="([^"#]+)(?:#[^"]*)?">(.*?)</a>', re.DOTALL
)
API_LINK = re.compile(r'<a class="reference (?:internal|external)" href="([^"]*)"[^>]*>'
                      r'<code class="xref py[^"]*">(.*?)</code></a>', re.DOTALL)  # fmt: skip


def _words(markup: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", markup)).split())


@functools.cache
def titles(page: Path) -> str:
    """The words of ``page``'s h1."""
    found = H1.search(page.resolve().read_text(encoding="utf-8")) if page.is_file() else None
    return _words(found[1]) if found else ""


def test_links_go_where_they_say(layout) -> None:
    problems, checked = [], 0
    for language, folder in layout.languages.items():
        other = layout.languages[next(iter(EDITIONS - {language}))]
        for page in html_pages(folder):
            text, name = page.read_text(encoding="utf-8"), page.relative_to(folder)
            for address in SWITCH.findall(text):
                checked += 1
                if (page.parent / address).resolve() != (other / name).resolve():
                    problems.append(f"{language}/{name}: the language switch goes to {address}")
            for address, title in NEIGHBOUR.findall(text):
                checked += 1
                found = H1.search((page.parent / address).read_text(encoding="utf-8"))
                if not found or _words(found[1]) != _words(title):
                    problems.append(f"{language}/{name}: “{_words(title)}” leads to {address}")
            for address, n, zh in PAGE_N.findall(text):
                checked += 1
                if not Path(address).name.startswith(f"{int(n or zh):02d}_"):
                    problems.append(f"{language}/{name}: page {n or zh} leads to {address}")
            nav = SIDEBAR.search(text)  # each entry of the sidebar: to the page it names
            for address, said in SIDE_LINK.findall(nav[0] if nav else ""):
                checked += 1
                if titles(page.parent / address) != _words(said):
                    problems.append(
                        f"{language}/{name}: the sidebar's “{_words(said)}” leads to {address}"
                    )
            for address, said in API_LINK.findall(text):  # mha.causal_mask() to causal_mask
                checked += 1
                target = address.split("#", 1)[1] if "#" in address else Path(address).stem
                if (
                    _words(said).rstrip("()").split(".")[-1]
                    != target.removeprefix("module-").split(".")[-1]
                ):
                    problems.append(f"{language}/{name}: “{_words(said)}” leads to {address}")
    assert checked > 7000, f"only {checked} links read: is the markup as expected?"
    assert not problems, f"{len(problems)} links lead elsewhere:\n" + "\n".join(problems[:30])


CODE_RULE = re.compile(r'html\[data-theme="(\w+)"\] \.highlight (?:\.(\w+) )?\{[^}]*?(?:background: (#\w+); )?'
                       r"(?<!-)color: (#[0-9a-fA-F]{6})")  # fmt: skip


def luminance(colour: str) -> float:
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def test_served_code_colours_read_in_both_themes(layout) -> None:
    """Each colour the served pygments.css gives code, in each theme and edition, on that theme's
    code background: WCAG AA, 4.5:1 (axe does not read code)."""
    low, rules = [], 0
    for language, folder in layout.languages.items():
        background, colours = {}, []
        for theme, token, ground, colour in CODE_RULE.findall(
            (folder / "_static" / "pygments.css").read_text()
        ):
            if ground:
                background[theme] = ground
            colours.append((theme, token, colour))
        for theme, token, colour in colours:
            rules += 1
            light, dark = sorted((luminance(colour), luminance(background[theme])), reverse=True)
            if (light + 0.05) / (dark + 0.05) < 4.5:
                low.append(
                    f"{language} {theme} .{token or 'highlight'} {colour} on {background[theme]}"
                )
    assert rules > 2 * 2 * 40, f"only {rules} code colours read"
    assert not low, "code colours below 4.5:1:\n" + "\n".join(low)


STYLESHEETS = ("custom.css", "head-explorer.css")  # the site's own (tests_build checks colours)


def test_the_site_serves_the_stylesheets_that_were_checked(layout) -> None:
    """Each edition serves the site's stylesheets as they are in docs/_static, whose colours
    tests_build/test_code_contrast.py proves: a built copy that differs is unchecked."""
    sources = Path(__file__).resolve().parents[1] / "docs" / "_static"
    for language, folder in layout.languages.items():
        for name in STYLESHEETS:
            served = (folder / "_static" / name).read_bytes()
            assert served == (sources / name).read_bytes(), f"{language}/_static/{name} differs"


# what differs between the editions' _static: the language's own settings, words and data
PER_EDITION = {"documentation_options.js", "translations.js", "head-explorer-data.js"}
# the one <style> a page may carry: the theme's, for readers without JavaScript
PAGE_STYLE = ".pst-js-only { display: none !important; }"


def test_colours_come_only_from_the_checked_stylesheets(layout) -> None:
    """A page takes its look from the served stylesheets alone, the same in both editions
    (a vendor's too: sphinx-gallery's, the theme's), whose colours the checks above and axe
    read: no page adds a <style> of its own or an inline colour, and no edition's _static
    file differs from the other's but its language's settings."""
    problems = []
    for language, folder in layout.languages.items():
        for page in html_pages(folder):
            markup = page.read_text(encoding="utf-8")
            for style in re.findall(r"<style[^>]*>(.*?)</style>", markup, re.DOTALL):
                if style.strip() != PAGE_STYLE:
                    problems.append(f"{language}/{page.relative_to(folder)}: <style>{style[:80]}")
            for inline in re.findall(r'\sstyle="([^"]*(?:color|opacity|filter)[^"]*)"', markup):
                problems.append(f"{language}/{page.relative_to(folder)}: style={inline!r}")
    editions = [folder / "_static" for folder in layout.languages.values()]
    if len(editions) == 2:
        files = [
            {p.relative_to(s).as_posix(): p for p in s.rglob("*") if p.is_file()} for s in editions
        ]
        for name in sorted((files[0].keys() | files[1].keys()) - PER_EDITION):
            a, b = (f.get(name) for f in files)
            if a is None or b is None or a.read_bytes() != b.read_bytes():
                problems.append(f"_static/{name}: differs between the editions")
    assert not problems, "\n".join(problems[:20])


# ---------------------------------------------------------------------------------------------
# The editions show the same things

# what a page's article shows, counted: each table's rows, figures, code and output blocks,
# headings, list items, paragraphs, cards, definitions
PARTS = {"img": r"<img\b", "pre": r"<pre\b", "heading": r"<h[1-6]\b", "li": r"<li\b",
         "p": r"<p\b", "card": r'class="sd-card ', "dd": r"<dd\b"}  # fmt: skip
# the API page of the function every Chinese example calls lists those examples (sphinx-gallery)
SHOWN_ONLY_IN_CHINESE = {"reference/generated/mha.set_language.html"}


IMG_SRC = re.compile(r'<img\b[^>]*\bsrc="([^"]+)"')


def article_of(markup: str) -> str:
    """A page's ``<article>``: what the page says, without the theme's parts around it."""
    return markup[markup.find("<article") : markup.rfind("</article>")]


def article_parts(page: Path) -> dict[str, object]:
    text = page.read_text(encoding="utf-8")
    article = article_of(text)
    tables = re.findall(r"<table\b.*?</table>", article, re.DOTALL)
    parts: dict[str, object] = {"rows": [len(re.findall(r"<tr\b", t)) for t in tables]}
    # the figures, in order, by file (an edition's own chart: speed.zh_CN.png is speed.png)
    parts["figure files"] = [
        Path(src).name.replace(".zh_CN", "") for src in IMG_SRC.findall(article)
    ]
    return parts | {name: len(re.findall(pattern, article)) for name, pattern in PARTS.items()}


def test_the_editions_show_the_same_things(layout) -> None:
    """Each page of the Chinese edition has the English one's tables, row for row, its figures'
    files in the same order (the edition's own), and as many code and output blocks, headings, list items, paragraphs and cards: a row, a card
    or a paragraph lost in one edition fails (a translation changes words, not parts)."""
    english, chinese = layout.main, layout.languages["zh_CN"]
    problems, compared = [], 0
    for page in html_pages(english):
        rel = page.relative_to(english).as_posix()
        twin = chinese / rel
        if not twin.is_file():
            problems.append(f"{rel}: no Chinese page")
        elif rel not in SHOWN_ONLY_IN_CHINESE:
            compared += 1
            a, b = article_parts(page), article_parts(twin)
            problems += [
                f"{rel}: {k} {a[k]} in English, {b[k]} in Chinese" for k in a if a[k] != b[k]
            ]
    assert compared > 100, f"only {compared} pages compared"
    assert not problems, "\n".join(problems[:20])


# A translation keeps every number and every name: a paragraph's inline code and the numbers of
# its prose (outside code and math), paired paragraph by paragraph (p, li, td, dd, in order)
BLOCK = re.compile(r"<(p|li|td|dd)\b[^>]*>(.*?)</\1>", re.DOTALL)
INLINE_CODE = re.compile(r'<code class="(?!xref download)[^"]*">(.*?)</code>', re.DOTALL)
NUMBER = re.compile(r"\d(?:[\d,\u202f\u2009\u00a0]*\d)?(?:\.\d+)?")
# said another way in Chinese, and as much: the number in words ("67 million": 6700 万)
SAID_OTHERWISE = {("tutorial/08_tiled_attention.html", "67")}


def _without(markup: str, opening: str, tag: str = "span") -> str:
    """``markup`` without each element that starts with ``opening`` (a span, nested or not)."""
    while (start := markup.find(opening)) >= 0:
        markup = markup[:start] + markup[element_end(markup, start, tag) :]
    return markup


# where a sentence ends: in English before a space (not "e.g."), in Chinese at its full stop
SENTENCE_END = {"en": re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)[.!?][”’\")]?(?=\s|$)"),
                "zh_CN": re.compile(r"[。！？]|[.!?](?=\s|$)")}  # fmt: skip


def facts(page: Path, language: str = "en") -> list[Counter]:
    """Each paragraph's inline code, the numbers of its prose and its sentences, counted."""
    text = page.read_text(encoding="utf-8")
    article = article_of(text)
    article = re.sub(r"<(pre|script|style)\b.*?</\1>", "", article, flags=re.DOTALL)
    article = _without(article, '<span class="math')
    found = []
    for _, block in BLOCK.findall(re.sub(r'<p class="sphx-glr-timing">.*?</p>', "", article)):
        names = [_words(code) for code in INLINE_CODE.findall(block)]
        prose = _words(re.sub(r"<code\b.*?</code>", " ", block, flags=re.DOTALL))
        numbers = [re.sub(r"[^\d.]", "", n) for n in NUMBER.findall(prose)]
        ends = SENTENCE_END[language].findall(re.sub(r"^\d+\.\s", "", prose))  # not "2. Project"
        found.append(Counter(names) + Counter(numbers) + Counter({"a sentence": len(ends)}))
    return found


def test_a_translation_keeps_every_number_and_name(layout) -> None:
    """Each paragraph of a Chinese page has the inline code, the numbers and as many sentences
    as its English twin: a sentence dropped from a translation, or a number changed in it,
    fails (the number said in words in Chinese is listed in SAID_OTHERWISE)."""
    english, chinese = layout.main, layout.languages["zh_CN"]
    problems, compared = [], 0
    for page in html_pages(english):
        rel = page.relative_to(english).as_posix()
        if "generated" in rel or not (chinese / rel).is_file():
            continue  # the API's pages are English in both; a missing page fails elsewhere
        ours, theirs = facts(page), facts(chinese / rel, "zh_CN")
        if len(ours) != len(theirs):
            continue  # test_the_editions_show_the_same_things says which parts differ
        for number, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            compared += bool(a)
            lost = sorted(k for k in a - b if (rel, k) not in SAID_OTHERWISE)
            if lost:
                problems.append(f"{rel} paragraph {number}: the Chinese lacks {lost}")
    assert compared > 800, f"only {compared} paragraphs with numbers or code compared"
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------------------------------------
# Every page in its edition's search index

# pages Sphinx writes that are not documents (the search page, the indices)
NOT_DOCUMENTS = {"search", "genindex", "py-modindex"}


ID = re.compile(r'\bid="([^"]+)"')


def search_index(folder: Path) -> dict:
    """The index ``folder``'s ``searchindex.js`` sets."""
    text = (folder / "searchindex.js").read_text(encoding="utf-8")
    found = re.search(r"Search\.setIndex\((.*)\)\s*;?\s*$", text, re.DOTALL)
    assert found, f"{folder / 'searchindex.js'} is not Sphinx's index"
    return json.loads(found[1])


def search_documents(folder: Path) -> dict[str, tuple[int, str]]:
    """The documents that ``folder``'s ``searchindex.js`` indexes (``tutorial/index``...), each
    with the number of words it is found by and its title."""
    index = search_index(folder)
    words = [0] * len(index["docnames"])
    for documents in index["terms"].values():
        for number in documents if isinstance(documents, list) else [documents]:
            words[number] += 1
    return {name: (words[i], index["titles"][i]) for i, name in enumerate(index["docnames"])}


def test_every_page_is_in_its_search_index(layout) -> None:
    for language, folder in layout.languages.items():
        pages = {
            page.relative_to(folder).with_suffix("").as_posix() for page in html_pages(folder)
        } - NOT_DOCUMENTS
        indexed = search_documents(folder)
        assert len(pages) > 100, f"{language}: only {len(pages)} pages"
        assert pages - set(indexed) == set(), f"{language}: pages search cannot find"
        assert set(indexed) - pages == set(), f"{language}: indexed pages that were not built"
        wordless = [f"{page}: {words} words, title {title!r}" for page, (words, title)
                    in indexed.items() if words < 5 or not title.strip()]  # fmt: skip
        assert not wordless, f"{language}: pages whose words search does not know: {wordless}"
        # each result leads where its title says: the title indexed for a page is its heading
        misnamed = [f"{page}: indexed as {title!r}, its heading {heading!r}"
                    for page, (_, title) in indexed.items()
                    if (heading := titles(folder / f"{page}.html")) != _words(title)]  # fmt: skip
        assert not misnamed, f"{language}: search results titled wrongly:\n" + "\n".join(misnamed)
        # each section title leads to its section: the anchor it is filed under is an id there
        index, ids = search_index(folder), {}
        lost = [f"{title!r}: {index['docnames'][doc]}#{anchor}" for title, places in
                index["alltitles"].items() for doc, anchor in places if anchor and anchor not in
                ids.setdefault(doc, set(ID.findall(text_of(folder / f"{index['docnames'][doc]}.html"))))]  # fmt: skip
        assert not lost, f"{language}: section titles search files under no section:\n" + "\n".join(
            lost
        )
        if language == "zh_CN":  # every section's title, as search shows it ("page > section")
            english = english_section_titles(folder)
            assert not english, "Chinese search results titled in English:\n" + "\n".join(english)
    # found by its own words: an English page by at least 0.4 of the words of its article (it
    # is 0.45 and up), a Chinese page by Chinese words, at least half as many as its twin's
    english, chinese = (search_words(layout.languages[e]) for e in ("en", "zh_CN"))
    unfound = []
    for page, (words, _) in english.items():
        if "generated" in page:
            continue  # the API's pages: English in both editions, named by their API names
        said = set(re.findall(r"[a-z]{3,}", article_text(layout.main / f"{page}.html").lower()))
        if words < 0.4 * len(said):
            unfound.append(f"en {page}: found by {words} words of its {len(said)}")
        if chinese.get(page, (0, 0))[1] < 0.5 * words:
            unfound.append(f"zh_CN {page}: found by {chinese.get(page, (0, 0))[1]} Chinese words")
    assert not unfound, "pages search finds by too few of their words:\n" + "\n".join(unfound)


def english_section_titles(folder: Path) -> list[str]:
    """The section titles of ``folder``'s search index with English words outside code: on a
    Chinese page (not the API's), each English word of a title is code its page shows."""
    index = search_index(folder)
    english = []
    for title, places in index["alltitles"].items():
        for page in {index["docnames"][number] for number, _ in places} - {""}:
            if "generated" in page or CJK.search(title) or title in KEPT_NAMES:
                continue
            markup = (folder / f"{page}.html").read_text(encoding="utf-8")
            code = {_words(c) for c in re.findall(r"<code\b.*?</code>", markup, re.DOTALL)}
            words = set(re.findall(r"[A-Za-z_]{3,}", title))
            if words - set(" ".join(code).split()):
                english.append(f"{page}: {title!r}")
    return english


def search_words(folder: Path) -> dict[str, tuple[int, int]]:
    """Each indexed page: how many words find it, and how many of them are Chinese."""
    index = search_index(folder)
    counts = [[0, 0] for _ in index["docnames"]]
    for term, documents in index["terms"].items():
        for number in documents if isinstance(documents, list) else [documents]:
            counts[number][0] += 1
            counts[number][1] += bool(CJK.search(term))
    return {name: tuple(counts[i]) for i, name in enumerate(index["docnames"])}


def article_text(page: Path) -> str:
    text = page.read_text(encoding="utf-8")
    article = article_of(text)
    return html.unescape(
        re.sub(r"<[^>]+>", " ", re.sub(r"<(script|style)\b.*?</\1>", "", article, flags=re.DOTALL))
    )


# ---------------------------------------------------------------------------------------------
# The prose of a Chinese page is Chinese

# the papers' titles, kept in English (the glossary's rule), and quotations: the sentences
# the model reads are English, quoted “…” or 「…」
KEPT_ENGLISH = ("Attention Is All You Need", "Are Sixteen Heads Really Better than One")
GLUED = re.compile(r"[\u4e00-\u9fff][A-Za-z]{2,}|[A-Za-z]{2,}[\u4e00-\u9fff]")
QUOTED = re.compile(r"“[^”]*”|「[^」]*」|『[^』]*』|《[^》]*》")
# a heading, caption, choice, term or table header without a Chinese character is English,
# but for the names that stand alone as table headers
LABELS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6", "caption", "figcaption", "summary", "dt",
                    "th"})  # fmt: skip
KEPT_NAMES = {"API", "FLOPs", "batch_first"}
# around the article: the names the interface shows as they are (a key, the other edition's
# name, a host, the builder, the package) and the API's own names (mha.split_heads)
KEPT_AROUND = {"Ctrl", "English", "GitHub", "Sphinx", "mha"}
API_NAME = re.compile(r"[\w.=]*[._=][\w.=]*|[A-Z]\w+[A-Z]\w*")
# what a page says of itself, as an attribute: its description, its link preview, a figure's text
SAID = {("meta", "name", "description"), ("meta", "property", "og:description"),
        ("meta", "property", "og:title")}  # fmt: skip
NOT_PROSE = {"code", "pre", "kbd", "script", "style", "math", "svg", "mjx-container"}
# code, math, the API's own words (a signature, an autosummary table of docstrings' first lines)
NOT_PROSE_CLASSES = {"math", "highlight", "sig", "headerlink", "mha-install", "sphx-glr-script-out",
                     "autosummary"}  # fmt: skip


class _Prose(HTMLParser):
    """The text of a page's article outside code, math and scripts."""

    VOID = frozenset({"br", "img", "hr", "input", "meta", "link", "wbr", "source", "col"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0  # inside <article>
        self.skipping: list[bool] = []
        self.parts: list[str] = []
        self.labels: list[list[str]] = []  # the text of each heading, caption, term, card title
        self.in_label = 0
        self.label_tags: list[str] = []  # the tag each open label began with
        self.said: list[str] = []  # title, description, link preview, alt texts
        self.around: list[str] = []  # each text around the article (sidebars, header, footer)
        self.in_title = False
        self.joined = False

    def handle_starttag(self, tag: str, attrs) -> None:
        given = dict(attrs)
        if tag == "img" and given.get("alt"):
            self.said.append(f"alt {given['alt']!r}")
        if given.get("tooltip"):  # a gallery card's summary, shown on hover
            self.said.append(f"tooltip {given['tooltip']!r}")
        if any(tag == t and given.get(a) == v for t, a, v in SAID):
            self.said.append(f"{tag} {given.get('content', '')!r}")
        self.in_title = tag == "title"
        self.joined = tag == "wbr"  # a name broken where it may wrap: one name
        if tag in self.VOID:
            return
        classes = set((given.get("class") or "").split())
        if tag == "article":
            self.depth += 1
        self.skipping.append(tag in NOT_PROSE or bool(classes & NOT_PROSE_CLASSES))
        if (tag in LABELS or "sd-card-title" in classes) and self.depth:
            self.in_label += 1
            self.labels.append([])
            self.label_tags.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID or not self.skipping:
            return
        self.skipping.pop()
        if tag == "article":
            self.depth -= 1
        if self.label_tags and tag == self.label_tags[-1]:  # a card title: the div's own end
            self.in_label -= 1
            self.label_tags.pop()
        self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self.in_title:
            self.said.append(f"title {data.strip()!r}")
            self.in_title = False
        if self.depth and not any(self.skipping):
            self.parts.append(data)
            if self.in_label:
                self.labels[-1].append(data)
        elif not self.depth and not any(self.skipping) and data.strip():
            if self.joined and self.around:
                self.around[-1] += data.strip()
            else:
                self.around.append(data.strip())
        self.joined = False


@functools.cache
def text_of(page: Path) -> str:
    return page.read_text(encoding="utf-8")


@functools.cache
def page_codes(page: Path) -> set[str]:
    """The inline code a page shows, as text."""
    return {html.unescape(re.sub(r"<[^>]+>", "", c)) for c in INLINE_CODE.findall(text_of(page))}


def english_sentences(page: Path) -> list[str]:
    """The runs of English words in the prose of ``page``, and its headings, captions, terms
    and table headers with an English word and no Chinese (see the module's doc)."""
    parser = _Prose()
    parser.feed(page.read_text(encoding="utf-8"))
    text = "".join(parser.parts)
    for kept in KEPT_ENGLISH:
        text = text.replace(kept, "")
    text = re.sub(r"\$[^$\n]*\$|\\\(.*?\\\)", "", QUOTED.sub("", text))  # quotes, raw math
    labels = [QUOTED.sub("", "".join(parts)).strip() for parts in parser.labels]
    english = [f"label {label!r}" for label in labels if re.search(r"[A-Za-z]{3,}", label)
               and not CJK.search(label) and label not in KEPT_NAMES]  # fmt: skip
    said = [said for said in parser.said if re.search(r"[A-Za-z]{3,}", said.split(" ", 1)[1])
            and not CJK.search(said)]  # fmt: skip
    # a Chinese description (or link preview) with an English sentence inside, outside what the
    # page shows as code and what it quotes (up to where the description is cut)
    # (a gallery card's tooltip: what its example's page shows as code)
    shown = [page, *(page.parent.rglob("plot_*.html") if 'tooltip="' in text_of(page) else [])]
    codes = sorted(set().union(*map(page_codes, shown)), key=len, reverse=True)
    for description in (html.unescape(s) for s in parser.said if s.startswith(("meta", "tooltip"))):
        prose = re.sub(r"“[^”]*$", "", QUOTED.sub("", description))
        for code in codes:
            prose = prose.replace(code, "")
        said += [f"{description[:60]}...: {run!r}" for run in ENGLISH_RUN.findall(prose)]
    around = [f"around the article {words!r}" for words in parser.around
              if re.search(r"[A-Za-z]{3,}", words) and not CJK.search(words)
              and words not in KEPT_AROUND and not API_NAME.fullmatch(words)]  # fmt: skip
    # an English word set against a Chinese character: the Chinese puts a space between the
    # two, so a word glued on is one typed in place of Chinese ("，shape为")
    glued = [f"glued {word!r}" for word in GLUED.findall(text)]
    return ENGLISH_RUN.findall(text) + english + said + around + glued


def test_chinese_prose_is_chinese(layout) -> None:
    if "zh_CN" not in layout.languages:
        pytest.fail("no zh_CN edition in this build")
    folder = layout.languages["zh_CN"]
    pages = [p for p in html_pages(folder) if "generated" not in p.relative_to(folder).parts]
    assert len(pages) > 60, f"only {len(pages)} Chinese pages"
    english = [f"{page.relative_to(folder)}: {run!r}" for page in pages
               for run in english_sentences(page)]  # fmt: skip
    assert not english, f"{len(english)} English sentences on Chinese pages:\n" + "\n".join(
        english[:30]
    )


# a Latin word of a Chinese page's prose is one the glossary keeps (docs/locale/GLOSSARY.md,
# "English that stays"), a single letter, a name shaped like code (embed_dim, float32,
# nn.MultiheadAttention, view()), a word the page quotes (“…”, 「…」), glosses (词元（token）),
# mentions in italics (*is* and *are*) or shows as code, or a word a heading of the edition shows
# as code (a gallery card's title is its example's heading, without the code's markup). The
# catalog check vets each translation's English against the same table; this finds English the
# built page holds whatever wrote it ("，shape (L, S)" for "，形状 (L, S)")
LATIN = re.compile(r"[A-Za-z][\w'’.=-]*\w|[A-Za-z]")
GLOSSED = re.compile(r"（[^）]*）|\([^)]*\)")
CODE_SHAPED = re.compile(r"[_.\d=]|[a-z][A-Z]")
NOT_TRANSLATED = {"genindex.html", "py-modindex.html", "search.html"}  # Sphinx's lists of API names


def _latin_in(markup_parts: list[str]) -> set[str]:
    return {w for part in markup_parts for w in LATIN.findall(_words(part))}


def stray_english(page: Path, kept: frozenset[str], phrases: tuple[str, ...], headed: set[str]):
    """The Latin words of a Chinese page's prose, alt texts, description and tooltips that
    none of the rules above lets it keep."""
    markup = page.read_text(encoding="utf-8")
    parser = _Prose()
    parser.feed(markup)
    # alt texts, the description (TeX aside, its last word cut), tooltips (and their examples' code)
    said = [html.unescape(s.split(" ", 1)[1][1:-1]) for s in parser.said]
    said = [re.sub(r"\\[A-Za-z]+|\{[^{}]*\}|\S*\^\S*|\w+(?:\.\.\.)?$", " ", s) for s in said]
    text = "".join(parser.parts) + "\n" + "\n".join(said)
    for phrase in phrases:
        text = text.replace(phrase, " ")
    examples = page.parent.rglob("plot_*.html") if 'tooltip="' in markup else []
    shown = [*INLINE_CODE.findall(markup), *(c for p in examples for c in page_codes(p))]
    shown += re.findall(r"<em>([^<\u4e00-\u9fff]*)</em>", markup)
    allowed = headed | _latin_in(shown + QUOTED.findall(text) + GLOSSED.findall(text))
    rest = re.sub(r"\$[^$\n]*\$|\\\(.*?\\\)", " ", QUOTED.sub(" ", text))
    return sorted({m[0] for m in LATIN.finditer(rest)
                   if len(m[0]) > 1 and m[0].lower() not in kept and m[0] not in allowed
                   and not CODE_SHAPED.search(m[0]) and rest[m.end():m.end() + 1] not in "(["})  # fmt: skip


def test_chinese_prose_keeps_only_the_english_the_glossary_keeps(layout) -> None:
    sys.path.insert(0, str(Path(__file__).parents[1] / "docs" / "locale"))
    import glossary

    rules, folder = glossary.load(), layout.languages["zh_CN"]
    pages = [p for p in html_pages(folder)
             if "generated" not in p.relative_to(folder).parts and p.name not in NOT_TRANSLATED]  # fmt: skip
    headed = _latin_in([c for p in pages for h in re.findall(r"<h\d\b.*?</h\d>", p.read_text(
        encoding="utf-8"), re.DOTALL) for c in INLINE_CODE.findall(h)])  # fmt: skip
    stray = [f"{page.relative_to(folder)}: {', '.join(words)}" for page in pages
             if (words := stray_english(page, rules.english, rules.phrases, headed))]  # fmt: skip
    assert len(pages) > 60 and not stray, (
        "English words on Chinese pages that the glossary does not keep (translate them, write "
        "them as code or quote them, or add a name to GLOSSARY.md's English that stays):\n"
        + "\n".join(stray)
    )


def test_a_chinese_table_cell_is_chinese(layout) -> None:
    """A cell of a Chinese page's table with two English words or more and no Chinese is English
    (below the prose check's four): code, math and quotes aside; the API's summaries stay English."""
    folder, english = layout.languages["zh_CN"], []
    for page in (p for p in html_pages(folder) if "generated" not in p.parts):
        article = page.read_text(encoding="utf-8")
        article = article_of(article)
        article = re.sub(r'<table class="[^"]*autosummary.*?</table>', "", article, flags=re.DOTALL)
        for cell in re.findall(r"<td\b[^>]*>(.*?)</td>", article, re.DOTALL):
            said = QUOTED.sub(
                "", _words(_without(re.sub(r"<code\b.*?</code>", "", cell), '<span class="math'))
            )
            if not CJK.search(said) and len(re.findall(r"[A-Za-z]{3,}", said)) >= 2:
                english.append(f"{page.relative_to(folder)}: {said!r}")
    assert not english, "English table cells on Chinese pages:\n" + "\n".join(english)


# words the stylesheets write on the page (a table's column names on a phone, ::before)
CONTENT = re.compile(
    r'([^{}]+?)\s*\{\s*content:\s*"([^"]*[A-Za-z]{3,}[^"]*|[^"]*[\u4e00-\u9fff][^"]*)";'
)


def test_the_stylesheets_words_are_in_chinese_on_a_chinese_page(layout) -> None:
    """Each English word a stylesheet writes (``content: "Cause"``) has a Chinese rule for the
    Chinese pages (``html[lang^="zh"]`` before the same selector) whose words are Chinese."""
    folder = layout.languages["zh_CN"]
    rules = {}
    for name in STYLESHEETS:
        found = CONTENT.findall((folder / "_static" / name).read_text(encoding="utf-8"))
        rules |= {selector.strip(): said for selector, said in found}
    english = [selector for selector in rules if not selector.startswith("html[lang")]
    assert len(english) >= 4, f"only {len(english)} English words written by the stylesheets"
    zh = {selector: rules.get(f'html[lang^="zh"] {selector}', "") for selector in english}
    missing = {selector: said for selector, said in zh.items() if not CJK.search(said)}
    assert not missing, f"English words on Chinese pages, from the stylesheets: {missing}"


# ---------------------------------------------------------------------------------------------
# Each figure shows its edition's words, read from what was drawn

DRAWN_NUMBER = re.compile(r"\d+(?:\.\d+)?")
GALLERY_PNG = re.compile(r"sphx_glr_\w+?_\d{3}(?:_phone)?(?:_2_00x)?\.png$")
WORD = re.compile(r"(?<![\\$_{])\b[A-Za-z]{3,}\b")  # an English word, not a TeX command


def drawn_words(png: Path) -> str | None:
    """The text a figure was drawn with (its PNG's ``Description``), None if it has none."""
    data = png.read_bytes()
    offset = 8  # the PNG signature
    while offset < len(data):
        length, kind = struct.unpack(">I4s", data[offset : offset + 8])
        body = data[offset + 8 : offset + 8 + length]
        if kind in (b"tEXt", b"iTXt") and body.split(b"\0", 1)[0] == b"Description":
            if kind == b"tEXt":
                return body.split(b"\0", 1)[1].decode("latin-1")
            # iTXt: keyword, compression flag and method, language tag, translated keyword
            assert body[12] == 0, f"{png.name}: a compressed iTXt"
            return body[13:].split(b"\0", 2)[2].decode("utf-8")
        offset += 12 + length
    return None


def gallery_figures(folder: Path) -> dict[str, Path]:
    """Each gallery figure file a page of ``folder`` shows (every size), by name."""
    found = {}
    for page in sorted((folder / "auto_examples").rglob("plot_*.html")):
        for _, address in _parse(page).addresses:
            if GALLERY_PNG.search(address):
                path = (page.parent / address).resolve()
                found[path.name] = path
    return found


def test_each_figure_shows_its_editions_words(layout) -> None:
    """On a Chinese page every figure whose English twin has English words has Chinese; on an
    English page none has Chinese; the two show the same numbers (one figure, its words
    translated: two figures swapped fail). Every figure, 2x and phone versions included."""
    english = gallery_figures(layout.main)
    chinese = gallery_figures(layout.languages["zh_CN"]) if "zh_CN" in layout.languages else {}
    assert len(english) >= 90, f"only {len(english)} figure files on the English pages"
    problems = [f"{name}: shown in one edition only" for name in english.keys() ^ chinese.keys()]
    for name, path in ((n, p) for n, p in english.items() if n in chinese):
        words, twin = drawn_words(path), drawn_words(chinese[name])
        if words is None or twin is None:
            problems.append(f"{name}: the PNG does not say what was drawn in it")
            continue
        if CJK.search(words):
            problems.append(f"{name}: an English page's figure shows Chinese: {words[:60]!r}")
        if not WORD.search(words):
            problems.append(f"{name}: an English page's figure shows no English word")
        elif not CJK.search(twin):
            problems.append(f"zh_CN {name}: shows English, {twin.strip()[:60]!r}")
        numbers = [Counter(DRAWN_NUMBER.findall(w.replace(",", ""))) for w in (words, twin)]
        if numbers[0] != numbers[1]:  # another figure, or another run's
            problems.append(f"zh_CN {name}: not its English twin's numbers, "
                            f"{dict(numbers[0] - numbers[1])} not shown, {dict(numbers[1] - numbers[0])} more")  # fmt: skip
    assert not problems, "\n".join(problems[:20])


# ---------------------------------------------------------------------------------------------
# Each download holds the code its page shows

CODE_BLOCK = re.compile(
    r'<div class="highlight-(?:Python|python|ipython3|default) notranslate">'
    r'<div class="highlight"><pre>(.*?)</pre>',
    re.DOTALL,
)
CELL_INPUT = re.compile(r'<div class="cell_input[^"]*">.*?<pre>(.*?)</pre>', re.DOTALL)
DOWNLOAD = re.compile(r'<a [^>]*href="([^"]*_downloads/[^"]+\.(?:py|ipynb))"')
CELL_MARK = re.compile(r"^# %%")


def _text(block: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", block)).strip()


def script_code(script: str) -> list[str]:
    """The code of each cell of a gallery script: its blocks between ``# %%`` text blocks."""
    body = re.sub(r'^\s*[rR]?""".*?"""\n', "", script, count=1, flags=re.DOTALL)
    body = re.sub(r"^# sphinx_gallery_\w+ = .*\n", "", body, flags=re.MULTILINE)  # not shown
    blocks, current = [], []
    for line in body.splitlines():
        if CELL_MARK.match(line):
            blocks.append(current)
            current = ["# %%"]  # its text follows, as comment lines
        elif current[:1] == ["# %%"] and (line.startswith("#") or not line.strip()):
            continue  # the cell's text
        else:
            current = [c for c in current if c != "# %%"] + [line]
    blocks.append(current)
    code = ("\n".join(b for b in block if b != "# %%").strip() for block in blocks)
    return [c for c in code if c]


def notebook_code(notebook: Path) -> list[str]:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]).strip() for c in cells if c["cell_type"] == "code"]


def page_downloads(page: Path, html_text: str, suffix: str) -> list[Path]:
    return sorted({(page.parent / href).resolve() for href in DOWNLOAD.findall(html_text)
                   if href.endswith(suffix)})  # fmt: skip


def test_each_download_holds_the_code_its_page_shows(layout) -> None:
    problems, compared = [], 0
    for language, folder in layout.languages.items():
        for page in sorted((folder / "auto_examples").rglob("plot_*.html")):
            text = page.read_text(encoding="utf-8")
            shown = [_text(block) for block in CODE_BLOCK.findall(text)]
            for script in page_downloads(page, text, ".py"):
                compared += 1
                if script_code(script.read_text(encoding="utf-8")) != shown:
                    problems.append(f"{language} {page.name}: {script.name} is not its code")
            for notebook in page_downloads(page, text, ".ipynb"):
                compared += 1
                if notebook_code(notebook)[1:] != shown:  # after the install cell
                    problems.append(f"{language} {page.name}: {notebook.name} is not its code")
        for page in sorted((folder / "tutorial").glob("[0-9][0-9]_*.html")):
            text = page.read_text(encoding="utf-8")
            shown = [_text(block) for block in CELL_INPUT.findall(text)]
            for notebook in page_downloads(page, text, ".ipynb"):
                compared += 1
                if notebook_code(notebook)[1:] != shown:  # after the install cell
                    problems.append(f"{language} {page.name}: {notebook.name} is not its code")
    assert compared >= 2 * 65, f"only {compared} downloads compared with their pages"
    assert not problems, "\n".join(problems)


# a notebook's roles become links to the site (or code) as it is written out: links, roles and
# code spans are left out when compared (fences first, whose backticks would pair wrongly)
ROLE_OR_LINK = re.compile(r"```+|\[[^\]]*\]\([^)]*\)|[{:][\w:-]+[}:]`[^`]*`|`[^`]*`")


def cells_said(notebook: Path) -> list[str]:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return [" ".join(ROLE_OR_LINK.sub(" ", "".join(c["source"])).split()) for c in cells]


def test_each_download_says_what_its_page_was_built_from(layout) -> None:
    """Every .py and .ipynb a page offers says what the page's own source says, prose and code,
    in each edition: a gallery script is its example (docs/auto_examples, the Chinese one in
    _build/sources/zh_CN), a notebook its example's or its tutorial page's, cell by cell (links
    aside). A sentence or a number changed in a download fails, not only its code."""
    build = layout.root.parent
    sources = {"en": build.parent, "zh_CN": build / "sources" / "zh_CN"}
    problems, compared = [], 0
    for language, folder in layout.languages.items():
        for page in sorted(folder.rglob("*.html")):
            text, rel = page.read_text(encoding="utf-8"), page.relative_to(folder)
            notebooks = ("notebooks",) if rel.parts[0] == "tutorial" else ()  # written there
            folders = rel.parent.parts + notebooks
            for download in [
                *page_downloads(page, text, ".py"),
                *page_downloads(page, text, ".ipynb"),
            ]:
                source = sources[language].joinpath(*folders, download.name)
                if not source.is_file():
                    problems.append(f"{language} {rel}: {download.name} has no source at {source}")
                    continue
                compared += 1
                same = (download.read_bytes() == source.read_bytes() if download.suffix == ".py"
                        else cells_said(download) == cells_said(source))  # fmt: skip
                if not same:
                    problems.append(f"{language} {rel}: {download.name} differs from {source}")
    assert compared >= 2 * 65, f"only {compared} downloads compared with their sources"
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------------------------------------
# Each executed page shows the code that ran and what it printed

CELL = re.compile(r'<div class="cell(?: [\w-]+)* docutils container"[^>]*>')
CELL_PRE = re.compile(r'<div class="(cell_input|output [^"]*)[^>]*>\s*(?:<div class="highlight-\w+ '
                      r'notranslate">)?<div class="highlight"><pre>(.*?)</pre>', re.DOTALL)  # fmt: skip


def shown_cells(page: Path) -> list[tuple[list[str], list[str]]]:
    """Each code cell of a notebook page: the code it shows, and the text outputs it shows."""
    text = page.read_text(encoding="utf-8")
    starts = [m.start() for m in CELL.finditer(text)] + [len(text)]
    cells = []
    for a, b in itertools.pairwise(starts):
        blocks = CELL_PRE.findall(text[a:b])
        cells.append(([_text(t) for k, t in blocks if k == "cell_input"],
                      [_text(t) for k, t in blocks if k != "cell_input"]))  # fmt: skip
    return cells


def executed_cells(record: Path) -> list[tuple[list[str], list[str]]]:
    """Each code cell the build ran (myst-nb's record), as the page shows it: its code unless its
    input is removed, its text outputs; cells removed from the page are left out. myst-nb merges
    a cell's stdout into its first stream and keeps the rest in the record too: dropped."""
    cells = []
    for cell in json.loads(record.read_text(encoding="utf-8"))["cells"]:
        tags = cell.get("metadata", {}).get("tags", [])
        if cell["cell_type"] != "code" or "remove-cell" in tags:
            continue
        code = [] if "remove-input" in tags else ["".join(cell["source"]).strip()]
        outputs = []
        for out in [] if "remove-output" in tags else cell["outputs"]:
            said = "".join(out.get("text") or out.get("data", {}).get("text/plain", ""))
            if said and not (outputs and out.get("name") and outputs[-1].endswith(said)):
                outputs.append(said)
        cells.append((code, [o.strip() for o in outputs]))
    return cells


SCRIPT_OUT = re.compile(r'<div class="sphx-glr-script-out[^"]*"><div class="highlight"><pre>(.*?)</pre>',
                        re.DOTALL)  # fmt: skip
# what an example printed, in the page sphinx-gallery wrote from its run (reST, before Sphinx)
RECORDED_OUT = re.compile(r"^\.\. rst-class:: sphx-glr-script-out\n\n \.\. code-block:: none\n\n"
                          r"((?:    .*\n|\n)*)", re.MULTILINE)  # fmt: skip


def _lines(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip().splitlines())  # as docutils writes


def test_each_example_shows_what_it_printed(layout) -> None:
    """Each gallery example's outputs are those sphinx-gallery recorded from its run, in each
    edition (docs/auto_examples, and the Chinese run's in _build/sources/zh_CN): a shape, a
    number or a label edited on the page fails."""
    build = layout.root.parent
    records = {
        "en": build.parent / "auto_examples",
        "zh_CN": build / "sources" / "zh_CN" / "auto_examples",
    }
    problems, compared = [], 0
    for language, folder in layout.languages.items():
        for page in sorted((folder / "auto_examples").rglob("plot_*.html")):
            rel = page.relative_to(folder / "auto_examples").with_suffix(".rst")
            record = (records[language] / rel).read_text(encoding="utf-8")
            ran = [_lines(textwrap.dedent(block)) for block in RECORDED_OUT.findall(record)]
            shown = [_lines(_text(b)) for b in SCRIPT_OUT.findall(page.read_text(encoding="utf-8"))]
            compared += len(ran)
            if shown != ran:
                problems.append(
                    f"{language} {rel.with_suffix('.html')}: shows {shown}, the run printed {ran}"
                )
    assert compared >= 2 * 100, f"only {compared} outputs compared with their runs"
    assert not problems, "\n".join(p[:600] for p in problems)


def test_each_executed_page_shows_the_code_that_ran_and_what_it_printed(layout) -> None:
    """The code and the text outputs of every notebook page (tutorial, how-to, explanation,
    home) are those of the build's own run of it, cell by cell, in each edition: a shape or
    a number edited on the page, or code changed after it ran, fails."""
    problems, compared = [], 0
    for language, folder in layout.languages.items():
        records = layout.root.parent / "jupyter_execute" / language
        assert records.is_dir(), f"no executed notebooks at {records}: run nox -s docs"
        for record in sorted(records.rglob("*.ipynb")):
            rel = record.relative_to(records).with_suffix(".html")
            ran, shown = executed_cells(record), shown_cells(folder / rel)
            if len(ran) != len(shown):
                problems.append(f"{language} {rel}: {len(shown)} cells shown, {len(ran)} ran")
            pairs = zip(ran, shown, strict=False)  # a count that differs is said above
            for number, ((code, printed), (shown_code, shown_printed)) in enumerate(pairs):
                compared += 1
                if code != shown_code:
                    problems.append(f"{language} {rel} cell {number}: the code shown is not "
                                    f"the code that ran: {shown_code} != {code}")  # fmt: skip
                if printed != shown_printed:
                    problems.append(f"{language} {rel} cell {number}: shows {shown_printed}, "
                                    f"the code printed {printed}")  # fmt: skip
    assert compared >= 2 * 60, f"only {compared} executed cells compared with their pages"
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------------------------------------
# The Performance page states the goals it measures against

ROW = re.compile(r"<tr\b.*?</tr>", re.DOTALL)
CELL_TEXT = re.compile(r"<t[dh]\b.*?</t[dh]>", re.DOTALL)
SHAPE = re.compile(r"\(\d+, \d+, \d+, \d+\)")


# a size the prose states: "8 heads", "5 tokens", "sequence length 5", "8 个头", "长度为 5",
# and "= 64" in its math ($d_{model} = 64$)
STATED_SIZE = {
    "en": re.compile(r"(?<![\w.,])(\d[\d,]*) (?:heads?|tokens?|sequences?|queries|keys|dimensions)"
                     r"\b|\b(?:batch|length|width) (?:of )?(\d[\d,]*)\b"),
    "zh_CN": re.compile(r"(?<![\w.,])(\d[\d,]*) ?个?(?:头|词元|序列|查询|键|维)|(?:批量|长度|宽度)"
                        r"(?:为|是)? ?(\d[\d,]*)"),
}  # fmt: skip
TEX_SIZE = re.compile(
    r'<annotation encoding="application/x-tex">(?:[^=<\d+]*=)+\s*(\d+)\s*</annotation>'
)
SHAPE_TUPLE = re.compile(r"[(\[](\d+(?:, \d+){2,3})[)\]]")  # (2, 8, 5, 8), torch.Size([2, 8, 5, 8])
THE_LESSONS_SIZES = "tutorial/02_walkthrough.html"  # the page that runs the lesson's sizes


def shown_text(markup: str) -> str:
    """The words of an article's code and outputs."""
    return _words(" ".join(re.findall(r"<pre\b.*?</pre>|<code\b.*?</code>", markup, re.DOTALL)))


def shown_numbers(markup: str) -> set[str]:
    """The numbers of an article's code and outputs, thousands unseparated (8,192: 8192)."""
    return {n.replace(",", "") for n in re.findall(r"\d[\d,]*", shown_text(markup))}


def test_each_size_the_tutorial_states_is_in_its_code(layout) -> None:
    """The tutorial's index says that every shape and number its text states is printed or
    asserted by a code cell on its page. Each size stated by the prose of a tutorial page, of the
    landing page's quick start and of a gallery example (STATED_SIZE) is a number of that page's
    code or output, and each shape its prose and alt texts state ("(2, 8, 5, 8)") a shape the
    code or output shows; the index's sizes (its table of sections aside) are those of page 2,
    the summary's those of the pages 1-5 it sums up. A figure's caption (it speaks of its
    figure, drawn by an example elsewhere), a link's text (another page's title) and a
    question's supposition are left out. "4 heads" over code with 8 fails."""
    checked = 0
    for language, folder in layout.languages.items():
        cells = re.findall(
            r"<pre\b.*?</pre>", (folder / THE_LESSONS_SIZES).read_text(encoding="utf-8"), re.DOTALL
        )
        lessons = shown_numbers(
            next(c for c in cells if "num_heads" in c)
        )  # the cell that sets them
        wrong = []
        examples = sorted((folder / "auto_examples").rglob("plot_*.html"))
        for page in [
            folder / "index.html",
            *sorted((folder / "tutorial").glob("*.html")),
            *examples,
        ]:
            markup = page.read_text(encoding="utf-8")
            shown_here = shown_numbers(article_of(markup))
            shown_shapes = set(SHAPE_TUPLE.findall(shown_text(article_of(markup))))
            markup = _without(_without(markup, '<div class="mha-question"', "div"), "<figcaption",
                              "figcaption")  # fmt: skip
            markup = _without(markup, '<a class="reference internal"', "a")  # another page's words
            if page.name == "index.html" and page.parent.name == "tutorial":
                shown = lessons  # its table names the lesson's sections, shown on their pages
                markup = _without(markup, "<table", "table")
            else:
                shown = shown_here
            if page.name.startswith("06_"):
                shown |= {n for p in page.parent.glob("0[1-5]_*.html") for n in shown_numbers(
                    article_of(p.read_text(encoding="utf-8")))}  # fmt: skip
            parser = _Prose()
            parser.feed(markup)
            stated = [n.replace(",", "") for found in STATED_SIZE[language].findall(
                "".join(parser.parts)) for n in found if n] + TEX_SIZE.findall(article_of(markup))  # fmt: skip
            checked += len(stated)
            wrong += [f"{page.relative_to(folder)}: {n}" for n in stated if n not in shown]
            alts = " ".join(said.split(" ", 1)[1] for said in parser.said if said.startswith("alt"))
            shapes = SHAPE_TUPLE.findall(f"{''.join(parser.parts)} {alts}")
            wrong += [f"{page.relative_to(folder)}: ({t})" for t in shapes if t not in shown_shapes]
        assert not wrong, f"{language}: sizes the prose states that its code does not:\n" + (
            "\n".join(wrong))  # fmt: skip
    assert checked > 100, f"only {checked} stated sizes read"


def table_rows(table: str) -> list[list[str]]:
    return [[_words(cell) for cell in CELL_TEXT.findall(row)] for row in ROW.findall(table)]


def test_the_performance_page_states_the_goals_it_measures_against(layout) -> None:
    """On the Performance page, in each edition, the goal its method states for each mode and
    layout (``≤ 0.75 (batch_first=True), ≤ 1.1 (batch_first=False)``) is the goal of every
    measured row of that mode and layout, the shapes it names are those measured, and each
    row's mark says what its numbers say (✓ when the ratio is within the goal)."""
    for language, folder in layout.languages.items():
        text = (folder / "explanation" / "performance.html").read_text(encoding="utf-8")
        article = article_of(text)
        tables = re.findall(r"<table\b.*?</table>", article, re.DOTALL)
        method, measured = table_rows(tables[0])[1:], table_rows(tables[1])[1:]
        stated = {}
        for mode, _, goal in method:
            for number, layout_named in re.findall(
                r"≤ ([\d.]+)\s*(?:[(（]batch_first=(\w+))?", goal
            ):
                for batch_first in [layout_named] if layout_named else ["True", "False"]:
                    stated[mode, batch_first] = float(number)
        assert len(stated) == 6, f"{language}: goals read from the method: {stated}"
        said = article[article.find(tables[0]) : article.find(tables[1])]
        shapes = set(SHAPE.findall(_words(said)))
        problems = []
        for mode, shape, batch_first, ratio, goal, *_ in measured:
            limit = float(re.search(r"≤ ([\d.]+)", goal)[1])
            if limit != stated.get((mode, batch_first)):
                problems.append(f"{mode} {shape} {batch_first}: measured against ≤ {limit}, the "
                                f"method says ≤ {stated.get((mode, batch_first))}")  # fmt: skip
            if ("✓" in goal) != (float(ratio) <= limit):
                problems.append(f"{mode} {shape} {batch_first}: ratio {ratio}, marked {goal}")
        if shapes != {row[1] for row in measured}:
            problems.append(
                f"shapes named {sorted(shapes)}, measured {sorted({r[1] for r in measured})}"
            )
        assert len(measured) == 18, f"{language}: {len(measured)} measured rows"
        assert not problems, f"{language}:\n" + "\n".join(problems)


def test_each_zip_holds_the_downloads_beside_it(layout) -> None:
    """Every zip a gallery page offers (an example's, the whole gallery's) holds each script and
    notebook exactly as the page offers it alone: no file in a zip differs from its download."""
    problems, compared = [], 0
    for language, folder in layout.languages.items():
        loose = {
            p.name: p.read_bytes()
            for p in (folder / "_downloads").glob("*/*")
            if p.suffix != ".zip"
        }
        for archive in (folder / "_downloads").glob("*/*.zip"):
            with zipfile.ZipFile(archive) as zipped:
                for member in zipped.namelist():
                    compared += 1
                    if zipped.read(member) != loose.get(Path(member).name):
                        problems.append(f"{language} {archive.name}: {member} is not its download")
    assert compared >= 2 * 4 * 30, f"only {compared} files of zips compared"
    assert not problems, "\n".join(problems)


THUMB = re.compile(r'<div class="sphx-glr-thumbcontainer".*?src="[^"]*sphx_glr_(\w+?)_thumb\.png".*?'
                   r'href="([^"#]+)\.html', re.DOTALL)  # fmt: skip


def test_each_thumbnail_is_its_examples(layout) -> None:
    """On each gallery index, every example's card shows that example's thumbnail."""
    problems, cards = [], 0
    for language, folder in layout.languages.items():
        for index in (folder / "auto_examples").rglob("index.html"):
            for thumb, address in THUMB.findall(index.read_text(encoding="utf-8")):
                cards += 1
                if Path(address).name != thumb:
                    problems.append(
                        f"{language} {index.relative_to(folder)}: {address} shows {thumb}"
                    )
    assert cards >= 2 * 2 * 30, f"only {cards} cards read"
    assert not problems, "\n".join(problems)


SIGNATURE = re.compile(r'<dt class="sig sig-object py"[^>]*id="(mha[\w.]*)">(.*?)</dt>', re.DOTALL)


def _value(expression: ast.expr) -> str:
    """A module constant's value as Sphinx shows a default (its repr): ``tuple(2**i for i in
    range(10))`` is ``(1, 2, 4, ...)``; an expression of anything else, as written."""
    try:
        code = compile(ast.Expression(expression), "<constant>", "eval")
        return repr(eval(code, {"__builtins__": {"tuple": tuple, "range": range}}))
    except NameError:
        return ast.unparse(expression)


def package_definitions() -> dict[str, ast.AST]:
    """Every function, class and method mha's pages name (``mha.split_heads``, ``mha.check.
    split_heads``, ``mha.KVCache.update``), from src/mha read, not imported (importing it would
    import torch), each default that names a constant of its module replaced by its value."""
    package = Path(__file__).resolve().parents[1] / "src" / "mha"
    found, exported = {}, {}
    for node in ast.parse((package / "__init__.py").read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mha."):
            exported |= {alias.asname or alias.name: node.module for alias in node.names}
    for source in package.glob("*.py"):
        module, tree = f"mha.{source.stem}", ast.parse(source.read_text(encoding="utf-8"))
        constants = {t.id: n.value for n in tree.body if isinstance(n, ast.Assign)
                     for t in n.targets if isinstance(t, ast.Name)}  # fmt: skip
        for node in ast.walk(tree):  # a default that names a constant: its value
            for default in [*getattr(node, "defaults", []), *getattr(node, "kw_defaults", [])]:
                if isinstance(default, ast.Name) and default.id in constants:
                    default.id = _value(constants[default.id])
        for node in (n for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)):
            names = [f"{module}.{node.name}"] + [f"mha.{node.name}"] * (
                exported.get(node.name) == module
            )
            for name in names:
                found[name] = node
                for item in node.body if isinstance(node, ast.ClassDef) else []:
                    if isinstance(item, ast.FunctionDef):
                        found[f"{name}.{item.name}"] = item
    return found


def _parameters(node: ast.AST) -> str | None:
    """A definition's parameters as Sphinx writes them: ``x, num_heads, *, dropout=0.0``."""
    if isinstance(node, ast.ClassDef):
        node = next(
            (n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None
        )
    if node is None:
        return None
    given = node.args
    positional = [*given.posonlyargs, *given.args]
    defaults = [None] * (len(positional) - len(given.defaults)) + list(given.defaults)
    written = []
    for n, (arg, default) in enumerate(zip(positional, defaults, strict=True)):
        if arg.arg not in ("self", "cls"):
            written.append(arg.arg if default is None else f"{arg.arg}={ast.unparse(default)}")
        if given.posonlyargs and n == len(given.posonlyargs) - 1:
            written.append("/")
    if given.vararg:
        written.append(f"*{given.vararg.arg}")
    elif given.kwonlyargs:
        written.append("*")
    for arg, default in zip(given.kwonlyargs, given.kw_defaults, strict=True):
        written.append(arg.arg if default is None else f"{arg.arg}={ast.unparse(default)}")
    if given.kwarg:
        written.append(f"**{given.kwarg.arg}")
    return ", ".join(written)


def test_each_api_signature_is_the_packages(layout) -> None:
    """Every signature an API page shows (a function's, a class's, a method's) has the arguments
    and defaults of the package in src/ (a default edited on the page fails), in each edition."""
    defined = package_definitions()
    problems, compared = [], 0
    for language, folder in layout.languages.items():
        for page in (folder / "reference" / "generated").glob("mha*.html"):
            for name, shown in SIGNATURE.findall(page.read_text(encoding="utf-8")):
                found = re.search(r"\((.*)\)", _words(shown))
                node = defined.get(name)
                if found is None or node is None or (expected := _parameters(node)) is None:
                    continue
                compared += 1
                if found[1] != expected:
                    problems.append(f"{language} {name}({found[1]}): the package's is ({expected})")
    assert compared >= 2 * 30, f"only {compared} signatures compared"
    assert not problems, "\n".join(problems)


DOCTEST = re.compile(r'<div class="doctest highlight-\w+ notranslate"><div class="highlight"><pre>(.*?)</pre>',
                     re.DOTALL)  # fmt: skip


def test_each_api_example_is_the_packages(layout) -> None:
    """Every example an API page shows (the code and what it prints) stands, line for line, in
    a docstring of the package in src/, whose examples the unit tests run: an output edited on
    the page fails, in each edition."""
    docstrings = [
        [line.strip() for line in (ast.get_docstring(node) or "").splitlines()]
        for source in (Path(__file__).resolve().parents[1] / "src" / "mha").glob("*.py")
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8")))
        if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef)
    ]
    written = ["\n".join(lines) for lines in docstrings]
    problems, compared = [], 0
    for language, folder in layout.languages.items():
        for page in (folder / "reference" / "generated").glob("mha*.html"):
            for block in DOCTEST.findall(page.read_text(encoding="utf-8")):
                compared += 1
                shown = "\n".join(line.strip() for line in _text(block).splitlines())
                if not any(shown in docstring for docstring in written):
                    problems.append(
                        f"{language} {page.name}: an example no docstring has:\n{shown}"
                    )
    assert compared >= 2 * 30, f"only {compared} examples compared"
    assert not problems, "\n".join(problems[:10])
