"""Directives whose HTML is written from a JSON file and translated templates, when the page is
written.

The Performance page's figures and table (``bench_figures``), and the "what heads learn" page's
tables (``head_tables``) and head explorer (``head_explorer``) work the same way, here once:

* the directive's node is a :class:`Templated`: it holds English templates with named
  placeholders (``{ratio}``), as a :class:`sphinx.addnodes.translatable` (as a toctree's caption
  is). Sphinx's gettext builder extracts them into the page's own catalog, where
  ``nox -s translations`` checks them with the page's other text; the i18n transform hands the
  node the translated templates. A catalog therefore holds no number, and new data leave every
  entry current. (A catalog of an extension's own, ``app.add_message_catalog``, would need a
  separate extraction and compilation step that the gettext builder does not do.) A
  translation whose placeholders differ from its template's is a warning, and the English
  template is used (:class:`Messages`);
* when the page is written (``doctree-resolved``, after translation), :func:`write_html` asks
  each node for its HTML (:meth:`Templated.html`), which reads the JSON (:func:`read_json`,
  :func:`get`). Data that lack what a node needs are a :class:`DataError`, a warning naming the
  file and the key; the node is dropped (the site builds with ``-W``: the build fails). The
  gettext builder keeps the nodes: it extracts their templates.
"""

from __future__ import annotations

import json
import string
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.util import logging

logger = logging.getLogger(__name__)


class DataError(Exception):
    """A directive's JSON, or a file it names, lacks what the directive needs."""


def read_json(path: Path, shown: str, missing: str, error: type[DataError] = DataError) -> dict:
    """The JSON object at ``path`` (``shown`` names it in errors; ``missing`` is the error for no
    such file, saying what writes it)."""
    if not path.is_file():
        raise error(missing)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as problem:
        raise error(f"expected JSON in {shown}, got {problem}") from None
    if not isinstance(data, dict):
        raise error(f"expected a JSON object in {shown}, got {type(data).__name__}")
    return data


def get(value: object, where: str, *keys: str, error: type[DataError] = DataError) -> object:
    """``value[keys[0]][keys[1]]...``, or an ``error`` naming the missing key and where."""
    for key in keys:
        if not (isinstance(value, dict) and key in value):
            got = f"keys {sorted(value)}" if isinstance(value, dict) else json.dumps(value)[:60]
            raise error(f"expected key {key!r} in {where}, got {got}")
        value = value[key]
        where += f"[{key!r}]"
    return value


# a list in the page's language, for :meth:`Messages.join`: "a, b and c" (中文: "a、b和c")
LIST_TEMPLATES = {"list_next": "{head}, {next}", "list_last": "{head} and {last}"}


def _placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


class Messages:
    """A directive's templates in the page's language, filled in with :meth:`format`.

    ``translations`` maps a template's key to its translation; a missing key keeps the
    English template, and so does a translation whose placeholders differ from it (``bad``
    lists those, for a warning).
    """

    def __init__(self, templates: dict[str, str], translations: dict[str, str] | None = None):
        self.templates = templates
        self.text: dict[str, str] = {}
        self.bad: list[str] = []
        for key, english in templates.items():
            translated = (translations or {}).get(key, english)
            if _placeholders(translated) != _placeholders(english):
                self.bad.append(
                    f"the translation of {english!r} should use the placeholders "
                    f"{sorted(_placeholders(english))}, got {translated!r}"
                )
                translated = english
            self.text[key] = translated

    def format(self, key: str, **values: object) -> str:
        return self.text[key].format(**values)

    def count(self, n: int) -> str:
        return self.text[f"number_{n}"] if f"number_{n}" in self.text else str(n)

    def join(self, items: list[str]) -> str:
        """``a``, ``a and b``, ``a, b and c`` (in the page's language)."""
        if len(items) <= 1:
            return "".join(items)
        head = items[0]
        for item in items[1:-1]:
            head = self.format("list_next", head=head, next=item)
        return self.format("list_last", head=head, last=items[-1])


Cell = str | list[nodes.Node]  # a table cell: its text, or its nodes (strong, inline, ...)


def table(head: list[Cell], rows: list[list[Cell] | tuple[list[Cell], list[str]]]) -> nodes.table:
    """A table with a header row, as a Markdown table is (the theme wraps it in its scrolling
    box, ``page_rules`` lays it out as cards on a phone). A row is its cells, or ``(cells,
    classes)`` for a row with classes of its own."""

    def row(cells: list[Cell], classes: list[str] | None = None) -> nodes.row:
        entries = [nodes.entry("", nodes.paragraph("", "", *_nodes(cell))) for cell in cells]
        return nodes.row("", *entries, classes=classes or [])

    group = nodes.tgroup("", cols=len(head))
    group += [nodes.colspec(colwidth=1) for _ in head]
    group += nodes.thead("", row(head))
    group += nodes.tbody("", *(row(*r) if isinstance(r, tuple) else row(r) for r in rows))
    return nodes.table("", group)


def _nodes(cell: Cell) -> list[nodes.Node]:
    return [nodes.Text(cell)] if isinstance(cell, str) else cell


class Templated(addnodes.translatable):
    """A node that holds English templates (``templates``, key -> English) and receives the
    page's translations of them (``translations``), as a toctree's caption is translated.

    ``templates`` never changes, so the gettext builder extracts the English; the i18n
    transform puts the page's language into ``translations``.
    """

    def preserve_original_messages(self) -> None:
        self.setdefault("translations", dict(self["templates"]))

    def apply_translated_message(self, original_message: str, translated_message: str) -> None:
        translations = dict(self.get("translations", self["templates"]))
        for key, english in self["templates"].items():
            if english == original_message:
                translations[key] = translated_message
        self["translations"] = translations

    def extract_original_messages(self) -> list[str]:
        return list(dict.fromkeys(self["templates"].values()))

    def label(self) -> str:
        """How warnings name the node (its directive)."""
        raise NotImplementedError

    def html(self, app, docname: str, messages: Messages) -> nodes.Node:
        """The node that replaces this one on the page ``docname``, written with ``messages``
        (the templates in the page's language); raises :class:`DataError`."""
        raise NotImplementedError


def write_html(app, doctree: nodes.document, docname: str) -> None:
    """Replace each :class:`Templated` node by its HTML, in the page's language."""
    if app.builder.name == "gettext":
        return
    for node in list(doctree.findall(Templated)):
        messages = Messages(node["templates"], node.get("translations"))
        for problem in messages.bad:
            logger.warning("%s: %s", node.label(), problem, location=node)
        try:
            written = node.html(app, docname, messages)
        except DataError as error:
            logger.warning("%s: %s", node.label(), error, location=node)
            node.parent.remove(node)
            continue
        node.replace_self(written)


def setup(app):
    app.connect("doctree-resolved", write_html)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
