"""The examples and notebooks in the page's language, run in that language: a Chinese page
shows what its Chinese download prints and draws. Catalog entries replace whole paragraphs,
headings, list items and table cells (:func:`translate_text`) and, flagged ``code-block``,
whole code blocks (:func:`translate_code`: the code with its comments, printed strings and
figure labels in Chinese); a translated example that draws sets a Chinese font list. The build
translates the gallery into ``_build/gallery/<language>`` (``config-inited``), the executed
pages' code when read (``source-read``) and the tutorial's notebooks for download at its end.
"""

from __future__ import annotations

import ast
import io
import os
import re
import tokenize
from functools import cache
from pathlib import Path
from typing import NamedTuple

from babel.messages.pofile import read_po
from docutils.utils import column_width
from site_figures import CJK_FONTS
from tutorial_notebooks import closes, page_notebook

LOCALE = Path(__file__).resolve().parents[1] / "locale"
GALLERY = LOCALE.parents[1] / "gallery"
# the contexts (msgctxt) of a code block's comments and strings in a catalog
CODE_CONTEXTS = ("comment", "string")


@cache
def messages(language: str, domain: str) -> tuple[dict[str, str], dict[str, str]]:
    """The translated entries of a page's catalog: (text entries, code's comments and strings)."""
    path = LOCALE / language / "LC_MESSAGES" / f"{domain}.po"
    text, code = {}, {}
    for m in read_po(io.BytesIO(path.read_bytes() if path.is_file() else b"")):
        if m.id and m.string and not m.fuzzy and m.string != m.id:
            if m.context in CODE_CONTEXTS:
                code[m.context, m.id] = m.string
            else:
                text[m.id] = m.string
    return text, code


# before a paragraph on its line: indentation, list and quote markers, #, |, a directive's name
LEAD = r"(?:[ \t]*:[\w-]+:[ \t]+|[ \t]*(?:[-*+][ \t]+|\d+[.)][ \t]+|#+[ \t]+|>[ \t]*)*|.*\|[ \t]*|.*\}[ \t]+|.*::[ \t]+)"
UNDERLINE = re.compile(r"^([=\-~^\"'`#*+<>:.])\1*$")


def translate_text(text: str, entries: dict[str, str], underlines: bool = True) -> str:
    """``text`` (reST or Markdown) with each entry translated where it is a whole paragraph,
    heading, list item or table cell (words separated by any spaces), longer entries first;
    with ``underlines`` (reST), a title's underline as wide as its translation."""
    for msgid in sorted(entries, key=len, reverse=True):
        words = r"\s+".join(re.escape(word) for word in msgid.split())
        pattern = re.compile(rf"(?m)^({LEAD})({words})(?=[ \t]*(?:\||$))")
        text = pattern.sub(lambda m, msgstr=entries[msgid]: m[1] + msgstr, text)
    lines = text.split("\n")
    for n in range(1, len(lines) if underlines else 0):
        if UNDERLINE.match(lines[n]) and lines[n - 1].strip() and not UNDERLINE.match(lines[n - 1]):
            lines[n] = lines[n][0] * max(len(lines[n]), column_width(lines[n - 1]))
    return "\n".join(lines)


# a comment or a string with words in it: a catalog entry of its own (docs/locale/catalogs.py)
WORD = re.compile(r"[A-Za-z]{2,}")
PHRASE = re.compile(r"[A-Za-z]{2,}.*?[A-Za-z][\s:=]")  # "output shape:", "head 0 of 8"
TOOL_DIRECTIVE = re.compile(r"#\s*(?:fmt:|noqa\b|type:\s*ignore|pragma:|sphinx_gallery_)")
SHELL_COMMENT = re.compile(r"(?:^|(?<=\s))#(?:[ \t].*|$)", re.MULTILINE)  # code not Python
FIELD = re.compile(r"\{[^{}]*\}")  # an f-string's replacement field, {name:>6.3f}
MAGIC = re.compile(r"^[ \t]*[%!].*$", re.MULTILINE)  # an IPython magic or shell line
STRING = re.compile(r"(?is)^([rbfu]*)('''|\"\"\"|'|\")(.*)\2$")
# where a reader reads a string: printed, drawn on a figure, or in a table of words
SHOWN_BY = {"print", "set_title", "set_xlabel", "set_ylabel", "suptitle", "text", "annotate",
            "set_xticks", "set_yticks", "set_xticklabels", "set_yticklabels"}  # fmt: skip
SHOWN_AS = {"label", "labels", "title", "xlabel", "ylabel"}


class Piece(NamedTuple):
    """Words in code: ``code[start:end]`` holds ``msgid``; ``render(msgstr)`` replaces it."""

    start: int
    end: int
    msgid: str
    kind: str  # "comment" (consecutive comment lines are one) or "string"
    indent: str = ""  # a comment's lines after the first start with it; a string's prefix
    quote: str = ""

    def render(self, msgstr: str) -> str:
        if self.kind == "string":
            return f"{self.indent}{self.quote}{msgstr}{self.quote}"
        return f"\n{self.indent}".join(f"# {line}" if line else "#" for line in msgstr.split("\n"))


def _spans(nodes) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    return [((n.lineno, n.col_offset), (n.end_lineno, n.end_col_offset)) for n in nodes]


CONTAINERS = (ast.List, ast.Tuple, ast.Set, ast.Dict)
ITERATE = {"enumerate", "zip", "reversed", "sorted", "items", "values", "keys"}


def _table(value: ast.AST) -> tuple[list, set[str]]:
    """The strings and the names a literal table is made of (through lists, tuples, sets, dicts,
    ``enumerate``, ``zip``, ``.items()``...), not those in other expressions."""
    if isinstance(value, (ast.Constant, ast.JoinedStr)):
        return [value], set()
    if isinstance(value, ast.Name):
        return [], {value.id}
    if isinstance(value, ast.Call):
        name = getattr(value.func, "id", None) or getattr(value.func, "attr", None)
        parts = (
            [*value.args, value.func.value] if isinstance(value.func, ast.Attribute) else value.args
        )
        parts = parts if name in ITERATE else []
    elif isinstance(value, (ast.BoolOp, ast.IfExp)):  # x or "defaults", a if c else b
        parts = getattr(value, "values", None) or [value.body, value.orelse]
    else:
        parts = [n for n in ast.iter_child_nodes(value) if isinstance(value, CONTAINERS)]
    strings, names = [], set()
    for part in parts:
        found = _table(part)
        strings, names = strings + found[0], names | found[1]
    return strings, names


def read_strings(tree: ast.AST) -> tuple[list, list]:
    """Where a reader reads a string, and where code uses it as a key (spans of lines and UTF-8
    columns). Read: the arguments of ``print`` or a drawing call (``SHOWN_BY``, keywords
    ``SHOWN_AS``), a phrase or a docstring anywhere, and the table of words given to a name
    that is read (``labels = [...]``, ``for name, w in (("fused", w1), ...)``); used: another
    keyword's value (``loc="upper left"``), a subscript."""
    read, used, shown, tables = [], [], set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            values = [*(node.args if name in SHOWN_BY else [])]
            values += [k.value for k in node.keywords if k.arg in SHOWN_AS]
            read += _spans(values)
            shown |= {n.id for v in values for n in ast.walk(v) if isinstance(n, ast.Name)}
            used += _spans(k.value for k in node.keywords if k.arg not in SHOWN_AS)
        elif isinstance(node, ast.Subscript):
            used += _spans([node.slice])
        elif isinstance(node, (ast.Assign, ast.For)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            tables.append(
                (names, *_table(node.value if isinstance(node, ast.Assign) else node.iter))
            )
        elif isinstance(node, ast.JoinedStr) or isinstance(getattr(node, "value", 0), str):
            parts = node.values if isinstance(node, ast.JoinedStr) else [node]
            words = "".join(p.value if isinstance(p, ast.Constant) else " " for p in parts)
            read += _spans([node] if PHRASE.search(words) else [])
    for _ in tables:  # a name read, the names its table is made of, theirs...
        for names, strings, made_of in tables:
            if names & shown:
                read, shown = read + _spans(strings), shown | made_of
    return read, used


def _comment_text(comment: str) -> str:
    return comment[1:].removeprefix(" ").rstrip()


def code_pieces(code: str, every: bool = False) -> list[Piece]:
    """The comments and the strings a reader reads in ``code`` (:func:`read_strings`), in
    order: every comment with a word (not a tool's: ``# noqa``, ``# sphinx_gallery_...``;
    consecutive comment lines are one), every string with a word where it is read. ``every``:
    each comment and string, words or not, read or not (the build translates a string
    wherever it stands, so that a page's code stays consistent)."""
    starts = [0, *(m.end() for m in re.finditer("\n", code))]
    found: list[Piece] = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError):  # not Python: a shell's comments
        for m in SHELL_COMMENT.finditer(code):
            found.append(Piece(m.start(), m.end(), _comment_text(m[0]), "comment"))
        return [p for p in found if every or WORD.search(p.msgid)]
    try:
        read, used = read_strings(ast.parse(MAGIC.sub("", code)))
    except SyntaxError:  # an output, not code: no strings
        read, used = None, []
    previous = None  # the last comment alone on its line: (piece, row, column)
    for t in tokens:
        (row, column), (end_row, end_column) = t.start, t.end
        if t.type in (tokenize.COMMENT, tokenize.STRING):
            start, end = starts[row - 1] + column, starts[end_row - 1] + end_column
            at = (row, len(t.line[:column].encode()))  # ast's columns count UTF-8 bytes
        if t.type == tokenize.COMMENT and not TOOL_DIRECTIVE.match(t.string):
            alone = not t.line[:column].strip()
            text = _comment_text(t.string)
            if alone and previous and previous[1:] == (row - 1, column):
                piece = previous[0]
                found[-1] = piece = piece._replace(end=end, msgid=f"{piece.msgid}\n{text}")
            else:
                piece = Piece(start, end, text, "comment", t.line[:column] if alone else "")
                found.append(piece)
            previous = (piece, row, column) if alone else None
        elif t.type == tokenize.STRING and read is not None:
            prefix, quote, body = STRING.match(t.string).groups()
            words = FIELD.sub(" ", body) if "f" in prefix.lower() else body
            if any(a <= at < b for a, b in used):
                continue  # a key, or another keyword's value: code, whatever its words
            if every or (WORD.search(words) and any(a <= at < b for a, b in read)):
                found.append(Piece(start, end, body, "string", prefix, quote))
        if t.type not in (tokenize.COMMENT, tokenize.NL):
            previous = None
    return [p for p in found if every or p.kind == "string" or WORD.search(p.msgid)]


def translate_code(code: str, entries: dict[str, str]) -> str:
    """``code`` with each comment and string of :func:`code_pieces` that has an entry in its
    translation: every other character, sphinx-gallery's configuration comments included, as
    it was."""
    for piece in reversed(code_pieces(code, every=True)):
        if (piece.kind, piece.msgid) in entries:
            translated = piece.render(entries[piece.kind, piece.msgid])
            code = code[: piece.start] + translated + code[piece.end :]
    return code


DOCSTRING = re.compile(r'^(?P<open>[rR]?""")(?P<text>.*?)(?P<close>""")', re.DOTALL)
TEXT_BLOCK = re.compile(r"^# %%[^\n]*\n((?:#[^\n]*\n)+)", re.MULTILINE)


# what a translated example that draws sets after its imports: the fonts of its labels
FONT_COMMENT = {"zh_CN": "# 图中汉字的字体：Windows、macOS、Linux 各找其一（都没有时见安装说明）"}
FONT_LIST = "".join(f'    "{font}",\n' for font in CJK_FONTS)


def with_fonts(source: str, language: str) -> str:
    """``source`` setting ``site_figures.CJK_FONTS`` after the imports around its pyplot's."""
    lines = source.split("\n")
    if language in FONT_COMMENT and "import matplotlib.pyplot as plt" in lines:
        end = lines.index("import matplotlib.pyplot as plt")
        while end < len(lines) and (not lines[end] or lines[end].startswith(("import ", "from "))):
            end += 1
        setting = f'plt.rcParams["font.sans-serif"] = [\n{FONT_LIST}]\n'
        lines.insert(end, f"{FONT_COMMENT[language]}\n{setting}")
    return "\n".join(lines)


def translate_example(source: str, text: dict[str, str], code: dict[str, str]) -> str:
    """A gallery example with its docstring, ``# %%`` blocks and code blocks translated."""
    found = DOCSTRING.match(source)  # sphinx-gallery asks every example for one
    head = found["open"] + translate_text(found["text"], text) + found["close"]
    rest = source[found.end() :]
    parts, position = [], 0
    for block in TEXT_BLOCK.finditer(rest):
        lines = [line[2:] if line.startswith("# ") else line[1:] for line in block[1].split("\n")]
        translated = translate_text("\n".join(lines), text).split("\n")[:-1]
        parts.append(translate_code(rest[position : block.start()], code))
        parts += [block[0][: -len(block[1])], *(f"# {t}\n" if t else "#\n" for t in translated)]
        position = block.end()
    parts.append(translate_code(rest[position:], code))
    return head + "".join(parts)


def translate_gallery(language: str, target: Path) -> None:
    """The gallery in ``language`` at ``target``: the examples translated, the rest as it is."""
    for source in sorted(p for p in GALLERY.rglob("*") if p.is_file()):
        relative = source.relative_to(GALLERY)
        destination, content = target / relative, source.read_text(encoding="utf-8")
        destination.parent.mkdir(parents=True, exist_ok=True)
        if source.suffix == ".py" and source.name.startswith("plot_"):
            domain = f"auto_examples/{relative.with_suffix('').as_posix()}"
            content = with_fonts(translate_example(content, *messages(language, domain)), language)
        if not destination.is_file() or destination.read_text(encoding="utf-8") != content:
            destination.write_text(content, encoding="utf-8")  # unchanged: not run again
    for stale in list(target.rglob("*")):
        if stale.is_file() and not (GALLERY / stale.relative_to(target)).exists():
            stale.unlink()


FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,}|:{3,})(?P<info>.*)$")
CODE_INFO = re.compile(r"^\s*(?:\{(?:code-cell|code-block|code|sourcecode)\}|[\w+-]*\s*$)")


def translate_markdown(source: str, text: dict[str, str] | None, code: dict[str, str]) -> str:
    """A MyST page with its code blocks (fences of a language or ``{code-cell}``, options kept)
    translated, and the rest, directives' content included, as text unless ``text`` is None."""
    out: list = [[]]  # runs of text lines (lists) between translated code blocks (strings)
    lines, index, directives = source.split("\n"), 0, []  # the fences of open directives
    while index < len(lines):
        line, index = lines[index], index + 1
        out[-1].append(line)
        opening = FENCE.match(line)
        if opening and directives and closes(line, directives[-1]):
            directives.pop()
        elif opening and (opening["fence"][0] == ":" or not CODE_INFO.match(opening["info"])):
            directives.append(opening["fence"])
        elif opening:
            end = index
            while end < len(lines) and not closes(lines[end], opening["fence"]):
                end += 1
            body, index = lines[index:end], end + 1
            options = body.index("---", 1) + 1 if body[:1] == ["---"] and "---" in body[1:] else 0
            while options < len(body) and re.match(r"^:[\w-]+:", body[options]):
                options += 1
            cell = translate_code("\n".join(body[options:]), code)
            out += ["\n".join([*body[:options], cell]) if body else "", lines[end : end + 1]]
    text_of = (lambda p: p) if text is None else (lambda p: translate_text(p, text, False))
    return "\n".join(p if i % 2 else text_of("\n".join(p)) for i, p in enumerate(out))


def _code_cells(app, docname: str, source: list[str]) -> None:
    """A MyST page's code blocks in its language, before myst-nb runs them (or shows them)."""
    language = app.config.language or "en"
    if language != "en" and str(app.env.doc2path(docname)).endswith(".md"):
        _, code = messages(language, docname)
        source[0] = translate_markdown(source[0], None, code) if code else source[0]


def _language_and_gallery(app, config) -> None:
    """Examples and kernels print in the page's language; the gallery is read translated."""
    language = config.language or "en"
    os.environ["MHA_LANG"] = language  # sphinx-gallery's runs and myst-nb's kernels inherit it
    if language == "en":
        return
    target = LOCALE.parent / "_build" / "gallery" / language  # beside any output, never in it
    translate_gallery(language, target)
    examples = os.path.relpath(target, app.srcdir)
    gallery = config.sphinx_gallery_conf = {**config.sphinx_gallery_conf, "examples_dirs": examples}
    # a notebook's first cell also sets the package's language, as the page says for a script
    gallery["first_notebook_cell"] += f"\n%env MHA_LANG={language}"


def _tutorial_notebooks(app, exception) -> None:
    """The tutorial's notebooks offered for download, in the page's language."""
    language = app.config.language or "en"
    if exception is not None or language == "en" or app.builder.format != "html":
        return
    downloads = Path(app.outdir) / "_downloads"
    for found, (_, dest) in app.env.dlfiles.items():
        if Path(found).parent.name == "notebooks" and Path(found).suffix == ".ipynb":
            page = Path(app.srcdir) / "tutorial" / Path(found).with_suffix(".md").name
            text, code = messages(language, f"tutorial/{page.stem}")
            translated = translate_markdown(page.read_text(encoding="utf-8"), text, code)
            (downloads / dest).write_text(page_notebook(app.config, translated), encoding="utf-8")


def setup(app):
    app.connect("config-inited", _language_and_gallery, priority=400)  # before sphinx-gallery
    app.connect("source-read", _code_cells)
    app.connect("build-finished", _tutorial_notebooks, priority=400)  # before plain_links
    return {"parallel_read_safe": True, "parallel_write_safe": True}
