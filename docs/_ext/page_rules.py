"""The site's rewrites of its pages, where neither Sphinx, the theme nor sphinx-gallery can be
configured to do them, each a rule that warns when it matches nothing where it should.

- **Break points in inline code.** A browser breaks ``average_attn_weights`` only at its end:
  on a 390 px phone a line of inline code runs past the screen, or (with ``overflow-wrap:
  anywhere``) splits letter by letter. Each word of inline code (Sphinx's ``<span
  class="pre">``) and the titles of the next and previous links get a ``<wbr>`` after ``_``,
  ``=`` or ``,`` and at a ``.`` between names: ``need_weights=`` / ``False``.
- **Tables as cards.** Each table written in Markdown (a header row; Sphinx's class ``table``)
  gets the class ``mha-stack`` and its header's text on every cell (``data-label``):
  ``custom.css`` shows each row as a card of labelled fields on a phone.
- **Upright word subscripts.** TeX sets ``d_{model}`` as a product of italic letters: a
  subscript of three letters or more becomes ``d_{\\text{model}}`` in every formula.
- **Plain-text tab titles.** Math in a heading becomes Unicode in the browser's tab title
  (``\\(\\sqrt{d_k}\\)`` -> ``√d_k``).

HTML attributes such as ``data-label`` have no place in the doctree, so the HTML rules edit the
page body as a tree (:func:`body`): parsed once per page, edited by every rule (this module's
and ``gallery_figures``'), written back once (:func:`write_back`), never regular expressions
over markup. A rule depends on what its upstream writes (a class name, a sentence); each knows
from the doctree where it must match, and calls :func:`unmatched` when it matched nothing
there: a Sphinx warning naming the rule, which the strict build (``-W``) turns into a failure.
"""

from __future__ import annotations

import functools
import re

from bs4 import BeautifulSoup, NavigableString
from docutils import nodes
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


# ---- Inline code and tables on a phone ----------------------------------------------------------

# after "_", "=" or "," (when more follows), and at a "." between names (not "...", ".view")
CODE_BREAK = re.compile(r"(?<=[_=,])(?=\S)|(?<=\w\.)(?=[A-Za-z_])")


@functools.cache
def _tag_maker():
    """An empty soup whose new_tag makes the <wbr> tags (one for the build, not one a text)."""
    return fragment("")


def _with_breaks(text: NavigableString) -> bool:
    """Put a <wbr> at every break point of one text node; whether there was one."""
    pieces = CODE_BREAK.split(str(text))
    if len(pieces) == 1:
        return False
    for piece in pieces[:-1]:
        text.insert_before(NavigableString(piece))
        text.insert_before(_tag_maker().new_tag("wbr"))
    text.replace_with(NavigableString(pieces[-1]))
    return True


def _breakable_literals(doctree) -> int:
    """Inline literals (not code blocks) with a place to break."""
    return sum(
        1 for literal in doctree.findall(nodes.literal) if CODE_BREAK.search(literal.astext())
    )


def _markdown_tables(doctree) -> int:
    """Tables with a header row and no class of their own (not the API's summary tables, not
    the benchmark's table)."""
    return sum(
        1
        for table in doctree.findall(nodes.table)
        if set(table["classes"]) <= {"colwidths-auto", "colwidths-given"}
        and any(True for _ in table.findall(nodes.thead))
    )


def _label(cell) -> str:
    return " ".join(cell.get_text().split())


def _stack(table) -> bool:
    head = table.find("thead")
    if head is None or table.get("class") != ["table"]:
        return False
    labels = [_label(cell) for cell in head.find_all("th")]
    table["class"] = ["table", "mha-stack"]
    for tbody in table.find_all("tbody", recursive=False):
        for row in tbody.find_all("tr", recursive=False):
            for cell, label in zip(row.find_all("td", recursive=False), labels, strict=False):
                cell["data-label"] = label
    return True


def for_phones(app, pagename, templatename, context, doctree) -> None:
    """Break points in inline code, and Markdown tables as cards (see the module's doc)."""
    soup = body(context) if doctree is not None else None
    if soup is not None:
        tables = _markdown_tables(doctree)
        stacked = sum(_stack(table) for table in soup.find_all("table"))
        if stacked < tables:
            unmatched(
                "tables as cards", pagename, f"{tables} table(s) with a header row, found {stacked}"
            )
        words = [
            span.string
            for span in soup.find_all("span")
            if span.get("class") == ["pre"] and span.string is not None
        ]
        broken = sum(_with_breaks(word) for word in words)
        if broken == 0 and _breakable_literals(doctree):
            unmatched("code breaks", pagename, "inline code whose names break after _ = , or .")
    # the next and previous pages' titles, as the environment knows them
    relations = getattr(app.builder, "relations", {}).get(pagename) or [None, None, None]
    for link, target in zip((context.get("prev"), context.get("next")), relations[1:], strict=True):
        title_node = app.env.titles.get(target) if target else None
        expected = title_node is not None and CODE_BREAK.search(title_node.astext())
        breaks = 0
        if link and link.get("title"):
            title = fragment(link["title"])
            breaks = sum(_with_breaks(text) for text in list(title.find_all(string=True)))
            if breaks:
                link["title"] = str(title)
        if expected and not breaks:
            unmatched("code breaks", pagename, f"break points in the link title {target!r}")


# ---- Math --------------------------------------------------------------------------------------

WORD_SUBSCRIPT = re.compile(r"_\{([A-Za-z]{3,})\}")
# the same subscript in a page's source, inside $...$ or a :math: role
SOURCE_WORD_SUBSCRIPT = re.compile(r"(\$|:math:`)[^$`\n]*_\{[A-Za-z]{3,}\}")
TEX_TEXT = [
    (re.compile(r"\\sqrt\{([^{}]*)\}"), r"√\1"),
    (re.compile(r"\\text\{([^{}]*)\}"), r"\1"),
    (re.compile(r"\\cdot"), "·"),
    (re.compile(r"\\top"), "ᵀ"),
    (re.compile(r"\\times"), "×"),
    (re.compile(r"[{}]|\\,|\\!"), ""),
]
INLINE_MATH = re.compile(r"^\\\((.*)\\\)$", re.DOTALL)


def tex_to_text(tex: str) -> str:
    """``\\sqrt{d_k}`` -> ``√d_k``: TeX as the plain text of a tab title."""
    for pattern, replacement in TEX_TEXT:
        tex = pattern.sub(replacement, tex)
    return tex.strip()


def upright_word_subscripts(app, doctree, docname: str) -> None:
    """Set every subscript of three letters or more upright, in every formula of the page."""
    changed = 0
    for node in list(doctree.findall(lambda n: isinstance(n, (nodes.math, nodes.math_block)))):
        text = node.astext()
        upright = WORD_SUBSCRIPT.sub(r"_{\\text{\1}}", text)
        if upright != text:
            node.children = []
            node += nodes.Text(upright)
            changed += 1
    if changed == 0:
        source = app.env.doc2path(docname)
        if source.is_file() and SOURCE_WORD_SUBSCRIPT.search(source.read_text(encoding="utf-8")):
            unmatched("upright subscripts", docname, "math with a word as a subscript")


def plain_text_title(app, pagename, templatename, context, doctree) -> None:
    """The tab title's math as Unicode text."""
    if not context.get("title"):
        return
    title = fragment(context["title"])
    spans = [
        span
        for span in title.find_all("span")
        if "math" in span.get("class", []) and INLINE_MATH.match(span.get_text())
    ]
    for span in spans:
        span.replace_with(NavigableString(tex_to_text(INLINE_MATH.match(span.get_text())[1])))
    if spans:
        context["title"] = str(title)
        return
    heading = doctree.next_node(nodes.title) if doctree is not None else None
    if heading is not None and heading.next_node(nodes.math) is not None:
        unmatched("plain-text titles", pagename, "the title's math")


def setup(app):
    app.connect("html-page-context", for_phones)
    app.connect("doctree-resolved", upright_word_subscripts)
    app.connect("html-page-context", plain_text_title)
    # after every rule's html-page-context handler (default priority 500)
    app.connect("html-page-context", write_back, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
