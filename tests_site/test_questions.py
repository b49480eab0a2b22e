"""Questions that answer back (docs/_ext/questions.py), in Chromium, in both languages.

Each page with questions is opened as a reader would, on a 390 px phone in the dark theme:
nothing of an answer shows before a choice is opened; a wrong choice, opened with a tap, says it
is wrong and why (its own explanation), a right one, opened with the keyboard alone, says it is
right; opening one closes the other choices of the same question. With any explanation open,
nothing is wider than the screen, and axe's structural rules find nothing in the opened
questions. (Every page is also opened by test_pages; axe's colour rules run on a page of
opened questions in both themes in test_accessibility.py.)
"""

from __future__ import annotations

import pytest
from conftest import Watch
from pagechecks import axe_problems

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.browser

PAGES = [  # the core path, each page ending with its questions, and page 8
    "tutorial/01_one_head_to_many.html",
    "tutorial/02_walkthrough.html",
    "tutorial/03_pytorch_module.html",
    "tutorial/04_exercise.html",
    "tutorial/05_errors.html",
    "tutorial/06_summary.html",
    "tutorial/08_tiled_attention.html",
]
VERDICTS = {"en": ("Right.", "Not this one."), "zh_CN": ("答对了。", "答错了。")}
PHONE = {"width": 390, "height": 844}
# each choice of a question opened in turn (in one call): the page's width with each open
OPEN_EACH_JS = """(question) => [...question.querySelectorAll('summary')].flatMap((summary) => {
  summary.parentElement.open = true;
  const width = document.documentElement.scrollWidth;
  return width > 390 ? [`${width} px: ${summary.innerText}`] : [];
})"""


@pytest.fixture
def reader(themed, layout):
    """Factory: a fresh page on ``path`` in ``language``, at ``viewport``, in ``theme``."""

    def make(path: str, language: str, viewport: dict, theme: str = "light") -> Watch:
        if language not in layout.languages:
            pytest.skip(f"this build has no {language} folder")
        watch = themed(theme, viewport)
        watch.goto((f"{language}/" if layout.multilingual else "") + path)
        return watch

    return make


def answers_shown(question) -> list[bool]:
    return [a.is_visible() for a in question.locator(".mha-answer").all()]


@pytest.mark.parametrize("language", ["en", "zh_CN"])
@pytest.mark.parametrize("path", PAGES)
def test_choosing_answers_back(reader, axe, path: str, language: str) -> None:
    """On a 390 px phone in the dark theme (the desktop in light is the page sweep's)."""
    watch = reader(path, language, PHONE, theme="dark")
    page = watch.page
    right_word, wrong_word = VERDICTS[language]
    questions = page.locator(".mha-question").all()
    assert len(questions) >= 2, f"{path}: expected questions at the end of the page"
    for number, question in enumerate(questions):
        choices = question.locator("details.mha-choice")
        assert choices.count() >= 2
        assert not any(answers_shown(question)), f"question {number}: an answer shows unasked"
        wrong = question.locator("details.mha-wrong").first
        right = question.locator("details.mha-right")
        assert right.count() == 1, f"question {number}: expected exactly one right choice"

        wrong.locator("summary").click()  # the mouse (a tap), on a wrong choice
        answer = wrong.locator(".mha-answer")
        assert answer.is_visible()
        verdict = answer.locator(".mha-verdict").inner_text().strip()
        assert verdict == wrong_word, f"question {number}: {verdict!r}"
        why = answer.inner_text().replace(verdict, "", 1).strip()
        assert len(why) > 10, f"question {number}: a wrong choice without its explanation"
        assert not right.locator(".mha-answer").is_visible()

        right.locator("summary").focus()  # the keyboard alone, on the right choice
        page.keyboard.press("Enter")
        assert right.locator(".mha-answer").is_visible()
        assert right.locator(".mha-verdict").inner_text().strip() == right_word
        assert not answer.is_visible(), "opening a choice should close the others"
        if language == "zh_CN":  # the explanation is Chinese too, not only the verdict
            assert any("\u4e00" <= c <= "\u9fff" for c in why), f"question {number}: {why!r}"

        wide = question.evaluate(OPEN_EACH_JS)  # every explanation, in turn
        assert not wide, f"wider than {PHONE['width']} px with these choices open: {wide}"
        right.evaluate("d => { d.open = true; }")  # left open for axe
    assert not watch.problems, "\n".join(watch.problems)
    serious = axe_problems(axe, page, context=".mha-question")  # axe last
    assert not serious, "\n".join(serious)
