"""The install line's note (docs/_ext/package.py): after every paragraph that prints the line,
in the page's language, how to get PyTorch's CPU-only build, linking PyTorch's install page."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import package
from sphinx_build import DOCS, build

WHEEL = "mha-0.1.0-py3-none-any.whl"
CONF = f"""import package
mha_wheel = {WHEEL!r}
mha_install = "python -m pip install " + mha_wheel + " matplotlib"
locale_dirs = ["locale/"]
html_search_language = "en"
def setup(app):  # the role and the note, without the wheel's build
    for name in ("mha_wheel", "mha_install"):
        app.add_config_value(name, "", "env")
    app.add_role("install", package.install_role)
    app.connect("doctree-resolved", package.cpu_note)
"""
PAGE = """Page
====

The notebook's first cell installs the package: :install:`matplotlib`.

A paragraph without the line.

.. note::

   Save the package beside the download: :install:`matplotlib`. Twice: :install:`matplotlib`.
"""


def site(tmp_path: Path, language: str) -> str:
    src = tmp_path / "src"
    (src / "_wheel").mkdir(parents=True)
    (src / "_wheel" / WHEEL).write_bytes(b"")
    (src / "conf.py").write_text(CONF, encoding="utf-8")
    (src / "index.rst").write_text(PAGE, encoding="utf-8")
    (catalogs := src / "locale" / "zh_CN" / "LC_MESSAGES").mkdir(parents=True)
    shutil.copy(DOCS / "locale" / "zh_CN" / "LC_MESSAGES" / "sphinx.po", catalogs)  # the site's
    out, warnings = build(src, language=language)
    assert "WARNING" not in warnings, warnings
    return (out / "index.html").read_text(encoding="utf-8")


def notes(html: str) -> list[tuple[str, str]]:
    """Each note after an install line: the text before it ends, and the note's words."""
    found = re.findall(r'(\S{12})</p>\s*<p class="mha-install-note">(.*?)</p>', html, re.DOTALL)
    return [(before, " ".join(re.sub(r"<[^>]+>", "", note).split())) for before, note in found]


def test_a_note_follows_every_install_line(tmp_path: Path) -> None:
    html = site(tmp_path, "en")
    assert len(notes(html)) == 2  # the paragraph, the note's paragraph (two lines: one note)
    assert html.count("mha-install-note") == 2
    for before, note in notes(html):
        assert before.endswith("</code>."), before  # right after the paragraph with the line
        assert note.startswith("On Linux, pip takes PyTorch's CUDA build for this line")
        assert "choose your system, pip and CPU" in note
    link = '<a class="reference external" href="https://pytorch.org/get-started/locally/">'
    assert html.count(link + "PyTorch's install page</a>") == 2


def test_the_note_in_chinese(tmp_path: Path) -> None:
    html = site(tmp_path, "zh_CN")
    assert len(notes(html)) == 2
    for _, note in notes(html):
        assert note.startswith("在 Linux 上，执行这一行时 pip 会选用 PyTorch 的 CUDA 版本")
        assert "请先打开 PyTorch 的安装页面，选择你的系统、pip 和 CPU" in note
        assert "： " not in note and "On Linux" not in note
    assert html.count(f'href="{package.PYTORCH_INSTALL}"') == 2
