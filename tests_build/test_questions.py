"""The site's questions (docs/_ext/questions.py): folded choices, errors, Chinese, notebooks."""

from __future__ import annotations

import re

import pytest
import questions

QUESTION = """::::{question}
`q` is `(2, 3, 10, 16)`. What shape are the scores of one block?

:::{choice} `(2, 3, 10, 4)`
:correct:
One row per query.
:::
:::{choice} `(2, 3, 10, 6)`
That is the whole matrix.
:::
::::
"""


def page(app, text: str) -> tuple[str, str]:
    """The root's one page holding ``text``, built: its HTML (none if it warned), the warnings."""
    (app.srcdir / "index.md").write_text(f"# Page\n\n{text}", encoding="utf-8")
    app.build()
    warnings = app.warning.getvalue()
    return (app.outdir / "index.html").read_text(encoding="utf-8") if not warnings else "", warnings


def choices(html: str) -> list[tuple[str, str, str, str]]:
    """Each <details> choice: its classes, name, summary and answer (their text)."""
    found = re.findall(r'<details class="([^"]*)" name="([^"]*)">\s*<summary>(.*?)</summary>'
                       r"(.*?)</details>", html, re.DOTALL)  # fmt: skip
    return [(c, n, *(" ".join(re.sub(r"<[^>]+>", " ", t).split()) for t in texts))
            for c, n, *texts in found]  # fmt: skip


@pytest.mark.sphinx("html", testroot="questions")
def test_each_choice_is_folded_with_its_verdict_and_why(app) -> None:
    html, warnings = page(app, QUESTION + "\n" + QUESTION)  # two questions
    assert warnings == "" and html.count('<div class="mha-question') == 2 and " open" not in html
    (c1, n1, s1, a1), (c2, n2, s2, a2), (_, n3, *_), (_, n4, *_) = choices(html)
    assert (s1, a1, s2, a2) == ("A (2, 3, 10, 4)", "Right. One row per query.",
                                "B (2, 3, 10, 6)", "Not this one. That is the whole matrix.")  # fmt: skip
    assert "mha-right" in c1 and "mha-wrong" in c2 and n1 == n2 != n3 == n4  # one open of each


@pytest.mark.parametrize("text", [
    QUESTION.replace(":correct:\n", ""), QUESTION.replace("That is", ":correct:\nThat is"),
    QUESTION.replace(":::{choice} `(2, 3, 10, 6)`\nThat is the whole matrix.\n:::\n", ""),
    QUESTION.replace("`q` is `(2, 3, 10, 16)`. What shape are the scores of one block?\n", ""),
    QUESTION.replace("That is the whole matrix.\n", ""), ":::{choice} `x`\nWhy.\n:::\n",
])  # fmt: skip
@pytest.mark.sphinx("html", testroot="questions")
def test_a_malformed_question_fails_the_build(app, text: str) -> None:
    assert "index.md:3: ERROR: expected " in page(app, text)[1]


@pytest.mark.sphinx("html", testroot="questions", confoverrides={"language": "zh_CN"})
def test_chinese_text_and_verdicts(app) -> None:
    """The root's catalogs translate the page (index.po) and the verdicts (sphinx.po)."""
    html, _ = page(app, QUESTION)
    assert [c[3] for c in choices(html)] == ["答对了。 每个查询一行。", "不是这个。 那是整个矩阵。"]


def test_notebooks_fold_the_choices_in_markdown() -> None:
    markdown = questions.markdown(f"Before.\n\n{QUESTION}\nAfter.\n")
    assert markdown.startswith("Before.\n\n`q` is `(2, 3, 10, 16)`. What") and "{" not in markdown
    folded = re.findall(r"<details><summary>(.*?)</summary>\n\n(.*?)\n\n</details>", markdown)
    assert markdown.endswith("After.\n") and folded == [
        ("A. <code>(2, 3, 10, 4)</code>", "**Right.** One row per query."),
        ("B. <code>(2, 3, 10, 6)</code>", "**Not this one.** That is the whole matrix."),
    ]
