"""The tutorial's core path, read from the built site: short enough, and the exercise unspoiled.

- Pages 1 to 6 take at most ``CORE_BUDGET_MIN`` minutes to read, counting everything on them
  (``reading_time.py`` says how).
- Nothing above an answer shows it: no page before the exercise (page 4) holds a split that
  works for any head count, and on page 4 the answer's code, and the fix that ``mha.check``
  prints under the cell where the reader tries, are folded (inside a ``<details>`` element).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from reading_time import CORE_BUDGET_MIN, CORE_PAGES, estimate, read_article, tutorial_pages

# The exercise's answer: a split that reads its sizes from the tensor. Each string is a piece
# of that answer as the answer writes it, or as the check's fix prints it.
ANSWER = ("B, L, E = x.shape", "E // num_heads")


def _pages(layout, language: str) -> dict[str, Path]:
    return {page.stem[:2]: page for page in tutorial_pages(layout.root, language)}


def test_core_path_reads_within_budget(layout) -> None:
    estimates = [
        estimate(page) for number, page in _pages(layout, "en").items() if number in CORE_PAGES
    ]
    assert len(estimates) == len(CORE_PAGES), "a page of the core path is missing"
    total = sum(e.minutes for e in estimates)
    each = ", ".join(f"{e.page} {e.minutes:.1f}" for e in estimates)
    assert total <= CORE_BUDGET_MIN, f"pages 1-6 take {total:.1f} minutes ({each})"


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
