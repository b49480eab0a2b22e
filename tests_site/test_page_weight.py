"""What a phone downloads on its first visit to a page: a byte budget for each kind of page.

Lighthouse (``nox -s lighthouse``) is too slow for CI; these budgets catch the regressions that
cost a phone its speed (a script on every page, a whole font, a figure too large for the
screen) without it. Of each kind of page in each language, the heaviest by what its HTML names
(three of the text pages, whose budget is the site's goal; the page and every stylesheet,
script and figure it names, as a static host sends them: ``named_weight``; a figure or script
added to a page puts it among them) opens in a fresh browser (an empty cache) the size of
Lighthouse's phone (412 x 823 CSS px, 1.75 device pixels per px), from the site served as a
static host serves it (static_host.py: text gzipped), and every response it received counts,
headers and body as sent. Every page, from its files only, names no more than a ceiling.

The theme's icon fonts are cut to the icons the site can show (docs/_fonts/subset_icons.py):
every icon a page names must be in them.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from conftest import Watch, detect_layout, new_context
from fontTools.ttLib import TTFont
from sitescan import html_pages
from static_host import sent_size, serve

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.browser

KIB = 1024
# KiB a first visit may transfer, by kind of page. A text page's is the site's goal; the others'
# sit 20-25 % above the heaviest page of the kind as built (API pages: mha.merge_heads, 401 KiB;
# gallery examples: plot_01_why_scale, 362; gallery indexes: 07_after_the_lesson, 280; search
# 217; home 156), where a text page weighed 345 at most (tutorial/01_one_head_to_many).
BUDGET = {
    "text": 500,
    "home": 200,
    "gallery example": 450,
    "gallery index": 350,
    "API page": 500,
    "search": 270,
}
# Lighthouse's phone (its mobile default: a Moto G Power)
PHONE = {"viewport": {"width": 412, "height": 823}, "device_scale_factor": 1.75,
         "is_mobile": True, "has_touch": True}  # fmt: skip
TEXT = ("tutorial/", "explanation/", "howto/")
NAMED = re.compile(r'\b(?:src|href|srcset)="([^"#?]+)[^"]*"')


def named_weight(page: Path) -> int:
    """The bytes a static host sends for the page and each local file its HTML names (not the
    pages it links to): the ranking of the text pages, which the browser then weighs."""
    text = page.read_text(encoding="utf-8")
    files = {(page.parent / name.split()[0]).resolve() for value in NAMED.findall(text)
             for name in value.split(",") if name.strip()}  # fmt: skip
    named = [f for f in files if f.suffix not in (".html", "") and f.is_file()]
    return sent_size(page) + sum(sent_size(f) for f in named)


def kind(rel: str) -> str:
    """The kind of a page, from its address inside a language's folder."""
    if rel.startswith(TEXT):
        return "text"
    if rel.startswith("auto_examples/"):
        return "gallery example" if rel.rsplit("/", 1)[-1].startswith("plot_") else "gallery index"
    if rel.startswith("reference/"):
        return "API page"
    return {"index.html": "home", "search.html": "search"}.get(rel, "other")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``weighed``: (page, kind), the heaviest page of each kind in each language by what its
    HTML names (``named_weight``), three of the text pages."""
    if "weighed" not in metafunc.fixturenames:
        return
    root = Path(metafunc.config.getoption("--site")).resolve()
    pages = []
    if (root / "index.html").is_file():
        layout = detect_layout(root)
        for folder in layout.languages.values():
            prefix = folder.relative_to(layout.root).as_posix().removeprefix(".") + "/"
            kinds: dict[str, list[Path]] = {}
            for path in html_pages(folder):
                kinds.setdefault(kind(path.relative_to(folder).as_posix()), []).append(path)
            for page_kind in BUDGET:  # three text pages: their 500 KiB is the site's goal
                ranked = sorted(kinds[page_kind], key=named_weight, reverse=True)
                for heavy in ranked[: 3 if page_kind == "text" else 1]:
                    pages.append(
                        (prefix.lstrip("/") + heavy.relative_to(folder).as_posix(), page_kind)
                    )
    metafunc.parametrize("weighed", pages or [("<no site>", "text")], ids=lambda p: p[0])


# KiB any page may name, every size of every figure counted (no browser): the heaviest as built
# is the gallery's index, 1,313 KiB (its 31 thumbnails, 2x too), the heaviest example 897
NAMED_CEILING = 1536


def test_no_page_names_more_than_the_ceiling(layout) -> None:
    """Every page of every kind, from its files: what its HTML names stays under the ceiling (a
    page the browser does not weigh, with a figure of megabytes, fails here)."""
    weights = [(named_weight(p) / KIB, p) for f in layout.languages.values() for p in html_pages(f)]
    assert len(weights) > 200, f"only {len(weights)} pages"
    heavy = [f"{page.relative_to(layout.root)}: {kib:.0f} KiB" for kib, page in weights
             if kib > NAMED_CEILING]  # fmt: skip
    assert not heavy, f"pages naming more than {NAMED_CEILING} KiB:\n" + "\n".join(heavy)


def first_visit(browser, base_url: str, path: str) -> list[tuple[int, str]]:
    """(bytes sent, address) of every response of a first visit to ``path``, largest first;
    fails on any problem of the visit (conftest.Watch)."""
    ctx = new_context(browser, **PHONE)
    try:
        watch = Watch(ctx.new_page(), base_url)
        finished = []
        watch.page.on("requestfinished", lambda request: finished.append(request))
        watch.goto(path)
        assert not watch.problems, "\n".join(watch.problems)
        sizes = [(r.sizes(), r.url) for r in finished if not r.url.startswith("data:")]
    finally:
        ctx.close()
    sent = [(s["responseHeadersSize"] + s["responseBodySize"], url) for s, url in sizes]
    return sorted(sent, reverse=True)


def test_page_weight(browser, base_url, weighed: tuple[str, str]) -> None:
    path, page_kind = weighed
    sent = first_visit(browser, base_url, path)
    total = sum(size for size, _ in sent) / KIB
    largest = "\n".join(f"  {size / KIB:7.1f} KiB  {url}" for size, url in sent[:8])
    assert total <= BUDGET[page_kind], (
        f"{path}: {total:.0f} KiB on a first visit, over the {page_kind} budget of "
        f"{BUDGET[page_kind]} KiB; the largest responses:\n{largest}"
    )


def test_the_weight_is_what_a_gzip_host_sends(browser, tmp_path) -> None:
    """A page with a 120 KiB script: counted whole when the script does not compress (random
    hex digits: about half), almost nothing when it does (one line repeated)."""
    random_text = f'const digits = "{os.urandom(60 * KIB).hex()}";\n'
    repeated = "// the same line, a comment: nothing runs\n" * (120 * KIB // 42)
    for name, script in (("random.js", random_text), ("repeated.js", repeated)):
        (tmp_path / name).write_text(script)
        page = f'<!DOCTYPE html><link rel="icon" href="data:,"><script src="{name}"></script>'
        (tmp_path / f"{name}.html").write_text(page)
    server = serve(tmp_path)
    try:
        base_url = f"http://127.0.0.1:{server.server_address[1]}/"
        random_kib = sum(s for s, _ in first_visit(browser, base_url, "random.js.html")) / KIB
        repeated_kib = sum(s for s, _ in first_visit(browser, base_url, "repeated.js.html")) / KIB
    finally:
        server.shutdown()
        server.server_close()
    assert 50 < random_kib < 80, random_kib  # gzip stores a hex digit in about 4 bits
    assert repeated_kib < 10, repeated_kib


# ---------------------------------------------------------------------------------------------
# The theme's icon fonts, cut to the icons the site can show

ICON_CLASS = re.compile(r"\bfa-[a-z0-9-]+")
ICON_RULE = re.compile(r'((?:\.fa-[a-z0-9-]+,?)+)\{--fa:"\\([0-9a-f]+)"')  # as subset_icons.py
THEME_ICON = re.compile(r'--pst-[a-z-]+:"([\ue000-\uf8ff])"')
WEBFONTS = "_static/vendor/fontawesome/webfonts"
CUT = ("fa-solid-900.woff2", "fa-brands-400.woff2")  # the fonts of the icons the theme draws


def test_every_icon_shown_is_in_the_cut_fonts(site_dir) -> None:
    """Each icon class of every page, and each icon of the theme's stylesheet, has its glyph in
    the site's icon fonts, which are the cut ones (a few KiB, not the theme's 110 KiB each)."""
    layout = detect_layout(site_dir)
    styles = layout.main / "_static" / "styles" / "pydata-sphinx-theme.css"
    css = styles.read_text(encoding="utf-8")
    names = {n for p in html_pages(site_dir) for n in ICON_CLASS.findall(p.read_text("utf-8"))}
    icons = {name: int(code, 16) for classes, code in ICON_RULE.findall(css)
             for name in classes.replace(".", "").split(",")}  # fmt: skip
    wanted = {icons[name]: name for name in names if name in icons}
    wanted |= {ord(c): f"the theme's {ord(c):x}" for c in THEME_ICON.findall(css)}
    assert len(wanted) >= 15, f"expected the theme's icons, found {sorted(wanted.values())}"
    for folder in layout.languages.values():
        drawn = set()
        for font in (folder / WEBFONTS / name for name in CUT):
            drawn |= set(TTFont(font).getBestCmap())
            assert font.stat().st_size < 10 * KIB, f"{font} is not cut: run nox -s fonts"
        missing = sorted(name for code, name in wanted.items() if code not in drawn)
        assert not missing, f"icons missing from {folder / WEBFONTS}: {missing}; nox -s fonts"
