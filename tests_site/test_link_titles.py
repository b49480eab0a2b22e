"""On the Chinese pages, a link that shows another page's title reads as a quotation.

A title set bare inside a Chinese sentence garbles it: "由 根据代码绘制的形状流程图 根据本包自己的追踪
结果绘制" reads as one run of words, and 解释 (the Explanation section) reads as the verb "explain".
A link whose text is its target's title must sit in 「」 (inside or around the link) or at a
sentence's edge, next to punctuation; a link with words of its own (第 5 页) is part of the
sentence and free.
"""

from __future__ import annotations

import re
import unicodedata
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest

QUOTES = "「」『』“”《》\"'"


def _is_word(char: str) -> bool:
    """A letter or an ideograph: the text around it runs on as one sentence."""
    return bool(char) and (char.isalnum() or unicodedata.category(char).startswith("Lo"))


class _Links(HTMLParser):
    """Each internal link's text, target and the text right before and after it, per block."""

    BLOCKS = frozenset({"p", "li", "dd", "td", "th", "figcaption", "h1", "h2", "h3", "h4"})
    VOID = frozenset({"br", "img", "hr", "input", "meta", "link", "wbr", "source"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.in_article = False
        self.block: list[str] | None = None
        self.link: dict | None = None
        self.found: list[tuple[str, str, str, str]] = []  # before, text, after, href
        self.pending: list[tuple[int, str, str]] = []  # (index in block, text, href)
        self.open: list[bool] = []  # for each open element: whether its text is skipped

    @property
    def skip(self) -> bool:
        return any(self.open)

    def handle_starttag(self, tag: str, attrs) -> None:
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        if tag == "article":
            self.in_article = True
        if not self.in_article:
            return
        if tag in self.VOID:
            return
        self.open.append(tag in {"pre", "code"} or "headerlink" in classes)
        if tag in self.BLOCKS:
            self.block, self.pending = [], []
        if (
            tag == "a"
            and self.block is not None
            and "internal" in classes
            and not any(self.open[:-1])
        ):
            self.link = {"start": len("".join(self.block)), "href": attrs.get("href", "")}

    def handle_endtag(self, tag: str) -> None:
        if not self.in_article:
            return
        if tag == "article":
            self.in_article = False
        if tag in self.VOID:
            return
        if self.open:
            self.open.pop()
        if tag == "a" and self.link is not None and self.block is not None:
            text = "".join(self.block)[self.link["start"] :]
            self.pending.append((self.link["start"], text, self.link["href"]))
            self.link = None
        if tag in self.BLOCKS and self.block is not None:
            whole = "".join(self.block)
            for start, text, href in self.pending:
                before = whole[:start].rstrip()[-1:]
                after = whole[start + len(text) :].lstrip()[:1]
                self.found.append((before, text.strip(), after, href))
            self.block, self.pending = None, []

    def handle_data(self, data: str) -> None:
        if self.in_article and self.block is not None and (self.link is not None or not self.skip):
            self.block.append(data)


def _title(page: Path) -> str:
    found = re.search(r"<h1[^>]*>(.*?)</h1>", page.read_text(encoding="utf-8"), re.DOTALL)
    text = re.sub(r"<[^>]+>", "", found[1]) if found else ""
    return text.replace("#", "").strip()


def bare_titles(root: Path, page: Path) -> list[str]:
    """The links on ``page`` that show their target's title bare inside a sentence."""
    parser = _Links()
    parser.feed(page.read_text(encoding="utf-8"))
    problems = []
    for before, text, after, href in parser.found:
        path = urlsplit(href).path
        if not path.endswith(".html") or not re.search(r"[\u4e00-\u9fff]", text):
            continue
        target = (page.parent / path).resolve()
        if not target.is_file():
            problems.append(f"{page.relative_to(root)}: [{text}] links to a missing {path}")
            continue
        if text != _title(target):
            continue  # words of the sentence's own, or a quoted title (「…」 inside the link)
        if (before in QUOTES or not _is_word(before)) and (after in QUOTES or not _is_word(after)):
            continue
        problems.append(f"{page.relative_to(root)}: …{before}[{text}]{after}…")
    return problems


def test_a_title_inside_a_chinese_sentence_is_quoted(layout) -> None:
    if "zh_CN" not in layout.languages:
        pytest.skip("this build has no zh_CN folder")
    root = layout.languages["zh_CN"]
    pages = sorted(root.rglob("*.html"))
    assert pages, "no Chinese pages"
    problems = [problem for page in pages for problem in bare_titles(root, page)]
    assert not problems, "link titles set bare inside sentences:\n" + "\n".join(problems)
