"""axe-core's full rule set, colour contrast included, on a sample of the site: one page of each
kind, in the light and the dark theme, in both languages, as a reader leaves it (the explorer
with a sentence typed and a head switched off, questions opened, search results shown). The
light theme's visits of the pages that need no action are test_pages.py's own (all of axe's
rules, on the whole page).

Scoped to the page's content (``#main-content``: the article, its "On this page" list and the
previous/next links), as pydata-sphinx-theme's own accessibility tests scope theirs, without its
highlighted code (pagechecks.SKIP_CODE: tests/test_code_contrast.py proves every token's
colours, in a few milliseconds, where axe took half its time on them). Every page gets axe's
structural rules on its visit in test_pages.py; the colour rules take most of axe's time, so
they run here.

The dark visits also take the dark screenshots for review and check that the gallery's figures
show on a light background, neither inverted nor faded.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from pagechecks import (
    FULL,
    SKIP_CODE,
    axe_problems,
    desktop_screenshot,
    figure_visibility_problems,
    gallery_figure_page,
    sample_pages,
    screenshot_pages,
)

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.browser

THEMES = ["light", "dark"]
LANGUAGES = ["en", "zh_CN"]
SEARCH = {"en": "attention", "zh_CN": "注意力"}  # words every edition has pages for


def _search_results(page) -> None:
    page.wait_for_function(
        "() => ((document.querySelector('#search-results p.search-summary') || {}).innerText"
        " || '').length > 0"
    )
    assert page.locator("#search-results ul.search li").count() >= 3


def _explorer_in_use(page) -> None:
    """As test_head_explorer leaves it: the builder open, words offered, head 1 off, a token
    chosen; the verdict and the note on a sentence of a kind the model never saw."""
    page.wait_for_selector(".head-explorer[data-ready]")
    page.locator(".head-explorer .hx-builder summary").click()
    field = page.locator(".head-explorer .hx-input")
    field.fill("the man near the boys is/are")
    field.fill("")
    field.press_sequentially("the lam")
    assert page.locator(".head-explorer .hx-suggestion").count() > 0, "no words offered"
    page.locator(".head-explorer .hx-switch[data-head='1']").click()
    page.locator(".head-explorer .hx-queries .hx-tok[data-index='0']").focus()


def _questions_opened(page) -> None:
    """Each question with a choice open: a wrong one (its explanation) in the first, the right
    one in the others."""
    questions = page.locator(".mha-question").all()
    assert len(questions) >= 2, "expected questions at the end of the page"
    for number, question in enumerate(questions):
        choice = question.locator("details.mha-wrong" if number == 0 else "details.mha-right")
        choice.first.locator("summary").click()
        assert choice.first.locator(".mha-answer").is_visible()


# The kinds that need the reader's action: kind -> (page in a language's folder, the action).
# The others (pagechecks.sample_pages) run here in the dark theme; in the light one, all of
# axe's rules run on their visit in test_pages.py.
IN_USE: dict[str, tuple[str, Callable]] = {
    "questions": ("tutorial/01_one_head_to_many.html", _questions_opened),
    "search results": ("search.html?q={query}", _search_results),
    "head explorer": ("explanation/what-heads-learn.html", _explorer_in_use),
}
STATIC = ["home", "tutorial", "gallery example", "how-to", "explanation", "API page"]
SAMPLE = [(kind, "dark") for kind in STATIC] + [
    (kind, theme) for kind in IN_USE for theme in THEMES
]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("kind", "theme"), SAMPLE)
def test_full_rules_on_a_sample(
    themed, axe, layout, screenshot_dir: Path, kind: str, theme: str, language: str
) -> None:
    if language not in layout.languages:
        pytest.skip(f"this build has no {language} folder")
    where, action = IN_USE[kind] if kind in IN_USE else (sample_pages(layout)[kind], None)
    rel = where.format(query=SEARCH[language])
    prefix = f"{language}/" if layout.multilingual else ""
    watch = themed(theme)
    watch.goto(prefix + rel, wait_until="load")
    watch.wait_for_math()
    watch.settle()
    page = watch.page
    assert page.evaluate("() => document.documentElement.dataset.theme") == theme
    if action is not None:
        action(page)
    problems = list(watch.problems)
    if theme == "dark":  # what the dark visits add: the screenshots, the figures' background
        names = {path: name for name, path in screenshot_pages(layout).items()}
        if prefix + rel in names:
            problems += desktop_screenshot(page, screenshot_dir, names[prefix + rel], "dark")
        if prefix + rel == gallery_figure_page(layout):
            problems += figure_visibility_problems(page, "dark")
    with watch.unwatched():  # axe last; what it requests is not the page's
        content = {"include": [["#main-content"]], "exclude": SKIP_CODE}
        problems += axe_problems(axe, page, context=content, options=FULL)
    assert not problems, f"{prefix + rel} ({theme}):\n" + "\n".join(problems)


def test_the_sample_has_every_kind(layout) -> None:
    """Each page of the sample is built in every language (a renamed page must not leave its
    kind unchecked), and the dark screenshots' pages are among them."""
    assert set(STATIC) == set(sample_pages(layout))
    pages = [*sample_pages(layout).values(), *(where for where, _ in IN_USE.values())]
    for language in LANGUAGES:
        folder = layout.languages.get(language)
        for rel in pages if folder is not None else []:
            assert (folder / rel.split("?")[0]).is_file(), f"{language}/{rel} is not built"
    if layout.multilingual:
        sampled = {f"{language}/{rel}" for language in LANGUAGES for rel in pages}
        missing = set(screenshot_pages(layout).values()) - sampled
        assert not missing, f"dark screenshots of pages outside the sample: {missing}"
