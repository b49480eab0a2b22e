"""Code blocks with their comments in the page's language.

The catalogs hold each code block whose comments have words (``docs/locale/catalogs.py``): the
``msgid`` is the block, the ``msgstr`` the same code with Chinese comments. Sphinx translates
such blocks itself when ``gettext_additional_targets`` names ``literal-block``, but it parses
the translation again as ``::`` followed by the indented code, with the page's own parser:
right for reStructuredText (the gallery's pages), wrong for MyST Markdown (the tutorial, how-to
and explanation pages, where ``::`` is a paragraph): every translated code cell of those pages
would show ``::`` instead of its code.

So this transform translates the code blocks first, before Sphinx's (priority 19 against 20):
the block's text becomes its translation as it is, and the block is marked translated, which
Sphinx's transform then skips. Blocks without an entry stay as they are.
"""

from __future__ import annotations

from pathlib import Path

from docutils import nodes
from sphinx.locale import init as init_locale
from sphinx.transforms import SphinxTransform
from sphinx.util.i18n import docname_to_domain


class TranslateCodeBlocks(SphinxTransform):
    default_priority = 19  # before sphinx.transforms.i18n.Locale (20)

    def apply(self, **kwargs) -> None:
        config = self.config
        if not config.language or config.language == "en":
            return
        if "literal-block" not in config.gettext_additional_targets:
            return
        domain = docname_to_domain(self.env.docname, config.gettext_compact)
        folders = [str(Path(self.env.srcdir, d)) for d in config.locale_dirs]
        catalog, found = init_locale(folders, config.language, domain)
        if not found:
            return
        for node in self.document.findall(nodes.literal_block):
            source = node.rawsource or node.astext()
            translation = catalog.gettext(source)
            if translation and translation != source:
                node.children = [nodes.Text(translation)]
                node.rawsource = translation  # highlighting reads it
                node["translated"] = True


def setup(app):
    app.add_transform(TranslateCodeBlocks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
