"""The built site in Chromium: search, downloads, the theme switch, the language switch.

Every page's own checks (desktop and phone) run in test_pages.py; the dark theme's screenshots
and figures with axe's full rules, on a sample of pages, in test_accessibility.py.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from html.parser import HTMLParser
from pathlib import Path

import pytest
from pagechecks import PHONE, SEARCH_DONE_JS, gallery_figure_page

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.browser


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


# each card's picture, drawn 24 x 16 px, against every English card's: the nearest is its twin
THUMB_TWINS_JS = """async () => {
  const cards = [...document.querySelectorAll(".sphx-glr-thumbcontainer img")];
  const drawn = async (src) => {
    const img = new Image();
    img.src = src;
    await img.decode();
    const canvas = Object.assign(document.createElement("canvas"), { width: 24, height: 16 });
    canvas.getContext("2d").drawImage(img, 0, 0, 24, 16);
    return canvas.getContext("2d").getImageData(0, 0, 24, 16).data;
  };
  const ours = await Promise.all(cards.map((img) => drawn(img.src)));
  const twins = await Promise.all(cards.map((img) => drawn(img.src.replace("/zh_CN/", "/en/"))));
  const apart = (a, b) => a.reduce((sum, x, k) => sum + (x - b[k]) ** 2, 0);
  return cards.map((img, i) => {
    const far = twins.map((twin) => apart(ours[i], twin));
    return [img.src.split("/").pop(), cards[far.indexOf(Math.min(...far))].src.split("/").pop()];
  });
}"""


def test_each_chinese_card_shows_its_examples_picture(shared, layout) -> None:
    """On the Chinese gallery's index each card's picture is its example's: of all the English
    cards' pictures, the one nearest to it (both drawn 24 x 16 px) is its English twin's. The
    two differ only in the figure's words; another example's picture is far (a file of the
    right name holding another thumbnail fails, which the names cannot tell)."""
    shared.goto("zh_CN/auto_examples/index.html")
    nearest = shared.page.evaluate(THUMB_TWINS_JS)
    assert len(nearest) >= 30, f"only {len(nearest)} cards"
    wrong = [f"{card} looks like the English {twin}" for card, twin in nearest if card != twin]
    assert not wrong and not shared.problems, "\n".join(wrong + shared.problems)


@pytest.mark.parametrize(("language", "query"), [("en", "split_heads"), ("zh_CN", "多头注意力")])
def test_search_from_a_page_without_the_index(themed, layout, language: str, query: str) -> None:
    """A lesson page loads no search index (search.html does): the reader's search from its
    field opens search.html, which finds the query, in both languages."""
    if language not in layout.languages:
        pytest.skip(f"this build has no {language} folder")
    watch = themed(None, PHONE)
    watch.goto(f"{language}/tutorial/02_walkthrough.html")
    scripts = watch.page.evaluate("() => [...document.scripts].map((s) => s.src)")
    assert not [s for s in scripts if re.search(r"searchindex|searchtools|language_data", s)]
    watch.page.locator("button.search-button__button").locator("visible=true").first.click()
    field = watch.page.locator("#pst-search-dialog input[name=q]")
    field.fill(query)
    with watch.page.expect_navigation():
        field.press("Enter")
    watch.page.wait_for_function(SEARCH_DONE_JS)
    assert watch.page.url.split("?")[0].endswith(f"/{language}/search.html")
    assert watch.page.locator("#search-results ul.search li").count() >= 3
    watch.settle()
    assert not watch.problems, "\n".join(watch.problems)


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
# Colour theme

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


def test_theme_switch_turns_dark(themed, layout) -> None:
    watch = themed(None)
    watch.goto(layout.main_prefix + "index.html")
    assert _theme(watch) == "light"
    _switch_to(watch, "dark")
    assert _theme(watch) == "dark"
    # The choice is remembered on the next page.
    watch.goto(gallery_figure_page(layout))
    assert _theme(watch) == "dark"
    _switch_to(watch, "light")
    assert _theme(watch) == "light"
    assert not watch.problems, "\n".join(watch.problems)


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
    watch.page.wait_for_load_state("load")
    watch.settle()
    assert watch.page.url.split("#")[0] in candidates


def test_language_switch(themed, layout) -> None:
    if "zh_CN" not in layout.languages:
        pytest.skip("this build has no zh_CN folder (one-language layout): nothing to switch")
    assert "en" in layout.languages, f"languages found: {sorted(layout.languages)}"
    watch = themed(None)
    checked = 0
    for rel in ("tutorial/06_summary.html",):  # the switch is the template's, on every page
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


def test_a_request_off_the_machine_is_caught(themed) -> None:
    """The watch that every page check relies on records a request to another host, and the
    request does not leave the machine (Chromium resolves no other host)."""
    watch = themed(None)
    watch.problems = []
    watch.page.set_content(
        '<img id="logo" src="https://cdn.example.com/logo.png" alt="logo">'
        '<link rel="stylesheet" href="https://fonts.example.org/font.css">',
        wait_until="load",
    )
    watch.settle()
    foreign = [problem for problem in watch.problems if "request to another host" in problem]
    assert len(foreign) == 2, watch.problems
    assert watch.page.evaluate("() => document.getElementById('logo').naturalWidth") == 0
