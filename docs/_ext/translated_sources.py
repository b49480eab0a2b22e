"""The examples and notebooks in the page's language, run in that language.

A reader of the Chinese site downloads a Chinese file and sees, on the page, what that file
prints. So the Chinese build does not reuse the English outputs: it translates the sources
and runs them.

- **Text** (a gallery example's docstring and ``# %%`` blocks, a notebook's Markdown cells):
  each paragraph, heading, list item and table cell whose ``msgid`` the page's catalog holds
  becomes its ``msgstr`` (:func:`translate_text`).
- **Code**: a code block with an entry flagged ``code-block`` becomes its translation, the
  same code with its comments and the strings a reader reads in Chinese (the catalogs check
  that nothing else differs; ``tests_site/test_translated_downloads.py`` that the two files'
  syntax trees are equal once strings and comments are removed).
- **The package's own text** (:mod:`mha.check` reports, shape tables) follows ``MHA_LANG``,
  which the build sets to the page's language for the examples and the notebooks' kernels; a
  Chinese notebook's first cell sets it (``%env MHA_LANG=zh_CN``), and each Chinese example's
  page tells the reader to set it when running the script.

What the Chinese build runs:

- the gallery: sphinx-gallery reads ``_build/gallery/<language>``, the examples translated
  (``config-inited``); its pages, downloads and zips are the Chinese files;
- the executed pages (tutorial, how-to, explanation): their code cells are translated when
  the page is read (``source-read``), so that myst-nb runs the Chinese code;
- the tutorial's notebooks for download are written again from the translated page
  (``build-finished``, before :func:`tutorial_notebooks.plain_links`).

``nox -s docs`` keeps each language's generated gallery apart (``docs/auto_examples`` is the
English one between builds), so that neither build re-runs the other's examples.
"""

from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path

from babel.messages.pofile import read_po
from docutils import nodes
from docutils.utils import column_width
from sphinx.locale import init as init_locale
from sphinx.transforms import SphinxTransform
from sphinx.util.i18n import docname_to_domain
from tutorial_notebooks import closes, page_notebook

DOCS = Path(__file__).resolve().parents[1]
LOCALE = DOCS / "locale"
GALLERY = DOCS.parent / "gallery"
CODE_FLAG = "code-block"  # a code block's entry in a catalog (docs/locale/catalogs.py)


@cache
def messages(language: str, domain: str) -> tuple[dict[str, str], dict[str, str]]:
    """The translated entries of a page's catalog: (text entries, code-block entries)."""
    path = LOCALE / language / "LC_MESSAGES" / f"{domain}.po"
    if not path.is_file():
        return {}, {}
    with path.open("rb") as f:
        catalog = read_po(f)
    text, code = {}, {}
    for m in catalog:
        if m.id and m.string and not m.fuzzy and m.string != m.id:
            (code if CODE_FLAG in m.flags else text)[m.id] = m.string
    return text, code


# What may stand before a paragraph's text on its line: indentation, list and quote markers,
# a heading's #, a table's |, a directive's name ({dropdown} or .. note::).
LEAD = r"(?:[ \t]*:[\w-]+:[ \t]+|[ \t]*(?:[-*+][ \t]+|\d+[.)][ \t]+|#+[ \t]+|>[ \t]*)*|.*\|[ \t]*|.*\}[ \t]+|.*::[ \t]+)"
UNDERLINE = re.compile(r"^([=\-~^\"'`#*+<>:.])\1*$")


def translate_text(text: str, entries: dict[str, str], underlines: bool = True) -> str:
    """``text`` (reStructuredText or Markdown) with each entry's text as its translation.

    An entry matches only a whole paragraph, heading, list item or table cell: from the start
    of a line (after its markers) to the end of a line or a table cell, its words separated
    by any spaces and line breaks. Longer entries first. With ``underlines`` (reST), a title's
    underline grows with its translated title (a Chinese character is two columns wide).
    """
    for msgid in sorted(entries, key=len, reverse=True):
        words = r"\s+".join(re.escape(word) for word in msgid.split())
        pattern = re.compile(rf"(?m)^({LEAD})({words})(?=[ \t]*(?:\||$))")
        text = pattern.sub(lambda m, msgstr=entries[msgid]: m[1] + msgstr, text)
    if not underlines:
        return text
    lines = text.split("\n")
    for number in range(1, len(lines)):
        title, line = lines[number - 1], lines[number]
        if UNDERLINE.match(line) and title.strip() and not UNDERLINE.match(title):
            lines[number] = line[0] * max(len(line), column_width(title))
    return "\n".join(lines)


def translate_code(code: str, entries: dict[str, str]) -> str:
    """``code`` as its entry's translation when it has one (a whole block, as displayed).

    sphinx-gallery's configuration comments (``# sphinx_gallery_...``) are not displayed,
    so not in the entry: they are set aside for the lookup and kept."""
    config = [(n, line) for n, line in enumerate(code.split("\n")) if SG_CONFIG.match(line)]
    shown = "\n".join(line for line in code.split("\n") if not SG_CONFIG.match(line))
    body = shown.strip("\n")
    if body not in entries:
        return code
    start = shown[: len(shown) - len(shown.lstrip("\n"))]
    end = shown[len(shown.rstrip("\n")) :]
    lines = (start + entries[body] + end).split("\n")
    for number, line in config:
        lines.insert(min(number, len(lines)), line)
    return "\n".join(lines)


SG_CONFIG = re.compile(r"^\s*# ?sphinx_gallery_")


# -- Gallery examples --------------------------------------------------------------------------

DOCSTRING = re.compile(r'^(?P<open>[rR]?""")(?P<text>.*?)(?P<close>""")', re.DOTALL)
TEXT_BLOCK = re.compile(r"^# %%[^\n]*\n((?:#[^\n]*\n)+)", re.MULTILINE)


def translate_example(source: str, text: dict[str, str], code: dict[str, str]) -> str:
    """A gallery example (``plot_*.py``) in another language: its docstring and ``# %%``
    blocks (reST) translated, each code block replaced by its translation."""
    found = DOCSTRING.match(source)
    head, rest = ("", source) if found is None else (source[: found.end()], source[found.end() :])
    if found is not None:
        head = found["open"] + translate_text(found["text"], text) + found["close"]
    parts, position = [], 0
    for block in TEXT_BLOCK.finditer(rest):
        parts.append(translate_code(rest[position : block.start()], code))
        marker = rest[block.start() : block.start(1)]
        lines = [line[2:] if line.startswith("# ") else line[1:] for line in block[1].split("\n")]
        translated = translate_text("\n".join(lines), text).split("\n")
        body = "\n".join(f"# {line}" if line else "#" for line in translated[:-1])
        parts.append(marker + body + "\n")
        position = block.end()
    parts.append(translate_code(rest[position:], code))
    return head + "".join(parts)


def translate_gallery(language: str, target: Path) -> None:
    """The gallery's folder in ``language`` at ``target``: the examples translated, the rest
    (README.rst, which the catalogs translate on the index pages) as it is."""
    for source in sorted(GALLERY.rglob("*")):
        if source.is_dir():
            continue
        relative = source.relative_to(GALLERY)
        destination = target / relative
        destination.parent.mkdir(parents=True, exist_ok=True)
        content = source.read_text(encoding="utf-8")
        if source.suffix == ".py" and source.name.startswith("plot_"):
            domain = f"auto_examples/{relative.with_suffix('').as_posix()}"
            content = translate_example(content, *messages(language, domain))
        if not destination.is_file() or destination.read_text(encoding="utf-8") != content:
            destination.write_text(content, encoding="utf-8")  # unchanged: not run again
    for stale in [p for p in target.rglob("*") if p.is_file()]:
        if not (GALLERY / stale.relative_to(target)).exists():
            stale.unlink()


# -- MyST pages --------------------------------------------------------------------------------

FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,}|:{3,})(?P<info>.*)$")
CODE_INFO = re.compile(r"^\s*(?:\{(?:code-cell|code-block|code|sourcecode)\}|[\w+-]*\s*$)")


def translate_markdown(source: str, text: dict[str, str] | None, code: dict[str, str]) -> str:
    """A MyST page with its code blocks translated, and its text too unless ``text`` is None.

    A code block is a fence whose info is a language or ``{code-cell}``/``{code-block}``;
    its options (``:tags:``, a ``---`` block) stay, its code becomes its translation. The
    text outside code blocks (directives' content included) goes through
    :func:`translate_text`."""
    out, chunk, lines, index = [], [], source.split("\n"), 0

    def flush_text() -> None:
        joined = "\n".join(chunk)
        out.append(translate_text(joined, text, underlines=False) if text is not None else joined)
        chunk.clear()

    directives: list[str] = []  # the fences of the directives open here
    while index < len(lines):
        line = lines[index]
        opening = FENCE.match(line)
        if opening and directives and closes(line, directives[-1]):
            directives.pop()
            opening = None
        elif opening and (opening["fence"][0] == ":" or not CODE_INFO.match(opening["info"])):
            directives.append(opening["fence"])
            opening = None
        if not opening:
            chunk.append(line)
            index += 1
            continue
        chunk.append(line)
        flush_text()
        fence, index, body = opening["fence"], index + 1, []
        while index < len(lines):
            if closes(lines[index], fence):
                break
            body.append(lines[index])
            index += 1
        options = 0
        if body and body[0].strip() == "---":
            options = body.index("---", 1) + 1 if "---" in body[1:] else 1
        while options < len(body) and re.match(r"^:[\w-]+:", body[options]):
            options += 1
        cell = "\n".join(body[options:])
        out.append("\n".join([*body[:options], translate_code(cell, code)]) if body else "")
        if index < len(lines):
            chunk.append(lines[index])
        index += 1
    flush_text()
    return "\n".join(out)


def _code_cells(app, docname: str, source: list[str]) -> None:
    """A MyST page's code blocks in the page's language, before myst-nb runs them."""
    language = app.config.language or "en"
    if language == "en" or not str(app.env.doc2path(docname)).endswith(".md"):
        return
    _, code = messages(language, docname)
    if code:
        source[0] = translate_markdown(source[0], None, code)


class TranslateCodeBlocks(SphinxTransform):
    """Code blocks that are not run (a shell session on the contributing page), translated
    from the page's catalog as they are: a workaround of executablebooks/MyST-Parser#444.
    Sphinx's own translation of a literal block parses ``::`` and the translation again with
    the page's parser, and on a MyST page shows ``::``. This runs first (priority 19 against
    Sphinx's 20) and marks the block translated, which Sphinx's transform then skips."""

    default_priority = 19

    def apply(self, **kwargs) -> None:
        config = self.config
        if (config.language or "en") == "en":
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


# -- The build ---------------------------------------------------------------------------------


def _language_and_gallery(app, config) -> None:
    """Examples and kernels print in the page's language; the Chinese build reads the
    translated gallery."""
    language = config.language or "en"
    os.environ["MHA_LANG"] = language  # sphinx-gallery's runs and myst-nb's kernels inherit it
    if language == "en":
        return
    target = DOCS / "_build" / "gallery" / language  # beside any output folder, never in it
    translate_gallery(language, target)
    examples = os.path.relpath(target, app.srcdir)
    gallery = config.sphinx_gallery_conf
    # a notebook's first cell also sets the package's language, as the page says for a script
    first = f"{gallery['first_notebook_cell']}\n%env MHA_LANG={language}"
    config.sphinx_gallery_conf = {
        **gallery,
        "examples_dirs": examples,
        "first_notebook_cell": first,
    }


def _tutorial_notebooks(app, exception) -> None:
    """The tutorial's notebooks offered for download, in the page's language."""
    language = app.config.language or "en"
    if exception is not None or language == "en" or app.builder.format != "html":
        return
    downloads = Path(app.outdir) / "_downloads"
    for found, (_, dest) in app.env.dlfiles.items():
        name = Path(found).name
        if Path(found).parent.name != "notebooks" or not name.endswith(".ipynb"):
            continue
        page = Path(app.srcdir) / "tutorial" / name.replace(".ipynb", ".md")
        text, code = messages(language, f"tutorial/{page.stem}")
        translated = translate_markdown(page.read_text(encoding="utf-8"), text, code)
        (downloads / dest).write_text(page_notebook(app.config, translated), encoding="utf-8")


def setup(app):
    app.connect("config-inited", _language_and_gallery, priority=400)  # before sphinx-gallery
    app.connect("source-read", _code_cells)
    app.add_transform(TranslateCodeBlocks)
    app.connect("build-finished", _tutorial_notebooks, priority=400)  # before plain_links
    return {"parallel_read_safe": True, "parallel_write_safe": True}
