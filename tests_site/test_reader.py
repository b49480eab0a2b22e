"""What a reader sees: thumbnails, outputs, phone widths, figure sizes, languages, accessibility.

Each test guards one point of the site's review (issue 11): it fails if the problem comes back.
"""

from __future__ import annotations

import hashlib
import re
import sys
from pathlib import Path

import pytest

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 900}


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


def test_no_object_reprs(layout) -> None:
    """No ``<... object at 0x...>``, ``Text(...)`` or ``Legend`` lines in any output, any language."""
    found = []
    for language in layout.languages:
        for page in _language_pages(layout, language):
            outputs = re.findall(
                r'<div class="(?:sphx-glr-script-out|cell_output)[^"]*".*?</pre>',
                page.read_text(encoding="utf-8"),
                re.DOTALL,
            )
            for block in outputs:
                text = re.sub(r"<[^>]+>", "", block)
                hits = STRAY_REPR.findall(text) + re.findall(
                    r"^(?:Text|Legend)\(", text, re.MULTILINE
                )
                if hits or "object at 0x" in text:
                    found.append(f"{_rel(layout, page)}: {text.strip()[:120]!r}")
    assert not found, "\n".join(found)


# ---------------------------------------------------------------------------------------------
# Phone width: nothing wider than the screen

OVERFLOW_JS = """() => {
  const width = document.documentElement.clientWidth;
  const wide = [...document.querySelectorAll('body *')].filter((el) => {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.right <= width + 1) return false;
    // inside a box of the page's content that scrolls (code, math, tables) or is hidden: not
    // the page's width. The article's own container scrolls too: content wider than it is cut.
    const layout = '.bd-article-container, .bd-main, .bd-container, .bd-page-width, body';
    for (let p = el.parentElement; p && !p.matches(layout); p = p.parentElement) {
      const s = getComputedStyle(p);
      if (['auto', 'scroll', 'hidden', 'clip'].includes(s.overflowX)) return false;
    }
    return true;
  });
  return {scroll: document.documentElement.scrollWidth, width,
          examples: wide.slice(0, 3).map((el) => el.tagName + '.' + el.className + ': '
            + (el.textContent || '').trim().slice(0, 50))};
}"""


@pytest.fixture(scope="module")
def phone(browser, base_url):
    ctx = browser.new_context(viewport=PHONE, device_scale_factor=1, service_workers="block")
    page = ctx.new_page()
    yield page
    ctx.close()


# the checks that visit every page run as SHARDS tests, so that pytest-xdist spreads them
SHARDS = 4


def _shard(layout, shard: int) -> list[Path]:
    """Every page of every language, one in SHARDS of them from the ``shard``-th on."""
    pages = [p for language in layout.languages for p in _language_pages(layout, language)]
    return pages[shard::SHARDS]


@pytest.mark.parametrize("shard", range(SHARDS))
def test_no_page_wider_than_a_phone(phone, base_url, layout, shard: int) -> None:
    """At 390 px no page scrolls sideways: wide content scrolls inside its own box."""
    wide = []
    for page in _shard(layout, shard):
        rel = _rel(layout, page)
        phone.goto(base_url + rel, wait_until="load")
        phone.evaluate(
            "() => (window.MathJax && MathJax.startup && MathJax.startup.promise) || null"
        )
        result = phone.evaluate(OVERFLOW_JS)
        if result["scroll"] > result["width"] + 1 or result["examples"]:
            wide.append(f"{rel}: {result}")
    assert not wide, "\n".join(wide)


ERROR_TABLE_JS = """() => {
  const table = document.querySelector('#howto-common-errors > .pst-scrollable-table-container > table');
  const rows = [...table.querySelectorAll('tbody tr')];
  const cells = [...table.querySelectorAll('tbody td')];
  return {rows: rows.length, tableWidth: table.getBoundingClientRect().width,
          window: window.innerWidth,
          cellWidths: cells.map((c) => c.getBoundingClientRect().width),
          label: getComputedStyle(cells[0], '::before').content};
}"""


@pytest.mark.parametrize("width", [PHONE["width"], DESKTOP["width"]])
@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_error_table_is_cards(browser, base_url, layout, language: str, width: int) -> None:
    """On a phone and on a desktop each row of the how-to's error table is a card whose fields
    use its width (four columns broke identifiers mid-word even at 1366 px)."""
    if language not in layout.languages:
        pytest.skip(f"no {language} folder")
    ctx = browser.new_context(viewport={"width": width, "height": 900}, service_workers="block")
    page = ctx.new_page()
    page.goto(base_url + f"{language}/howto/common-errors.html", wait_until="load")
    table = page.evaluate(ERROR_TABLE_JS)
    ctx.close()
    assert table["rows"] >= 7, table
    assert table["tableWidth"] <= table["window"], table
    # every field spans the card (stacked), instead of a quarter of it (four columns)
    assert min(table["cellWidths"]) > 0.7 * table["tableWidth"], table
    expected = "症状" if language.startswith("zh") else "Symptom"
    assert expected in table["label"], table


# Each line break inside inline code of a table cell, at 390 px: the character before it
# (where it is not "_", "=", ".", "," or a space, an identifier was cut in two)
CODE_BREAKS_JS = """() => {
  const cuts = [];
  for (const code of document.querySelectorAll('main td code, main th code')) {
    if (code.closest('table.mha-stack thead')) continue;  // hidden: the cards carry its names
    const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    let top = null, before = '';
    while (walker.nextNode()) {
      const node = walker.currentNode;
      for (let i = 0; i < node.length; i++) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const box = range.getClientRects()[0];
        if (/\\s/.test(node.data[i])) { before = ' '; continue; }
        if (!box) continue;
        if (top !== null && box.top > top + 2 && !/[_=.,\\s]/.test(before))
          cuts.push(code.textContent.slice(0, 50) + ' | cut after ' + JSON.stringify(before));
        top = box.top;
        before = node.data[i];
      }
    }
  }
  // a table written in Markdown is a stack of cards that fits the column, each field under its
  // column's name; none of it hides past the right edge
  for (const table of document.querySelectorAll('main table.table')) {
    if (table.matches('.autosummary, .bench-table')) continue;
    const name = (table.innerText || '').trim().slice(0, 40);
    const room = table.parentElement.clientWidth;
    if (table.getBoundingClientRect().width > room + 1) cuts.push(`table ${name} | wider than ${room}`);
    for (const cell of table.querySelectorAll('tbody td')) {
      const label = getComputedStyle(cell, '::before').content;
      if (['none', 'normal', '""'].includes(label) || cell.getBoundingClientRect().width < 0.7 * room)
        cuts.push(`table ${name} | a field without its column's name, or not a card: ${label}`);
    }
  }
  return cuts;
}"""


def test_tables_read_well_on_a_phone(phone, base_url, layout) -> None:
    """On a phone, code in a table wraps after "_", "=", "." or ",", never inside a word
    ("average_attn_w" / "eights"), and a Markdown table is a stack of labelled cards."""
    pages = [
        p
        for language in layout.languages
        for p in _language_pages(layout, language)
        if "<table" in p.read_text(encoding="utf-8")
    ]
    assert pages, "no page has a table"
    cuts = []
    for page in pages:
        phone.goto(base_url + _rel(layout, page), wait_until="load")
        cuts += [f"{_rel(layout, page)}: {cut}" for cut in phone.evaluate(CODE_BREAKS_JS)]
    assert not cuts, "\n".join(cuts[:20])


PHONE_SCREENSHOTS = {
    "phone-home": "en/index.html",
    "phone-common-errors": "en/howto/common-errors.html",
    "phone-why-scale": "en/explanation/why-scale.html",
    "phone-performance": "en/explanation/performance.html",
    "phone-head-heatmaps": "en/auto_examples/05_pictures/plot_01_head_heatmaps.html",
    "phone-zh_CN-home": "zh_CN/index.html",
    "phone-zh_CN-common-errors": "zh_CN/howto/common-errors.html",
}


def test_phone_screenshots(phone, base_url, layout, screenshot_dir: Path) -> None:
    """What a 390 px phone shows (top of each page, up to 3000 px), for review."""
    for name, rel in PHONE_SCREENSHOTS.items():
        if not (layout.root / rel).is_file():
            continue
        phone.goto(base_url + rel, wait_until="load")
        phone.evaluate(
            "() => (window.MathJax && MathJax.startup && MathJax.startup.promise) || null"
        )
        height = min(3000, phone.evaluate("() => document.documentElement.scrollHeight"))
        path = screenshot_dir / f"{name}.png"
        phone.screenshot(
            path=str(path), full_page=True, clip={"x": 0, "y": 0, "width": 390, "height": height}
        )
        assert path.stat().st_size > 5_000


# ---------------------------------------------------------------------------------------------
# Figures: shown at (nearly) the size they were drawn for, so 10 pt text stays 10 pt

FIGURES_JS = """() => [...document.querySelectorAll('main img')]
  .filter((img) => img.naturalWidth > 200 && !img.closest('.sphx-glr-thumbcontainer, .card'))
  .map((img) => ({src: img.currentSrc.split('/').pop(), natural: img.naturalWidth,
                  shown: img.getBoundingClientRect().width, alt: img.alt}))"""


# a figure: a gallery image (not a thumbnail) or a benchmark chart; not the logo
FIGURE_SRC = re.compile(r'src="[^"]*(?:_images/sphx_glr_\w+_\d{3}\.png|_static/bench/\w+\.png)"')


def _figure_pages(layout) -> list[Path]:
    pages = []
    for page in _language_pages(layout, "en"):
        html = page.read_text(encoding="utf-8")
        if FIGURE_SRC.search(html):
            pages.append(page)
    return pages


# the smallest share of its natural (1x) width at which a figure is shown: on a desktop the
# figure drawn for the 7 in column; on a phone its phone version (docs/_ext/phone_figures.py),
# so that 10 pt text is shown at 11 px or more on both
SHOWN_AT_LEAST = {"desktop": 0.9, "phone": 0.8}


@pytest.mark.parametrize("screen", ["desktop", "phone"])
def test_figures_are_shown_at_their_drawn_size(browser, base_url, layout, screen: str) -> None:
    """At a 1366 px window every figure is shown at >= 90 % of its natural (1x) width; on a
    390 px phone at >= 80 % (the phone version of a figure drawn wider than a phone)."""
    viewport = DESKTOP if screen == "desktop" else PHONE
    ctx = browser.new_context(viewport=viewport, device_scale_factor=1, service_workers="block")
    page = ctx.new_page()
    small, measured = [], []
    try:
        for path in _figure_pages(layout):
            rel = _rel(layout, path)
            page.goto(base_url + rel, wait_until="load")
            for figure in page.evaluate(FIGURES_JS):
                measured.append(figure)
                if figure["shown"] < SHOWN_AT_LEAST[screen] * figure["natural"]:
                    small.append(f"{rel}: {figure}")
    finally:
        ctx.close()
    assert len(measured) >= 20, f"only {len(measured)} figures found"
    if screen == "phone":  # the phone versions were served, not only narrow figures
        phone = [f for f in measured if "_phone" in f["src"]]
        assert len(phone) >= 15, [f["src"] for f in measured]
    assert not small, "figures scaled down (their text below 10 pt):\n" + "\n".join(small)


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


@pytest.mark.parametrize("query", list(SEARCHES))
def test_chinese_search(shared, layout, query: str) -> None:
    """Typed as a reader types it, each glossary term finds several pages, the main one among them."""
    if "zh_CN" not in layout.languages:
        pytest.skip("no zh_CN folder")
    shared.goto(f"zh_CN/search.html?q={query}")
    shared.page.wait_for_function(
        "() => ((document.querySelector('#search-results p.search-summary') || {}).innerText"
        " || '').length > 0"
    )
    links = shared.page.eval_on_selector_all(
        "#search-results ul.search li a", "links => links.map((a) => a.href)"
    )
    sys.stdout.write(f"search {query}: {len(links)} results\n")
    assert len(links) >= 3, f"{query}: {links}"
    assert any(link.split("?")[0].split("#")[0].endswith(SEARCHES[query]) for link in links), (
        f"{query}: {SEARCHES[query]} not among {links}"
    )


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
    "<th>ratio</th>",
    "Start the lesson",
    "Search the docs",
    "© Copyright",
]


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
        # the API reference's own index page is English (generated from the docstrings)
        own = {">API reference<"} if rel.endswith("reference/index.html") else set()
        leaks += [f"{rel}: {s}" for s in UI_ENGLISH if s in html and s not in own]
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


def test_home_page_is_a_landing_page(shared, layout) -> None:
    """Install line, an executed quick start with its shapes, a picture, a start button, a repo link."""
    shared.goto(layout.main_prefix + "index.html")
    page = shared.page
    assert "pip install" in page.inner_text("main")
    output = page.inner_text("main .cell_output")
    assert "torch.Size([2, 5, 64])" in output and "torch.Size([2, 8, 5, 5])" in output, output
    assert page.locator("main img[alt*='shape']").count() >= 1
    start = page.locator("main a.mha-start")
    assert start.count() == 1 and start.first.get_attribute("href").startswith("tutorial/")
    assert page.locator("a.nav-link[href^='https://github.com/']").count() >= 1
    # cards fill their rows: no hole in the last row at three columns
    cards = page.locator("main .sd-card").count()
    assert cards % 3 == 0, f"{cards} cards leave a hole in a grid of three"
    assert "nox -s" not in page.inner_text("main"), "contributor commands belong on Contributing"
    assert not shared.problems, "\n".join(shared.problems)


# ---------------------------------------------------------------------------------------------
# Accessibility: axe-core on every page of both languages

SERIOUS = {"serious", "critical"}
AXE_OPTIONS = {
    "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
    "resultTypes": ["violations"],
}


@pytest.mark.parametrize("shard", range(SHARDS))
def test_accessibility(browser, base_url, layout, shard: int) -> None:
    """No serious or critical WCAG 2 A/AA violation on any page, English and Chinese.

    axe requests a stylesheet's ``@import`` relative to the page (a 404 that the site does not
    cause), so this check has its own page and does not count requests.
    """
    axe_module = pytest.importorskip("axe_playwright_python.sync_playwright")
    axe = axe_module.Axe()
    ctx = browser.new_context(viewport=DESKTOP, service_workers="block")
    ctx.route(lambda url: not url.startswith(base_url), lambda route: route.abort())
    page = ctx.new_page()
    found, checked = [], 0
    try:
        for path in _shard(layout, shard):
            page.goto(base_url + _rel(layout, path), wait_until="load")
            results = axe.run(page, options=AXE_OPTIONS)
            checked += 1
            for violation in results.response["violations"]:
                if violation.get("impact") in SERIOUS:
                    targets = [n["target"] for n in violation["nodes"][:3]]
                    found.append(
                        f"{_rel(layout, path)}: {violation['id']} ({violation['impact']}, "
                        f"{len(violation['nodes'])} nodes) {targets}"
                    )
    finally:
        ctx.close()
    sys.stdout.write(f"axe: {checked} pages, {len(found)} serious or critical violations\n")
    assert checked > 0
    assert not found, "\n".join(found[:40]) + f"\n({len(found)} in all)"


def test_api_pages_fit_the_window(browser, base_url, layout) -> None:
    """At 1366 px the API pages, their "On this page" list included, fit the window."""
    ctx = browser.new_context(viewport=DESKTOP, service_workers="block")
    page = ctx.new_page()
    wide = []
    try:
        pages = sorted((layout.main / "reference").rglob("*.html"))
        assert pages, "no API page"
        for path in pages:
            page.goto(base_url + _rel(layout, path), wait_until="load")
            sizes = page.evaluate(
                """() => ({scroll: document.documentElement.scrollWidth,
                          width: document.documentElement.clientWidth,
                          toc: Math.max(0, ...[...document.querySelectorAll(
                            '.bd-sidebar-secondary, .bd-sidebar-secondary *')]
                            .map((el) => el.getBoundingClientRect().right))})"""
            )
            if sizes["scroll"] > sizes["width"] + 1 or sizes["toc"] > sizes["width"] + 1:
                wide.append(f"{_rel(layout, path)}: {sizes}")
    finally:
        ctx.close()
    assert not wide, "\n".join(wide)
