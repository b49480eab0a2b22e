"""The site's page rules and interface lines (docs/_ext/page_rules.py, languages.py), on a small
Chinese build whose pages hold what sphinx-gallery, sphinx-design and the API template write."""

from __future__ import annotations

import re

import pytest
from docpages import DOCS
from PIL import Image

NAME = "plot_x"
PAGES = ("index", "a_gallery", "b_api", "c_button", "d_math")


# KaTeX's server start (docs/conf.py) drops the sockets of the tries that found no server yet
@pytest.mark.filterwarnings(
    "ignore:Exception ignored in. <socket:pytest.PytestUnraisableExceptionWarning"
)
@pytest.mark.sphinx(
    "html", testroot="site-rules",
    confoverrides={"language": "zh_CN", "locale_dirs": [str(DOCS / "locale")]},
)  # fmt: skip
def test_the_rules_rewrite_the_pages(app) -> None:
    (images := app.srcdir / "auto_examples" / "01_x" / "images").mkdir(parents=True)
    for suffix in ("", "_2_00x", "_phone", "_phone_2_00x"):
        Image.new("RGB", (40, 20)).save(images / f"sphx_glr_{NAME}_001{suffix}.png")
    app.build()
    out, warnings = app.outdir, app.warning.getvalue()
    assert "WARNING" not in warnings, warnings
    page = {name: (out / f"{name}.html").read_text(encoding="utf-8") for name in PAGES}
    gallery, math = page["a_gallery"], page["d_math"]
    assert "跳到页末</span></a>下载完整的示例代码。" in gallery
    assert "<strong>脚本总运行时间：</strong>0 分 1.500 秒" in gallery
    assert '<span class="pre">Python</span> <span class="pre">源代码</span>' in gallery
    assert "示例库由 Sphinx-Gallery 生成" in gallery and "need_<wbr>weights=<wbr>False" in gallery
    assert re.search(r'<picture><source media="\(max-width: 540px\)" srcset="[^"]*_phone', gallery)
    assert (out / "_images" / f"sphx_glr_{NAME}_001_phone_2_00x.png").is_file()  # copied
    assert '<img width="40" height="20" ' in gallery  # its place kept while it loads
    assert "使用以下名称的示例：<code" in page["b_api"]
    assert re.search(r'prev-next-title">mha.<wbr/>x</p>', page["c_button"])  # the link back
    assert "开始学习 →" in page["c_button"]
    assert r"d_{\text{model}}" in math and "<title>Why the √d_k scale" in math
    assert "mha-stack" not in "".join(page.values())  # tables are the theme's, no cards
