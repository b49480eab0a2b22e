"""The tutorial's core path, read from the built site: its stated length, its answers folded,
its Chinese outputs clean.

- Pages 1 to 6 take at most ``CORE_BUDGET_MIN`` minutes to read, counting everything on them
  (``reading_time.py`` says how), in both languages; the tutorial's index says how long, and
  each page how long it takes: the figures the script computes for the English pages, rounded
  as it rounds them, so that the text and the estimate cannot drift apart.
- Nothing above an answer shows it: no page before the exercise (page 4) gives the shapes with
  4 heads, and on page 4 they show only folded (inside a ``<details>`` element).
- In the Chinese edition, no code or printed output of the tutorial's pages and of the gallery
  examples they link puts a space after a full-width colon (「：」): ``print``'s separator.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from reading_time import (
    CORE_BUDGET_MIN,
    CORE_PAGES,
    core_minutes,
    estimate,
    read_article,
    tutorial_pages,
)

# The exercise's answer: the shapes with 4 heads, as the answer and the program print them.
ANSWER = ("(2, 4, 5, 16)", "(2, 4, 5, 5)")
# how the tutorial's index states the core path's length, and a page its own, in each language
STATED = {
    "en": re.compile(r"take about (\d+) minutes"),
    "zh_CN": re.compile(r"约\D{0,4}?(\d+) 分钟"),
}
PAGE_STATES = {"en": re.compile(r"bout (\d+) minutes?"), "zh_CN": re.compile(r"约 (\d+) 分钟")}
GALLERY = ("01_shapes", "02_pytorch", "03_exercise", "04_errors", "05_pictures")  # linked by 1-6


def _pages(layout, language: str) -> dict[str, Path]:
    return {page.stem[:2]: page for page in tutorial_pages(layout.root, language)}


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_core_path_reads_within_budget(layout, language: str) -> None:
    if language not in layout.languages:
        pytest.skip(f"this build has no {language} folder")
    estimates = [
        estimate(page) for number, page in _pages(layout, language).items() if number in CORE_PAGES
    ]
    assert len(estimates) == len(CORE_PAGES), "a page of the core path is missing"
    total = sum(e.minutes for e in estimates)
    each = ", ".join(f"{e.page} {e.minutes:.1f}" for e in estimates)
    assert total <= CORE_BUDGET_MIN, f"{language}: pages 1-6 take {total:.1f} minutes ({each})"


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_each_page_states_its_minutes(layout, language: str) -> None:
    if language not in layout.languages:
        pytest.skip(f"this build has no {language} folder")
    english = {e.page[:2]: e for e in map(estimate, tutorial_pages(layout.root, "en"))}
    wrong = []
    for number, page in _pages(layout, language).items():
        if number not in CORE_PAGES:
            continue
        stated = PAGE_STATES[language].findall("".join(read_article(page).flow))[:1]
        if stated != [str(english[number].stated)]:
            wrong.append(f"{page.name} says {stated}, reading_time.py {english[number].stated}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_index_states_the_reading_time(layout, language: str) -> None:
    if language not in layout.languages:
        pytest.skip(f"this build has no {language} folder")
    estimates = [estimate(page) for page in tutorial_pages(layout.root, "en")]
    pages = tutorial_pages(layout.root, language)
    index = pages[0].parent / "index.html"
    stated = STATED[language].findall("".join(read_article(index).flow))
    assert stated == [str(core_minutes(estimates))], (
        f"{index}: says {stated} minutes, reading_time.py says {core_minutes(estimates)}"
    )


def test_no_space_after_a_full_width_colon(layout) -> None:
    if "zh_CN" not in layout.languages:
        pytest.skip("this build has no zh_CN folder")
    root = tutorial_pages(layout.root, "zh_CN")[0].parent.parent
    pages = [*tutorial_pages(layout.root, "zh_CN")]
    pages += [p for g in GALLERY for p in sorted((root / "auto_examples" / g).glob("plot_*.html"))]
    assert len(pages) > 20, "the tutorial's pages or its gallery are missing"
    found = [
        f"{page.relative_to(root)}: {line.strip()!r}"
        for page in pages
        for block in read_article(page).code
        for line in block.splitlines()
        if "： " in line
    ]
    assert not found, "a space after 「：」:\n" + "\n".join(found)


def test_the_chinese_pages_say_how_to_get_chinese_reports(layout) -> None:
    """Code copied from a Chinese page reports in Chinese: the code of every page that imports
    the package sets its language after ``import mha`` (``mha.set_language("zh_CN")``), and the
    tutorial's index, where the pages are installed, says so."""
    if "zh_CN" not in layout.languages:
        pytest.skip("this build has no zh_CN folder")
    pages = tutorial_pages(layout.root, "zh_CN")
    setting = 'mha.set_language("zh_CN")'
    coded = [p for p in pages if any("import mha" in b for b in read_article(p).code)]
    silent = [p.name for p in coded if not any(setting in b for b in read_article(p).code)]
    assert len(coded) >= 6 and not silent, f"no {setting} in the code of {silent}"
    index = "".join(read_article(pages[0].parent / "index.html").text)
    assert setting in index, f"the Chinese tutorial's index does not say {setting}"


def _text(page: Path) -> tuple[str, str]:
    """The article's whole text, and its unfolded text."""
    article = read_article(page)
    return "".join(article.flow), "".join(article.unfolded)


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_exercise_is_not_answered_above_its_answer(layout, language: str) -> None:
    if language not in layout.languages:
        pytest.skip(f"this build has no {language} folder")
    pages = _pages(layout, language)
    for number in ("01", "02", "03"):
        text, _ = _text(pages[number])
        shown = [piece for piece in ANSWER if piece in text]
        assert not shown, f"{pages[number].name} shows the exercise's answer: {shown}"
    exercise = pages["04"]
    text, unfolded = _text(exercise)
    assert all(piece in text for piece in ANSWER), "page 4 lost its answer"
    shown = [piece for piece in ANSWER if piece in unfolded]
    assert not shown, f"{exercise.name} shows the answer unfolded: {shown}"
