"""Open the built site in Chromium: every page, math, search, downloads, themes, languages."""

from __future__ import annotations

import io
import json
import re
import zipfile
from html.parser import HTMLParser
from pathlib import Path

import pytest

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.browser

# Text the reader should never see: TeX that MathJax did not typeset.
RAW_TEX = re.compile(r"\$\$|\\\(|\\\)|\\\[|\\\]|\$[^$\n]*\\[a-zA-Z]+[^$\n]*\$")
# Visible text of a page, without code, scripts and typeset math.
VISIBLE_TEXT_JS = """() => {
  const root = document.querySelector('main') || document.body;
  const skip = 'pre, code, script, style, mjx-container, .highlight, textarea';
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const parts = [];
  while (walker.nextNode()) {
    const node = walker.currentNode;
    if (!node.parentElement.closest(skip)) parts.push(node.nodeValue);
  }
  return parts.join('');
}"""


def _math_problems(watch) -> list[str]:
    """Math that MathJax did not typeset, or TeX left in the visible text."""
    problems = []
    math = watch.page.locator(".math").count()
    rendered = watch.page.locator("mjx-container").count()
    if rendered < math:
        problems.append(f"{math} math elements but {rendered} typeset by MathJax")
    raw = RAW_TEX.findall(watch.page.evaluate(VISIBLE_TEXT_JS))
    if raw:
        problems.append(f"raw TeX in the text: {raw[:5]}")
    return problems


# Tables that do not fit the text column: the reader must scroll sideways to see the last columns.
WIDE_TABLES_JS = """() => [...document.querySelectorAll('main table')]
  .filter((t) => t.scrollWidth > t.parentElement.clientWidth + 1)
  .map((t) => `table wider than the text column (${t.scrollWidth} px in `
    + `${t.parentElement.clientWidth} px at a ${window.innerWidth} px window), first cell: `
    + JSON.stringify((t.querySelector('th, td') || {}).textContent || '').slice(0, 60))"""


def test_page_loads_cleanly(shared, page_path: str) -> None:
    """No console error, failed or foreign request, HTTP error, raw TeX or too-wide table."""
    shared.goto(page_path)
    shared.wait_for_math()
    problems = shared.problems + _math_problems(shared) + shared.page.evaluate(WIDE_TABLES_JS)
    assert not problems, f"{page_path}:\n" + "\n".join(problems)


def test_math_is_typeset(shared, layout) -> None:
    """A tutorial page with formulas shows MathJax output (and the sweep checks every page)."""
    pages = sorted((layout.main / "tutorial").glob("*.html"))
    with_math = [p for p in pages if 'class="math' in p.read_text(encoding="utf-8")]
    assert with_math, "no tutorial page has math"
    shared.goto(with_math[0].relative_to(layout.root).as_posix())
    shared.wait_for_math()
    assert shared.page.locator(".math").count() > 0
    assert shared.page.locator("mjx-container").count() >= shared.page.locator(".math").count()
    assert not _math_problems(shared), _math_problems(shared)
    assert not shared.problems, "\n".join(shared.problems)


def _search(shared, prefix: str, query: str) -> list[str]:
    shared.goto(f"{prefix}search.html?q={query}")
    shared.page.wait_for_function(
        "() => /Search finished|did not match/.test("
        "(document.querySelector('#search-results') || {}).textContent || '')"
    )
    assert not shared.problems, "\n".join(shared.problems)
    return shared.page.eval_on_selector_all(
        "#search-results ul.search li a", "links => links.map((a) => a.href)"
    )


def test_search_finds_api_page(shared, layout) -> None:
    links = _search(shared, layout.main_prefix, "split_heads")
    assert any(link.split("#")[0].endswith("mha.split_heads.html") for link in links), links


def test_search_finds_gallery_page(shared, layout) -> None:
    links = _search(shared, layout.main_prefix, "contiguous")
    assert any("/auto_examples/" in link for link in links), links


class _DownloadLinks(HTMLParser):
    """Links inside ``<div class="... sphx-glr-footer ...">`` (or any class given)."""

    def __init__(self, container: str) -> None:
        super().__init__()
        self.container = container
        self.depth = 0  # open <div>s inside the container; 0 when outside
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "div":
            if self.depth:
                self.depth += 1
            elif self.container in (values.get("class") or "").split():
                self.depth = 1
        elif tag == "a" and self.depth and values.get("href"):
            self.links.append(values["href"])

    def handle_endtag(self, tag: str) -> None:
        if tag == "div" and self.depth:
            self.depth -= 1


def _download_links(page: Path, container: str) -> list[str]:
    parser = _DownloadLinks(container)
    parser.feed(page.read_text(encoding="utf-8"))
    return parser.links


def _fetch(context, url: str) -> bytes:
    response = context.request.get(url)
    assert response.status == 200, f"HTTP {response.status}: {url}"
    body = response.body()
    assert body, f"empty download: {url}"
    return body


def _url(base_url: str, page_rel: str, href: str) -> str:
    folder = page_rel.rsplit("/", 1)[0] + "/" if "/" in page_rel else ""
    return base_url + folder + href


def test_gallery_downloads(context, base_url, site_dir: Path, gallery_page: str) -> None:
    """The example's .py and .ipynb download and are what they claim to be."""
    links = _download_links(site_dir / gallery_page, "sphx-glr-footer")
    by_ext = {href.rsplit(".", 1)[-1]: href for href in links if "." in href.rsplit("/", 1)[-1]}
    assert {"py", "ipynb"} <= by_ext.keys(), f"{gallery_page}: download links {links}"
    script = _fetch(context, _url(base_url, gallery_page, by_ext["py"])).decode("utf-8")
    compile(script, by_ext["py"], "exec")
    notebook = json.loads(_fetch(context, _url(base_url, gallery_page, by_ext["ipynb"])))
    assert notebook["cells"], f"{by_ext['ipynb']} has no cells"
    stem = Path(gallery_page).stem
    assert Path(by_ext["py"]).stem == stem
    assert Path(by_ext["ipynb"]).stem == stem


def test_gallery_zip_downloads(context, base_url, layout, site_dir: Path) -> None:
    rel = layout.main_prefix + "auto_examples/index.html"
    links = [h for h in _download_links(site_dir / rel, "sphx-glr-footer") if h.endswith(".zip")]
    assert len(links) >= 2, f"{rel}: expected a .py and a .ipynb zip, found {links}"
    examples = {p.stem for p in (site_dir / rel).parent.rglob("plot_*.html")}
    for href in links:
        archive = zipfile.ZipFile(io.BytesIO(_fetch(context, _url(base_url, rel, href))))
        names = {Path(name).stem for name in archive.namelist()}
        assert examples <= names, f"{href} lacks {sorted(examples - names)}"


# ---------------------------------------------------------------------------------------------
# Colour theme and screenshots

SWITCH = "button.theme-switch-button"


def _theme(watch) -> str:
    return watch.page.evaluate("() => document.documentElement.dataset.theme")


def _switch_to(watch, mode: str) -> None:
    """Use the theme switcher as a reader would (a dropdown, or a button that cycles)."""
    page = watch.page
    for _ in range(4):
        if page.evaluate("() => document.documentElement.dataset.mode") == mode:
            return
        page.locator(SWITCH).locator("visible=true").first.click()
        item = page.locator(f".theme-change-button[data-mode='{mode}']").locator("visible=true")
        if item.count():
            item.first.click()
    assert page.evaluate("() => document.documentElement.dataset.mode") == mode


def _gallery_figure_page(layout) -> str:
    pages = sorted(layout.main.glob("auto_examples/**/plot_*.html"))
    with_figures = [p for p in pages if "sphx-glr-single-img" in p.read_text(encoding="utf-8")]
    assert with_figures, "no gallery page has a figure"
    preferred = [p for p in with_figures if "05_pictures" in p.as_posix()]
    return (preferred or with_figures)[0].relative_to(layout.root).as_posix()


def test_theme_switch_turns_dark(themed, layout) -> None:
    watch = themed(None)
    watch.goto(layout.main_prefix + "index.html")
    assert _theme(watch) == "light"
    _switch_to(watch, "dark")
    assert _theme(watch) == "dark"
    # The choice is remembered on the next page.
    watch.goto(_gallery_figure_page(layout))
    assert _theme(watch) == "dark"
    _switch_to(watch, "light")
    assert _theme(watch) == "light"
    assert not watch.problems, "\n".join(watch.problems)


FIGURE_STYLE_JS = """(img) => {
  const s = getComputedStyle(img);
  const box = img.getBoundingClientRect();
  return {width: box.width, height: box.height, natural: img.naturalWidth,
          opacity: s.opacity, visibility: s.visibility, display: s.display,
          filter: s.filter, background: s.backgroundColor};
}"""


def _rgb(color: str) -> tuple[float, ...]:
    values = [float(v) for v in re.findall(r"[\d.]+", color)]
    alpha = values[3] if len(values) > 3 else 1.0
    return (*values[:3], alpha)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_figures_visible(themed, layout, theme: str) -> None:
    watch = themed(theme)
    rel = _gallery_figure_page(layout)
    watch.goto(rel)
    assert _theme(watch) == theme
    images = watch.page.locator("img.sphx-glr-single-img, img.sphx-glr-multi-img")
    assert images.count() > 0
    for i in range(images.count()):
        images.nth(i).scroll_into_view_if_needed()
        style = images.nth(i).evaluate(FIGURE_STYLE_JS)
        assert style["natural"] > 0, f"{rel}: image {i} did not load"
        assert style["width"] > 50 and style["height"] > 50, f"{rel}: image {i} {style}"
        assert style["visibility"] == "visible" and style["display"] != "none", style
        assert float(style["opacity"]) > 0.9, style
        assert "invert" not in style["filter"] and "opacity" not in style["filter"], style
        if theme == "dark":
            red, green, blue, alpha = _rgb(style["background"])
            assert alpha > 0.9 and min(red, green, blue) > 200, (
                f"{rel}: in dark mode a figure needs a light background, got {style}"
            )
    assert not watch.problems, "\n".join(watch.problems)


def _screenshot_pages(layout) -> dict[str, str]:
    pages = {
        "home": layout.main_prefix + "index.html",
        "gallery": _gallery_figure_page(layout),
    }
    if (layout.main / "howto" / "common-errors.html").is_file():
        pages["common-errors"] = layout.main_prefix + "howto/common-errors.html"
    if "zh_CN" in layout.languages:  # the Chinese edition: the home page and a lesson page
        pages["zh_CN-home"] = "zh_CN/index.html"
        pages["zh_CN-walkthrough"] = "zh_CN/tutorial/02_walkthrough.html"
    return pages


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_screenshots(themed, layout, screenshot_dir: Path, theme: str) -> None:
    """Save what a reader sees (top of each page, up to 2400 px) for review."""
    watch = themed(theme)
    for name, rel in _screenshot_pages(layout).items():
        watch.goto(rel)
        watch.wait_for_math()
        assert _theme(watch) == theme
        height = min(2400, watch.page.evaluate("() => document.documentElement.scrollHeight"))
        path = screenshot_dir / f"{name}-{theme}.png"
        watch.page.screenshot(
            path=str(path), full_page=True, clip={"x": 0, "y": 0, "width": 1280, "height": height}
        )
        assert path.stat().st_size > 10_000, f"{path} looks empty"
        if name == "gallery":  # the first figure, with the text around it
            figure = watch.page.locator("img.sphx-glr-single-img, img.sphx-glr-multi-img").first
            box = figure.evaluate(
                "(img) => { const r = img.getBoundingClientRect();"
                " return {y: r.top + window.scrollY, height: r.height}; }"
            )
            top = max(0, box["y"] - 200)
            watch.page.screenshot(
                path=str(screenshot_dir / f"gallery-figure-{theme}.png"),
                full_page=True,
                clip={"x": 0, "y": top, "width": 1280, "height": min(2400, box["height"] + 400)},
            )
        assert not watch.problems, f"{rel}:\n" + "\n".join(watch.problems)


# ---------------------------------------------------------------------------------------------
# Languages


def _switch_language(watch, page_rel: str, target_prefix: str) -> None:
    """Follow the link on the current page that leads to ``page_rel`` in another language."""
    target = watch.base_url + target_prefix + page_rel
    candidates = {target, target.removesuffix("index.html")}
    links = watch.page.locator("a[href]")
    hrefs = links.evaluate_all("links => links.map((a) => a.href.split('#')[0])")
    matches = [i for i, href in enumerate(hrefs) if href in candidates]
    assert matches, f"no link from {watch.page.url} to {target}"
    link = links.nth(matches[0])
    with watch.page.expect_navigation():
        if link.is_visible():
            link.click()
        else:  # inside a closed dropdown: the reader opens it first; the link is what we test
            link.evaluate("(a) => a.click()")
    watch.page.wait_for_load_state("networkidle")
    assert watch.page.url.split("#")[0] in candidates


def test_language_switch(themed, layout) -> None:
    if "zh_CN" not in layout.languages:
        pytest.skip("this build has no zh_CN folder (one-language layout): nothing to switch")
    assert "en" in layout.languages, f"languages found: {sorted(layout.languages)}"
    watch = themed(None)
    checked = 0
    for rel in ("index.html", "tutorial/02_walkthrough.html"):
        if not (layout.languages["zh_CN"] / rel).is_file():
            continue
        watch.goto("en/" + rel)
        _switch_language(watch, rel, "zh_CN/")
        assert watch.page.evaluate("() => document.documentElement.lang").startswith("zh")
        _switch_language(watch, rel, "en/")
        assert watch.page.evaluate("() => document.documentElement.lang").startswith("en")
        assert not watch.problems, "\n".join(watch.problems)
        checked += 1
    assert checked, "no page exists in both en/ and zh_CN/"
    # The root page sends the reader to one language, or links to both.
    watch.goto("index.html", wait_until="load")
    try:
        watch.page.wait_for_url(re.compile(r"/(en|zh_CN)/"), timeout=5_000)
    except sync_api.TimeoutError:  # no redirect: the page must offer both languages
        hrefs = watch.page.locator("a[href]").evaluate_all("links => links.map((a) => a.href)")
        for prefix in ("en/", "zh_CN/"):
            assert any(h.startswith(watch.base_url + prefix) for h in hrefs), (
                f"the root page neither redirects nor links to {prefix}"
            )
    assert not watch.problems, "\n".join(watch.problems)
