"""How much of the Chinese site's prose is English: the share of English words, per page and overall.

Reads the built Chinese pages (``docs/_build/html/zh_CN``, after ``nox -s docs``) and counts the
words a reader sees in each page's article body (``article.bd-article``: not the navigation,
the sidebars or the footer), leaving out what may stay English:

- code, outputs and math: ``pre``, ``code``, ``kbd``, ``samp``, highlighted blocks, executed
  cell outputs, MathJax (``.math``);
- the API pages generated from the docstrings (``reference/generated/``): their English is
  the docstrings'; the reference's index page is counted, less its autosummary tables (the
  docstrings' one-line summaries);
- URLs shown as text;
- proper names, abbreviations, units and kept terms of ``GLOSSARY.md`` ("English that stays"),
  single letters (dimension names: B, L, h) and names shaped like code (``embed_dim``,
  ``float32``), which the gallery's titles show without markup.

Counting rule. Chinese text is cut into words by jieba, with the glossary's compounds as one
word each (``zh_CN/search-dict.txt``, the dictionary of the site's search index, so that
多头注意力 is one word, not three); a Chinese word is a jieba token with at least one CJK
character. An English word is a run of Latin letters (with ' and - inside), not preceded by a
letter, digit, dot or = and not followed by ( (``glossary.WORD``). Numbers and punctuation are
not words. The share is
``English / (English + Chinese)``.

Usage, from the repository root, in the docs environment (jieba, Beautiful Soup: both come
with ``nox -s docs``; Beautiful Soup is a dependency of the theme)::

    .nox/mha/bin/python docs/locale/english_share.py            # pages with English, then all
    .nox/mha/bin/python docs/locale/english_share.py --all      # every page
    .nox/mha/bin/python docs/locale/english_share.py --words    # and the English words themselves
    .nox/mha/bin/python docs/locale/english_share.py --max 2    # exit 1 above 2 % overall
"""

from __future__ import annotations

import argparse
import logging
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import glossary  # beside this script
import jieba
from bs4 import BeautifulSoup

LOCALE = Path(__file__).resolve().parent
SITE = LOCALE.parents[1] / "docs" / "_build" / "html" / "zh_CN"
DICTIONARY = LOCALE / "zh_CN" / "search-dict.txt"
# Pages that are not prose: the API pages, Sphinx's generated index and search pages.
SKIPPED = ("reference/generated/", "genindex.html", "search.html", "py-modindex.html")
# Elements whose text is code, output or math.
NOT_PROSE = (
    "pre, code, kbd, samp, script, style, .highlight, .math, mjx-container, .cell_output, "
    ".sphx-glr-script-out, .headerlink, table.autosummary"
)


URL = re.compile(r"https?://\S+")


@dataclass
class Page:
    name: str
    chinese: int = 0
    english: int = 0
    words: Counter = field(default_factory=Counter)

    @property
    def share(self) -> float:
        total = self.chinese + self.english
        return 100 * self.english / total if total else 0.0


def _tokenizer() -> jieba.Tokenizer:
    jieba.setLogLevel(logging.WARNING)
    tokenizer = jieba.Tokenizer()
    tokenizer.load_userdict(str(DICTIONARY))
    return tokenizer


def count(name: str, html: str, rules: glossary.Rules, tokenizer: jieba.Tokenizer) -> Page:
    """The Chinese and English words of one page's article body."""
    page = Page(name)
    soup = BeautifulSoup(html, "html.parser")
    article = soup.select_one("article.bd-article")
    if article is None:
        return page
    for element in article.select(NOT_PROSE):
        element.decompose()
    text = URL.sub(" ", article.get_text(" "))
    for phrase in rules.phrases:
        text = text.replace(phrase, " ")
    page.chinese = sum(1 for token in tokenizer.lcut(text) if glossary.CJK.search(token))
    for word in glossary.WORD.findall(text):
        if len(word) > 1 and word.lower() not in rules.english and not glossary.code_shaped(word):
            page.english += 1
            page.words[word] += 1
    return page


def measure(site: Path = SITE) -> list[Page]:
    rules = glossary.load()
    tokenizer = _tokenizer()
    pages = []
    for path in sorted(site.rglob("*.html")):
        name = path.relative_to(site).as_posix()
        if name.startswith(("_", *SKIPPED)) or name in SKIPPED:
            continue
        pages.append(count(name, path.read_text(encoding="utf-8"), rules, tokenizer))
    return pages


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=SITE, help="the built zh_CN folder")
    parser.add_argument(
        "--all", action="store_true", help="list every page, not only those with English"
    )
    parser.add_argument("--words", action="store_true", help="print each page's English words")
    parser.add_argument("--max", type=float, help="exit 1 when the overall share is above this %%")
    args = parser.parse_args(argv)
    if not (args.site / "index.html").is_file():
        sys.stderr.write(f"no built Chinese site at {args.site}: run nox -s docs first\n")
        return 2
    pages = measure(args.site)
    width = max(len(p.name) for p in pages)
    print(f"{'page':<{width}}  chinese  english  share")
    for page in pages:
        if page.english or args.all:
            print(f"{page.name:<{width}}  {page.chinese:7}  {page.english:7}  {page.share:4.1f} %")
            if args.words:
                print("    " + ", ".join(f"{w} ({n})" for w, n in page.words.most_common()))
    chinese = sum(p.chinese for p in pages)
    english = sum(p.english for p in pages)
    share = 100 * english / (chinese + english) if chinese + english else 0.0
    print(
        f"{len(pages)} pages: {chinese} Chinese words, {english} English words, "
        f"{share:.2f} % English"
    )
    return 1 if args.max is not None and share > args.max else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
