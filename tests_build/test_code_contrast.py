"""The highlighted code, and every colour the site's own stylesheets set, read at WCAG AA
(4.5:1) in both themes, proven from the colours.

The site's code is coloured by the two Pygments styles docs/conf.py names for the theme
(``pygments_light_style``, ``pygments_dark_style``): every token colour of each style is
checked against the background it is shown on, the style's own and that of a highlighted line.
docs/_static/custom.css changes some colours inside code blocks (links in code, the outputs'
background in dark mode): each such rule is checked against the background it sits on, with
the theme's colour variables read from pydata-sphinx-theme's stylesheet.

Every other colour that custom.css and head-explorer.css set is checked the same way, in the
theme its selector names (or both), wherever it may be shown: a text colour on the background
its own rule gives, else on the page's background and on the theme's surface (questions,
outputs, cards), faded by the rule's opacity; a background under the theme's text colours (plain and muted);
the explorer's head colours, which draw lines and marks, at 3:1 (WCAG's non-text contrast).

This is the contrast of every code token and every site colour on every page; the browser
suite runs axe's full contrast rule only on a sample of pages (tests_site/test_pages.py).
"""

from __future__ import annotations

import re
from pathlib import Path

import pydata_sphinx_theme  # with Pygments and its a11y styles: the docs extra
import pytest
from pygments.styles import get_style_by_name
from pygments.token import Token

DOCS = Path(__file__).resolve().parents[1] / "docs"
CUSTOM_CSS = DOCS / "_static" / "custom.css"
SITE_CSS = (CUSTOM_CSS, DOCS / "_static" / "head-explorer.css")  # the site's own stylesheets
THEME_CSS = (
    Path(pydata_sphinx_theme.__file__).parent
    / "theme"
    / "pydata_sphinx_theme"
    / "static"
    / "styles"
    / "pydata-sphinx-theme.css"
)
AA = 4.5  # WCAG 2 AA, normal text
NON_TEXT = 3.0  # WCAG 2.1 AA, lines and marks that carry meaning (1.4.11)
THEMES = ("light", "dark")
CODE_BLOCK = re.compile(r"\.highlight(?![\w-])")  # the class of Pygments' blocks, not .highlighted
# Where the site's sources highlight lines (Sphinx ``:emphasize-lines:``), the tokens must read
# on a highlighted line's background too. None does today: the dark style's salmon (#ffa07a)
# is at 4.46:1 on its highlighted line, under AA.
HIGHLIGHTED_LINES = re.compile(r":?emphasize-lines:")
SOURCES = ("docs", "gallery")


def highlights_lines() -> bool:
    """Whether a page of the site shows a highlighted line of code."""
    root = DOCS.parent
    return any(
        HIGHLIGHTED_LINES.search(path.read_text(encoding="utf-8", errors="replace"))
        for folder in SOURCES
        for path in (root / folder).rglob("*")
        if path.suffix in {".md", ".rst", ".py", ".txt"}
        and not {"_build", "auto_examples", "_ext"} & set(path.relative_to(root).parts)
    )


def styles() -> dict[str, str]:
    """The Pygments style of each theme, as docs/conf.py names it."""
    conf = (DOCS / "conf.py").read_text(encoding="utf-8")
    found = dict(re.findall(r"""["']pygments_(light|dark)_style["']\s*:\s*["']([^"']+)""", conf))
    assert set(found) == set(THEMES), f"docs/conf.py names the styles {found}"
    return found


# ---- colours ----------------------------------------------------------------------------------

Colour = tuple[float, float, float]


def parse(colour: str, under: Colour | None = None) -> Colour:
    """``#rgb``, ``#rrggbb``, ``#rrggbbaa``, ``rgb()``/``rgba()`` as 0-255 channels; a colour
    with alpha is laid over ``under``."""
    text = colour.strip().lower()
    if text.startswith("#") or re.fullmatch(r"[0-9a-f]{3,8}", text):
        digits = text.lstrip("#")
        if len(digits) in (3, 4):
            digits = "".join(c * 2 for c in digits)
        values = [int(digits[i : i + 2], 16) for i in range(0, len(digits), 2)]
        alpha = values[3] / 255 if len(values) == 4 else 1.0
    else:
        numbers = [float(v) for v in re.findall(r"[\d.]+", text)]
        assert text.startswith("rgb") and len(numbers) in (3, 4), f"not a colour: {colour!r}"
        values, alpha = numbers[:3], numbers[3] if len(numbers) == 4 else 1.0
    rgb = tuple(float(v) for v in values[:3])
    if alpha < 1:
        assert under is not None, f"{colour} is translucent: over what?"
        rgb = tuple(alpha * c + (1 - alpha) * u for c, u in zip(rgb, under, strict=True))
    return rgb


def luminance(rgb: Colour) -> float:
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in
              (v / 255 for v in rgb)]  # fmt: skip
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: Colour, b: Colour) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_contrast_is_wcags() -> None:
    """The formula on known pairs: black on white 21:1, #767676 on white just above 4.5:1."""
    white = parse("#fff")
    assert contrast(parse("#000000"), white) == pytest.approx(21)
    assert contrast(parse("#767676"), white) == pytest.approx(4.54, abs=0.01)
    assert parse("#ffffff80", under=(0, 0, 0)) == pytest.approx((128.0,) * 3, abs=0.1)


# ---- the Pygments styles ----------------------------------------------------------------------


def token_problems(
    name: str, backgrounds: dict[str, str] | None = None, highlighted: bool = False
) -> list[str]:
    """Every token colour of the style ``name`` below AA on the backgrounds it is shown on:
    the token's own background, else the style's (or those given), and with ``highlighted``
    a highlighted line's."""
    style = get_style_by_name(name)
    base = parse(style.background_color)
    grounds = {"background": base} if backgrounds is None else {}
    for what, colour in (backgrounds or {}).items():
        grounds[what] = parse(colour, under=base)
    if highlighted and style.highlight_color:
        grounds["highlighted line"] = parse(style.highlight_color, under=base)
    text = style.style_for_token(Token.Text)["color"]  # the plain text's colour
    problems = []
    for token, definition in style:
        colour = definition["color"] or text
        if not colour:
            continue
        own = {"its own background": parse(definition["bgcolor"])} if definition["bgcolor"] else {}
        for what, ground in (own or grounds).items():
            ratio = contrast(parse(colour), ground)
            if ratio < AA:
                problems.append(f"{name} {token}: #{colour} on the {what}: {ratio:.2f}:1")
    return problems


@pytest.mark.parametrize("theme", THEMES)
def test_every_token_colour_reads_on_the_code_background(theme: str) -> None:
    name = styles()[theme]
    assert len(list(get_style_by_name(name))) > 50  # every token type of Pygments
    problems = token_problems(name, highlighted=highlights_lines())
    assert not problems, "\n".join(problems)


def test_a_low_contrast_style_fails() -> None:
    """The check on a style known to miss AA (Pygments' default: comments at about 4.2:1)."""
    assert token_problems("default")
    # and the highlighted line's background is looked at when a page highlights lines
    assert token_problems(styles()["dark"], highlighted=True)


# ---- custom.css inside code blocks -------------------------------------------------------------


def theme_variables(theme: str) -> dict[str, str]:
    """pydata-sphinx-theme's ``--pst-*`` colour variables in ``theme``, resolved."""
    css = THEME_CSS.read_text(encoding="utf-8")
    variables: dict[str, str] = {}
    for block in re.findall(rf"html\[data-theme={theme}\]\{{([^}}]*)\}}", css):
        variables.update(re.findall(r"(--pst-color-[\w-]+):([^;}]+)", block))
    assert "--pst-color-surface" in variables, f"no --pst-color-surface in {THEME_CSS}"
    return variables


def resolve(value: str, variables: dict[str, str]) -> str:
    for _ in range(10):  # a variable may name another
        found = re.fullmatch(r"\s*var\((--[\w-]+)\)\s*", value)
        if not found:
            return value.strip()
        value = variables[found[1]]
    raise AssertionError(f"{value}: variables nested too deep")


def code_rules(theme: str) -> list[tuple[str, dict[str, str]]]:
    """The rules of custom.css for code blocks (a ``.highlight`` selector) that set a colour or
    a background in ``theme`` (its selector names the theme, or none), values resolved."""
    css = re.sub(r"/\*.*?\*/", "", CUSTOM_CSS.read_text(encoding="utf-8"), flags=re.DOTALL)
    variables = theme_variables(theme)
    rules = []
    for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", css):
        chosen = [
            s.strip()
            for s in selectors.split(",")
            if CODE_BLOCK.search(s) and ("data-theme" not in s or f'data-theme="{theme}"' in s)
        ]
        declared = {
            name.strip(): resolve(value, variables)
            for name, value in re.findall(r"([\w-]+)\s*:\s*([^;]+)", body)
            if name.strip() in ("color", "background-color", "background")
        }
        if chosen and declared:
            rules.append((", ".join(chosen), declared))
    return rules


@pytest.mark.parametrize("theme", THEMES)
def test_custom_colours_in_code_read(theme: str) -> None:
    """A colour custom.css gives code, on the background it sits on; a background it gives
    code, under every token colour of the style."""
    name = styles()[theme]
    style = get_style_by_name(name)
    problems = []
    for selector, declared in code_rules(theme):
        ground = declared.get("background-color", declared.get("background"))
        if "color" in declared:
            under = parse(ground or style.background_color, under=parse(style.background_color))
            ratio = contrast(parse(declared["color"], under=under), under)
            if ratio < AA:
                problems.append(f"{selector}: {declared} in {theme}: {ratio:.2f}:1")
        else:  # a background only: the tokens' colours on it
            problems += [f"{selector}: {p}" for p in token_problems(name, {selector: ground})]
    assert not problems, "\n".join(problems)


def test_the_custom_code_colours_are_found() -> None:
    """custom.css changes colours inside code in both themes (links in light code, outputs in
    dark): the parser sees those rules, so the check above does not pass on nothing."""
    assert code_rules("light") and code_rules("dark")


# ---- every colour of the site's stylesheets ----------------------------------------------------

RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")  # an innermost rule (inside @media too)
DECLARATION = re.compile(r"(--[\w-]+|[a-z-]+)\s*:\s*([^;]+)")
# backgrounds that carry no text: a figure's (drawn on white), the explorer's colour swatches
# and weight bars (marks in a head's colour, checked as such)
NO_TEXT = re.compile(r"(?:\bimg|\.hx-swatch|\.hx-bar)\S*$")
NOT_A_COLOUR = re.compile(r"inherit|currentcolor|transparent|initial|unset|none|color-mix|gradient")


def site_rules(theme: str, path: Path) -> list[tuple[str, dict[str, str]]]:
    """Each rule of the stylesheet ``path`` that applies in ``theme`` (its selector names the
    theme, or none): (selectors, declarations), less what a rule for the theme sets again for
    the same selector (``.bench-met`` in dark is ``html[data-theme="dark"] .bench-met``'s)."""
    css = re.sub(r"/\*.*?\*/", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
    themed = f'html[data-theme="{theme}"] '
    found = []
    for selectors, body in RULE.findall(css):
        for selector in (s.strip() for s in selectors.split(",")):
            if "data-theme" not in selector or themed in selector:
                found.append((selector, dict(DECLARATION.findall(body))))
    again = {(s.replace(themed, ""), k) for s, declared in found if themed in s for k in declared}
    rules = []
    for selector, declared in found:
        kept = {
            k: v for k, v in declared.items() if themed in selector or (selector, k) not in again
        }
        if kept:
            rules.append((selector, kept))
    return rules


def site_variables(theme: str) -> dict[str, str]:
    """The theme's colour variables, then the site's own custom properties (``--hx-text``...)
    as the site's stylesheets set them in ``theme`` (a rule for the theme after the general)."""
    variables = theme_variables(theme)
    for path in SITE_CSS:
        for _, declared in site_rules(theme, path):
            variables |= {k: v.strip() for k, v in declared.items() if k.startswith("--")}
    return variables


def site_colour(value: str, variables: dict[str, str]) -> str | None:
    """A declared value as a colour (``var(--x, fallback)`` resolved), or None if it is none."""
    for _ in range(10):
        found = re.fullmatch(r"\s*var\((--[\w-]+)(?:\s*,\s*([^)]+))?\)\s*", value)
        if not found:
            break
        value = variables.get(found[1], found[2] or "")
    colour = re.match(r"\s*(#[0-9a-fA-F]{3,8}\b|rgba?\([^)]*\))", value)
    if colour:
        return colour[1]
    word = value.strip().split()[0].lower() if value.strip() else "none"
    assert NOT_A_COLOUR.search(word) or not re.match(r"#|rgb|hsl|[a-z]+$", word), (
        f"a colour the check cannot read: {value!r}"
    )
    return None


def site_colour_problems(theme: str) -> tuple[list[str], int]:
    """(what reads below its threshold, how many colours were checked) in ``theme``."""
    variables = site_variables(theme)
    page = parse(resolve("var(--pst-color-background)", variables))
    grounds = {
        "page": page,
        "surface": parse(resolve("var(--pst-color-surface)", variables), under=page),
    }
    texts = {name: parse(resolve(f"var(--pst-color-{name})", variables)) for name in
             ("text-base", "text-muted")}  # fmt: skip
    problems, checked = [], 0
    for path in SITE_CSS:
        for selector, declared in site_rules(theme, path):
            if CODE_BLOCK.search(selector):
                continue  # on the code's background: test_custom_colours_in_code_read
            where = f"{path.name} {selector} in {theme}"
            own = site_colour(declared.get("background-color", declared.get("background", "")),
                              variables)  # fmt: skip
            under = {"its background": parse(own, under=page)} if own else grounds
            text = site_colour(declared.get("color", ""), variables)
            opacity = float(declared.get("opacity", "1"))
            pairs = []
            if text:
                pairs += [(text, what, ground, AA) for what, ground in under.items()]
            elif own and not NO_TEXT.search(selector):  # the theme's text and links on it
                pairs += [
                    (c, "its background", under["its background"], AA)
                    for c in map(
                        "rgb({:.0f},{:.0f},{:.0f})".format, *zip(*texts.values(), strict=True)
                    )
                ]
            for name, value in declared.items():  # the explorer's head colours: lines, marks
                if re.fullmatch(r"--hx-head-\d+", name):
                    pairs += [(site_colour(value, variables), what, g, NON_TEXT)
                              for what, g in grounds.items()]  # fmt: skip
            for colour, what, ground, needed in pairs:
                checked += 1
                shown = parse(colour, under=ground)
                shown = tuple(
                    opacity * c + (1 - opacity) * g for c, g in zip(shown, ground, strict=True)
                )
                ratio = contrast(shown, ground)
                if ratio < needed:
                    problems.append(f"{where}: {colour} on the {what}: {ratio:.2f}:1 < {needed}")
    return problems, checked


@pytest.mark.parametrize("theme", THEMES)
def test_every_site_colour_reads(theme: str) -> None:
    """Each colour custom.css and head-explorer.css set, wherever it may be shown (see the
    module's doc), at 4.5:1 for text and 3:1 for the explorer's head colours."""
    problems, checked = site_colour_problems(theme)
    assert checked >= 20, f"only {checked} colours found in {theme}: is the parser reading?"
    assert not problems, "\n".join(problems)
