"""Every page, opened once on a desktop and once on a phone, with every check run on that visit.

Two sweeps, one test per page each, spread over the browsers by pytest-xdist:

- **desktop** (1366 x 900): the page loads with no console error, failed or foreign request
  and no HTTP error; its math is typeset and no raw TeX shows; no table is wider than the text
  column (at 1366 px and, the window narrowed on the same visit, at 1280 px); no serious or
  critical WCAG 2 A/AA violation (axe-core). On the pages that have them:
  figures shown at >= 90 % of their drawn size, the API pages and their "On this page" list
  inside the window, the error table as cards, the landing page's parts, and the screenshots
  for review.
- **phone** (390 x 844): nothing scrolls sideways; code in tables breaks only after
  ``_ = . ,`` and Markdown tables are labelled cards; figures are their phone versions shown at
  >= 80 % of their drawn size; the error table as cards; the phone screenshots.

Each check is a function that returns what it found wrong (empty when the page is right), so
that one visit reports every problem of the page at once.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from pagechecks import (
    API_WIDTH_JS,
    CODE_BREAKS_JS,
    FIGURE_SRC,
    OVERFLOW_JS,
    PHONE_SCREENSHOTS,
    WAIT_FOR_MATH_JS,
    WIDE_TABLES_JS,
    axe_problems,
    desktop_screenshot,
    error_table_problems,
    figure_size_problems,
    figure_visibility_problems,
    gallery_figure_page,
    landing_page_problems,
    math_problems,
    screenshot_pages,
)

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.browser

DESKTOP = {"width": 1366, "height": 900}
NARROW_DESKTOP = {"width": 1280, "height": 900}  # the tables must fit at this width too
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="session")
def figure_page(layout) -> str:
    """The gallery page whose figures are checked for visibility and photographed."""
    return gallery_figure_page(layout)


@pytest.fixture(scope="session")
def screenshots(layout) -> dict[str, str]:
    """Page -> name of its desktop screenshot."""
    return {page: name for name, page in screenshot_pages(layout).items()}


# ---------------------------------------------------------------------------------------------
# The two sweeps


@pytest.fixture(scope="session")
def desktop(browser, base_url):
    """One desktop page per browser, watched for errors and requests off the machine."""
    from conftest import TIMEOUT_MS, Watch

    ctx = browser.new_context(viewport=DESKTOP, color_scheme="light", service_workers="block")
    ctx.set_default_timeout(TIMEOUT_MS)
    watch = Watch(ctx.new_page(), base_url)
    yield watch
    ctx.close()


@pytest.fixture(scope="session")
def phone(browser, base_url):
    """One 390 px phone page per browser (device pixels = CSS pixels, as on the figure sizes)."""
    from conftest import TIMEOUT_MS

    ctx = browser.new_context(viewport=PHONE, device_scale_factor=1, service_workers="block")
    ctx.set_default_timeout(TIMEOUT_MS)
    yield ctx.new_page()
    ctx.close()


def _language(page_path: str) -> str:
    return page_path.split("/", 1)[0] if "/" in page_path else ""


def _report(page_path: str, checks: dict[str, list[str]]) -> None:
    failed = {name: found for name, found in checks.items() if found}
    sys.stdout.write(f"{page_path}: {len(checks)} checks, {len(failed)} failed\n")
    assert not failed, f"{page_path}:\n" + "\n".join(
        f"[{name}] {problem}" for name, found in failed.items() for problem in found
    )


def test_desktop(
    desktop, axe, layout, site_dir, screenshot_dir, figure_page, screenshots, page_path: str
) -> None:
    """The page on a 1366 px desktop: every desktop check on one visit (see the module's doc)."""
    html = (site_dir / page_path).read_text(encoding="utf-8")
    language = _language(page_path)
    rel = page_path.removeprefix(f"{language}/")
    page = desktop.page
    page.set_viewport_size(DESKTOP)
    desktop.goto(page_path, wait_until="load")
    desktop.wait_for_math()
    desktop.settle()  # every request answered (or failed) before the problems are read
    checks: dict[str, Callable[[], list[str]]] = {
        "loads cleanly": lambda: list(desktop.problems),
        "math": lambda: math_problems(page),
        "tables fit": lambda: page.evaluate(WIDE_TABLES_JS),
    }
    if language == "en" and FIGURE_SRC.search(html):
        checks["figure sizes"] = lambda: figure_size_problems(page, html, "desktop")
    if language == "en" and rel.startswith("reference/"):

        def api_fits() -> list[str]:
            sizes = page.evaluate(API_WIDTH_JS)
            fits = sizes["scroll"] <= sizes["width"] + 1 and sizes["toc"] <= sizes["width"] + 1
            return [] if fits else [f"wider than the window: {sizes}"]

        checks["API page fits"] = api_fits
    if rel == "howto/common-errors.html":
        checks["error table"] = lambda: error_table_problems(page, language)
    if page_path == layout.main_prefix + "index.html":
        checks["landing page"] = lambda: landing_page_problems(page)
    if page_path == figure_page:
        checks["figures visible"] = lambda: figure_visibility_problems(page, "light")
    if page_path in screenshots:
        name = screenshots[page_path]
        checks["screenshot"] = lambda: desktop_screenshot(page, screenshot_dir, name, "light")
    found = {name: check() for name, check in checks.items()}
    # last: axe requests a stylesheet's @import relative to the page (a 404 that the site does
    # not cause), so the requests it makes are not counted above. The root page sends the
    # browser on to en/index.html, which its own test checks: axe would only run there twice.
    if language:
        found["accessibility"] = axe_problems(axe, page)
    page.set_viewport_size(NARROW_DESKTOP)
    found["tables fit at 1280 px"] = page.evaluate(WIDE_TABLES_JS)
    _report(page_path, found)


def test_phone(phone, base_url, site_dir: Path, screenshot_dir: Path, language_page: str) -> None:
    """The page on a 390 px phone: every phone check on one visit (see the module's doc)."""
    page_path = language_page
    html = (site_dir / page_path).read_text(encoding="utf-8")
    language = _language(page_path)
    rel = page_path.removeprefix(f"{language}/")
    phone.goto(base_url + page_path, wait_until="load")
    phone.evaluate(WAIT_FOR_MATH_JS)

    def no_sideways_scroll() -> list[str]:
        result = phone.evaluate(OVERFLOW_JS)
        wide = result["scroll"] > result["width"] + 1 or result["examples"]
        return [f"scrolls sideways at 390 px: {result}"] if wide else []

    checks: dict[str, Callable[[], list[str]]] = {"fits the phone": no_sideways_scroll}
    if "<table" in html:
        checks["tables read well"] = lambda: phone.evaluate(CODE_BREAKS_JS)
    if language == "en" and FIGURE_SRC.search(html):
        checks["figure sizes"] = lambda: figure_size_problems(phone, html, "phone")
    if rel == "howto/common-errors.html":
        checks["error table"] = lambda: error_table_problems(phone, language)
    if page_path in PHONE_SCREENSHOTS:

        def screenshot() -> list[str]:
            height = min(3000, phone.evaluate("() => document.documentElement.scrollHeight"))
            path = screenshot_dir / f"{PHONE_SCREENSHOTS[page_path]}.png"
            clip = {"x": 0, "y": 0, "width": phone.viewport_size["width"], "height": height}
            phone.screenshot(path=str(path), full_page=True, clip=clip)
            return [] if path.stat().st_size > 5_000 else [f"{path} looks empty"]

        checks["screenshot"] = screenshot
    _report(page_path, {name: check() for name, check in checks.items()})


# ---------------------------------------------------------------------------------------------
# What the sweeps rely on, read from the built files: they would pass vacuously without it


def test_the_sweeps_have_pages_to_check(layout) -> None:
    """Math on a tutorial page, >= 20 figures with >= 15 phone versions, API pages, the error
    table in every language, and every page named for a screenshot."""
    en = sorted(p for p in layout.main.rglob("*.html") if "_static" not in p.parts)
    with_math = [p for p in en if "tutorial" in p.parts and 'class="math' in p.read_text()]
    assert with_math, "no tutorial page has math"
    figures = sum(len(FIGURE_SRC.findall(p.read_text(encoding="utf-8"))) for p in en)
    assert figures >= 20, f"only {figures} figures found"
    phone_versions = sum(
        p.read_text(encoding="utf-8").count('<source media="(max-width: 540px)"') for p in en
    )
    assert phone_versions >= 15, f"only {phone_versions} figures have a phone version"
    assert list((layout.main / "reference").rglob("*.html")), "no API page"
    for folder in layout.languages.values():
        assert (folder / "howto" / "common-errors.html").is_file()
    for rel in [*screenshot_pages(layout).values(), *PHONE_SCREENSHOTS]:
        assert (layout.root / rel).is_file(), f"screenshot page {rel} is not built"
