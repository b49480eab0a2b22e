"""axe-core's full rule set, colour contrast included, on the pages of the sample that a reader
must act on first: search results shown, and the explorer with a sentence typed and a head
switched off (axe on the explorer); in both languages, in the light theme and then, switched in
place, in the dark.
The sample's other pages get all of axe's rules on their visit in test_pages.py (questions
opened among them).

Scoped to the page's content (``#main-content``: the article, its "On this page" list and the
previous/next links), as pydata-sphinx-theme's own accessibility tests scope theirs, without its
highlighted code (pagechecks.SKIP_CODE: tests/test_code_contrast.py proves every token's
colours, in a few milliseconds, where axe took half its time on them).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pagechecks import (
    ARTICLE,
    BEYOND_STRUCTURE,
    FULL,
    QUESTIONS_SAMPLE,
    SEARCH_DONE_JS,
    axe_problems,
    sample_pages,
    screenshot_pages,
    set_theme,
)

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.browser

LANGUAGES = ["en", "zh_CN"]
# a word with a few pages in each edition: results with their summaries, not a hundred
SEARCH = {"en": "checkpoint", "zh_CN": "检查点"}


def _search_results(page) -> None:
    page.wait_for_function(SEARCH_DONE_JS)
    assert page.locator("#search-results ul.search li").count() >= 3


def _explorer_in_use(page) -> None:
    """As test_head_explorer leaves it: the builder open, head 1 off and a token chosen on a
    sentence of a kind the model never saw; then words offered for a word being typed, the
    drawing of that sentence greyed."""
    page.wait_for_selector(".head-explorer[data-ready]")
    page.locator(".head-explorer .hx-builder summary").click()
    field = page.locator(".head-explorer .hx-input")
    field.fill("the man near the boys is/are")
    page.locator(".head-explorer .hx-switch[data-head='1']").click()
    page.locator(".head-explorer .hx-queries .hx-tok[data-index='0']").focus()
    field.fill("")
    field.press_sequentially("the lam")
    assert page.locator(".head-explorer .hx-suggestion").count() > 0, "no words offered"


# The kinds that need the reader's action: kind -> (page in a language's folder, the action,
# what of the page the reader acted on: axe's context).
IN_USE: dict[str, tuple[str, Callable, dict]] = {
    "search results": ("search.html?q={query}", _search_results, ARTICLE),
    "head explorer": (
        "explanation/what-heads-learn.html",
        _explorer_in_use,
        {"include": [[".head-explorer"]]},
    ),
}


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("kind", IN_USE)
def test_full_rules_in_use(themed, layout, kind: str, language: str) -> None:
    if language not in layout.languages:
        pytest.skip(f"this build has no {language} folder")
    where, action, scope = IN_USE[kind]
    rel = where.format(query=SEARCH[language])
    prefix = f"{language}/" if layout.multilingual else ""
    watch = themed("light")
    watch.goto(prefix + rel, wait_until="load")
    action(watch.page)
    watch.settle()
    problems = list(watch.problems)
    with watch.unwatched():  # axe last; what it requests is not the page's
        for theme in ("light", "dark"):
            set_theme(watch.page, theme)
            theme_now = watch.page.evaluate("() => document.documentElement.dataset.theme")
            assert theme_now == theme
            rules = FULL if theme == "light" else BEYOND_STRUCTURE  # the structure: once
            problems += [f"{theme}: {p}" for p in axe_problems(watch.page, scope, rules)]
    assert not problems, f"{prefix + rel}:\n" + "\n".join(problems)


def test_the_sample_has_every_kind(layout) -> None:
    """Each page of the sample is built in every language (a renamed page must not leave its
    kind unchecked), and the screenshots' pages are among them (their dark screenshots are
    taken on the sample's visits)."""
    assert set(sample_pages(layout)) == {
        "home", "tutorial", "gallery example", "how-to", "explanation", "API page"
    }  # fmt: skip
    pages = [*sample_pages(layout).values(), QUESTIONS_SAMPLE]
    pages += [where for where, *_ in IN_USE.values()]
    for language in LANGUAGES:
        folder = layout.languages.get(language)
        assert folder is not None, f"no {language} edition in this build"
        for rel in pages:
            assert (folder / rel.split("?")[0]).is_file(), f"{language}/{rel} is not built"
    if layout.multilingual:
        sampled = {f"{language}/{rel}" for language in LANGUAGES for rel in pages}
        missing = set(screenshot_pages(layout).values()) - sampled
        assert not missing, f"screenshots of pages outside the sample: {missing}"
