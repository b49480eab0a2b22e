"""The checks that the browser sweeps run on each page they open (tests_site/test_pages.py).

Each check takes the open Playwright page (and what it needs of the built files) and returns
what it found wrong: an empty list when the page is right.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

# The windows the checks open: a desktop, a narrower one (the tables must fit there too; the
# browser's default), a phone.
DESKTOP = {"width": 1366, "height": 900}
NARROW_DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}

# ---------------------------------------------------------------------------------------------
# Math

# Text the reader should never see: TeX that was not typeset (delimited, or a bare \\sqrt{d_k}).
RAW_TEX = re.compile(
    r"\$\$|\\\(|\\\)|\\\[|\\\]|\$[^$\n]*(?:\\[a-zA-Z]+|[_^{])[^$\n]*\$|\\[a-zA-Z]+\{"
)
# Visible text of a page, without code, scripts and typeset math.
VISIBLE_TEXT_JS = """() => {
  const root = document.querySelector('main') || document.body;
  const skip = 'pre, code, script, style, .katex, .highlight, textarea';
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const parts = [];
  while (walker.nextNode()) {
    const node = walker.currentNode;
    if (!node.parentElement.closest(skip)) parts.push(node.nodeValue);
  }
  return parts.join('');
}"""


# the math elements; those typeset when the site was built, as the reader sees them (KaTeX's
# HTML, hidden from screen readers) and as a screen reader reads them (MathML, its TeX
# annotated); KaTeX's errors; the visible text: in one call
MATH_JS = (
    """() => {
  const math = [...document.querySelectorAll('.math')];
  const typeset = math.filter((m) => m.querySelector('.katex-html[aria-hidden="true"]')
    && m.querySelector('.katex-mathml math annotation[encoding="application/x-tex"]'));
  const errors = [...document.querySelectorAll('.katex-error')].map((e) => e.title);
  return [math.length, typeset.length, errors, ("""
    + VISIBLE_TEXT_JS
    + """)()];
}"""
)


def math_problems(page) -> list[str]:
    """Math not typeset (as HTML for the eye and MathML for a screen reader), KaTeX's
    errors, or TeX left in the visible text."""
    problems = []
    math, typeset, errors, text = page.evaluate(MATH_JS)
    if typeset < math:
        problems.append(f"{math} math elements but {typeset} typeset as HTML and MathML")
    problems += [f"KaTeX could not typeset: {error}" for error in errors]
    raw = RAW_TEX.findall(text)
    if raw:
        problems.append(f"raw TeX in the text: {raw[:5]}")
    return problems


# ---------------------------------------------------------------------------------------------
# Tables

# Tables that do not fit the text column: the reader must scroll sideways to see the last columns.
WIDE_TABLES_JS = """() => [...document.querySelectorAll('main table')]
  .filter((t) => t.scrollWidth > t.parentElement.clientWidth + 1)
  .map((t) => `table wider than the text column (${t.scrollWidth} px in `
    + `${t.parentElement.clientWidth} px at a ${window.innerWidth} px window), first cell: `
    + JSON.stringify((t.querySelector('th, td') || {}).textContent || '').slice(0, 60))"""

ERROR_TABLE_JS = """() => {
  const table = document.querySelector('#howto-common-errors > .pst-scrollable-table-container > table');
  if (!table) return null;
  const rows = [...table.querySelectorAll('tbody tr')];
  const cells = [...table.querySelectorAll('tbody td')];
  return {rows: rows.length, tableWidth: table.getBoundingClientRect().width,
          window: window.innerWidth,
          cellWidths: cells.map((c) => c.getBoundingClientRect().width),
          label: cells.length ? getComputedStyle(cells[0], '::before').content : ''};
}"""


def error_table_problems(page, language: str) -> list[str]:
    """The how-to's error table is a stack of cards whose fields use the card's width (four
    columns broke identifiers mid-word even at 1366 px), each field under its column's name."""
    table = page.evaluate(ERROR_TABLE_JS)
    if table is None:
        return ["no error table (#howto-common-errors > ... > table)"]
    problems = []
    if table["rows"] != 8:  # the page's "Eight mistakes"
        problems.append(f"error table: {table['rows']} rows, expected 8")
    if table["tableWidth"] > table["window"]:
        problems.append(f"error table wider than the window: {table}")
    if min(table["cellWidths"], default=0) <= 0.7 * table["tableWidth"]:
        problems.append(f"error table: a field narrower than 70 % of its card: {table}")
    expected = "现象或报错" if language.startswith("zh") else "Symptom"  # the lesson's heading
    if expected not in table["label"]:
        problems.append(f"error table: fields not labelled {expected!r}: {table['label']}")
    return problems


# Each line break inside inline code of a table cell, at 390 px: the character before it
# (where it is not "_", "=", ".", "," or a space, an identifier was cut in two)
CODE_BREAKS_JS = """() => {
  const cuts = [];
  for (const code of document.querySelectorAll('main td code, main th code')) {
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
  // a table wider than the column scrolls inside the theme's own box, never past the page's edge
  for (const table of document.querySelectorAll('main table')) {
    const box = table.parentElement;
    const name = (table.innerText || '').trim().slice(0, 40);
    if (table.getBoundingClientRect().width > box.clientWidth + 1
        && !['auto', 'scroll'].includes(getComputedStyle(box).overflowX))
      cuts.push(`table ${name} | wider than ${box.clientWidth} px and its box does not scroll`);
  }
  return cuts;
}"""

# ---------------------------------------------------------------------------------------------
# Width: nothing wider than the window

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

# an API page: the window's width, the page's, the right edge of its "On this page" list, and
# what of the article ends past the article's edge outside a box of its own that scrolls (the
# article's box scrolls: a signature wider than it would never widen the page)
API_WIDTH_JS = """() => {
  const article = document.querySelector('article');
  const edge = article.getBoundingClientRect().right;
  const scrolls = (el) => {
    for (let p = el.parentElement; p && p !== article; p = p.parentElement)
      if (['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(p).overflowX)) return true;
    return false;
  };
  return {scroll: document.documentElement.scrollWidth,
    width: document.documentElement.clientWidth,
    toc: Math.max(0, ...[...document.querySelectorAll(
      '.bd-sidebar-secondary, .bd-sidebar-secondary *')]
      .map((el) => el.getBoundingClientRect().right)),
    past: [...article.querySelectorAll('*')]
      .filter((el) => el.getBoundingClientRect().right > edge + 1 && !scrolls(el))
      .slice(0, 3).map((el) => el.tagName + ': ' + (el.textContent || '').trim().slice(0, 50))};
}"""

# ---------------------------------------------------------------------------------------------
# Figures: shown at (nearly) the size they were drawn for, so 10 pt text stays 10 pt

FIGURES_JS = """() => [...document.querySelectorAll('main img')]
  .filter((img) => img.naturalWidth > 200 && !img.closest('.sphx-glr-thumbcontainer, .card'))
  .map((img) => ({src: img.currentSrc.split('/').pop(), natural: img.naturalWidth,
                  shown: img.getBoundingClientRect().width, alt: img.alt,
                  stretch: (img.getBoundingClientRect().height / img.getBoundingClientRect().width)
                    / (img.naturalHeight / img.naturalWidth),
                  phoneSource: !!(img.parentElement.matches('picture')
                    && img.parentElement.querySelector('source'))}))"""

# a figure: a gallery image (not a thumbnail) or a benchmark chart; not the logo
FIGURE_SRC = re.compile(
    r'src="[^"]*(?:_images/sphx_glr_\w+_\d{3}\.png|_static/bench/\w+(?:\.zh_CN)?\.png)"'
)

# the smallest share of its natural (1x) width at which a figure is shown: on a desktop the
# figure drawn for the 7 in column; on a phone its phone version (docs/_ext/site_figures.py),
# so that 10 pt text is shown at 11 px or more on both
SHOWN_AT_LEAST = {"desktop": 0.9, "phone": 0.8}
SHOWN_AT_MOST = 1.02  # and never enlarged past what was drawn


def figure_size_problems(page, html: str, screen: str) -> list[str]:
    """Every figure of the page is shown at its drawn size (its phone version on a phone)."""
    expected = len(FIGURE_SRC.findall(html))
    figures = page.evaluate(FIGURES_JS)
    problems = []
    if len(figures) < expected:
        problems.append(f"{expected} figures in the HTML, {len(figures)} shown: {figures}")
    for figure in figures:
        if figure["shown"] < SHOWN_AT_LEAST[screen] * figure["natural"]:
            problems.append(f"figure scaled down (its text below 10 pt): {figure}")
        if figure["shown"] > SHOWN_AT_MOST * figure["natural"]:
            problems.append(
                f"figure shown larger than drawn (blurred, its text too large): {figure}"
            )
        if abs(figure["stretch"] - 1) > 0.02:  # squeezed or stretched: its words distorted
            problems.append(f"figure out of its proportions: {figure}")
        if screen == "phone" and figure["phoneSource"] and "_phone" not in figure["src"]:
            problems.append(f"a phone version exists but the desktop figure is shown: {figure}")
    return problems


FIGURE_STYLE_JS = """(img) => {
  const s = getComputedStyle(img);
  const box = img.getBoundingClientRect();
  return {width: box.width, height: box.height, natural: img.naturalWidth,
          opacity: s.opacity, visibility: s.visibility, display: s.display,
          filter: s.filter, background: s.backgroundColor};
}"""
GALLERY_FIGURES = "img.sphx-glr-single-img, img.sphx-glr-multi-img"


# The highlighted code as shown: each kind of text in it (a token's class, in its kind of block)
# against the background it sits on, 4.5:1. axe skips the code (SKIP_CODE) and
# tests/test_code_contrast.py proves Pygments' colours; this sees what any served stylesheet
# (sphinx-gallery's, the theme's, the site's own) makes of them.
CODE_SHOWN_JS = """() => {
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map((v) => v / 255)
    .map((v) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4))
    .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const ground = (el) => {
    for (let at = el; at; at = at.parentElement) {
      const c = rgb(getComputedStyle(at).backgroundColor);
      if (c.length === 3 || c[3] > 0.9) return c;
    }
    return [255, 255, 255];
  };
  const seen = new Set(), low = [];
  for (const el of document.querySelectorAll('#main-content .highlight pre, #main-content .highlight pre *')) {
    if (![...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
    const block = el.closest('.highlight').parentElement.className;
    const key = el.tagName + '.' + el.className + ' in ' + block;
    if (seen.has(key)) continue;
    seen.add(key);
    const [a, b] = [lum(rgb(getComputedStyle(el).color)), lum(ground(el))].sort((x, y) => y - x);
    const ratio = (a + 0.05) / (b + 0.05);
    if (ratio < 4.5) low.push(key + ': ' + getComputedStyle(el).color + ' on ' + ground(el) + ', '
      + ratio.toFixed(2) + ':1, "' + el.textContent.trim().slice(0, 30) + '"');
  }
  return {kinds: seen.size, low};
}"""


def code_contrast_problems(page) -> list[str]:
    """Every kind of text in the page's highlighted code at 4.5:1 on its background."""
    found = page.evaluate(CODE_SHOWN_JS)
    return [f"code text below 4.5:1: {low}" for low in found["low"]]


def _rgb(color: str) -> tuple[float, ...]:
    values = [float(v) for v in re.findall(r"[\d.]+", color)]
    alpha = values[3] if len(values) > 3 else 1.0
    return (*values[:3], alpha)


def figure_visibility_problems(page, theme: str) -> list[str]:
    """The gallery figures load and show, neither inverted nor faded; in dark mode each sits on
    a light background (the figures are drawn on white)."""
    images = page.locator(GALLERY_FIGURES)
    if images.count() == 0:
        return ["no gallery figure on the page"]
    problems = []
    for i in range(images.count()):
        images.nth(i).scroll_into_view_if_needed()
        style = images.nth(i).evaluate(FIGURE_STYLE_JS)
        if style["natural"] == 0:
            problems.append(f"figure {i} did not load")
        if style["width"] <= 50 or style["height"] <= 50:
            problems.append(f"figure {i} shown too small: {style}")
        if style["visibility"] != "visible" or style["display"] == "none":
            problems.append(f"figure {i} hidden: {style}")
        if float(style["opacity"]) <= 0.9 or any(
            f in style["filter"] for f in ("invert", "opacity")
        ):
            problems.append(f"figure {i} faded or inverted: {style}")
        if theme == "dark":
            red, green, blue, alpha = _rgb(style["background"])
            if alpha <= 0.9 or min(red, green, blue) <= 200:
                problems.append(
                    f"figure {i}: in dark mode a figure needs a light background, {style}"
                )
    return problems


def gallery_figure_page(layout) -> str:
    """The gallery page whose figures the visibility and screenshot checks look at."""
    pages = sorted(layout.main.glob("auto_examples/**/plot_*.html"))
    with_figures = [p for p in pages if "sphx-glr-single-img" in p.read_text(encoding="utf-8")]
    assert with_figures, "no gallery page has a figure"
    preferred = [p for p in with_figures if "05_pictures" in p.as_posix()]
    return (preferred or with_figures)[0].relative_to(layout.root).as_posix()


# ---------------------------------------------------------------------------------------------
# The landing page


def landing_page_problems(page) -> list[str]:
    """Install line, an executed quick start with its shapes, the shape picture, a start button,
    a repo link, a card for each part of the site the header names (in full rows of three),
    and no contributor commands."""
    problems = []
    text = page.inner_text("main")
    if "pip install" not in text:
        problems.append("no install line")
    output = page.inner_text("main .cell_output")
    if "torch.Size([2, 5, 64])" not in output or "torch.Size([2, 8, 5, 5])" not in output:
        problems.append(f"the quick start's output lacks its shapes: {output!r}")
    shape = page.locator("main img[src*='sphx_glr_plot_02_shape_flow_001']")
    if shape.count() < 1 or not shape.first.evaluate("(img) => img.naturalWidth > 0"):
        problems.append("no shape picture (the shape flow's figure, loaded)")
    start = page.locator("main a.mha-start")
    if start.count() != 1 or not (start.first.get_attribute("href") or "").startswith("tutorial/"):
        problems.append("no single start button into the tutorial")
    if page.locator("a.nav-link[href^='https://github.com/']").count() < 1:
        problems.append("no repository link")
    # a card for each part of the site the header names (Tutorial, Gallery, ...), in full rows
    parts = page.eval_on_selector_all(
        "header .navbar-nav a.nav-link", "links => links.map((a) => a.pathname.split('/')[2])"
    )
    carded = page.eval_on_selector_all(
        "main .sd-card a", "links => links.map((a) => a.pathname.split('/')[2])"
    )
    cards = page.locator("main .sd-card").count()
    described = page.eval_on_selector_all(
        "main .sd-card",
        """cards => cards.map((c) => [(c.querySelector('.sd-card-title') || {}).innerText || '',
          [...c.querySelectorAll('.sd-card-text')].map((p) => p.innerText).join(' ').trim()])""",
    )
    bare = [title for title, description in described if len(description) < 8]
    if bare:
        problems.append(f"cards without their description: {bare}")
    if len(parts) < 5 or set(parts) - set(carded):
        problems.append(f"no card for the parts {sorted(set(parts) - set(carded))} of {parts}")
    if cards < 3 or cards % 3:
        problems.append(f"{cards} cards: expected full rows of three")
    if "nox -s" in text:
        problems.append("contributor commands belong on Contributing")
    return problems


# ---------------------------------------------------------------------------------------------
# Accessibility

# Two rule sets, as pydata-sphinx-theme's tests split them. STRUCTURE runs on every page: the
# rules named below (names, roles, headings, ids, alt text, language, lists, labels, landmarks),
# listed by name: axe's WCAG and best-practice tags hold about 90 rules, and running them all
# took three times as long on every page. FULL adds the colour rules (color-contrast,
# link-in-text-block): they take most of axe's time, so they run on a sample of pages, one of
# each kind, in both themes and both languages, on the page's content (ARTICLE), on the sample
# pages' own visits in test_pages.py and, for the pages a reader acts on first, in
# test_accessibility.py. The home page gets EVERYTHING, every WCAG and best-practice rule on the
# whole page ("region" and the other landmark rules of the template included), in the light
# theme. The colour rules skip the highlighted code (SKIP_CODE), half of their time on a page of
# code: the highlighting's colours are proven for every token in tests/test_code_contrast.py.
WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
STRUCTURAL_RULES = [
    # names: every control, link, image map, frame and the document has one a reader hears
    "button-name", "link-name", "input-button-name", "select-name", "label", "summary-name",
    "frame-title", "document-title", "aria-command-name", "aria-input-field-name",
    "aria-toggle-field-name", "aria-tooltip-name", "aria-progressbar-name", "aria-meter-name",
    "aria-dialog-name", "aria-treeitem-name",
    # roles and ARIA attributes
    "aria-allowed-attr", "aria-allowed-role", "aria-conditional-attr", "aria-deprecated-role",
    "aria-hidden-body", "aria-hidden-focus", "aria-prohibited-attr", "aria-required-attr",
    "aria-required-children", "aria-required-parent", "aria-roles", "aria-valid-attr",
    "aria-valid-attr-value", "aria-text", "nested-interactive", "presentation-role-conflict",
    # headings
    "heading-order", "empty-heading", "page-has-heading-one", "p-as-heading",
    # ids
    "duplicate-id-aria",
    # alt text
    "image-alt", "role-img-alt", "svg-img-alt", "input-image-alt", "area-alt", "object-alt",
    "image-redundant-alt",
    # language
    "html-has-lang", "html-lang-valid", "valid-lang", "html-xml-lang-mismatch",
    # lists, landmarks, keyboard
    "list", "listitem", "definition-list", "dlitem", "landmark-one-main", "landmark-unique",
    "landmark-no-duplicate-main", "landmark-main-is-top-level", "landmark-banner-is-top-level",
    "landmark-contentinfo-is-top-level", "landmark-complementary-is-top-level",
    "landmark-no-duplicate-banner", "landmark-no-duplicate-contentinfo",
    "scrollable-region-focusable",
]  # fmt: skip
STRUCTURE = {"runOnly": {"type": "rule", "values": STRUCTURAL_RULES}, "resultTypes": ["violations"]}
FULL = {"runOnly": {"type": "tag", "values": WCAG}, "resultTypes": ["violations"]}
# FULL less the structural rules, for a page whose structure has been checked already (the
# sample's visits, the dark runs): the colour rules and the other WCAG rules, 1.1 s instead of
# 1.7 s on the tutorial's summary page. The theme changes colours, not the page's structure.
BEYOND_STRUCTURE = {**FULL, "rules": {rule: {"enabled": False} for rule in STRUCTURAL_RULES}}
EVERYTHING = {"runOnly": {"type": "tag", "values": [*WCAG, "best-practice"]},
              "resultTypes": ["violations"]}  # fmt: skip
SKIP_CODE = [[".highlight"]]  # axe's "exclude": the highlighted code (see above)
ARTICLE = {"include": [["#main-content"]], "exclude": SKIP_CODE}  # the page's content, no code
# The structural rules take the whole page but its highlighted code: Pygments' spans carry no
# name, role, heading or id, and they are up to nine in ten of a page's elements (the structural
# run took 2.2 s instead of 0.6 s on the explorer's page). What the rules would check of the code
# itself, a block that scrolls taking the keyboard, SCROLLING_CODE_JS checks on every page (code and
# display math: CODE_AND_MATH).
PAGE = {"exclude": SKIP_CODE}
SCROLLING_CODE_JS = """(boxes) => [...document.querySelectorAll(boxes)]
  .filter((box) => box.scrollWidth > box.clientWidth + 1 && box.tabIndex < 0)
  .map((box) => 'code or math that scrolls sideways cannot be reached with the keyboard (no '
    + 'tabindex): ' + JSON.stringify(box.textContent.slice(0, 60)))"""
CODE_AND_MATH = ".highlight pre, .katex-display"
QUESTIONS_SAMPLE = "tutorial/01_one_head_to_many.html"  # questions opened, all of axe's rules
# What fails: every violation of a best practice (heading order, landmarks, ...: axe calls
# most of them moderate), and serious or critical violations of the WCAG rules.
SERIOUS = {"serious", "critical"}


def axe_script() -> Path:
    """axe-core itself (the copy that axe-playwright-python ships), for ``add_init_script``:
    sent to the browser once per context, not once per check (its 550 kB took a tenth of a
    second of every page's visit)."""
    import axe_playwright_python

    return Path(axe_playwright_python.__file__).parent / "axe.min.js"


# axe's violations, only what a failure message needs (its whole result is ~100 kB per run)
RUN_AXE_JS = """async ([context, options]) => {
  const results = await axe.run(context || document, options);
  return results.violations.map((v) => ({id: v.id, impact: v.impact, tags: v.tags,
    count: v.nodes.length, targets: v.nodes.slice(0, 3).map((n) => n.target)}));
}"""


def axe_problems(page, context: str | dict | None = None, options: dict = STRUCTURE) -> list[str]:
    """axe-core's violations in the elements that ``context`` picks (a CSS selector or axe's
    ``{"include": ..., "exclude": ...}``; the whole page by default) under the rule set
    ``options`` (STRUCTURE, FULL or EVERYTHING). The page's context loads axe on every page
    (conftest.new_context); a page opened elsewhere gets it here."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(axe_script()))
    problems = []
    for violation in page.evaluate(RUN_AXE_JS, [context, options]):
        if violation["impact"] in SERIOUS or "best-practice" in violation["tags"]:
            problems.append(
                f"axe: {violation['id']} ({violation['impact']}, "
                f"{violation['count']} nodes) {violation['targets']}"
            )
    return problems


# the search page has shown its results (or that it found none)
SEARCH_DONE_JS = (
    "() => ((document.querySelector('#search-results p.search-summary') || {}).innerText"
    " || '').length > 0"
)


def set_theme(page, theme: str) -> None:
    """Switch the open page to ``theme`` in place, as the theme's switch does (its mode, its
    theme and the reader's stored choice), without loading the page again; return when the
    colours' transitions have ended (axe would read a colour halfway)."""
    page.evaluate(
        """async (theme) => { const root = document.documentElement;
          root.dataset.mode = theme; root.dataset.theme = theme;
          localStorage.setItem('mode', theme); localStorage.setItem('theme', theme);
          await new Promise(requestAnimationFrame);
          await Promise.all(document.getAnimations().map((a) => a.finished)); }""",
        theme,
    )


# ---------------------------------------------------------------------------------------------
# Questions that answer back (docs/_ext/questions.py)

# A question's verdicts (docs/_ext/questions.py) in each language: the entries under their
# comment in the interface catalog, English its msgids.
VERDICTS_PO = Path(__file__).parents[1] / "docs/locale/zh_CN/LC_MESSAGES/sphinx.po"
_VERDICTS = re.findall(
    r'msgid "(.*)"\nmsgstr "(.*)"',
    VERDICTS_PO.read_text(encoding="utf-8").split("# The verdicts of the questions", 1)[1],
)[:2]
VERDICTS = {"en": tuple(e for e, _ in _VERDICTS), "zh_CN": tuple(z for _, z in _VERDICTS)}
# each choice of a question opened in turn (in one call): what of it ends past the article's
# right edge, outside a box of its own that scrolls (the article's box scrolls too, so the
# page's width would never show it; a box that hides its overflow cuts it off)
OPEN_EACH_JS = """(question) => {
  const article = question.closest('article') || document.querySelector('main');
  const edge = article.getBoundingClientRect().right;
  const scrolls = (el) => {  // a box that scrolls shows all; one that hides cuts it off
    for (let p = el.parentElement; p && p !== question; p = p.parentElement)
      if (['auto', 'scroll'].includes(getComputedStyle(p).overflowX)) return true;
    return false;
  };
  return [...question.querySelectorAll('summary')].flatMap((summary) => {
    summary.parentElement.open = true;
    const wide = [...summary.parentElement.querySelectorAll('*')]
      .filter((el) => el.getBoundingClientRect().right > edge + 1 && !scrolls(el));
    return wide.map((el) => `${summary.innerText.trim()}: <${el.tagName.toLowerCase()}> ends at `
      + `${Math.round(el.getBoundingClientRect().right)} px, past the article's ${Math.round(edge)}`);
  });
}"""


def question_problems(page, language: str) -> list[str]:
    """Each question as a reader meets it on a phone: nothing of an answer shows before a choice
    is opened; a wrong choice, opened with a tap, says it is wrong and why (its own explanation,
    in the page's language); the right one, opened with the keyboard alone, says it is right and
    closes the other; with any explanation open nothing is wider than the screen. The right
    choices are left open, for axe."""
    right_word, wrong_word = VERDICTS[language]
    questions = page.locator(".mha-question").all()
    if not questions:
        return ["no questions, expected one or more at the end of the page"]
    problems = []
    for number, question in enumerate(questions):
        said = f"question {number}"
        if question.locator("details.mha-choice").count() < 2:
            problems.append(f"{said}: fewer than two choices")
        if any(a.is_visible() for a in question.locator(".mha-answer").all()):
            problems.append(f"{said}: an answer shows unasked")
        wrong = question.locator("details.mha-wrong").first
        right = question.locator("details.mha-right")
        if right.count() != 1 or wrong.count() != 1:
            problems.append(f"{said}: expected one right choice and a wrong one")
            continue
        wrong.locator("summary").click()  # the mouse (a tap), on a wrong choice
        answer = wrong.locator(".mha-answer")
        verdict = answer.locator(".mha-verdict").inner_text().strip()
        why = answer.inner_text().replace(verdict, "", 1).strip()
        if not answer.is_visible() or verdict != wrong_word:
            problems.append(f"{said}: a wrong choice opened shows {verdict!r}")
        if len(why) < 10 or (language == "zh_CN" and not CJK.search(why)):
            problems.append(f"{said}: a wrong choice without its explanation: {why!r}")
        right.locator("summary").focus()  # the keyboard alone, on the right choice
        page.keyboard.press("Enter")
        if right.locator(".mha-verdict").inner_text().strip() != right_word:
            problems.append(f"{said}: the right choice does not say {right_word!r}")
        if answer.is_visible():
            problems.append(f"{said}: opening a choice should close the others")
        problems += question.evaluate(OPEN_EACH_JS)  # every explanation, in turn
        right.evaluate("d => { d.open = true; }")  # left open for axe
    return problems


def sample_pages(layout) -> dict[str, str]:
    """The sample's pages that need no action of the reader: kind -> page in a language's
    folder (test_accessibility.py adds search results, the explorer in use, questions opened)."""
    return {
        "home": "index.html",
        "tutorial": "tutorial/06_summary.html",
        "gallery example": gallery_figure_page(layout).removeprefix(layout.main_prefix),
        "how-to": "howto/common-errors.html",
        "explanation": "explanation/why-scale.html",
        "API page": "reference/generated/mha.split_heads.html",
    }


# ---------------------------------------------------------------------------------------------
# Screenshots for review (what a reader sees: the top of each page)


def screenshot_pages(layout) -> dict[str, str]:
    """Desktop screenshots: name -> page, in light mode here and in dark mode in test_browser."""
    pages = {
        "home": layout.main_prefix + "index.html",
        "gallery": gallery_figure_page(layout),
    }
    if (layout.main / "howto" / "common-errors.html").is_file():
        pages["common-errors"] = layout.main_prefix + "howto/common-errors.html"
    if "zh_CN" in layout.languages:  # the Chinese edition: the home page and a lesson page
        pages["zh_CN-home"] = "zh_CN/index.html"
        pages["zh_CN-summary"] = "zh_CN/tutorial/06_summary.html"
    return pages


def desktop_screenshot(page, directory: Path, name: str, theme: str) -> list[str]:
    """Save the top of the page (up to 2400 px); on the gallery page also its first figure."""
    width = page.viewport_size["width"]
    height = min(2400, page.evaluate("() => document.documentElement.scrollHeight"))
    path = directory / f"{name}-{theme}.png"
    page.screenshot(
        path=str(path), full_page=True, clip={"x": 0, "y": 0, "width": width, "height": height}
    )
    problems = [] if path.stat().st_size > 10_000 else [f"{path} looks empty"]
    if name == "gallery":  # the first figure, with the text around it
        box = page.locator(GALLERY_FIGURES).first.evaluate(
            "(img) => { const r = img.getBoundingClientRect();"
            " return {y: r.top + window.scrollY, height: r.height}; }"
        )
        page.screenshot(
            path=str(directory / f"gallery-figure-{theme}.png"),
            full_page=True,
            clip={
                "x": 0,
                "y": max(0, box["y"] - 200),
                "width": width,
                "height": min(2400, box["height"] + 400),
            },
        )
    return problems


PHONE_SCREENSHOTS = {
    "en/index.html": "phone-home",
    "en/howto/common-errors.html": "phone-common-errors",
    "en/explanation/why-scale.html": "phone-why-scale",
    "en/explanation/performance.html": "phone-performance",
    "en/auto_examples/05_pictures/plot_01_head_heatmaps.html": "phone-head-heatmaps",
    "zh_CN/index.html": "phone-zh_CN-home",
    "zh_CN/howto/common-errors.html": "phone-zh_CN-common-errors",
}


# the command a download page prints (docs/_ext/package.py's {install} role); nox -s downloads
# reads it with install_line
INSTALL_LINE = re.compile(r'<code class="mha-install[^"]*">(?P<code>.*?)</code>', re.DOTALL)
WHEEL_LINK = re.compile(r'<a [^>]*href="(?P<href>[^"]+\.whl)"')


def install_line(html: str) -> tuple[str, str] | None:
    """The install command a page prints, as its text, and the address of the wheel it links;
    ``None`` on a page without one."""
    found = INSTALL_LINE.search(html)
    if found is None:
        return None
    command = " ".join(re.sub(r"<[^>]+>", "", found["code"]).split())
    link = WHEEL_LINK.search(found["code"])
    return command, link["href"] if link else ""


def element_end(markup: str, start: int, tag: str) -> int:
    """Where the ``tag`` element that opens at ``start`` ends (after its closing ``>``), the
    elements of the same name inside it counted."""
    depth = 0
    for found in re.finditer(rf"<(/?){tag}\b", markup[start:]):
        depth += -1 if found[1] else 1
        if depth == 0:
            return markup.index(">", start + found.end()) + 1
    return len(markup)


CJK = re.compile(r"[\u4e00-\u9fff]")  # a Chinese character
# a run of four or more Latin words, as a sentence of English has (names are shorter; shape
# letters such as B, H, L, D are not words)
ENGLISH_RUN = re.compile(r"[A-Za-z][A-Za-z'’-]+(?:[ ,;:]+[A-Za-z][A-Za-z'’-]*){3,}")
# the code a page shows and the output under it, in the page's order (myst-nb's cells,
# sphinx-gallery's blocks)
CODE_OR_OUTPUT = re.compile(
    r'<div class="(?P<kind>cell_input|highlight-Python|cell_output|sphx-glr-script-out)'
    r'[^"]*">(?P<body>.*?</pre>)',
    re.DOTALL,
)
# an executed output block: myst-nb's (a notebook cell's) and sphinx-gallery's (an example's)
OUTPUT = re.compile(
    r'<div class="(?:output (?:stream|text_plain)|sphx-glr-script-out)[^"]*">\s*'
    r'<div class="highlight"><pre>(.*?)</pre>',
    re.DOTALL,
)


def output_blocks(page_html: str) -> list[str]:
    """The text of each executed output a page shows, in order."""
    return [html.unescape(re.sub(r"<[^>]+>", "", block)) for block in OUTPUT.findall(page_html)]
