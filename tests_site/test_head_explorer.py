"""The head explorer on What heads learn, in Chromium: it draws the embedded JSON's weights.

Every line of the drawing carries the layer, head, query, key and weight it stands for; each
check compares the lines drawn with the row of the JSON that the state shown should draw (the
initial state, another head, another token, another layer or sentence), with the mouse and with
the keyboard only. Also: it fits a phone, its colours read in the dark theme, the Chinese page
is in Chinese with a gloss under each token, axe finds nothing serious, and the page logs no
error and asks no other host for anything (the Watch of conftest.py).
"""

from __future__ import annotations

import json
import re

import pytest
from conftest import Watch
from pagechecks import axe_problems

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.browser

PAGE = "explanation/what-heads-learn.html"
EXPLORER = ".head-explorer[data-ready]"
MIN_WEIGHT = 0.01  # the script draws no lighter line
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
LANGUAGES = ["en", "zh_CN"]

LINES_JS = """() => [...document.querySelectorAll('.head-explorer .hx-line')].map((l) => ({
  layer: Number(l.dataset.layer), head: Number(l.dataset.head), query: Number(l.dataset.query),
  key: Number(l.dataset.key), weight: Number(l.dataset.weight),
  opacity: Number(l.getAttribute('stroke-opacity'))}))"""
DATA_JS = "() => JSON.parse(document.querySelector('.head-explorer > script.hx-data').textContent)"
TEXT_JS = "() => JSON.parse(document.querySelector('.head-explorer > script.hx-text').textContent)"
ACTIVE_JS = """() => { const a = document.activeElement;
  return a ? {cls: a.getAttribute('class') || '', index: a.dataset ? a.dataset.index : null,
              head: a.dataset ? a.dataset.head : null, tag: a.tagName} : null; }"""


@pytest.fixture
def explorer(themed, layout):
    """Factory: a fresh page on the explorer in ``language``, at ``viewport``, in ``theme``."""

    def make(language: str, theme: str = "light", viewport: dict = DESKTOP) -> Watch:
        if language not in layout.languages:
            pytest.skip(f"this build has no {language} folder")
        watch = themed(theme, viewport)
        prefix = f"{language}/" if layout.multilingual else ""
        watch.goto(prefix + PAGE)
        watch.page.wait_for_selector(EXPLORER)
        watch.page.locator(EXPLORER).scroll_into_view_if_needed()
        return watch

    return make


def drawn(page) -> dict[int, list[tuple[int, int, int, float]]]:
    """The lines drawn, by head: (layer, query, key, weight), sorted."""
    by_head: dict[int, list] = {}
    for line in page.evaluate(LINES_JS):
        assert line["opacity"] == line["weight"], f"a line's opacity is not its weight: {line}"
        by_head.setdefault(line["head"], []).append(
            (line["layer"], line["query"], line["key"], line["weight"])
        )
    return {head: sorted(lines) for head, lines in by_head.items()}


def expected(data: dict, sentence: int, layer: int, heads: list[int], queries=None) -> dict:
    """What the lines should be: each shown head's weights of ``queries`` (default: all)."""
    weights = data["sentences"][sentence]["weights"][layer]
    out = {}
    for head in heads:
        rows = weights[head]
        chosen = range(len(rows)) if queries is None else queries
        out[head] = sorted(
            (layer, q, k, w) for q in chosen for k, w in enumerate(rows[q]) if w >= MIN_WEIGHT
        )
    return {head: lines for head, lines in out.items() if lines}


def initial_role(data: dict) -> dict:
    roles = data["roles"]
    return roles.get("agreement") or roles.get(data["sentences"][0]["task"]) or {
        "layer": 0, "head": 0
    }  # fmt: skip


def pressed_heads(page) -> list[int]:
    return page.eval_on_selector_all(
        ".head-explorer .hx-head[aria-pressed='true']",
        "bs => bs.map((b) => Number(b.dataset.head))",
    )


def summary(page) -> str:
    return page.inner_text(".head-explorer .hx-summary")


def token(page, index: int):
    return page.locator(f".head-explorer .hx-queries .hx-tok[data-index='{index}']")


def other_head(data: dict, head: int) -> int:
    return (head + 1) % data["heads"]


# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_initial_state_draws_the_json(explorer, language: str) -> None:
    """The page opens on the claim: the first sentence, the agreement head, its query row."""
    watch = explorer(language)
    page = watch.page
    data = page.evaluate(DATA_JS)
    role = initial_role(data)
    first = data["sentences"][0]
    assert drawn(page) == expected(data, 0, role["layer"], [role["head"]], [first["query"]])
    assert pressed_heads(page) == [role["head"]]
    assert page.input_value(".head-explorer select") == "0"
    checked = page.locator(".head-explorer .hx-layers input:checked")
    assert checked.get_attribute("value") == str(role["layer"])
    assert token(page, first["query"]).get_attribute("aria-pressed") == "true"
    assert page.locator(".head-explorer .hx-queries .hx-tok").count() == len(first["tokens"])
    # the summary names the query token and its largest weight
    row = first["weights"][role["layer"]][role["head"]][first["query"]]
    top = max(range(len(row)), key=row.__getitem__)
    text = summary(page)
    assert first["tokens"][first["query"]] in text and first["tokens"][top] in text
    assert f"{row[top]:.2f}" in text
    assert not watch.problems, "\n".join(watch.problems)


@pytest.mark.parametrize("language", LANGUAGES)
def test_heads_tokens_layers_and_sentences_change_the_drawing(explorer, language: str) -> None:
    watch = explorer(language)
    page = watch.page
    data = page.evaluate(DATA_JS)
    role = initial_role(data)
    layer, head, query = role["layer"], role["head"], data["sentences"][0]["query"]
    before = drawn(page)
    # another head on: both heads' rows
    second = other_head(data, head)
    page.click(f".head-explorer .hx-head[data-head='{second}']")
    assert drawn(page) == expected(data, 0, layer, [head, second], [query])
    # the first one off, another token focused: the second head's row of that token
    page.click(f".head-explorer .hx-head[data-head='{head}']")
    assert pressed_heads(page) == [second]
    other = query - 1
    token(page, other).focus()
    now = drawn(page)
    assert now == expected(data, 0, layer, [second], [other])
    assert now != before
    assert data["sentences"][0]["tokens"][other] in summary(page)
    # pointing at a token shows its row; leaving it, the chosen token's again
    token(page, 0).hover()
    assert drawn(page) == expected(data, 0, layer, [second], [0])
    page.mouse.move(0, 0)
    assert drawn(page) == expected(data, 0, layer, [second], [other])
    # another layer
    layer2 = (layer + 1) % data["layers"]
    page.check(f".head-explorer .hx-layers input[value='{layer2}']")
    assert drawn(page) == expected(data, 0, layer2, [second], [other])
    # another sentence: its tokens, its query row
    last = len(data["sentences"]) - 1
    page.select_option(".head-explorer select", str(last))
    sentence = data["sentences"][last]
    assert page.locator(".head-explorer .hx-queries .hx-tok").count() == len(sentence["tokens"])
    assert drawn(page) == expected(data, last, layer2, [second], [sentence["query"]])
    assert not watch.problems, "\n".join(watch.problems)


def _tab_to(page, selector: str, limit: int = 300, backwards: bool = False) -> None:
    """Press Tab (or Shift+Tab) until the focused element matches ``selector``."""
    for _ in range(limit):
        page.keyboard.press("Shift+Tab" if backwards else "Tab")
        if page.evaluate(f"() => !!document.activeElement?.matches({json.dumps(selector)})"):
            return
    raise AssertionError(f"Tab never reached {selector}")


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_keyboard_alone_works_the_explorer(explorer, language: str) -> None:
    watch = explorer(language)
    page = watch.page
    data = page.evaluate(DATA_JS)
    role = initial_role(data)
    layer, head, query = role["layer"], role["head"], data["sentences"][0]["query"]
    second = other_head(data, head)
    # Tab reaches the sentence list, the layers and each head; Space and Enter toggle a head
    _tab_to(page, ".head-explorer select")
    _tab_to(page, f".head-explorer .hx-head[data-head='{second}']", limit=data["heads"] + 3)
    page.keyboard.press("Space")
    assert pressed_heads(page) == sorted({head, second})
    back = head < second
    _tab_to(page, f".head-explorer .hx-head[data-head='{head}']", data["heads"], backwards=back)
    page.keyboard.press("Enter")
    assert pressed_heads(page) == [second]
    # the next Tab stop after the heads is the token chosen: the query
    _tab_to(page, ".head-explorer .hx-tok", limit=data["heads"] + 2)
    assert page.evaluate(ACTIVE_JS)["index"] == str(query)
    assert drawn(page) == expected(data, 0, layer, [second], [query])
    page.keyboard.press("ArrowUp")
    assert page.evaluate(ACTIVE_JS)["index"] == str(query - 1)
    assert drawn(page) == expected(data, 0, layer, [second], [query - 1])
    page.keyboard.press("Home")
    assert drawn(page) == expected(data, 0, layer, [second], [0])
    page.keyboard.press("ArrowDown")
    assert drawn(page) == expected(data, 0, layer, [second], [1])
    page.keyboard.press("End")
    assert drawn(page) == expected(data, 0, layer, [second], [query])
    # Escape: every query token's lines
    page.keyboard.press("Escape")
    assert drawn(page) == expected(data, 0, layer, [second])
    assert not watch.problems, "\n".join(watch.problems)


OVERFLOW_JS = """() => {
  const ex = document.querySelector('.head-explorer');
  const box = ex.getBoundingClientRect();
  const words = [...ex.querySelectorAll('.hx-word')].map((w) =>
    w.getScreenCTM().a * parseFloat(getComputedStyle(w).fontSize));
  const parts = [...ex.querySelectorAll('.hx-ui *')].map((e) => e.getBoundingClientRect())
    .filter((r) => r.width > 0);
  return {scroll: document.documentElement.scrollWidth, width: document.documentElement.clientWidth,
          left: box.left, right: box.right, smallest: Math.min(...words),
          widest: Math.max(...parts.map((r) => r.right)), leftmost: Math.min(...parts.map((r) => r.left))};
}"""


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_explorer_fits_a_phone(explorer, language: str, screenshot_dir) -> None:
    watch = explorer(language, viewport=PHONE)
    page = watch.page
    fit = page.evaluate(OVERFLOW_JS)
    assert fit["scroll"] <= fit["width"], f"the page scrolls sideways: {fit}"
    assert fit["left"] >= 0 and fit["right"] <= fit["width"], fit
    assert fit["leftmost"] >= 0 and fit["widest"] <= fit["width"] + 0.5, fit
    assert fit["smallest"] >= 12, f"tokens drawn below 12 px: {fit}"
    page.locator(EXPLORER).screenshot(
        path=str(screenshot_dir / f"head-explorer-phone-{language}.png")
    )
    assert not watch.problems, "\n".join(watch.problems)


COLOURS_JS = """() => {
  const ex = document.querySelector('.head-explorer');
  let bg = null;
  for (let e = ex; e && !bg; e = e.parentElement) {
    const c = getComputedStyle(e).backgroundColor;
    if (c && !/rgba\\(0, 0, 0, 0\\)|transparent/.test(c)) bg = c;
  }
  if (!bg) bg = getComputedStyle(document.body).backgroundColor;
  return {background: bg,
    lines: [...ex.querySelectorAll('.hx-line')].map((l) => getComputedStyle(l).stroke),
    buttons: [...ex.querySelectorAll('.hx-head')].map((b) => getComputedStyle(b).borderTopColor),
    words: [...ex.querySelectorAll('.hx-word')].map((w) => getComputedStyle(w).fill),
    text: getComputedStyle(ex.querySelector('.hx-summary')).color};
}"""


def _luminance(colour: str) -> float:
    values = [float(v) for v in re.findall(r"[\d.]+", colour)[:3]]
    assert len(values) == 3, f"not an rgb colour: {colour!r}"
    channels = [v / 255 for v in values]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_colours_read_in_both_themes(explorer, theme: str, screenshot_dir) -> None:
    """Each head's colour (full opacity: the weight then fades it) at 3:1 against the page, the
    tokens and the summary at 4.5:1 (WCAG AA for graphics and text)."""
    watch = explorer("en", theme=theme)
    page = watch.page
    assert page.evaluate("() => document.documentElement.dataset.theme") == theme
    data = page.evaluate(DATA_JS)
    for h in range(data["heads"]):  # every head shown, every query: every colour drawn
        if h not in pressed_heads(page):
            page.click(f".head-explorer .hx-head[data-head='{h}']")
    token(page, 0).focus()
    page.keyboard.press("Escape")
    assert drawn(page) == expected(data, 0, initial_role(data)["layer"], list(range(data["heads"])))
    colours = page.evaluate(COLOURS_JS)
    background = colours["background"]
    problems = [
        f"{kind} {colour} on {background}: {contrast(colour, background):.2f}"
        for kind, least in (("lines", 3), ("buttons", 3), ("words", 4.5))
        for colour in set(colours[kind])
        if contrast(colour, background) < least
    ]
    if contrast(colours["text"], background) < 4.5:
        problems.append(f"summary {colours['text']} on {background}")
    assert len(set(colours["lines"])) == min(data["heads"], 8), "one colour per head"
    assert not problems, "\n".join(problems)
    page.locator(EXPLORER).screenshot(path=str(screenshot_dir / f"head-explorer-{theme}.png"))
    assert not watch.problems, "\n".join(watch.problems)


def test_the_chinese_page_is_in_chinese_with_glosses(explorer) -> None:
    watch = explorer("zh_CN")
    page = watch.page
    data, text = page.evaluate(DATA_JS), page.evaluate(TEXT_JS)
    han = re.compile(r"[\u4e00-\u9fff]")
    words = [(key, re.sub(r"\{\w+\}", "", value)) for key, value in text.items()]
    untranslated = [
        key for key, rest in words if re.search("[A-Za-z]", rest) and not han.search(rest)
    ]
    assert not untranslated, f"templates still in English on the Chinese page: {untranslated}"
    ui = page.inner_text(".head-explorer .hx-ui")
    for english in ("Sentence", "Layer", "Head ", "Query tokens", "Key tokens", "Lines join"):
        assert english not in ui, f"{english!r} on the Chinese page"
    assert (
        page.locator(".head-explorer .hx-head")
        .first.inner_text()
        .startswith(text["head_n"].split("{")[0])
    )
    assert han.search(summary(page))
    sentence = data["sentences"][0]
    glosses = page.eval_on_selector_all(
        ".head-explorer .hx-queries .hx-gloss", "gs => gs.map((g) => g.textContent)"
    )
    assert glosses == [g for g in sentence["gloss"] if g]
    assert page.locator(".head-explorer .hx-keys .hx-gloss").count() == len(glosses)
    assert not watch.problems, "\n".join(watch.problems)


def test_the_english_page_has_no_glosses(explorer) -> None:
    watch = explorer("en")
    assert watch.page.locator(".head-explorer .hx-gloss").count() == 0
    assert not watch.problems, "\n".join(watch.problems)


@pytest.mark.parametrize("language", LANGUAGES)
def test_axe_finds_nothing_serious_in_the_explorer(explorer, axe, language: str) -> None:
    watch = explorer(language)
    page = watch.page
    token(page, 0).focus()  # a state with a token chosen, as a reader leaves it
    assert not watch.problems, "\n".join(watch.problems)
    # axe last: its requests are not the page's (see TOOLCHAIN.md)
    serious = axe_problems(axe, page, context=".head-explorer")
    assert not serious, "\n".join(serious)


def test_without_javascript_only_the_note_shows(browser, base_url, layout) -> None:
    ctx = browser.new_context(viewport=DESKTOP, java_script_enabled=False)
    try:
        page = ctx.new_page()
        prefix = layout.main_prefix
        page.goto(base_url + prefix + PAGE)
        assert not page.locator(".head-explorer .hx-ui").is_visible()
        assert page.locator(".head-explorer .hx-noscript").is_visible()
    finally:
        ctx.close()
