"""The questions of the site (docs/_ext/questions.py): each choice folded with its verdict and
why, refused when malformed, translated in Chinese, and written into the notebooks folded.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from sphinx_build import build

DOCS = Path(__file__).resolve().parents[1] / "docs"

import questions

QUESTION = """\
::::{question}
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


def project(tmp_path: Path, page: str, zh: dict[str, str] | None = None) -> Path:
    """A one-page MyST site with the questions extension, and Chinese catalogs if given."""
    src = tmp_path / "src"
    (src / "locale" / "zh_CN" / "LC_MESSAGES").mkdir(parents=True)
    (src / "conf.py").write_text(
        "extensions = ['myst_parser', 'questions']\nmyst_enable_extensions = ['dollarmath', 'colon_fence']\n"
        "locale_dirs = ['locale/']\ngettext_compact = False\nhtml_search_language = 'en'\n",
        encoding="utf-8",
    )
    (src / "index.md").write_text("# Page\n\n" + page, encoding="utf-8")
    for domain, entries in (zh or {}).items():
        catalog = Catalog(locale="zh_CN")
        for english, chinese in entries.items():
            catalog.add(english, chinese)
        with open(src / "locale" / "zh_CN" / "LC_MESSAGES" / f"{domain}.mo", "wb") as f:
            write_mo(f, catalog)
    return src


def choices(html: str) -> list[dict]:
    """Each <details> choice: its classes, name, summary text, and answer text."""
    found = re.findall(
        r"<details class=\"([^\"]*)\" name=\"([^\"]*)\">\s*<summary>(.*?)</summary>(.*?)</details>",
        html,
        re.DOTALL,
    )
    strip = lambda s: re.sub(r"<[^>]+>", " ", s).split()
    return [
        {
            "classes": c.split(),
            "name": n,
            "summary": " ".join(strip(s)),
            "answer": " ".join(strip(a)),
        }
        for c, n, s, a in found
    ]


def test_each_choice_is_folded_with_its_verdict_and_why(tmp_path: Path) -> None:
    pytest.importorskip("myst_parser")
    out, warnings = build(project(tmp_path, QUESTION + "\n" + QUESTION))
    assert "WARNING" not in warnings and "ERROR" not in warnings, warnings
    html = (out / "index.html").read_text(encoding="utf-8")
    assert html.count('<div class="mha-question') == 2
    found = choices(html)
    assert [c["summary"] for c in found[:2]] == ["A (2, 3, 10, 4)", "B (2, 3, 10, 6)"]
    assert found[0]["answer"] == "Right. One row per query."
    assert found[1]["answer"] == "Not this one. That is the whole matrix."
    assert "mha-right" in found[0]["classes"] and "mha-wrong" in found[1]["classes"]
    # the choices of one question share a name (one open at a time), each question its own
    assert found[0]["name"] == found[1]["name"] != found[2]["name"] == found[3]["name"]
    assert "open" not in html.split('<div class="mha-question', 1)[1].split(">", 1)[0]
    assert not re.search(r"<details[^>]* open", html)  # nothing revealed before choosing


@pytest.mark.parametrize(
    ("page", "words"),
    [
        (QUESTION.replace(":correct:\n", ""), "0 marked :correct:"),
        (QUESTION.replace("That is the whole matrix.\n", ":correct:\nToo.\n"), "2 marked :correct:"),
        (QUESTION.replace("That is the whole matrix.\n", ""), "to say why it is right or wrong"),
        (QUESTION.replace(
            ":::{choice} `(2, 3, 10, 6)`\nThat is the whole matrix.\n:::\n", ""), "got 1 choices"),
        (QUESTION.replace("`q` is `(2, 3, 10, 16)`. What shape are the scores of one block?\n\n", ""),
         "expected the question's text"),
        (":::{choice} `x`\nWhy.\n:::\n", "expected {choice} inside a {question}"),
    ],
)  # fmt: skip
def test_a_malformed_question_fails_the_build(tmp_path: Path, page: str, words: str) -> None:
    pytest.importorskip("myst_parser")
    _, warnings = build(project(tmp_path, page))
    assert words in warnings, warnings


def test_chinese_text_and_verdicts(tmp_path: Path) -> None:
    pytest.importorskip("myst_parser")
    zh = {
        "index": {
            "`q` is `(2, 3, 10, 16)`. What shape are the scores of one block?":
                "`q` 的形状是 `(2, 3, 10, 16)`。一块分数的形状是什么？",
            "`(2, 3, 10, 4)`": "`(2, 3, 10, 4)`",
            "One row per query.": "每个查询一行。",
            "That is the whole matrix.": "那是整个矩阵。",
        },
        "sphinx": {questions.RIGHT: "答对了。", questions.WRONG: "不是这个。"},
    }  # fmt: skip
    out, warnings = build(project(tmp_path, QUESTION, zh), language="zh_CN")
    assert "WARNING" not in warnings, warnings
    html = (out / "index.html").read_text(encoding="utf-8")
    found = choices(html)
    assert "一块分数的形状是什么" in html
    assert found[0]["answer"] == "答对了。 每个查询一行。"
    assert found[1]["answer"] == "不是这个。 那是整个矩阵。"


def test_notebooks_get_the_questions_folded() -> None:
    text = "Before.\n\n" + QUESTION + "\nAfter.\n"
    markdown = questions.markdown(text)
    assert "{question}" not in markdown and "{choice}" not in markdown
    assert markdown.startswith("Before.\n\n`q` is `(2, 3, 10, 16)`. What shape")
    assert markdown.endswith("After.\n")
    folded = re.findall(r"<details><summary>(.*?)</summary>\n\n(.*?)\n\n</details>", markdown)
    assert folded == [
        ("A. <code>(2, 3, 10, 4)</code>", "**Right.** One row per query."),
        ("B. <code>(2, 3, 10, 6)</code>", "**Not this one.** That is the whole matrix."),
    ]


def test_the_site_sphinx_catalog_translates_the_verdicts() -> None:
    po = (DOCS / "locale" / "zh_CN" / "LC_MESSAGES" / "sphinx.po").read_text(encoding="utf-8")
    for verdict in (questions.RIGHT, questions.WRONG):
        entry = re.search(rf'msgid "{re.escape(verdict)}"\nmsgstr "(.+)"', po)
        assert entry and re.search(r"[\u4e00-\u9fff]", entry[1]), verdict
