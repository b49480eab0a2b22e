"""The site's page rules (docs/_ext): each rewrites what it should, and warns where it matched
nothing.

A small Sphinx project is built in Chinese with the site's theme and rule extensions. Its pages
hold what sphinx-gallery, sphinx-design, the API templates and the theme write on the real
site, twice: once as they write it today (the rules must rewrite it and stay silent), and once
with the target of each rule changed the way an upstream release could change it (a reworded
sentence, a renamed class, a node type that is no longer produced). On those pages every rule
must warn, naming itself: that is what fails the strict site build.
"""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("bs4")
pytest.importorskip("pydata_sphinx_theme")
pytest.importorskip("sphinx_design")

from sphinx_build import build

EXT = Path(__file__).resolve().parents[1] / "docs" / "_ext"

CONF = """
import sys
sys.path.insert(0, {here!r})  # upstream_changes.py, beside this conf.py
extensions = ["sphinx_design", "languages", "page_rules", "gallery_figures",
              "upstream_changes"]
html_theme = "pydata_sphinx_theme"
exclude_patterns = ["_build"]
html_search_language = "en"  # the Chinese search (jieba) is the site's concern, not the rules'
mha_button_pages = ["buttons_good", "buttons_changed"]
locale_dirs = [{locale!r}]  # the site's interface catalog, sphinx.po: the lines in Chinese
gettext_auto_build = False  # and none of the site's page catalogs
"""

# What an upstream change would do to the pages named "changed": applied before the rules.
UPSTREAM_CHANGES = '''
from docutils import nodes
from sphinx_gallery.directives import imgsgnode


def _changed(name):
    return "changed" in name


def read(app, doctree):
    """A parser that no longer writes math nodes (upright subscripts), and sphinx-gallery
    writing its figures without a srcset (through the translator's visit_image)."""
    if _changed(app.env.docname) and "math" in app.env.docname:
        for node in list(doctree.findall(nodes.math)):
            if not isinstance(node.parent, nodes.title):
                node.replace_self(nodes.literal(node.astext(), node.astext()))
    if _changed(app.env.docname):
        for node in doctree.findall(imgsgnode):
            node["srcset"] = None


class ChangedTranslator:
    """A theme's translator that writes other markup on the changed pages: its words of code
    in other spans, its tables without the classes it is given, its images wrapped."""

    def _changed(self):
        return _changed(self.builder.current_docname)

    def visit_Text(self, node):
        if self.protect_literal_text and self._changed():
            self.body.append(f'<span class="word">{self.encode(node.astext())}</span>')
        else:
            super().visit_Text(node)

    def starttag(self, node, tagname, *args, **attributes):
        if tagname == "table" and self._changed():
            attributes["CLASS"] = "grid"
        return super().starttag(node, tagname, *args, **attributes)

    def visit_image(self, node):
        if self._changed():
            self.body.append('<span class="image">')
        super().visit_image(node)


def theme(app):
    base = app.builder.get_translator_class()
    app.set_translator(app.builder.name, type("Changed", (ChangedTranslator, base), {}), True)


def page(app, pagename, templatename, context, doctree):
    """A theme that writes the tab title's math otherwise (plain-text titles)."""
    if _changed(pagename) and context.get("title"):
        context["title"] = context["title"].replace('class="math', 'class="formula')


def setup(app):
    from sphinx_gallery.directives import ImageSg, imagesg_addnode

    app.add_directive("image-sg", ImageSg)  # the gallery's own image node, as on the site
    imagesg_addnode(app)
    app.connect("doctree-read", read)
    app.connect("builder-inited", theme, priority=700)  # after the theme's, before the rules'
    app.connect("html-page-context", page, priority=100)
    return {"parallel_read_safe": True}
'''

GALLERY_PAGE = """
.. only:: html

    .. note::
        :class: sphx-glr-download-link-note

        :ref:`{go} <sphx_glr_download_{name}.py>`
        to download the full example code.

.. _sphx_glr_{name}.py:

An example
==========

Text with ``need_weights=False``.

.. image-sg:: /auto_examples/01_x/images/sphx_glr_{name}_001.png
   :alt: a figure
   :srcset: /auto_examples/01_x/images/sphx_glr_{name}_001.png, /auto_examples/01_x/images/sphx_glr_{name}_001_2_00x.png 2.00x
   :class: sphx-glr-single-img

.. rst-class:: sphx-glr-timing

   **{running}** (0 minutes 1.500 seconds)

.. _sphx_glr_download_{name}.py:

.. only:: html

  .. container:: sphx-glr-footer sphx-glr-footer-example

    .. container:: sphx-glr-download sphx-glr-download-jupyter

      :download:`Download Jupyter notebook: {name}.ipynb <{name}.ipynb>`

    .. container:: sphx-glr-download sphx-glr-download-python

      :download:`{python}: {name}.py <{name}.py>`

    .. container:: sphx-glr-download sphx-glr-download-zip

      :download:`Download zipped: {name}.zip <{name}.zip>`

.. only:: html

 .. rst-class:: {signature}

    `Gallery generated by Sphinx-Gallery <https://sphinx-gallery.github.io>`_
"""

API_PAGE = """
mha.{name}
===============

.. :add-heading: (the mini-gallery of the site's autosummary template)

{heading} ``mha.{name}``
{underline}

.. raw:: html

    <div class="sphx-glr-thumbnails"><div class="sphx-glr-thumbcontainer"></div></div>
"""

TABLE_PAGE = """
Tables {which}
==============

.. list-table::
   :header-rows: 1

   * - mode
     - goal
   * - ``batch_first=True``
     - 0.75
"""

MATH_PAGE = """
Why the :math:`\\sqrt{{d_k}}` scale {which}
==========================================

The width :math:`d_{{model}} = 512`.
"""


def _pages(changed: bool) -> dict[str, str]:
    which = "changed" if changed else "good"
    gallery = {
        "name": f"plot_{which}",
        "go": "Skip to the end" if changed else "Go to the end",
        "running": "Running time:" if changed else "Total running time of the script:",
        "python": "Get Python source code" if changed else "Download Python source code",
        "signature": "sphx-glr-credit" if changed else "sphx-glr-signature",
    }
    heading = "Examples with" if changed else "Examples using"
    button = "Begin →" if changed else "Start the lesson →"
    return {
        f"auto_examples/01_x/plot_{which}.rst": GALLERY_PAGE.format(**gallery),
        f"reference/generated/mha.{which}.rst": API_PAGE.format(
            name=which, heading=heading, underline="-" * 40
        ),
        f"buttons_{which}.rst": f"Buttons\n=======\n\n.. button-ref:: index\n\n   {button}\n",
        f"tables_{which}.rst": TABLE_PAGE.format(which=which),
        f"math_{which}.rst": MATH_PAGE.format(which=which),
    }


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """The project built in Chinese: (its HTML folder, the build's warnings, one per line)."""
    src = tmp_path_factory.mktemp("site") / "src"  # the build goes beside it
    src.mkdir()
    (src / "conf.py").write_text(CONF.format(here=str(src), locale=str(EXT.parent / "locale")))
    (src / "upstream_changes.py").write_text(UPSTREAM_CHANGES)
    pages = {**_pages(changed=False), **_pages(changed=True)}
    pages["reference/index.rst"] = "API reference\n=============\n\nThe names.\n"
    pages["index.rst"] = textwrap.dedent("""\
        Home
        ====

        See the :doc:`reference/index`.

        .. toctree::
           :glob:

           *
           reference/*
           reference/generated/*
           auto_examples/01_x/*
        """)
    for name, text in pages.items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(text)
    images = src / "auto_examples" / "01_x" / "images"
    images.mkdir()
    backreferences = src / "gen_modules" / "backreferences"  # the names examples use
    backreferences.mkdir(parents=True)
    for which in ("good", "changed"):
        (backreferences / f"mha.{which}.examples").write_text("<div>an example</div>\n")
    for which in ("good", "changed"):
        stem = f"sphx_glr_plot_{which}_001"
        for suffix in ("", "_2_00x", "_phone", "_phone_2_00x"):  # as the Chinese build drew it
            (images / f"{stem}{suffix}.png").write_bytes(b"\x89PNG\r\n\x1a\n")
        for ext in ("py", "ipynb", "zip"):
            (src / "auto_examples" / "01_x" / f"plot_{which}.{ext}").write_text("")
    try:
        out, warnings = build(src, language="zh_CN")
    finally:
        sys.path.remove(str(src))
        sys.modules.pop("upstream_changes", None)
    return out, warnings.splitlines()


def _html(site, page: str) -> str:
    return (site[0] / page).read_text(encoding="utf-8")


def _rule_warnings(site, page: str) -> set[str]:
    """The rules that warned on ``page`` (by its document name)."""
    return {
        match[1]
        for line in site[1]
        if page in line and (match := re.search(r"page rule '([^']+)' did not match", line))
    }


def test_the_build_warns_only_through_the_rules(site) -> None:
    others = [line for line in site[1] if "WARNING" in line and "page rule" not in line]
    assert others == []


def test_rules_rewrite_the_pages_as_written_today(site) -> None:
    gallery = _html(site, "auto_examples/01_x/plot_good.html")
    assert "跳到页末</span></a>下载完整的示例代码。" in gallery
    assert "<strong>脚本总运行时间：</strong>0 分 1.500 秒" in gallery
    assert '<span class="pre">下载</span> <span class="pre">Jupyter</span>' in gallery
    assert '<span class="pre">Python</span> <span class="pre">源代码：</span>' in gallery
    assert "示例库由 Sphinx-Gallery 生成" in gallery
    assert "need_<wbr>weights=<wbr>False" in gallery
    assert '<picture><source media="(max-width: 540px)"' in gallery
    assert "sphx_glr_plot_good_001_phone_2_00x.png 2x" in gallery
    api = _html(site, "reference/generated/mha.good.html")
    assert "使用以下名称的示例：<code" in api
    assert "开始学习 →" in _html(site, "buttons_good.html")
    tables = _html(site, "tables_good.html")
    assert 'class="table mha-stack"' in tables
    assert '<td data-label="mode">' in tables
    math = _html(site, "math_good.html")
    assert r"d_{\text{model}}" in math
    assert "<title>Why the √d_k scale good" in math
    # the footer's links: a name with its break point
    footer = _html(site, "reference/generated/mha.changed.html")
    assert re.search(r"prev-next-title\">mha.<wbr/>good</p>", footer)
    for page in ("auto_examples/01_x/plot_good", "reference/generated/mha.good", "buttons_good",
                 "tables_good", "math_good", "reference/index", "index"):  # fmt: skip
        assert _rule_warnings(site, page) == set(), page


@pytest.mark.parametrize(
    ("page", "rules"),
    [
        (
            "auto_examples/01_x/plot_changed",
            {"gallery: go to the end", "gallery: running time", "gallery: download links",
             "gallery: signature", "code breaks", "phone figures"},
        ),
        ("reference/generated/mha.changed", {"API: examples using", "code breaks"}),
        ("buttons_changed", {"buttons"}),
        ("tables_changed", {"tables as cards", "code breaks"}),
        ("math_changed", {"upright subscripts", "plain-text titles", "code breaks"}),
    ],
)  # fmt: skip
def test_each_rule_warns_when_its_target_changed_upstream(site, page: str, rules: set) -> None:
    assert _rule_warnings(site, page) == rules
    # the warning says what the rule expected on the page
    assert all("expected" in line for line in site[1] if page in line and "page rule" in line)
