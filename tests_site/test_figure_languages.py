"""Each edition shows its figures in its own language: read from the built pages.

Each edition's build runs its own examples, and the Chinese examples draw Chinese labels
(docs/_ext/translated_sources.py): sphinx-gallery writes a figure's titles into its alt text,
so a Chinese gallery page whose figure has English titles shows it in its ``alt``. The
benchmark's charts are drawn once per language (``speed.zh_CN.png``, benchmarks/bench.py).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from site_figures import CHART_RETINA

CHINESE = re.compile(r"[\u3400-\u9fff]")
WORD = re.compile(r"(?<![\w.])[a-z]{3,}(?![\w(])")  # an English word, not a name of code
GALLERY_FIGURE = re.compile(r"sphx_glr_\w+?_\d{3}\.png$")
CHART = re.compile(rf"(speed|memory|gqa)(_phone)?({re.escape(CHART_RETINA)})?(\.zh_CN)?\.png$")


class _Images(HTMLParser):
    """Every image file a page refers to (src and srcset), with the alt of each <img>."""

    def __init__(self) -> None:
        super().__init__()
        self.files: list[str] = []
        self.alts: dict[str, str] = {}

    def handle_starttag(self, tag, attrs) -> None:
        attrs = dict(attrs)
        if tag in ("img", "source"):
            urls = [attrs.get("src") or ""]
            urls += [entry.split()[0] for entry in (attrs.get("srcset") or "").split(",") if entry]
            names = [url.rsplit("/", 1)[-1] for url in urls if url]
            self.files += names
            if tag == "img" and names:
                self.alts[names[0]] = attrs.get("alt") or ""


def _images(page: Path) -> _Images:
    parser = _Images()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def test_chinese_gallery_figures_have_chinese_titles(layout) -> None:
    if "zh_CN" not in layout.languages:
        pytest.skip("no Chinese edition in this build")
    english, figures = [], 0
    for page in sorted((layout.languages["zh_CN"] / "auto_examples").rglob("plot_*.html")):
        for name, alt in _images(page).alts.items():
            if GALLERY_FIGURE.search(name):
                figures += 1
                if WORD.search(alt) and not CHINESE.search(alt):
                    english.append(f"{page.name}: {name} {alt!r}")
    assert figures >= 20, f"expected the gallery's figures on the Chinese pages, found {figures}"
    assert english == [], f"{len(english)} figures with English titles: {english[:5]}"


def test_each_edition_shows_its_own_charts(layout) -> None:
    for language, folder in layout.languages.items() or {"en": layout.main}.items():
        files = set(_images(folder / "explanation" / "performance.html").files)
        charts = [CHART.search(name) for name in files if CHART.search(name)]
        assert len(charts) == 12, f"{language}: 3 charts in 4 versions, got {sorted(files)}"
        chinese = {bool(chart[4]) for chart in charts}
        assert chinese == {language == "zh_CN"}, f"{language} shows {sorted(files)}"
    for page in sorted(layout.main.rglob("*.html")):  # no Chinese file on an English page
        assert not [f for f in _images(page).files if ".zh_CN." in f], page
    # and a Chinese chart is not the English one under a Chinese name (drawn with other words)
    bench = layout.languages.get("zh_CN", layout.main) / "_static" / "bench"
    same = [c.name for c in bench.glob("*.zh_CN.png")
            if c.read_bytes() == c.with_name(c.name.replace(".zh_CN", "")).read_bytes()]  # fmt: skip
    assert len(list(bench.glob("*.zh_CN.png"))) == 12 and not same, f"English bytes: {same}"
