"""The sources in another language (docs/_ext/translated_sources.py): a catalog entry replaces
only a whole paragraph, heading, list item or table cell; a code block only as a whole; MyST
fences and sphinx-gallery blocks keep their structure; the code stays the code."""

from __future__ import annotations

import ast
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"

from translated_sources import (
    translate_code,
    translate_example,
    translate_markdown,
    translate_text,
)

TEXT = {
    "The sizes of the lesson": "讲义中的大小",
    "Every example uses the same sizes.": "每个示例都用同样的大小。",
    "cause": "原因",
    "fix": "正确做法",
    "a list item that goes on": "一个接着写的列表项",
}


def test_whole_paragraphs_headings_cells_and_items_only() -> None:
    source = (
        "The sizes of the lesson\n-----------------------\n\n"
        "Every example uses\nthe same sizes.\n\n"
        "| cause | fix |\n\n"
        "- a list item\n  that goes on\n\n"
        "The cause is not a cell; fix the view.\nWe apply the fix\n"
    )
    out = translate_text(source, TEXT)
    assert out.startswith("讲义中的大小\n" + "-" * 23 + "\n\n每个示例都用同样的大小。\n")
    assert "| 原因 | 正确做法 |" in out
    assert "- 一个接着写的列表项" in out
    assert out.endswith("The cause is not a cell; fix the view.\nWe apply the fix\n")  # a word


def test_a_title_underline_grows_with_its_translation() -> None:
    out = translate_text("Heads\n=====\n", {"Heads": "注意力的多个头"})
    underline = out.split("\n")[1]
    assert underline == "=" * 14  # 7 characters, each two columns wide


CODE = 'x = f(1)  # one\nprint("output:", x)'
CODE_ZH = 'x = f(1)  # 一\nprint("输出：", x)'


def test_code_is_replaced_as_a_whole_block_keeping_gallery_configuration() -> None:
    block = f"\n{CODE[:9]}\n# sphinx_gallery_thumbnail_number = 2\n{CODE[9:].lstrip()}\n\n"
    assert translate_code("\nx = f(1)\n", {CODE: CODE_ZH}) == "\nx = f(1)\n"  # another block
    shown = block.replace("# sphinx_gallery_thumbnail_number = 2\n", "")
    out = translate_code(block, {shown.strip("\n"): CODE_ZH})
    assert "# sphinx_gallery_thumbnail_number = 2" in out and 'print("输出：", x)' in out


def test_markdown_code_cells_and_directives() -> None:
    page = (
        "# The sizes of the lesson\n\n"
        "```{code-cell} ipython3\n:tags: [hide-output]\n" + CODE + "\n```\n\n"
        ":::{dropdown} fix\ncause\n:::\n\n"
        "```{note}\nEvery example uses the same sizes.\n```\n\n"
        "```python\nfix\n```\n"
    )
    out = translate_markdown(page, TEXT, {CODE: CODE_ZH})
    assert out.startswith("# 讲义中的大小\n\n```{code-cell} ipython3\n:tags: [hide-output]\n")
    assert CODE_ZH in out
    assert ":::{dropdown} 正确做法\n原因\n:::\n" in out  # a fence is not a title underline
    assert "```{note}\n每个示例都用同样的大小。\n```" in out  # a directive's content is text
    assert out.endswith("```python\nfix\n```\n")  # a code fence's content is code
    assert translate_markdown(page, None, {CODE: CODE_ZH}).startswith("# The sizes")


def test_an_example_keeps_its_code() -> None:
    example = (
        'r"""\nThe sizes of the lesson\n=======================\n\n'
        'Every example uses the same sizes.\n"""\n\n'
        "import torch\n\n"
        "# %%\n# The sizes of the lesson\n# -----------------------\n#\n"
        "# Every example uses\n# the same sizes.\n\n" + CODE + "\n"
    )
    out = translate_example(example, TEXT, {CODE: CODE_ZH})
    assert out.startswith('r"""\n讲义中的大小\n' + "=" * 23 + "\n\n每个示例都用同样的大小。\n")
    assert "# %%\n# 讲义中的大小\n# -----------------------\n#\n# 每个示例都用同样的大小。\n" in out
    assert CODE_ZH in out

    def tree(source: str) -> str:
        parsed = ast.parse(source)
        for node in ast.walk(parsed):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                node.value = ""
        return ast.dump(parsed)

    assert tree(out) == tree(example)
