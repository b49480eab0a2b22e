"""The examples and notebooks in the page's language, run in that language: a Chinese page
shows what its Chinese download prints and draws. Catalog entries replace whole paragraphs,
headings, list items and table cells (:func:`translate_text`) and a code block's comments and
strings (:func:`translate_code`), never its code; a translated example that draws sets a
Chinese font list. The build translates the gallery into ``_build/gallery/<language>``
(``config-inited``), the executed pages' code when read (``source-read``); the tutorial's
notebooks for download are written translated (``tutorial_notebooks``, :func:`translated_page`)."""

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

LOCALE = Path(__file__).resolve().parents[1] / "locale"
GALLERY = LOCALE.parents[1] / "gallery"
CODE_CONTEXTS = ("comment", "string")  # a catalog's msgctxt of a code block's comments, strings


@cache
def messages(language: str, domain: str) -> tuple[dict[str, str], dict[str, str]]:
    """The translated entries of a page's catalog: (text entries, code's comments and strings)."""
    path = LOCALE / language / "LC_MESSAGES" / f"{domain}.po"
    found = read_po(io.BytesIO(path.read_bytes() if path.is_file() else b""))
    found = [m for m in found if m.id and m.string and not m.fuzzy and m.string != m.id]
    text = {m.id: m.string for m in found if m.context not in CODE_CONTEXTS}
    return text, {(m.context, m.id): m.string for m in found if m.context in CODE_CONTEXTS}


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


# a code block's comments and strings: the catalog's entries are those with words that a reader
# reads (docs/locale/catalogs.py); the build puts a translation wherever its words stand
TOOL_DIRECTIVE = re.compile(r"#\s*(?:fmt:|noqa\b|type:\s*ignore|pragma:|sphinx_gallery_)")
SHELL_COMMENT = re.compile(r"(?:^|(?<=\s))#(?:[ \t].*|$)", re.MULTILINE)  # code not Python
MAGIC = re.compile(r"^[ \t]*[%!].*$", re.MULTILINE)  # an IPython magic or shell line
STRING = re.compile(r"(?is)^([rbfu]*)('''|\"\"\"|'|\")(.*)\2$")
SHOWN_AS = {"label", "labels", "title", "xlabel", "ylabel"}  # keywords whose strings are read


class Piece(NamedTuple):
    """A comment (consecutive comment lines are one) or a string: ``code[start:end]``."""

    start: int
    end: int
    msgid: str
    kind: str  # "comment" or "string", the entry's msgctxt
    at: tuple[int, int] = (0, 0)  # line and UTF-8 column, as ast counts them
    indent: str = ""  # a comment's lines after the first start with it; a string's prefix
    quote: str = ""

    def render(self, msgstr: str) -> str:
        if self.kind == "string":
            return f"{self.indent}{self.quote}{msgstr}{self.quote}"
        return f"\n{self.indent}".join(f"# {line}" if line else "#" for line in msgstr.split("\n"))


def spans(nodes) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    return [((n.lineno, n.col_offset), (n.end_lineno, n.end_col_offset)) for n in nodes]


def code_pieces(code: str) -> list[Piece]:
    """The comments of ``code`` (not a tool's: ``# noqa``, ``# sphinx_gallery_...``), and its
    strings but a subscript's (a key) and another keyword's than ``SHOWN_AS`` (``loc=``)."""
    starts, found = [0, *(m.end() for m in re.finditer("\n", code))], []
    text = lambda comment: comment[1:].removeprefix(" ").rstrip()
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError):  # not Python: a shell's comments
        shell = SHELL_COMMENT.finditer(code)
        return [Piece(m.start(), m.end(), text(m[0]), "comment") for m in shell]
    try:
        tree = ast.parse(MAGIC.sub("", code))
        walked = list(ast.walk(tree))
        keys = [n.slice for n in walked if isinstance(n, ast.Subscript)]
        keys += [n.value for n in walked if isinstance(n, ast.keyword) and n.arg not in SHOWN_AS]
    except SyntaxError:  # an output, not code: no strings
        tree, keys = None, []
    used, previous = spans(keys), None  # previous: the last comment alone on its line
    for t in (t for t in tokens if t.type in (tokenize.COMMENT, tokenize.STRING, tokenize.NEWLINE)):
        (row, column), (end_row, end_column) = t.start, t.end
        start, end = starts[row - 1] + column, starts[end_row - 1] + end_column
        at, alone = (row, len(t.line[:column].encode())), not t.line[:column].strip()
        comment = t.type == tokenize.COMMENT and not TOOL_DIRECTIVE.match(t.string)
        if comment:
            if alone and previous == (row - 1, column):
                last = found[-1]
                found[-1] = last._replace(end=end, msgid=f"{last.msgid}\n{text(t.string)}")
            else:
                piece = Piece(start, end, text(t.string), "comment", at, t.line[:column] * alone)
                found.append(piece)
        elif t.type == tokenize.STRING and tree and not any(a <= at < b for a, b in used):
            prefix, quote, body = STRING.match(t.string).groups()
            found.append(Piece(start, end, body, "string", at, prefix, quote))
        previous = (row, column) if comment and alone else None
    return found


def translate_code(code: str, entries: dict[str, str]) -> str:
    """``code`` with each comment and string of :func:`code_pieces` that has an entry translated."""
    for piece in reversed(code_pieces(code)):
        if (piece.kind, piece.msgid) in entries:
            translated = piece.render(entries[piece.kind, piece.msgid])
            code = code[: piece.start] + translated + code[piece.end :]
    return code


DOCSTRING = re.compile(r'^(?P<open>[rR]?""")(?P<text>.*?)(?P<close>""")', re.DOTALL)
TEXT_BLOCK = re.compile(r"^# %%[^\n]*\n((?:#[^\n]*\n)+)", re.MULTILINE)

# what translated code sets after ``import mha``, the package's language (a download prints in
# its page's language on any machine), and after the imports around pyplot's, the figures' fonts
SETTINGS = {"zh_CN": ("# 本包打印的报告和报错信息用中文，与系统语言无关",
                      "# 图中汉字的字体：Windows、macOS、Linux 各找其一（都没有时见安装说明）")}  # fmt: skip
FONT_LIST = "".join(f'    "{font}",\n' for font in CJK_FONTS)


def with_language(source: str, language: str) -> str:
    """``source`` calling ``mha.set_language`` after its (first) ``import mha``."""
    if language not in SETTINGS:
        return source
    setting = f'\n\nmha.set_language("{language}")  {SETTINGS[language][0]}'
    return re.sub(r"(?m)^import mha$", lambda m: m[0] + setting, source, count=1)


def with_fonts(source: str, language: str) -> str:
    """``source`` setting ``site_figures.CJK_FONTS`` after the imports around its pyplot's."""
    lines = source.split("\n")
    if language in SETTINGS and "import matplotlib.pyplot as plt" in lines:
        end = lines.index("import matplotlib.pyplot as plt")
        while end < len(lines) and (not lines[end] or lines[end].startswith(("import ", "from "))):
            end += 1
        fonts = f'plt.rcParams["font.sans-serif"] = [\n{FONT_LIST}]\n'
        lines.insert(end, f"{SETTINGS[language][1]}\n{fonts}")
    return "\n".join(lines)


def translate_example(source: str, text: dict[str, str], code: dict[str, str]) -> str:
    """A gallery example with its docstring, ``# %%`` blocks and code blocks translated."""
    found = DOCSTRING.match(source)  # sphinx-gallery asks every example for one
    head = found["open"] + translate_text(found["text"], text) + found["close"]
    rest, parts, position = source[found.end() :], [], 0
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
            content = translate_example(content, *messages(language, domain))
            content = with_language(with_fonts(content, language), language)
        if not destination.is_file() or destination.read_text(encoding="utf-8") != content:
            destination.write_text(content, encoding="utf-8")  # unchanged: not run again
    for stale in list(target.rglob("*")):
        if stale.is_file() and not (GALLERY / stale.relative_to(target)).exists():
            stale.unlink()


def closes(line: str, fence: str) -> bool:
    """Whether ``line`` closes a MyST fence opened with ``fence`` (``:::``, a run of backticks)."""
    return len(line.strip()) >= len(fence) and set(line.strip()) == {fence[0]}


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


def translated_page(language: str, docname: str, source: str, text: bool = True) -> str:
    """A MyST page in ``language``: its code, and unless ``text`` is false its text."""
    if language == "en":
        return source
    entries, code = messages(language, docname)
    return with_language(translate_markdown(source, entries if text else None, code), language)


def _code_cells(app, docname: str, source: list[str]) -> None:
    """A MyST page's code blocks in its language, before myst-nb runs them (or shows them)."""
    if str(app.env.doc2path(docname)).endswith(".md"):
        source[0] = translated_page(app.config.language, docname, source[0], text=False)


def _language_and_gallery(app, config) -> None:
    """Examples and kernels print in the page's language; the gallery is read translated."""
    language = config.language
    os.environ["MHA_LANG"] = language  # sphinx-gallery's runs and myst-nb's kernels inherit it
    if language == "en":
        return
    target = LOCALE.parent / "_build" / "gallery" / language  # beside any output, never in it
    translate_gallery(language, target)
    examples = os.path.relpath(target, app.srcdir)
    config.sphinx_gallery_conf = {**config.sphinx_gallery_conf, "examples_dirs": examples}


def setup(app):
    app.connect("config-inited", _language_and_gallery, priority=400)  # before sphinx-gallery
    app.connect("source-read", _code_cells)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
