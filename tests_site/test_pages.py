"""Every page, opened once, with every check run on that visit (one test per page and language,
spread over the browsers by pytest-xdist).

- **desktop** (1366 x 900): math typeset and no raw TeX shows; no table wider than the text
  column (at 1366 px and, the window narrowed on the pages with a table, at 1280 px); the
  HTML names nothing the browser would fetch from another host (sitescan.py: what a visit may
  not request, such as another screen's ``srcset`` candidate); axe-core's structural rules
  (names, roles, headings, ids, alt text, language: pagechecks.STRUCTURE) find nothing on the
  whole page but its highlighted code, and code or math that scrolls sideways is a stop of the keyboard
  (pagechecks.SCROLLING_CODE_JS). On the pages that have them: figures shown at >= 90 % of
  their drawn size (in both languages), the API pages inside the window and their content
  inside the article's edge, the error table as cards, each landing page's parts, the
  screenshots.
- **the sample** (pagechecks.sample_pages: one page of each kind, in each language): all of
  axe's rules, contrast included, on the page's content (``#main-content``), as
  pydata-sphinx-theme scopes its own, in the light theme and then, the page switched to the
  dark theme in place, in the dark (there the rules beyond the structural ones, which do not
  change with the colours: pagechecks.BEYOND_STRUCTURE); the home page's light run takes the
  whole page and every WCAG and best-practice rule (the template's header, navigation and
  footer); all without the
  highlighted code (tests/test_code_contrast.py proves every token's colours), whose text as
  shown, whatever stylesheet colours it, is read at 4.5:1 in both themes. The dark
  screenshots, and the gallery's figures on a light background in the dark.
- **phone**: the same page resized to 390 x 844. Nothing scrolls sideways (math that scrolls in
  its own box is a stop of the keyboard); code in tables breaks
  only after ``_ = . ,``; figures are their phone versions shown at >= 80 % of their drawn size;
  the error table as cards; the phone screenshots. Questions answer back (pagechecks.
  question_problems), axe's structural rules pass on them opened, and on the page of the sample
  of questions all of axe's rules, in both themes.
- **all along**: no console error, no failed request, no request to another host and no HTTP
  error, from the load to the phone's figures and back to the desktop's (the Watch of
  conftest.py; what the page asks for when it leaves is its own, not the next page's).

Each check is a function that returns what it found wrong (empty when the page is right), so
that one visit reports every problem of the page at once. The pages a reader must act on first
(search results, the explorer in use) get all of axe's rules in test_accessibility.py.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextlib import nullcontext

import pytest
from pagechecks import (
    API_WIDTH_JS,
    ARTICLE,
    BEYOND_STRUCTURE,
    CODE_AND_MATH,
    CODE_BREAKS_JS,
    DESKTOP,
    EVERYTHING,
    FIGURE_SRC,
    NARROW_DESKTOP,
    OVERFLOW_JS,
    PAGE,
    PHONE,
    PHONE_SCREENSHOTS,
    QUESTIONS_SAMPLE,
    SCROLLING_CODE_JS,
    SKIP_CODE,
    STRUCTURE,
    WIDE_TABLES_JS,
    axe_problems,
    code_contrast_problems,
    desktop_screenshot,
    error_table_problems,
    figure_size_problems,
    figure_visibility_problems,
    gallery_figure_page,
    landing_page_problems,
    math_problems,
    question_problems,
    sample_pages,
    screenshot_pages,
    set_theme,
)
from sitescan import scan_html

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.browser

EVERY_IMAGE_NOW_JS = """() => document.querySelectorAll('img[loading="lazy"]')
  .forEach((img) => { img.loading = 'eager'; })"""
# after the resize to a phone: every image loaded, each <picture> from the source its media
# query now picks (the phone version), not the desktop image it showed
IMAGES_LOADED_JS = """() => [...document.images].every((img) => {
  if (!img.complete) return false;
  const picture = img.parentElement.matches('picture') ? img.parentElement : null;
  const source = picture && [...picture.querySelectorAll('source')]
    .find((s) => !s.media || matchMedia(s.media).matches);
  if (!source) return true;
  const files = source.srcset.split(',').map((c) => c.trim().split(/\\s+/)[0].split('/').pop());
  return files.includes(img.currentSrc.split('/').pop());
})"""


@pytest.fixture(scope="session")
def figure_page(layout) -> str:
    """The gallery page whose figures are checked for visibility and photographed."""
    return gallery_figure_page(layout)


@pytest.fixture(scope="session")
def sample(layout) -> set[str]:
    """The pages that get all of axe's rules on their visit, in both themes: one of each kind,
    in every language."""
    folders = [f"{name}/" if name else "" for name in layout.languages]
    return {folder + rel for folder in folders for rel in sample_pages(layout).values()}


@pytest.fixture(scope="session")
def screenshots(layout) -> dict[str, str]:
    """Page -> name of its desktop screenshot."""
    return {page: name for name, page in screenshot_pages(layout).items()}


@pytest.fixture(scope="session")
def sweep(browser, base_url):
    """One page per browser, watched for errors and requests off the machine, axe-core loaded
    in every page; one CSS pixel per device pixel, as the figure sizes assume."""
    from conftest import Watch, new_context

    ctx = new_context(browser, axe=True, viewport=DESKTOP, device_scale_factor=1)
    watch = Watch(ctx.new_page(), base_url)
    yield watch
    ctx.close()


def _language(page_path: str) -> str:
    return page_path.split("/", 1)[0] if "/" in page_path else ""


def _report(page_path: str, checks: dict[str, list[str]]) -> None:
    failed = {name: found for name, found in checks.items() if found}
    sys.stdout.write(f"{page_path}: {len(checks)} checks, {len(failed)} failed\n")
    assert not failed, f"{page_path}:\n" + "\n".join(
        f"[{name}] {problem}" for name, found in failed.items() for problem in found
    )


def desktop_checks(sweep, html: str, page_path: str, context: dict) -> dict[str, list[str]]:
    """Every check at 1366 px (see the module's doc), screenshot included."""
    page, language = sweep.page, _language(page_path)
    rel = page_path.removeprefix(f"{language}/")
    checks: dict[str, Callable[[], list[str]]] = {
        "names no other host": lambda: [str(f) for f in scan_html(html, page_path)[0]],
        "math": lambda: math_problems(page),
        "tables fit": lambda: page.evaluate(WIDE_TABLES_JS),
        "code and math that scroll take the keyboard": lambda: page.evaluate(
            SCROLLING_CODE_JS, CODE_AND_MATH
        ),
    }
    if FIGURE_SRC.search(html):
        checks["figure sizes"] = lambda: figure_size_problems(page, html, "desktop")
    if rel.startswith("reference/"):

        def api_fits() -> list[str]:
            sizes = page.evaluate(API_WIDTH_JS)
            fits = sizes["scroll"] <= sizes["width"] + 1 and sizes["toc"] <= sizes["width"] + 1
            return [] if fits and not sizes["past"] else [f"wider than its place: {sizes}"]

        checks["API page fits"] = api_fits
    if rel == "howto/common-errors.html":
        checks["error table"] = lambda: error_table_problems(page, language)
    if rel == "index.html" and language:  # each edition's landing page
        checks["landing page"] = lambda: landing_page_problems(page)
    if page_path == context["figure_page"]:
        checks["figures visible"] = lambda: figure_visibility_problems(page, "light")
    if page_path in context["screenshots"]:
        name, folder = context["screenshots"][page_path], context["screenshot_dir"]
        checks["screenshot"] = lambda: desktop_screenshot(page, folder, name, "light")
    return {name: check() for name, check in checks.items()}


def accessibility_checks(sweep, page_path: str, context: dict) -> dict[str, list[str]]:
    """axe's structural rules on the page. On the sample's pages all of its rules on the
    content, in the light theme and then in the dark one (with the dark screenshot and
    figures); on the home page, in the light theme, every rule on the whole page: the
    template's parts (header, navigation, footer), once per edition."""
    page = sweep.page
    with sweep.unwatched():  # what axe requests is not the page's (conftest.Watch)
        if page_path not in context["sample"]:
            return {"accessibility": axe_problems(page, PAGE, STRUCTURE)}
        if page_path.removeprefix(f"{_language(page_path)}/") == "index.html":
            light = axe_problems(page, {"exclude": SKIP_CODE}, EVERYTHING)
        else:
            light = axe_problems(page, PAGE, STRUCTURE)
            light += axe_problems(page, ARTICLE, BEYOND_STRUCTURE)
        code = code_contrast_problems(page)
        set_theme(page, "dark")
        dark = axe_problems(page, ARTICLE, BEYOND_STRUCTURE)
        found = {
            "all of axe, light": light,
            "all of axe, dark": dark,
            "code colours, light": code,
            "code colours, dark": code_contrast_problems(page),
        }
    if page_path in context["screenshots"]:
        name, folder = context["screenshots"][page_path], context["screenshot_dir"]
        found["dark screenshot"] = desktop_screenshot(page, folder, name, "dark")
    if page_path == context["figure_page"]:
        found["figures visible in the dark"] = figure_visibility_problems(page, "dark")
    set_theme(page, "light")
    return found


def phone_checks(sweep, html: str, page_path: str, context: dict) -> dict[str, list[str]]:
    """Every check at 390 px (see the module's doc), on the page resized to a phone."""
    page, language = sweep.page, _language(page_path)
    rel = page_path.removeprefix(f"{language}/")
    page.set_viewport_size(PHONE)
    page.wait_for_function(IMAGES_LOADED_JS)  # the phone figures shown

    def no_sideways_scroll() -> list[str]:
        result = page.evaluate(OVERFLOW_JS)
        wide = result["scroll"] > result["width"] + 1 or result["examples"]
        return [f"scrolls sideways at 390 px: {result}"] if wide else []

    checks: dict[str, Callable[[], list[str]]] = {
        "fits the phone": no_sideways_scroll,
        # the theme makes code that scrolls a tab stop 300 ms after a resize; math at once
        "math that scrolls takes the keyboard": lambda: page.evaluate(
            SCROLLING_CODE_JS, ".katex-display"
        ),
    }
    if "<table" in html:
        checks["tables read well"] = lambda: page.evaluate(CODE_BREAKS_JS)
    if FIGURE_SRC.search(html):
        checks["phone figure sizes"] = lambda: figure_size_problems(page, html, "phone")
    if rel == "howto/common-errors.html":
        checks["phone error table"] = lambda: error_table_problems(page, language)
    if page_path in PHONE_SCREENSHOTS:

        def screenshot() -> list[str]:
            height = min(3000, page.evaluate("() => document.documentElement.scrollHeight"))
            path = context["screenshot_dir"] / f"{PHONE_SCREENSHOTS[page_path]}.png"
            clip = {"x": 0, "y": 0, "width": PHONE["width"], "height": height}
            page.screenshot(path=str(path), full_page=True, clip=clip)
            return [] if path.stat().st_size > 5_000 else [f"{path} looks empty"]

        checks["phone screenshot"] = screenshot
    if 'class="mha-question' in html:
        checks["questions answer back"] = lambda: question_problems(page, language)
        checks["questions opened, structure"] = lambda: axe_problems(page, ".mha-question")
        if rel == QUESTIONS_SAMPLE:

            def all_of_axe() -> list[str]:
                found = axe_problems(page, ARTICLE, BEYOND_STRUCTURE)  # structure: .mha-question
                set_theme(page, "dark")
                dark = axe_problems(page, ARTICLE, BEYOND_STRUCTURE)
                found += [f"dark: {problem}" for problem in dark]
                set_theme(page, "light")
                return found

            checks["questions opened, all of axe"] = all_of_axe
    found = {}
    for name, check in checks.items():
        with sweep.unwatched() if "axe" in name or "structure" in name else nullcontext():
            found[name] = check()
    return found


def _leave(page) -> None:
    """Back to the desktop's size, the page hidden first so that the browser does not lay it
    out again at 1366 px. Its <picture>s ask for their desktop images once more: done at the
    end of the page's own test, so that a missing one fails this page, not the next."""
    page.evaluate("() => { document.documentElement.style.display = 'none'; }")
    page.set_viewport_size(DESKTOP)


def test_page(
    sweep, layout, site_dir, screenshot_dir, figure_page, screenshots, sample, page_path: str
) -> None:
    """The page on a desktop, then on a phone: every check on one visit (see the module's doc)."""
    html = (site_dir / page_path).read_text(encoding="utf-8")
    page = sweep.page
    _leave(page)  # in case the last test stopped at a phone's size
    sweep.goto(page_path, wait_until="load")
    page.evaluate(EVERY_IMAGE_NOW_JS)  # the figures the site loads as the reader nears them too
    page.wait_for_function("() => [...document.images].every((img) => img.complete)")
    context = {"layout": layout, "figure_page": figure_page, "screenshots": screenshots,
               "screenshot_dir": screenshot_dir, "sample": sample}  # fmt: skip
    found = desktop_checks(sweep, html, page_path, context)
    # The root page sends the browser on to en/index.html, which its own test checks.
    if _language(page_path):
        found |= accessibility_checks(sweep, page_path, context)
        # the window narrowed only where there is a table to fit (most pages have none): a
        # resize lays the whole page out again
        if page.evaluate("() => document.querySelector('main table') !== null"):
            page.set_viewport_size(NARROW_DESKTOP)
            found["tables fit at 1280 px"] = page.evaluate(WIDE_TABLES_JS)
        found |= phone_checks(sweep, html, page_path, context)
        _leave(page)  # what leaving asks for (its desktop figures again) is this page's
    # every request of the visit answered (or failed) before they are read: the page's own
    # were sent long before, at its load or the phone's figures
    sweep.settle(quiet_ms=25)
    found["loads cleanly"] = list(sweep.problems)
    _report(page_path, found)


# ---------------------------------------------------------------------------------------------
# What the sweep relies on, read from the built files: it would pass vacuously without it


def test_the_sweep_has_pages_to_check(layout) -> None:
    """In every language: math on a tutorial page, >= 36 figures with >= 32 phone versions, API
    pages, >= 10 pages with tables, the error table and 4 pages of questions; and every page
    named for a screenshot (the counts a little under this site's: 38, 34, 11)."""
    for language, folder in layout.languages.items():
        pages = sorted(p for p in folder.rglob("*.html") if "_static" not in p.parts)
        text = {p: p.read_text(encoding="utf-8") for p in pages}
        assert [p for p in pages if "tutorial" in p.parts and 'class="math' in text[p]], language
        figures = sum(len(FIGURE_SRC.findall(t)) for t in text.values())
        assert figures >= 36, f"{language}: only {figures} figures found"
        phone = sum(t.count('<source media="(max-width: 540px)"') for t in text.values())
        assert phone >= 32, f"{language}: only {phone} figures have a phone version"
        assert list((folder / "reference").rglob("*.html")), f"{language}: no API page"
        tables = [p for p in pages if "<table" in text[p]]
        assert len(tables) >= 10, f"{language}: tables on only {len(tables)} pages"
        assert (folder / "howto" / "common-errors.html").is_file()
        asking = [p for p in pages if "tutorial" in p.parts and 'class="mha-question' in text[p]]
        assert len(asking) >= 4, f"{language}: questions on only {len(asking)} pages"
    for rel in [*screenshot_pages(layout).values(), *PHONE_SCREENSHOTS]:
        assert (layout.root / rel).is_file(), f"screenshot page {rel} is not built"
