"""Sphinx configuration of the mha site: ``nox -s docs`` builds it with warnings as errors.

The site works offline: MathJax, fonts, icons and intersphinx inventories are all local, and no
built page loads anything from another host.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import sys
from importlib.metadata import version as _version
from pathlib import Path

import mha

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))  # the site's own extensions: phone_figures, kernel_start

# -- Project -----------------------------------------------------------------------------------

project = "mha"
author = "The mha authors"
copyright = "2026, The mha authors"
release = _version("mha")
version = ".".join(release.split(".")[:2])
# The repository, linked from the navbar of every page (its one place in the project's docs).
REPOSITORY_URL = "https://github.com/mha-lesson/mha"

# -- General -----------------------------------------------------------------------------------

extensions = [
    "myst_nb",  # Markdown pages and executed Markdown notebooks (the tutorial)
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",  # numpydoc docstrings -> reference pages
    "sphinx.ext.intersphinx",
    "sphinx_gallery.gen_gallery",  # gallery/ -> auto_examples/, executed
    "sphinx_copybutton",
    "sphinx_design",  # cards on the index page
    "sphinx-mathjax-offline",  # MathJax 3 served from _static, not from a CDN
    "phone_figures",  # each gallery figure also laid out for a phone, served by <picture>
    "kernel_start",  # notebook kernels start one at a time (-j 2 readers took the same port)
    "bench_figures",  # the Performance page's figures and table, from the benchmark's JSON
]

exclude_patterns = [
    "_build",
    "Thumbs.db",
    ".DS_Store",
    ".jupyter_cache",
    "jupyter_execute",
    "gen_modules",
    "**.ipynb_checkpoints",
    # sphinx-gallery writes a notebook beside each generated page: they are downloads,
    # not sources (myst-nb would otherwise find two sources per page and re-execute them)
    "auto_examples/**.ipynb",
    "locale",  # translation catalogs and the translators' glossary, not pages
    "tutorial/notebooks",  # the tutorial pages as notebooks: downloads, written by the build
]
templates_path = ["_templates"]
nitpicky = True  # every cross-reference must resolve
suppress_warnings = []

# -- HTML: pydata-sphinx-theme ------------------------------------------------------------------
# pydata-sphinx-theme: a light/dark switch, API-friendly layout and sphinx-gallery styling.

html_theme = "pydata_sphinx_theme"
html_title = f"mha {release}"
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_js_files = ["a11y.js"]  # names for the navigation toggles (accessibility)
html_favicon = "_static/favicon.svg"
html_logo = "_static/favicon.svg"
html_show_sourcelink = True
html_theme_options = {
    "logo": {"text": "mha"},
    "navbar_align": "left",
    "header_links_before_dropdown": 6,
    # the repository; the icon font ships with the theme (nothing is fetched)
    "icon_links": [
        {
            "name": "GitHub",
            "url": REPOSITORY_URL,
            "icon": "fa-brands fa-github",
            "type": "fontawesome",
        }
    ],
    # the same page in the other language (_templates/language-switcher.html), then the theme
    "navbar_end": ["language-switcher", "theme-switcher", "navbar-icon-links"],
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "use_edit_page_button": False,
    "secondary_sidebar_items": ["page-toc", "sourcelink"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
    "pygments_light_style": "a11y-high-contrast-light",  # WCAG AA contrast on code (axe)
    "pygments_dark_style": "a11y-high-contrast-dark",
}
html_context = {"default_mode": "auto"}

# -- Languages: English source, Simplified Chinese from gettext catalogs --------------------------
# ``nox -s docs`` builds the site twice: English into _build/html/en, then with
# ``-D language=zh_CN`` into _build/html/zh_CN, and writes a root page that picks one. The
# Chinese text comes from locale/zh_CN/LC_MESSAGES/<page>.po, one catalog per page, compiled
# to .mo by the build; an entry left untranslated shows the English text. ``nox -s
# translations -- update`` refreshes the catalogs from the sources and ``nox -s translations``
# fails while an entry is missing, fuzzy or stale. The API reference and sphinx-gallery's own
# lines (downloads, running time) have no catalogs: they stay English in both languages.

language = "en"
locale_dirs = ["locale/"]
gettext_compact = False  # one catalog per page: tutorial/02_walkthrough.po, ...
gettext_uuid = False  # no per-message ids ...
gettext_location = False  # ... and no source line numbers: catalogs change when the text does
gettext_auto_build = True
# The gallery index's thumbnail titles and tooltips are raw HTML: translatable too.
gettext_additional_targets = ["raw"]
# Chinese search: Sphinx segments the Chinese pages with jieba (in the docs extra). The reader's
# query is not segmented, so a compound typed without spaces (多头注意力, 注意力权重) must itself
# be an index term: the glossary's compounds are jieba's user dictionary. Other languages
# ignore the option.
html_search_options = {"dict": str(DOCS / "locale" / "zh_CN" / "search-dict.txt")}
# the folders of a two-language build: _build/html/<folder>
LANGUAGE_FOLDERS = ("en", "zh_CN")

# -- Cross-references to torch and Python: local inventories only --------------------------------
# Regenerate with ``python docs/_intersphinx/make_inventories.py``; nothing is fetched.

intersphinx_mapping = {
    "torch": ("https://docs.pytorch.org/docs/stable/", "_intersphinx/torch.inv"),
    "python": ("https://docs.python.org/3/", "_intersphinx/python.inv"),
}
intersphinx_timeout = 1

# -- API reference: autosummary + numpydoc --------------------------------------------------------

autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"  # numpydoc's type fields say it, with shapes
autodoc_inherit_docstrings = False  # nn.Module's docstrings are not ours
numpydoc_show_class_members = False  # the class template lists members instead
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# -- Executed Markdown notebooks: myst-nb ---------------------------------------------------------

myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
nb_execution_mode = "cache"
nb_execution_timeout = 120
nb_execution_raise_on_error = True  # a failing cell fails the build
nb_execution_show_tb = True
nb_merge_streams = True
# sphinx-gallery's notebooks are excluded above; myst-nb reads only the tutorial's Markdown
nb_execution_excludepatterns = ["auto_examples/*"]

# -- Gallery: sphinx-gallery ----------------------------------------------------------------------

sphinx_gallery_conf = {
    "examples_dirs": "../gallery",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",  # every plot_*.py is executed, none is shown unrun
    "ignore_pattern": r"__init__\.py",
    "within_subsection_order": "FileNameSortKey",  # plot_01_..., plot_02_...
    # A failing example fails the build: sphinx-gallery runs them all, then ends the build
    # with an error listing each failure (abort_on_example_error=True would stop at the first).
    "abort_on_example_error": False,
    # the examples run as many at a time as Sphinx's -j (nox -s docs: one per core)
    "parallel": True,
    "only_warn_on_example_error": False,
    "download_all_examples": True,  # zips of every .py and every .ipynb
    "notebook_extensions": {".py"},  # each example also downloads as a notebook
    # sphinx-gallery's matplotlib scraper, plus a second layout of each figure for phones
    "image_scrapers": ("phone_figures.scraper",),
    "reset_modules": ("matplotlib",),  # fresh rcParams and figures for each example
    "doc_module": ("mha",),  # record which examples use which mha names ...
    "backreferences_dir": "gen_modules/backreferences",  # ... for each API page's minigallery
    "exclude_implicit_doc": set(),
    "inspect_global_variables": True,
    # The site-wide and per-gallery execution-time pages load jQuery and DataTables from a CDN:
    # off. Each example page still ends with its running time, and the build log prints a
    # "computation time summary" of every example.
    "write_computation_times": False,
    "min_reported_time": 0,
    "show_memory": False,
    "remove_config_comments": True,
    "run_stale_examples": False,  # turned on for one build when the package changed (below)
    # Figures: drawn for the text column (about 7 in) and saved a second time at twice the
    # resolution for high-DPI screens.
    "image_srcset": ["2x"],
    # A cell ending in a plotting call would print the object it returns
    # (<matplotlib.colorbar.Colorbar object at 0x...>, Text(...)): never show those.
    "ignore_repr_types": r"matplotlib|mpl_toolkits",
}

# -- Re-run examples and notebooks when the package changes ---------------------------------------
# sphinx-gallery re-runs an example only when its file changes, and the notebook cache keys on
# the notebook's text: neither sees a change in src/mha. So the build hashes the package's
# sources: when the hash differs from the one recorded by the last successful build, every
# example runs again, the notebooks get a fresh cache and every page is read again. A build
# where nothing changed re-runs nothing.

_PACKAGE = Path(mha.__file__).resolve().parent
mha_source_hash = hashlib.sha256(
    b"".join(p.read_bytes() for p in sorted(_PACKAGE.glob("*.py")))
).hexdigest()[:16]
_STAMP = DOCS / "auto_examples" / ".mha-source-hash"
_package_changed = not _STAMP.is_file() or _STAMP.read_text().strip() != mha_source_hash

_CACHE_ROOT = DOCS / ".jupyter_cache"
nb_execution_cache_path = str(_CACHE_ROOT / mha_source_hash)  # absolute, keyed by the package
if _CACHE_ROOT.is_dir():  # caches of older package versions
    for _old in _CACHE_ROOT.iterdir():
        if _old.name != mha_source_hash:
            shutil.rmtree(_old, ignore_errors=True)

# Examples pick their device with mha.get_device() (MHA_DEVICE, else CUDA, else the CPU).
os.environ.setdefault("MPLBACKEND", "Agg")

# The notebook kernel warns that it runs over local TCP: noise. ``nox -s docs`` points
# IPYTHONDIR at a profile that lowers the kernel's log level; a plain sphinx-build gets one here.
if "IPYTHONDIR" not in os.environ:
    _ipython = DOCS / "_build" / ".ipython"
    _profile = _ipython / "profile_default" / "ipython_kernel_config.py"
    _profile.parent.mkdir(parents=True, exist_ok=True)
    _profile.write_text('c.IPKernelApp.log_level = "ERROR"\n')
    os.environ["IPYTHONDIR"] = str(_ipython)


# -- Checks and hooks -----------------------------------------------------------------------------

REFERENCE_INDEX = DOCS / "reference" / "index.rst"


def _check_reference_lists_all(app, config) -> None:
    """Fail the build when a name of ``mha.__all__`` has no reference page."""
    text = REFERENCE_INDEX.read_text()
    missing = [n for n in mha.__all__ if n != "__version__" and f"   {n}\n" not in text]
    if missing:
        from sphinx.util import logging as sphinx_logging

        sphinx_logging.getLogger(__name__).warning(
            "expected every name of mha.__all__ in %s, missing %s", REFERENCE_INDEX.name, missing
        )


def _rerun_examples_if_package_changed(app) -> None:
    """Turn on ``run_stale_examples`` for this build only when the package changed.

    Set after the builder has hashed its configuration, so that the next build, with the flag
    off again, does not see a changed configuration and rewrite every page.
    """
    app.config.sphinx_gallery_conf["run_stale_examples"] = _package_changed


def _chinese_theme_text(app, config) -> None:
    """The search box's placeholder (a theme option, not a catalog entry), the footer's
    copyright holder and myst-nb's toggle of a collapsed cell ("Show code cell content"), in
    Chinese on the Chinese pages."""
    if (config.language or "en").lower().startswith("zh"):
        config.html_theme_options = {**config.html_theme_options, "search_bar_text": "搜索文档……"}
        config.copyright = "2026，mha 的作者们"
        config.nb_code_prompt_show = "显示折叠的代码单元格"
        config.nb_code_prompt_hide = "折叠代码单元格"


def _other_language_on_read_the_docs(app, config) -> None:
    """On Read the Docs, link the language switcher to the other language's project.

    Each language is its own project there (the Chinese one a translation of the English
    one), served at ``<host>/<language>/<version>/``: not beside this build's folder.
    """
    canonical = os.environ.get("READTHEDOCS_CANONICAL_URL", "")
    current = os.environ.get("READTHEDOCS_LANGUAGE", "")
    if canonical and current and f"/{current}/" in canonical:
        other = "en" if (config.language or "en").startswith("zh") else "zh-cn"
        root = canonical.replace(f"/{current}/", f"/{other}/", 1)
        config.html_context["mha_other_language_root"] = root


def _notebooks_beside_the_site(app) -> None:
    """Keep myst-nb's executed notebooks out of the published two-language site.

    myst-nb writes them to ``<output folder>/../jupyter_execute``: for _build/html/en that is
    inside the site root. Both languages write the same files, to _build/jupyter_execute.
    """
    outdir = Path(app.outdir)
    if outdir.name in LANGUAGE_FOLDERS and hasattr(app.env, "mystnb_config"):
        folder = outdir.parent.parent / "jupyter_execute"
        app.env.mystnb_config = app.env.mystnb_config.copy(output_folder=str(folder.resolve()))


TUTORIAL = DOCS / "tutorial"
DOWNLOAD_LINE = re.compile(r"^\{download\}`Download this page.*?\n\n", re.MULTILINE | re.DOTALL)


def _tutorial_notebooks(app, config) -> None:
    """Write each tutorial page as a notebook, tutorial/notebooks/<page>.ipynb, for download.

    The notebook is the page's text and code, unexecuted, without its own download line; each
    page links it with ``{download}``. ``nox -s downloads`` runs them in an empty folder.

    "Try first, then see": a page hides an answer in a ``{dropdown}`` (its text) and a code cell
    tagged ``hide-cell`` (its code), after a cell where the reader tries. Jupyter knows neither:

    - each dropdown becomes a Markdown cell of its own, after the text and cells before it,
      headed by the dropdown's title one level below the section it sits in (its options,
      ``:open:`` and the like, left out);
    - a code cell tagged ``hide-cell``, ``hide-input`` or ``hide-output`` keeps its place and
      its tags, and JupyterLab collapses the same parts (``metadata.jupyter``).

    Cell ids are numbered, so that an unchanged page writes an unchanged notebook.
    """
    import nbformat
    from myst_nb.core.read import read_myst_markdown_notebook

    dropdown = re.compile(r"^(?P<fence>:{3,}|`{3,})\{dropdown\}[ \t]*(?P<title>.*?)\s*$")
    heading = re.compile(r"^(#{1,6})\s")
    code_fence = re.compile(r"^(`{3,}|~{3,})")
    option = re.compile(r"^:[\w-]+:")
    hidden = {"hide-cell": ("source_hidden", "outputs_hidden"), "hide-input": ("source_hidden",),
              "hide-output": ("outputs_hidden",)}  # fmt: skip

    def closes(line: str, fence: str) -> bool:
        mark = line.strip()
        return len(mark) >= len(fence) and set(mark) == {fence[0]}

    def split_dropdowns(source: str, level: int) -> tuple[list[str], int]:
        """A Markdown cell's parts, each dropdown its own; and the heading level at its end."""
        parts, text, lines, in_code = [], [], iter(source.splitlines()), None
        for line in lines:
            start = dropdown.match(line) if in_code is None else None
            if start is None:
                fence = code_fence.match(line)
                if in_code is None and fence:
                    in_code = fence[1]
                elif in_code is not None and closes(line, in_code):
                    in_code = None
                elif in_code is None and heading.match(line):
                    level = len(heading.match(line)[1])
                text.append(line)
                continue
            body = []
            for inner in lines:
                if closes(inner, start["fence"]):
                    break
                body.append(inner)
            if body and body[0].strip() == "---":  # options as a YAML block
                body = body[body.index("---", 1) + 1 :] if "---" in body[1:] else body[1:]
            while body and option.match(body[0]):
                body = body[1:]
            parts.append("\n".join(text).strip())
            title = start["title"] or "Answer"
            parts.append(f"{'#' * min(level + 1, 6)} {title}\n\n" + "\n".join(body).strip())
            text = []
        parts.append("\n".join(text).strip())
        return [part for part in parts if part], level

    folder = TUTORIAL / "notebooks"
    folder.mkdir(exist_ok=True)
    for page in sorted(TUTORIAL.glob("[0-9][0-9]_*.md")):
        notebook = read_myst_markdown_notebook(DOWNLOAD_LINE.sub("", page.read_text()))
        notebook.metadata.pop("file_format", None)
        cells, level = [], 1
        for cell in notebook.cells:
            if cell.cell_type != "markdown":
                for tag in cell.metadata.get("tags", []):
                    for part in hidden.get(tag, ()):
                        cell.metadata.setdefault("jupyter", {})[part] = True
                cells.append(cell)
                continue
            parts, level = split_dropdowns(cell.source, level)
            cells += [nbformat.v4.new_markdown_cell(p, metadata=dict(cell.metadata)) for p in parts]
        for number, cell in enumerate(cells):
            cell.id = f"cell-{number:03d}"
        notebook.cells = cells
        text = nbformat.writes(notebook)
        target = folder / f"{page.stem}.ipynb"
        if not target.is_file() or target.read_text() != text:
            target.write_text(text)


def _record_source_hash(app, exception) -> None:
    """After a successful build, remember which package sources the outputs came from."""
    if exception is None and _STAMP.parent.is_dir():
        _STAMP.write_text(mha_source_hash + "\n")


def _chinese_search() -> type:
    """Sphinx's Chinese search, with a stemmer name that its language_data.js defines.

    Sphinx 9.0 ships the English stemmer for Chinese pages (Latin words are stemmed as
    English) but ends language_data.js with ``window.Stemmer = ChineseStemmer``: every page
    of the Chinese site then fails with "ChineseStemmer is not defined". The script takes
    its name from ``language_name``. Chinese words are indexed only when jieba is installed.
    """
    from sphinx.search.zh import SearchChinese

    class SearchChineseEnglishStemmer(SearchChinese):
        language_name = "English"  # -> window.Stemmer = EnglishStemmer

    return SearchChineseEnglishStemmer


# sphinx-gallery writes its own lines into every generated page (download links, running time,
# the gallery's credit) and no catalog holds them; the theme's strings come from
# locale/zh_CN/LC_MESSAGES/sphinx.po (Sphinx reads a sphinx.po in locale_dirs before the
# theme's own catalog). In the Chinese edition the page HTML gets these in Chinese.
def _pre_words(english: str) -> str:
    """The pattern of a download link's text: each word in its own <span class="pre">."""
    return r'</span>\s*<span class="pre">'.join(re.escape(w) for w in english.split())


def _pre_text(chinese: str) -> str:
    return '</span> <span class="pre">'.join(chinese.split())


_GALLERY_UI_ZH = [
    (
        re.compile(
            r'(<span class="std std-ref">)Go to the end(</span></a>)\s+to download the full'
            r"\s+example code\.?"
        ),
        r"\1跳到页末\2下载完整的示例代码。",
    ),
    (
        re.compile(
            r"<strong>Total running time of the script:</strong>\s*\((\d+) minutes\s+"
            r"([\d.]+) seconds\)"
        ),
        r"<strong>脚本总运行时间：</strong>\1 分 \2 秒",
    ),
    (re.compile(r">Gallery generated by Sphinx-Gallery<"), ">示例库由 Sphinx-Gallery 生成<"),
    (re.compile(r"Examples using (<code)"), r"使用以下名称的示例：\1"),
    (re.compile(r">Related examples<"), ">相关示例<"),
    # the home page's button (sphinx-design's button text is not in the page's catalog)
    (re.compile(r"Start the lesson →"), "开始学习 →"),
] + [
    (re.compile(_pre_words(english)), _pre_text(chinese))
    for english, chinese in (
        ("Download all examples in Python source code:", "下载全部示例的 Python 源代码："),
        ("Download all examples in Jupyter notebooks:", "下载全部示例的 Jupyter 笔记本："),
        ("Download Jupyter notebook:", "下载 Jupyter 笔记本："),
        ("Download Python source code:", "下载 Python 源代码："),
        ("Download zipped:", "下载压缩包："),
    )
]


def _chinese_ui_strings(app, pagename, templatename, context, doctree) -> None:
    """Put sphinx-gallery's lines into Chinese."""
    if not (app.config.language or "en").lower().startswith("zh") or "body" not in context:
        return
    body = context["body"]
    for pattern, replacement in _GALLERY_UI_ZH:
        body = pattern.sub(replacement, body)
    # The API reference stays in English, but the links to it (cards, breadcrumbs, next and
    # previous) name it in Chinese, as the navbar does.
    context["body"] = body.replace(">API reference<", ">API 参考<")
    for link in [context.get("next"), context.get("prev"), *(context.get("parents") or [])]:
        if link and link.get("title") == "API reference":
            link["title"] = "API 参考"


# A word as a subscript is a name, set upright: $d_{model}$ reads d_{\text{model}} (TeX sets
# letters of a subscript as a product of italic variables). Applied to the math of every page
# after translation, so the sources and catalogs keep the short form.
_WORD_SUBSCRIPT = re.compile(r"_\{([A-Za-z]{3,})\}")


def _upright_word_subscripts(app, doctree, docname) -> None:
    from docutils import nodes

    for node in list(doctree.findall(lambda n: isinstance(n, (nodes.math, nodes.math_block)))):
        text = node.astext()
        upright = _WORD_SUBSCRIPT.sub(r"_{\\text{\1}}", text)
        if upright != text:
            node.children = []
            node += nodes.Text(upright)


# Math in a heading is typeset in the page and in its tables of contents, but the browser's tab
# title is plain text: TeX there becomes Unicode (\sqrt{d_k} -> √d_k).
_TITLE_MATH = re.compile(r'<span class="math[^"]*">\\\((.*?)\\\)</span>')
_TEX_TEXT = [
    (re.compile(r"\\sqrt\{([^{}]*)\}"), r"√\1"),
    (re.compile(r"\\text\{([^{}]*)\}"), r"\1"),
    (re.compile(r"\\cdot"), "·"),
    (re.compile(r"\\top"), "ᵀ"),
    (re.compile(r"\\times"), "×"),
    (re.compile(r"[{}]|\\,|\\!"), ""),
]


def _tex_to_text(tex: str) -> str:
    for pattern, replacement in _TEX_TEXT:
        tex = pattern.sub(replacement, tex)
    return tex.strip()


def _plain_text_title(app, pagename, templatename, context, doctree) -> None:
    if context.get("title"):
        context["title"] = _TITLE_MATH.sub(lambda m: _tex_to_text(m.group(1)), context["title"])


# Phones. Inline code may break after "_", "=", "," or a "." between names (<wbr>), so a narrow
# line splits need_weights= / False, not average_attn_w / eights (custom.css lets a name longer
# than the line break inside too, instead of running past the screen). And each
# table written in Markdown (a header row, class "table") gets its header's text on every cell
# (data-label) and the class mha-stack: on a phone each row is a card of labelled fields
# (custom.css), since three or four columns of 100 px cut words letter by letter.
_TABLE = re.compile(r"<table\b[^>]*>.*?</table>", re.DOTALL)
_CODE_TEXT = re.compile(r'(<span class="pre">)([^<]+)(</span>)')
_CODE_BREAK = re.compile(r"(?<=[_=,])(?=\S)|(?<=\w\.)(?=[A-Za-z_])")  # not in "...", ".view"
_HEAD_CELL = re.compile(r"<th\b[^>]*>(.*?)</th>", re.DOTALL)
_BODY_ROW = re.compile(r"<tr\b[^>]*>.*?</tr>", re.DOTALL)


def _label(html: str) -> str:
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html)).strip()
    return text.replace('"', "&quot;")


def _table_for_phones(match: re.Match) -> str:
    table = match.group(0)
    opening = table[: table.index(">") + 1]
    head = re.search(r"<thead>(.*?)</thead>", table, re.DOTALL)
    if 'class="table"' not in opening or head is None:
        return table
    labels = [_label(h) for h in _HEAD_CELL.findall(head.group(1))]
    body_start = table.index("<tbody")

    def row(r: re.Match) -> str:
        cells = iter(labels)
        return re.sub(r"<td\b", lambda _: f'<td data-label="{next(cells, "")}"', r.group(0))

    stacked = opening.replace('class="table"', 'class="table mha-stack"')
    return stacked + table[len(opening) : body_start] + _BODY_ROW.sub(row, table[body_start:])


def _code_breaks(match: re.Match) -> str:
    return match.group(1) + _CODE_BREAK.sub("<wbr>", match.group(2)) + match.group(3)


def _tables_for_phones(app, pagename, templatename, context, doctree) -> None:
    body = context.get("body")
    if body and "<table" in body:
        body = _TABLE.sub(_table_for_phones, body)
    if body:  # inline code outside tables: the same places to break
        context["body"] = _CODE_TEXT.sub(_code_breaks, body)
    for link in (context.get("prev"), context.get("next")):  # "mha.split_heads" in the footer
        if link and link.get("title"):
            link["title"] = re.sub(
                r"(^|>)([^<]*)",
                lambda m: m.group(1) + _CODE_BREAK.sub("<wbr>", m.group(2)),
                link["title"],
            )


def setup(app) -> None:
    # sphinx-mathjax-offline only copies MathJax into _static when the build has finished: it
    # is safe in a parallel build (``nox -s docs`` reads and writes on every core), though it
    # does not say so itself, and an undeclared extension would turn the build serial.
    offline = app.extensions["sphinx-mathjax-offline"]
    offline.parallel_read_safe = offline.parallel_write_safe = True
    app.add_search_language(_chinese_search())
    # a changed package re-reads every page (autodoc, notebooks, gallery pages)
    app.add_config_value("mha_source_hash", "", "env")
    app.connect("config-inited", _check_reference_lists_all)
    app.connect("config-inited", _other_language_on_read_the_docs)
    app.connect("config-inited", _chinese_theme_text)
    app.connect("config-inited", _tutorial_notebooks)
    app.connect("builder-inited", _rerun_examples_if_package_changed, priority=100)
    app.connect("builder-inited", _notebooks_beside_the_site, priority=600)  # after myst-nb's
    app.connect("build-finished", _record_source_hash, priority=900)
    app.connect("html-page-context", _chinese_ui_strings)
    app.connect("html-page-context", _plain_text_title)
    app.connect("html-page-context", _tables_for_phones)
    app.connect("doctree-resolved", _upright_word_subscripts)
