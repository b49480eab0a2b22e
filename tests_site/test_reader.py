"""What a reader sees, read from the built files and in Chromium: thumbnails, outputs, alt
text, Chinese search and interface, titles.

Each test guards one point of the site's review: it fails if the problem comes back. The
checks made on every page in a desktop and a phone window are in test_pages.py.
"""

from __future__ import annotations

import hashlib
import html
import re
import sys
from pathlib import Path

import pytest
from pagechecks import CODE_OR_OUTPUT, SEARCH_DONE_JS

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.browser


def _language_pages(layout, language: str) -> list[Path]:
    folder = layout.languages.get(language)
    if folder is None:
        pytest.skip(f"this build has no {language} folder")
    return sorted(p for p in folder.rglob("*.html") if "_static" not in p.parts)


def _rel(layout, page: Path) -> str:
    return page.relative_to(layout.root).as_posix()


# ---------------------------------------------------------------------------------------------
# Gallery cards and outputs (read from the built files)

THUMB = re.compile(r'<div class="sphx-glr-thumbnail-title">|<img [^>]*src="([^"]+)"')


def _thumbnails(index: Path) -> list[Path]:
    html = index.read_text(encoding="utf-8")
    cards = re.findall(
        r'<div class="sphx-glr-thumbcontainer".*?<img [^>]*src="([^"]+)"', html, re.DOTALL
    )
    return [(index.parent / src).resolve() for src in cards]


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_every_example_has_its_own_thumbnail(layout, language: str) -> None:
    """No two gallery cards share a picture, and none is sphinx-gallery's placeholder."""
    folder = layout.languages.get(language)
    if folder is None:
        pytest.skip(f"no {language} folder")
    thumbnails = _thumbnails(folder / "auto_examples" / "index.html")
    examples = list((folder / "auto_examples").rglob("plot_*.html"))
    assert len(thumbnails) == len(examples), (len(thumbnails), len(examples))
    digests: dict[str, list[str]] = {}
    for path in thumbnails:
        assert path.is_file(), f"missing thumbnail {path}"
        assert "no_image" not in path.name, f"placeholder thumbnail {path}"
        digests.setdefault(hashlib.sha256(path.read_bytes()).hexdigest(), []).append(path.name)
    shared = [names for names in digests.values() if len(names) > 1]
    assert not shared, f"cards share a picture: {shared}"


# A repr of an object returned by a plotting call, printed by sphinx-gallery or a notebook.
STRAY_REPR = re.compile(
    r"object at 0x[0-9a-f]+|&lt;matplotlib\.|^Text\(|^\[?&lt;matplotlib|^Legend\b|"
    r"<span class=\"go\">Text\(",
    re.MULTILINE,
)


# an exception's or a warning's name at the start of a line, or after a label ("What happened:
# ValueError: ...", "/path/to/file.py:3: UserWarning: ...")
EXCEPTION = re.compile(r"(?:^|[:：] ?)\w*(?:Error|Exception|Warning): ", re.MULTILINE)
ADDRESS = re.compile(r"\bat 0x[0-9a-f]{4,}>")  # <generator object <genexpr> at 0x7f...>


def output_problems(page_html: str) -> list[str]:
    """A traceback, a notebook's error output, an exception the code before it does not catch
    (a page shows an error only where its code, or an :mod:`mha.check` report, ``✗ ...``,
    catches it to show it), a stray object repr."""
    problems = [] if "output traceback" not in page_html else ["an error output (traceback)"]
    code = ""
    for found in CODE_OR_OUTPUT.finditer(page_html):
        text = html.unescape(re.sub(r"<[^>]+>", "", found["body"]))
        if found["kind"] in ("cell_input", "highlight-Python"):
            code = text
            continue
        hits = STRAY_REPR.findall(found["body"]) + re.findall(
            r"^(?:Text|Legend)\(", text, re.MULTILINE
        )
        if hits or ADDRESS.search(text):
            problems.append(f"an object's repr: {text.strip()[:120]!r}")
        if "Traceback (most recent call last)" in text:
            problems.append(f"a traceback: {text.strip()[:120]!r}")
        elif EXCEPTION.search(text) and "except" not in code and not text.startswith("✗"):
            problems.append(f"an error its code does not catch: {text.strip()[:120]!r}")
    return problems


def test_no_traceback_error_or_repr_in_outputs(layout) -> None:
    """No output shows a traceback, an error the code does not catch, a warning, ``<... at
    0x...>``, ``Text(...)`` or ``Legend`` lines, in any language."""
    found, outputs = [], 0
    for language in layout.languages:
        for page in _language_pages(layout, language):
            page_html = page.read_text(encoding="utf-8")
            outputs += page_html.count('class="cell_output') + page_html.count(
                "sphx-glr-script-out"
            )
            found += [f"{_rel(layout, page)}: {problem}" for problem in output_problems(page_html)]
    assert outputs >= 380, f"only {outputs} outputs found"
    assert not found, "\n".join(found)


# ---------------------------------------------------------------------------------------------
# Figures: described in words

BAD_ALT = re.compile(r"^(?:$|plot\b|sphx_glr|image|figure|png)", re.IGNORECASE)


def test_every_figure_says_what_it_shows(layout) -> None:
    """Every content image has alt text of a few words, not a file name."""
    missing = []
    for language in layout.languages:
        for page in _language_pages(layout, language):
            html = page.read_text(encoding="utf-8")
            for tag in re.findall(r"<img\b[^>]*>", html):
                if "logo" in tag or "favicon" in tag or "_thumb" in tag or "toggler" in tag:
                    continue  # a gallery card's picture: its link carries the title
                alt = re.search(r'\balt="([^"]*)"', tag)
                text = alt.group(1).strip() if alt else ""
                if BAD_ALT.match(text) or (len(text.split()) < 2 and len(text) < 4):
                    missing.append(f"{_rel(layout, page)}: {tag[:140]}")
    assert not missing, "\n".join(missing[:20]) + f"\n({len(missing)} images)"


def test_chinese_figures_are_described_in_chinese(layout) -> None:
    """The alt text of the home page's and the Performance page's figures is Chinese there."""
    if "zh_CN" not in layout.languages:
        pytest.skip("no zh_CN folder")
    folder = layout.languages["zh_CN"]
    english = []
    for rel in ("index.html", "explanation/performance.html"):
        html = (folder / rel).read_text(encoding="utf-8")
        for tag in re.findall(r"<img\b[^>]*>", html):
            alt = re.search(r'\balt="([^"]*)"', tag)
            if alt and alt.group(1).strip() and not re.search(r"[\u4e00-\u9fff]", alt.group(1)):
                english.append(f"{rel}: {alt.group(1)[:80]}")
    assert not english, "\n".join(english)


# ---------------------------------------------------------------------------------------------
# The Chinese edition is Chinese

SEARCHES = {
    "多头注意力": "tutorial/01_one_head_to_many.html",
    "缩放": "explanation/why-scale.html",
    "注意力权重": "auto_examples/04_errors/plot_05_averaged_vs_per_head.html",
}


# the search page's own function, as its load runs it for ?q=: the next query on the same page
SEARCH_AGAIN_JS = """(query) => {
  document.getElementById('search-results').replaceChildren();
  Search.performSearch(query);
}"""


def test_chinese_search(shared, layout) -> None:
    """Typed as a reader types it, each glossary term finds several pages, the main one among
    them: the first from the search page's address, the others searched again on that page."""
    if "zh_CN" not in layout.languages:
        pytest.skip("no zh_CN folder")
    for number, (query, main_page) in enumerate(SEARCHES.items()):
        if number == 0:
            shared.goto(f"zh_CN/search.html?q={query}")
        else:
            shared.page.evaluate(SEARCH_AGAIN_JS, query)
        shared.page.wait_for_function(SEARCH_DONE_JS)
        links = shared.page.eval_on_selector_all(
            "#search-results ul.search li a", "links => links.map((a) => a.href)"
        )
        sys.stdout.write(f"search {query}: {len(links)} results\n")
        assert len(links) >= 3, f"{query}: {links}"
        assert any(link.split("?")[0].split("#")[0].endswith(main_page) for link in links), (
            f"{query}: {main_page} not among {links}"
        )
    assert not shared.problems, "\n".join(shared.problems)


# English strings of the theme and of sphinx-gallery that a Chinese reader must not see
# (text or tooltip); the English site has them, which shows the check looks at the right places.
UI_ENGLISH = [
    "Collapse Sidebar",
    "System Settings",
    "Go to the end",
    "Total running time of the script",
    "Download Jupyter notebook:",
    "Download Python source code:",
    "Download all examples in",
    "Gallery generated by Sphinx-Gallery",
    ">API reference<",
    "Skip to main content",
    '<th class="head"><p>ratio</p></th>',  # the benchmark table's header
    "Start the lesson",
    "Search the docs",
    "© Copyright",
    "Show code cell",  # myst-nb's toggle of a collapsed cell (page 4's answers)
]
# Strings only the Chinese site could show in English: the language switch's tooltip.
UI_ENGLISH_ZH_ONLY = ['title="Read this page in English"']


def _with_text(html: str) -> str:
    """The HTML (attributes, tags) and its text, words joined by single spaces."""
    return html + "\n" + re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))


def test_interface_is_in_the_page_language(layout) -> None:
    if "zh_CN" not in layout.languages:
        pytest.skip("no zh_CN folder")
    english = dict.fromkeys(UI_ENGLISH, 0)
    for page in _language_pages(layout, "en"):
        html = _with_text(page.read_text(encoding="utf-8"))
        for s in UI_ENGLISH:
            english[s] += s in html
    assert all(english.values()), f"strings the English site should show: {english}"
    leaks = []
    for page in _language_pages(layout, "zh_CN"):
        html = _with_text(page.read_text(encoding="utf-8"))
        rel = _rel(layout, page)
        leaks += [f"{rel}: {s}" for s in UI_ENGLISH + UI_ENGLISH_ZH_ONLY if s in html]
    assert not leaks, "\n".join(leaks[:30]) + f"\n({len(leaks)} in all)"


def test_gallery_titles_equal_page_titles(layout) -> None:
    """Each card's title is its page's title, in both languages."""
    different = []
    for language, folder in layout.languages.items():
        index = (folder / "auto_examples" / "index.html").read_text(encoding="utf-8")
        cards = re.findall(
            r'<div class="sphx-glr-thumbcontainer".*?<a [^>]*href="([^"#]+)".*?</div>\s*</div>',
            index,
            re.DOTALL,
        )
        titles = re.findall(r'<div class="sphx-glr-thumbnail-title">(.*?)</div>', index, re.DOTALL)
        for href, title in zip(cards, titles, strict=False):
            page = (folder / "auto_examples" / href).read_text(encoding="utf-8")
            h1 = re.search(r"<h1>(.*?)<a class=\"headerlink\"", page, re.DOTALL)
            page_title = re.sub(r"<[^>]+>", "", h1.group(1)).strip() if h1 else ""
            card = re.sub(r"<[^>]+>", "", title).strip()
            if card != page_title:
                different.append(f"{language} {href}: card {card!r}, page {page_title!r}")
    assert not different, "\n".join(different)


# ---------------------------------------------------------------------------------------------
# Typography and the landing page


def test_no_plain_formulas_in_titles_and_headings(layout) -> None:
    """Headings use words or typeset math, never sqrt(d_k) or q . k; <title> has no raw TeX."""
    bad = []
    for language in layout.languages:
        for page in _language_pages(layout, language):
            html = page.read_text(encoding="utf-8")
            title = re.search(r"<title>(.*?)</title>", html, re.DOTALL).group(1)
            if "\\" in title:
                bad.append(f"{_rel(layout, page)}: <title>{title}")
            for heading in re.findall(r"<h[1-3][^>]*>(.*?)</h[1-3]>", html, re.DOTALL):
                text = re.sub(r"<[^>]+>", "", heading)
                if re.search(r"sqrt\(|\bq \. k\b", text):
                    bad.append(f"{_rel(layout, page)}: {text.strip()[:80]}")
    assert not bad, "\n".join(bad)
