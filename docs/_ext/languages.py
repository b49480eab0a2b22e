"""The site's two editions, English and Chinese, built from one source tree.

``nox -s docs`` builds the site twice into ``_build/html/<language>``: English, then Chinese
with ``-D language=zh_CN`` from the gettext catalogs. This extension does what that layout and
the Chinese edition need beyond the catalogs:

- the theme's search placeholder and the label of its icon links, the footer's copyright
  holder and myst-nb's toggle of a folded cell ("Show code cell content") are configuration
  values, not catalog entries: the build in another language translates them (:data:`CONFIG`,
  :data:`THEME_OPTIONS`) from the interface catalog, ``locale/<language>/LC_MESSAGES/sphinx.po``;
- Sphinx 9.0's Chinese search writes ``window.Stemmer = ChineseStemmer``, a name its
  ``language_data.js`` never defines, so search fails on every Chinese page; the search class
  registered here stems Latin words as English, under a name that exists;
- myst-nb writes its executed notebooks to ``<output folder>/../jupyter_execute``, which for
  ``_build/html/en`` lies inside the published site: both languages write them to
  ``_build/jupyter_execute/<language>`` instead;
- on Read the Docs each language is its own project (the Chinese one a translation of the
  English one), so the language switcher links to the other project's root.
"""

from __future__ import annotations

import os
from pathlib import Path

from sphinx.locale import _

CONFIG = ("copyright", "nb_code_prompt_show", "nb_code_prompt_hide")  # translated values
THEME_OPTIONS = {"search_bar_text": "Search the docs ...", "icon_links_label": "Icon Links"}


def is_chinese(config) -> bool:
    return (config.language or "en").lower().startswith("zh")


def _translated_text(app, config) -> None:
    if (config.language or "en") != "en":
        options = {**THEME_OPTIONS, **config.html_theme_options}
        for name in THEME_OPTIONS:
            options[name] = str(_(options[name]))
        config.html_theme_options = options
        for name in CONFIG:
            setattr(config, name, str(_(getattr(config, name))))


def _other_language_on_read_the_docs(app, config) -> None:
    canonical = os.environ.get("READTHEDOCS_CANONICAL_URL", "")
    current = os.environ.get("READTHEDOCS_LANGUAGE", "")
    if canonical and current and f"/{current}/" in canonical:
        other = "en" if is_chinese(config) else "zh-cn"
        root = canonical.replace(f"/{current}/", f"/{other}/", 1)
        config.html_context["mha_other_language_root"] = root


def _notebooks_beside_the_site(app) -> None:
    outdir = Path(app.outdir)
    if outdir.name == (app.config.language or "en") and hasattr(app.env, "mystnb_config"):
        folder = outdir.parent.parent / "jupyter_execute" / outdir.name
        app.env.mystnb_config = app.env.mystnb_config.copy(output_folder=str(folder.resolve()))


def _chinese_search() -> type:
    """Sphinx's Chinese search (jieba, when installed), with a stemmer name that exists."""
    from sphinx.search.zh import SearchChinese

    class SearchChineseEnglishStemmer(SearchChinese):
        language_name = "English"  # -> window.Stemmer = EnglishStemmer

    return SearchChineseEnglishStemmer


def setup(app):
    app.add_search_language(_chinese_search())
    app.connect("config-inited", _other_language_on_read_the_docs)
    app.connect("config-inited", _translated_text)
    app.connect("builder-inited", _notebooks_beside_the_site, priority=600)  # after myst-nb's
    return {"parallel_read_safe": True, "parallel_write_safe": True}
