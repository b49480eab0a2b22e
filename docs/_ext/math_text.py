"""Math that reads as the lesson writes it: words as subscripts upright, tab titles in text.

- **Upright word subscripts.** TeX sets the letters of a subscript as a product of italic
  variables: ``d_{model}`` reads as d times m times o... A subscript of three letters or more
  is a name, so every formula of a page, after translation, gets ``d_{\\text{model}}``. The
  sources and the catalogs keep the short form.
- **Plain-text tab titles.** Math in a heading is typeset in the page and in its tables of
  contents, but the browser's tab title is plain text, where ``\\(\\sqrt{d_k}\\)`` would show
  as TeX: there it becomes Unicode (``√d_k``).

Both rules rewrite TeX, which is plain text; the titles' math spans are found in the title's
HTML as a tree. A page whose source has such a subscript in its math, or whose title holds
math, and where the rule changed nothing, gets a warning (:func:`page_rules.unmatched`).
"""

from __future__ import annotations

import re

from bs4 import NavigableString
from docutils import nodes
from page_rules import fragment, unmatched

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
    app.setup_extension("page_rules")
    app.connect("doctree-resolved", upright_word_subscripts)
    app.connect("html-page-context", plain_text_title)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
