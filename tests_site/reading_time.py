"""How long each tutorial page takes a learner who meets it cold, counted from the built site.

Everything the page holds counts, folded cells and answers included: prose at
``WORDS_PER_MIN`` words a minute, code and printed output at ``LINES_PER_MIN`` lines a
minute. The article of each page is read from the built HTML, so the executed outputs are
counted as the reader sees them.

Calibration. The rates were first 200 words and 12 lines a minute, a fluent reader's, and gave
about 66 minutes for pages 1 to 6 as they stood before the core path was cut to an hour. Two
learners new to the subject read those pages cold, running each cell, answering the questions
and doing the exercise: one took 140 minutes in all, the other 168. The two rates are the
least-squares fit of those twelve page times to each page's words and lines: 102 words and
4.6 lines a minute (code and its output are read slowly: each line is run or checked), which
gave 155 minutes for those pages, 10 % under the second reader's time and 10 % over the
first's. An estimate to the nearest 5 minutes (``core_minutes``), not a measurement of every
reader.

Chinese. A Chinese page's prose counts its Han characters at ``CHARS_PER_MIN`` and its Latin
words (names, numbers, code in the text) at ``WORDS_PER_MIN``. The Chinese pages 1 to 6 that
the learners' times were fitted on held 8,527 Han characters and 2,069 Latin words where the
English held 6,156 words, with the same code: 2.09 characters for each English word they
translate, so ``CHARS_PER_MIN`` is 2.09 × 102 and the two editions of those pages read
equally long.

``python tests_site/reading_time.py docs/_build/html`` prints each tutorial page's estimate,
in both languages, and the core path's total (pages 1 to 6). ``test_tutorial_path.py`` holds
the total to ``CORE_BUDGET_MIN`` in both languages, and checks that the tutorial's index says
``core_minutes`` and that each page says its own minutes.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

# fitted to two cold learners' minutes on pages 1-6 (least squares over the twelve pages)
WORDS_PER_MIN = 102
LINES_PER_MIN = 4.6
CHARS_PER_MIN = 213  # Han characters: 2.09 per English word they translate (see above)
CORE_PAGES = ("01", "02", "03", "04", "05", "06")  # the lesson's path, in its order
CORE_BUDGET_MIN = 60  # the lesson's path: at most an hour, as the lesson itself
_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_WORD = re.compile(r"[^\W_]+(?:['’.-][^\W_]+)*")  # "don't", "3.45", "self-attention": one each
# a formula counts as its TeX (KaTeX's annotation), not as KaTeX's drawing (katex-html) or its
# MathML (the mrow beside the annotation): each is the same formula
_SKIP_CLASSES = {"headerlink", "visually-hidden", "sd-summary-state-marker", "katex-html"}
_VOID = {"br", "img", "hr", "meta", "link", "input", "wbr", "source"}  # no end tag to match


@dataclass(frozen=True)
class Estimate:
    page: str
    words: int
    lines: int
    chars: int = 0  # Han characters

    @property
    def minutes(self) -> float:
        return self.words / WORDS_PER_MIN + self.chars / CHARS_PER_MIN + self.lines / LINES_PER_MIN

    @property
    def stated(self) -> int:
        """The minutes a page states: at least 1."""
        return max(1, round(self.minutes))


class Article(HTMLParser):
    """The text of a page's ``<article>``: ``text`` (outside ``<pre>``) and ``code`` (each
    ``<pre>``), and the whole text in reading order, ``flow``, with ``unfolded``, the part that
    shows outside every ``<details>`` element (a folded cell or answer)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0  # open elements inside the article
        self.in_article = False
        self.skip = 0  # depth at which an element to skip opened (0: none)
        self.pre = 0
        self.folded = 0  # open <details> elements
        self.text: list[str] = []
        self.code: list[str] = []
        self.flow: list[str] = []
        self.unfolded: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _VOID:
            return
        classes = set((dict(attrs).get("class") or "").split())
        if not self.in_article:
            if tag == "article" and "bd-article" in classes:
                self.in_article, self.depth = True, 1
            return
        self.depth += 1
        if not self.skip and (
            classes & _SKIP_CLASSES or tag in {"script", "style", "button", "mrow"}
        ):
            self.skip = self.depth
        if tag == "pre":
            self.pre += 1
            self.code.append("")
        self.folded += tag == "details"

    def handle_endtag(self, tag: str) -> None:
        if not self.in_article or tag in _VOID:
            return
        if tag == "pre":
            self.pre -= 1
        self.folded -= tag == "details"
        if self.skip == self.depth:
            self.skip = 0
        self.depth -= 1
        if self.depth == 0:
            self.in_article = False

    def handle_data(self, data: str) -> None:
        if not self.in_article or self.skip:
            return
        if self.pre:
            self.code[-1] += data
        else:
            self.text.append(data)
        self.flow.append(data)
        if not self.folded:
            self.unfolded.append(data)


def read_article(html: Path) -> Article:
    parser = Article()
    parser.feed(html.read_text(encoding="utf-8"))
    return parser


def estimate(html: Path) -> Estimate:
    parser = read_article(html)
    text = " ".join(parser.text)
    words = len(_WORD.findall(_HAN.sub(" ", text)))
    lines = sum(1 for block in parser.code for line in block.splitlines() if line.strip())
    return Estimate(html.stem, words, lines, len(_HAN.findall(text)))


def tutorial_pages(site: Path, language: str = "en") -> list[Path]:
    """The numbered tutorial pages of a built site (``site/<language>/`` or its one language)."""
    root = site / language if (site / language / "index.html").is_file() else site
    return sorted((root / "tutorial").glob("[0-9][0-9]_*.html"))


def core_minutes(estimates: list[Estimate]) -> int:
    """The core path's minutes as the tutorial's index states them: to the nearest 5."""
    core = sum(e.minutes for e in estimates if e.page[:2] in CORE_PAGES)
    return 5 * round(core / 5)


def main(site: Path) -> int:
    out = []
    for language in ("en", "zh_CN"):
        estimates = [estimate(page) for page in tutorial_pages(site, language)]
        if not estimates:
            continue
        out.append(f"{language:<26} {'words':>6} {'chars':>6} {'lines':>6} {'minutes':>8}")
        out += [
            f"{e.page:<26} {e.words:>6} {e.chars:>6} {e.lines:>6} {e.minutes:>8.1f}"
            for e in estimates
        ]
        core = sum(e.minutes for e in estimates if e.page[:2] in CORE_PAGES)
        out.append(
            f"pages 1-6 (the core path): {core:.1f} minutes, about {core_minutes(estimates)} "
            f"(budget {CORE_BUDGET_MIN})\n"
        )
    if not out:
        sys.stderr.write(f"no tutorial pages under {site}: build the site first (nox -s docs)\n")
        return 1
    sys.stdout.write("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/_build/html")))
