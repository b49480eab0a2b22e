"""The sources in another language (docs/_ext/translated_sources.py): a catalog entry replaces
only a whole paragraph, heading, list item or table cell, or a code block's comment or string;
MyST fences and sphinx-gallery blocks keep their structure; a script that draws sets its fonts."""

from __future__ import annotations

import translated_sources as ts

TEXT = {"The sizes of the lesson": "讲义中的大小", "Every example uses the same sizes.":
        "每个示例都用同样的大小。", "cause": "原因", "fix": "正确做法"}  # fmt: skip
CODE, CODE_ZH = 'x = f(1)  # one\nprint("output:", x)', 'x = f(1)  # 一\nprint("输出：", x)'
ENTRIES = {("comment", "one"): "一", ("string", "output:"): "输出："}


def test_whole_paragraphs_headings_and_cells_only() -> None:
    source = (
        "The sizes of the lesson\n-----------------------\n\nEvery example uses\nthe same "
        "sizes.\n\n| cause | fix |\n\nThe cause is not a cell; fix the view.\nWe apply the fix\n"
    )
    out = ts.translate_text(source, TEXT)
    assert out.startswith("讲义中的大小\n" + "-" * 23 + "\n\n每个示例都用同样的大小。\n")
    assert "| 原因 | 正确做法 |" in out
    assert out.endswith("The cause is not a cell; fix the view.\nWe apply the fix\n")  # a word
    out = ts.translate_text("Heads\n=====\n", {"Heads": "注意力的多个头"})
    assert out == "注意力的多个头\n" + "=" * 14 + "\n"  # a Chinese character: 2 columns


def test_code_keeps_its_code_and_the_gallery_configuration() -> None:
    block = "\n" + CODE.replace("\n", "\n# sphinx_gallery_thumbnail_number = 2\n") + "\n\n"
    assert ts.translate_code("\nx = f(1)  # two\n", ENTRIES) == "\nx = f(1)  # two\n"  # no entry
    out = ts.translate_code(block, ENTRIES)
    assert out == "\n" + CODE_ZH.replace("\n", "\n# sphinx_gallery_thumbnail_number = 2\n") + "\n\n"


def test_markdown_code_cells_and_directives() -> None:
    page = (
        "# The sizes of the lesson\n\n```{code-cell} ipython3\n:tags: [hide-output]\n" + CODE
        + "\n```\n\n:::{dropdown} fix\ncause\n:::\n\n```{note}\nEvery example uses the same "
        "sizes.\n```\n\n```python\nfix\n```\n"
    )  # fmt: skip
    out = ts.translate_markdown(page, TEXT, ENTRIES)
    assert out.startswith("# 讲义中的大小\n\n```{code-cell} ipython3\n:tags: [hide-output]\n")
    assert CODE_ZH in out
    assert ":::{dropdown} 正确做法\n原因\n:::\n" in out  # a fence is not a title underline
    assert "```{note}\n每个示例都用同样的大小。\n```" in out  # a directive's content is text
    assert out.endswith("```python\nfix\n```\n")  # a code fence's content is code
    assert ts.translate_markdown(page, None, ENTRIES).startswith("# The sizes")


def test_an_example_s_text_and_code_blocks() -> None:
    example = (
        'r"""\nThe sizes of the lesson\n=======================\n\nEvery example uses the '
        'same sizes.\n"""\n\nimport torch\n\n# %%\n# The sizes of the lesson\n# ------\n#\n'
        "# Every example uses\n# the same sizes.\n\n" + CODE + "\n"
    )
    out = ts.translate_example(example, TEXT, ENTRIES)
    assert out.startswith('r"""\n讲义中的大小\n' + "=" * 23 + "\n\n每个示例都用同样的大小。\n")
    assert "# %%\n# 讲义中的大小\n# ------------\n#\n# 每个示例都用同样的大小。\n" in out
    assert out.endswith(CODE_ZH + "\n")


def test_a_script_that_draws_sets_its_fonts_after_its_imports() -> None:
    script = "import matplotlib.pyplot as plt\nimport torch\n\nimport mha\n\nx = 1\n"
    out = ts.with_fonts(script, "zh_CN").split("\n")
    assert out[:5] == script.split("\n")[:5] and out[5].startswith("# ") and out[-2] == "x = 1"
    assert out[6:8] == ['plt.rcParams["font.sans-serif"] = [', '    "Microsoft YaHei",']
    assert ts.with_fonts(script, "en") == script and ts.with_fonts("x = 1\n", "zh_CN") == "x = 1\n"
