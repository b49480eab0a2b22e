"""Tables and inline code that read on a phone.

- **Break points in inline code.** A browser breaks a long name such as
  ``average_attn_weights`` only at its end, so on a 390 px phone a line of inline code runs
  past the screen, or (with ``overflow-wrap: anywhere``) splits letter by letter. Every word of
  inline code (Sphinx writes each in a ``<span class="pre">``) gets a ``<wbr>`` after ``_``,
  ``=`` or ``,`` and at a ``.`` between names, so that ``need_weights=False`` breaks into
  ``need_weights=`` / ``False``, not ``need_wei`` / ``ghts``. The titles of the next and
  previous links (``mha.split_heads``) get the same.
- **Tables as cards.** Three or four columns of 100 px cut words. Each table written in
  Markdown (a header row; Sphinx's HTML class ``table``) gets the class ``mha-stack`` and its
  header's text on every cell (``data-label``): ``custom.css`` shows each row as a card of
  labelled fields on a phone, and as the table it is on a wider screen.

HTML attributes such as ``data-label`` have no place in the doctree, so both rules edit the
page body's tree (:func:`page_rules.body`). Each knows from the doctree how much it must find:
a page with inline code where a name breaks, a page with a Markdown table. Finding less is a
warning (:func:`page_rules.unmatched`): a renamed class would otherwise quietly turn the phone
layout off.
"""

from __future__ import annotations

import functools
import re

from bs4 import NavigableString
from docutils import nodes
from page_rules import body, fragment, unmatched

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
    """Tables with a header row, other than the API's summary tables."""
    return sum(
        1
        for table in doctree.findall(nodes.table)
        if not {"autosummary", "longtable"} & set(table["classes"])
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


def setup(app):
    app.setup_extension("page_rules")
    app.connect("html-page-context", for_phones)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
