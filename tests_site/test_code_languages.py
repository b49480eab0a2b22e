"""Both editions show the same code; the Chinese one with Chinese comments and labels.

A Chinese page's code blocks come from its catalog, where only their comments and the text of
their strings are translated (docs/locale/catalogs.py, ``code-block`` entries). Read from the
built pages: every code block of every Chinese page, its comments and strings removed, equals
the English page's block, and the Chinese comments are there. Printed outputs are not code:
each edition shows what its own code printed (``test_translated_downloads.py``).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from pagechecks import CJK

COMMENT_CLASSES = {"c", "c1", "ch", "cm", "cs", "cp", "cpf"}  # Pygments' comment tokens
# Pygments' string tokens (an f-string's fields, "si" and what they hold, stay code)
STRING_CLASSES = {"s", "s1", "s2", "sa", "sb", "sc", "sd", "sh", "sx", "dl", "se"}
OUTPUT_CLASSES = {"cell_output", "sphx-glr-script-out"}  # myst-nb's and sphinx-gallery's
# the font list a Chinese example that draws sets (translated_sources.with_fonts), strings removed
FONT_LIST = re.compile(r"^plt\.rcParams\[\] = \[\n(?:\s*,\n)*\]\n?", re.MULTILINE)


class _CodeBlocks(HTMLParser):
    """Each ``<pre>`` of a page: its text without comments, and its comments."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[str] = []
        self.comments: list[str] = []
        self._pre = 0
        self._spans: list[str] = []  # for each open span: "comment", "string" or ""
        self._divs: list[bool] = []  # for each open div: does it hold an output?
        self._text: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        classes = set((dict(attrs).get("class") or "").split())
        if tag == "div":
            self._divs.append(bool(classes & OUTPUT_CLASSES))
        elif tag == "pre" and not any(self._divs):
            self._pre += 1
            self._text = []
        elif tag == "span" and self._pre:
            kind = "comment" if classes & COMMENT_CLASSES else ""
            kind = kind or ("string" if classes & STRING_CLASSES else "")
            self._spans.append(kind or (self._spans[-1] if self._spans else ""))

    def handle_endtag(self, tag) -> None:
        if tag == "div" and self._divs:
            self._divs.pop()
        elif tag == "pre" and self._pre:
            self._pre -= 1
            lines = [line.rstrip() for line in "".join(self._text).split("\n")]
            self.blocks.append("\n".join(line for line in lines if line.strip()))
        elif tag == "span" and self._pre and self._spans:
            self._spans.pop()

    def handle_data(self, data) -> None:
        if not self._pre:
            return
        kind = self._spans[-1] if self._spans else ""
        if kind == "comment":
            self.comments.append(data)
        elif kind == "":
            self._text.append(data)


def _code(page: Path) -> _CodeBlocks:
    parser = _CodeBlocks()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def test_chinese_pages_show_the_english_code_with_chinese_comments(layout) -> None:
    if "zh_CN" not in layout.languages:
        pytest.skip("no Chinese edition in this build")
    chinese, english = layout.languages["zh_CN"], layout.main
    differ, blocks, translated = [], 0, 0
    for page in sorted(chinese.rglob("*.html")):
        if "_static" in page.parts or "_sources" in page.parts:
            continue
        zh, en = _code(page), _code(english / page.relative_to(chinese))
        zh.blocks = [FONT_LIST.sub("", block).rstrip("\n") for block in zh.blocks]
        blocks += len(zh.blocks)
        translated += sum(1 for c in zh.comments if CJK.search(c))
        if zh.blocks != en.blocks:
            pairs = [(a, b) for a, b in zip(en.blocks, zh.blocks, strict=False) if a != b]
            first = pairs[0] if pairs else (len(en.blocks), len(zh.blocks))
            differ.append(f"{page.relative_to(chinese)}: {first!r}"[:300])
    assert blocks >= 300, f"expected the site's code blocks, found {blocks}"
    assert translated >= 300, f"expected >= 300 Chinese comments, found {translated}"
    assert differ == [], f"{len(differ)} pages whose code differs between editions: {differ[:3]}"
