"""Each edition shows its figures in its own language: read from the built pages.

Every gallery figure and benchmark chart is drawn once per language
(docs/_ext/site_figures.py). On a Chinese
page, every figure a reader sees (the ``<img>``, its 2x version and its phone versions) must be
the Chinese file, with the alt text recorded when that file was drawn; an English page must
never show a Chinese one.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

# a gallery figure or thumbnail, or a benchmark chart of the Performance page (each version)
FIGURE = re.compile(
    r"(sphx_glr_\w+?_\d{3}|sphx_glr_\w+_thumb|speed|memory|gqa)"
    r"((?:_2_00x|_phone|_phone_2_00x|@2x|_phone@2x)?)"
    r"(\.zh_CN)?\.png$"
)
SOURCES = Path(__file__).resolve().parents[1] / "docs" / "auto_examples"


class _Images(HTMLParser):
    """Every figure file a page refers to (src and srcset), with the alt of its <img>."""

    def __init__(self) -> None:
        super().__init__()
        self.files: list[str] = []
        self.alts: dict[str, str] = {}

    def handle_starttag(self, tag, attrs) -> None:
        attrs = dict(attrs)
        if tag not in ("img", "source"):
            return
        urls = [attrs.get("src") or ""]
        urls += [entry.split()[0] for entry in (attrs.get("srcset") or "").split(",") if entry]
        for url in filter(None, urls):
            name = url.rsplit("/", 1)[-1]
            if FIGURE.search(name):
                self.files.append(name)
                if tag == "img":
                    self.alts[name] = attrs.get("alt") or ""


def _images(page: Path) -> _Images:
    parser = _Images()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def _recorded_alt(name: str, language: str) -> str | None:
    stem = FIGURE.search(name)[1]
    for record in SOURCES.glob(f"*/images/{stem}.labels.json"):
        return json.loads(record.read_text(encoding="utf-8"))["alt"][language]
    return None


def test_chinese_pages_show_chinese_figures(layout) -> None:
    if "zh_CN" not in layout.languages:
        pytest.skip("no Chinese edition in this build")
    english, shown, checked = [], 0, 0
    for page in sorted(layout.languages["zh_CN"].rglob("*.html")):
        images = _images(page)
        shown += len(images.files)
        english += [f"{page.name}: {f}" for f in images.files if not FIGURE.search(f)[3]]
        if "/auto_examples/" not in page.as_posix():
            continue  # the recorded alt texts are the gallery's
        for name, alt in images.alts.items():
            recorded = _recorded_alt(name, "zh_CN")
            if recorded is not None:
                checked += 1
                assert alt == recorded, f"{page}: {name} has the alt {alt!r}, not {recorded!r}"
    assert shown >= 40, f"expected the Chinese pages to show the gallery's figures, found {shown}"
    performance = layout.languages["zh_CN"] / "explanation" / "performance.html"
    charts = set(_images(performance).files)
    assert len(charts) == 12, f"expected 3 charts in 4 versions on the Performance page: {charts}"
    assert checked >= 20, f"expected >= 20 gallery figures with a recorded alt, found {checked}"
    assert english == [], f"{len(english)} English figures on Chinese pages: {english[:5]}"


def test_english_pages_show_english_figures(layout) -> None:
    chinese, shown = [], 0
    for page in sorted(layout.main.rglob("*.html")):
        files = _images(page).files
        shown += len(files)
        chinese += [f"{page.name}: {name}" for name in files if FIGURE.search(name)[3]]
    assert shown >= 40, f"expected the English pages to show the gallery's figures, found {shown}"
    assert chinese == []


def test_recorded_alt_text_is_chinese() -> None:
    """The alt text drawn with each figure: Chinese wherever its English one has words."""
    records = sorted(SOURCES.glob("*/images/*.labels.json"))
    if not records:
        pytest.skip("no figure labels recorded: run nox -s docs")
    english_only = []
    for record in records:
        data = json.loads(record.read_text(encoding="utf-8"))
        alt = data["alt"]["zh_CN"]
        if alt.isascii() and re.search(r"[a-z]{3,}", alt):  # words, not names such as H_kv
            english_only.append((record.name, alt))
    assert english_only == []
