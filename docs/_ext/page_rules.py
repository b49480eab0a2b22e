"""What the site's own rewrites share: the page body parsed once, and a warning for a rule that
matched nothing where it should have.

The site changes a few things in its pages that neither Sphinx, the theme nor sphinx-gallery
can be configured to do (Chinese interface lines, tables as cards on a phone, break points in
inline code, phone versions of figures, plain-text tab titles). Each rule lives in its own
extension module and works on the doctree where the content exists as nodes. Where only the
HTML can be changed, the rule asks :func:`body` for the page body as a BeautifulSoup tree:
the body is parsed once per page, every rule edits the same tree, and the tree is written back
to the page once, after every rule has run (never regular expressions over markup).

A rule depends on what its upstream writes: a class name, a sentence of sphinx-gallery's. When
that changes upstream, the rule would silently match nothing and the page would quietly change
(a Chinese page turning English). So every rule knows where it must match, and calls
:func:`unmatched` when it matched nothing there: a Sphinx warning naming the rule, which the
strict build (``-W``) turns into a failure.
"""

from __future__ import annotations

from bs4 import BeautifulSoup
from sphinx.util import logging

logger = logging.getLogger(__name__)

_SOUP = "mha_body_soup"  # the parsed body, kept in the page's template context


def unmatched(rule: str, docname: str, expected: str) -> None:
    """Warn that ``rule`` matched nothing on ``docname``, where it should have ``expected``."""
    logger.warning(
        "page rule %r did not match on this page: expected %s (has the markup or text it "
        "rewrites changed upstream?)",
        rule,
        expected,
        location=docname,
        type="mha",
        subtype=rule,
    )


def body(context: dict) -> BeautifulSoup | None:
    """The page body (``context["body"]``) as a tree that every rule of this page edits.

    ``None`` for a page without a body. The tree is written back by :func:`write_back`.
    """
    if _SOUP not in context:
        html = context.get("body")
        context[_SOUP] = BeautifulSoup(html, "html.parser") if html else None
    return context[_SOUP]


def fragment(html: str) -> BeautifulSoup:
    """A small piece of HTML from the context (a link title) as a tree."""
    return BeautifulSoup(html, "html.parser")


def write_back(app, pagename, templatename, context, doctree) -> None:
    """Write the edited tree back to ``context["body"]``, once every rule has run."""
    soup = context.pop(_SOUP, None)
    if soup is not None:
        context["body"] = str(soup)


def setup(app):
    # after every rule's html-page-context handler (default priority 500)
    app.connect("html-page-context", write_back, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
