"""Sphinx configuration of the mha site: ``nox -s docs`` builds it with warnings as errors.

Configuration only: what the build does beyond Sphinx (Chinese interface lines and figures,
phone layouts, notebooks for download, ...) is in the site's own extensions, ``_ext/``, one
module per task, each saying what it does and why. The site works offline: KaTeX's styles,
fonts, icons and intersphinx inventories are all local; no page loads anything from another host.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from importlib.metadata import metadata
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))  # the site's own extensions
from site_facts import GENERATED, GENERATED_PAGES

# -- Project -----------------------------------------------------------------------------------

project, author, copyright = "mha", "The mha authors", "2026, The mha authors"
release = metadata("mha")["Version"]
version = ".".join(release.split(".")[:2])
# The project's addresses: pyproject.toml's [project.urls], as installed ("Name, URL").
URLS = dict(entry.split(", ", 1) for entry in metadata("mha").get_all("Project-URL") or [])
if "Repository" not in URLS:
    raise RuntimeError("expected the installed mha to have [project.urls]: pip install -e .")
REPOSITORY_URL = URLS["Repository"]  # linked from the navbar of every page
mha_documentation_url = URLS["Documentation"]  # downloaded notebooks link the site there
# The package as the site serves it (_ext/package.py builds it): what every download imports
mha_wheel = f"mha-{release}-py3-none-any.whl"
mha_install = f"python -m pip install {mha_wheel} matplotlib"  # torch comes with the wheel

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
    "sphinxcontrib.katex",  # math typeset when the site is built: no script in the reader's browser
    "sphinxext.opengraph",  # each page's description (search engines, link previews)
    # the site's own, in _ext/
    "languages",  # the Chinese edition's interface lines, search and notebooks folder
    "gallery_figures",  # the Chinese font; each figure checked for glyphs and laid out for phones
    "page_rules",  # code break points, phone figures; upright subscripts, plain-text tab titles
    "tutorial_notebooks",  # each tutorial page as a notebook, for download
    "translated_sources",  # the Chinese build runs the examples and notebooks in Chinese
    "package",  # runs again when the package changes; its wheel; a page for each name
    "kernel_start",  # notebook kernels start one at a time (-j 2 readers took the same port)
    "json_directives",  # figures, tables and the head explorer, from the measurements' JSON
    "questions",  # multiple-choice questions, each choice with its verdict and why
]

exclude_patterns = [
    *(path for path in GENERATED if path not in GENERATED_PAGES),  # outputs, not pages
    "Thumbs.db",
    ".DS_Store",
    "jupyter_execute",
    "**.ipynb_checkpoints",
    "auto_examples/**.ipynb",  # sphinx-gallery's notebooks: downloads, not sources
    "locale",  # translation catalogs and the translators' glossary, not pages
]
templates_path = ["_templates"]
nitpicky = True  # every cross-reference must resolve

# -- HTML: pydata-sphinx-theme (a light/dark switch, API-friendly layout, gallery styling) -------

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
    "search_bar_text": "Search the docs ...",  # the theme's default, translated below
    "icon_links_label": "Icon Links",
}
html_context = {"default_mode": "auto"}
# On Read the Docs each language is a project: the language switcher links to the other's root.
RTD_URL, RTD_LANGUAGE = (
    os.environ.get(f"READTHEDOCS_{v}", "") for v in ("CANONICAL_URL", "LANGUAGE")
)
if RTD_URL and RTD_LANGUAGE and f"/{RTD_LANGUAGE}/" in RTD_URL:
    OTHER = "en" if RTD_LANGUAGE.startswith("zh") else "zh-cn"
    html_context["mha_other_language_root"] = RTD_URL.replace(f"/{RTD_LANGUAGE}/", f"/{OTHER}/", 1)

# -- Languages: English, and Chinese (``-D language=zh_CN``) from locale/zh_CN/LC_MESSAGES/*.po --

language = "en"
locale_dirs = ["locale/"]
gettext_compact = False  # one catalog per page: tutorial/02_walkthrough.po, ...
gettext_uuid = False  # no per-message ids ...
gettext_location = False  # ... and no source line numbers: catalogs change when the text does
gettext_auto_build = True
# the gallery's thumbnails are raw HTML; code blocks: locale/catalogs.py, translated_sources.py
gettext_additional_targets = ["raw"]
# Chinese search: jieba segments the pages, not the query, so a compound typed whole (多头注意力)
# must be a term: the glossary's compounds are jieba's user dictionary.
html_search_options = {"dict": str(DOCS / "locale" / "zh_CN" / "search-dict.txt")}
# translated from sphinx.po once ``-D language`` is known (config-inited, below)
TRANSLATED = ["copyright", "nb_code_prompt_show", "nb_code_prompt_hide"]
TRANSLATED_THEME_OPTIONS = ["search_bar_text", "icon_links_label"]

# -- Cross-references to torch and Python: local inventories only ---------------------------------
# _intersphinx/*.inv: committed; to cite a new name, `sphobjinv convert plain`, edit, `convert zlib`

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

# -- Math: KaTeX, run by node when the site is built ----------------------------------------------
# HTML (seen) and MathML (read aloud); _static/katex-<version>: its css and woff2 fonts (MIT)
from sphinxcontrib.katex import KaTeXServer, katex_version

katex_prerender = True


def katex_on_unix_socket(cls, rundir: Path, timeout: float):
    """sphinxcontrib-katex 0.9.11 connects once, as soon as the socket file exists, which can be
    before node listens ("Connection refused"): this tries until it answers. Not its TCP way:
    node writes each answer in two parts, and TCP held each formula 90 ms (450 an edition)."""
    path, deadline = rundir / "katex.sock", time.monotonic() + timeout
    server = subprocess.Popen(cls.build_command(socket=path), stdin=-1, stdout=-1, cwd=rundir)
    while (sock := socket.socket(socket.AF_UNIX)).connect_ex(str(path)):  # 0: connected
        sock.close()
        if time.monotonic() > deadline:
            raise cls.timeout_error(timeout)
        time.sleep(0.001)
    return server, sock


KaTeXServer.start_server_process = classmethod(katex_on_unix_socket)
katex_css_path = f"katex-{katex_version}/katex.min.css"

# -- Each page's description (sphinxext-opengraph): the first paragraphs or front matter's, no code
ogp_site_url = mha_documentation_url
from docutils.nodes import Invisible
from sphinx_gallery._doctree_links import code_links_block

code_links_block.__bases__ += (Invisible,)  # sphinx-gallery's linked code: skipped there
ogp_enable_meta_description = True
ogp_social_cards = {"enable": False}

# -- Executed Markdown notebooks: myst-nb ---------------------------------------------------------

myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
nb_execution_mode = "cache"
nb_execution_timeout = 120
nb_execution_raise_on_error = True  # a failing cell fails the build
nb_execution_show_tb = True
nb_merge_streams = True
nb_code_prompt_show = "Show code cell {type}"  # myst-nb's defaults, translated above
nb_code_prompt_hide = "Hide code cell {type}"
nb_execution_excludepatterns = ["auto_examples/*"]  # myst-nb reads only the Markdown pages
from myst_nb.core.execute.cache import NotebookClientCache

_start_cached = NotebookClientCache.start_client


def _into_the_given_notebook(self) -> None:
    """myst-nb 1.4 writes the notebook it was given to jupyter_execute/, the record of what each
    page printed (tests_site checks the page against it), not the cached run it shows."""
    given = self.notebook
    _start_cached(self)
    given.cells, self._notebook = self.notebook.cells, given


NotebookClientCache.start_client = _into_the_given_notebook

# -- Gallery: sphinx-gallery ----------------------------------------------------------------------

sphinx_gallery_conf = {
    "examples_dirs": "../gallery",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",  # every plot_*.py is executed, none is shown unrun
    "ignore_pattern": r"__init__\.py",
    "within_subsection_order": "FileNameSortKey",  # plot_01_..., plot_02_...
    "abort_on_example_error": False,  # a failing example fails the build, after all have run
    "parallel": True,  # as many examples at a time as Sphinx's -j
    "only_warn_on_example_error": False,
    "download_all_examples": True,  # zips of every .py and every .ipynb
    "notebook_extensions": {".py"},  # each example also downloads as a notebook
    # each notebook's first cell installs what it imports, the wheel saved beside it
    "first_notebook_cell": mha_install.replace("python -m pip install", "%pip install --quiet"),
    "image_scrapers": ("gallery_figures.scraper", "json_directives.scraper"),  # + phone, JSON
    "reset_modules": ("matplotlib",),  # fresh rcParams and figures for each example
    "doc_module": ("mha",),  # record which examples use which mha names ...
    "backreferences_dir": "gen_modules/backreferences",  # ... for each API page's minigallery
    "exclude_implicit_doc": set(),
    "inspect_global_variables": True,
    "write_computation_times": False,  # those pages load scripts from a CDN; the log has them
    "min_reported_time": 0,
    "show_memory": False,
    "remove_config_comments": True,
    "run_stale_examples": False,  # on for one build when the package changed (_ext/package.py)
    "image_srcset": ["2x"],  # figures drawn for the text column, and at twice that for HiDPI
    # a cell ending in a plotting call would print what it returns (Text(...)): never shown
    "ignore_repr_types": r"matplotlib|mpl_toolkits",
}


# -- The edition's language, once it is known -----------------------------------------------------


def _in_the_editions_language(app, config) -> None:
    from sphinx.locale import _  # the interface catalog of config.language

    for name in TRANSLATED:
        setattr(config, name, str(_(getattr(config, name))))
    options = config.html_theme_options
    options.update({name: str(_(options[name])) for name in TRANSLATED_THEME_OPTIONS})


def setup(app):
    app.connect("config-inited", _in_the_editions_language)
