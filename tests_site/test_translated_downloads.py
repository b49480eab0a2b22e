"""The Chinese site's downloads are Chinese files of the same code, and its outputs are Chinese.

The Chinese build translates the gallery's examples and the tutorial's notebooks from the
catalogs and runs them (``docs/_ext/translated_sources.py``), so a Chinese page shows what its
Chinese download prints. On the built site:

- every ``.py`` and ``.ipynb`` that the Chinese edition offers (loose or in a zip) has Chinese
  in at least half of its text cells (a script's docstring and ``# %%`` blocks, a notebook's
  Markdown cells);
- each has an English twin of the same name (the same code: the Chinese build replaces only
  comments and strings, ``translated_sources.translate_code``);
- no label that the Chinese code prints (a string with words in a ``print`` call) is English;
- on the Chinese tutorial pages, every executed output block that has letters has Chinese, and every :mod:`mha.check` report (``✓``/``✗``) on a Chinese page is Chinese.
"""

from __future__ import annotations

import ast
import html
import json
import re
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from pagechecks import CJK, CODE_OR_OUTPUT, ENGLISH_RUN, output_blocks

CHINESE = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")  # and its punctuation
DOCSTRING = re.compile(r'^[rR]?"""(.*?)"""', re.DOTALL)
TEXT_BLOCK = re.compile(r"^# %%[^\n]*\n((?:#[^\n]*\n)+)", re.MULTILINE)
MAGIC = re.compile(r"^\s*[%!]")  # the install cell, %pip install ...


def downloads(folder: Path) -> dict[str, str]:
    """Each ``.py`` and ``.ipynb`` a language's edition offers, by name (``zip:member`` for
    one in a zip): its text."""
    found = {}
    for path in sorted((folder / "_downloads").rglob("*")):
        if path.suffix in (".py", ".ipynb"):
            found[path.name] = path.read_text(encoding="utf-8")
        elif path.suffix == ".zip":
            with zipfile.ZipFile(path) as archive:
                for name in archive.namelist():
                    if name.endswith((".py", ".ipynb")):
                        found[f"{path.name}:{name}"] = archive.read(name).decode("utf-8")
    return found


def text_cells(name: str, content: str) -> list[str]:
    """What a reader reads of a download besides its code."""
    if name.endswith(".ipynb"):
        cells = json.loads(content)["cells"]
        return ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    docstring = DOCSTRING.match(content.lstrip())
    return [docstring[1]] * bool(docstring) + TEXT_BLOCK.findall(content)


def code(name: str, content: str) -> str:
    """A download's Python code: a script, or a notebook's code cells (not its magics)."""
    if not name.endswith(".ipynb"):
        return content
    cells = json.loads(content)["cells"]
    sources = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    return "\n\n".join(s for s in sources if not MAGIC.match(s))


# an English word: lower case, or capitalised (a name such as Q_heads, an abbreviation such as
# MiB or FLOPs is code, as is any name of the code: torch, exp, d_model)
WORD = re.compile(r"[A-Z]?[a-z]{2,}")
KEPT = {"inf", "nan", "ms"}  # -inf, a unit
# the matplotlib calls whose strings a figure shows, and the keywords of a label or a title
LABELS = {"set_title", "set_xlabel", "set_ylabel", "suptitle", "text", "set", "plot", "bar",
          "semilogx", "semilogy", "loglog", "axhline", "colorbar", "Patch", "set_xticks",
          "set_yticks", "legend"}  # fmt: skip
LABEL_KEYWORDS = {"label", "title", "xlabel", "ylabel"}


def english_labels(source: str) -> Iterator[str]:
    """The strings with an English word (:data:`WORD`) and no Chinese that a ``print`` call
    prints or a figure shows (:data:`LABELS`, each positional argument and label keyword)."""
    tree = ast.parse(source)
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    names |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    names |= {n.arg for n in ast.walk(tree) if isinstance(n, ast.arg | ast.keyword) if n.arg}
    names |= {"True", "False", "None", "torch", "mha", "dtype", "float32", "cpu", "cuda"}
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call):
            continue
        shown = call.args if getattr(call.func, "id", None) == "print" else []
        if getattr(call.func, "attr", None) in LABELS:
            shown = [*call.args, *(k.value for k in call.keywords if k.arg in LABEL_KEYWORDS)]
        parts = [
            p for arg in shown for p in (arg.values if isinstance(arg, ast.JoinedStr) else [arg])
        ]
        # a string inside a field prints too (f"{'removed':>9}", f"{'head ' + str(h)}"), but
        # not a key it looks up (f"{row['attend']}")
        fields = [p.value for p in parts if isinstance(p, ast.FormattedValue)]
        keys = {id(n.slice) for f in fields for n in ast.walk(f) if isinstance(n, ast.Subscript)}
        parts += [n for f in fields for n in ast.walk(f) if id(n) not in keys]
        for node in parts:  # the text of a string or an f-string, not what its fields compute
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = re.sub(r"\$[^$]*\$", "", node.value)  # not its math
                words = re.findall(r"[A-Za-z_][A-Za-z_0-9^]*", text)
                # a name of the code is English where it labels a value ("device: cpu")
                labelled = set(re.findall(r"(?:^|\s)([A-Za-z]\w*)\s*[:：]", text))
                english = [w for w in words if WORD.fullmatch(w) and w not in KEPT
                           and (w not in names or w in labelled)]  # fmt: skip
                if english and not CHINESE.search(node.value):
                    yield node.value


@pytest.fixture(scope="module")
def editions(layout) -> tuple[dict[str, str], dict[str, str]]:
    if "zh_CN" not in layout.languages or "en" not in layout.languages:
        pytest.skip("this build has not both editions")
    return downloads(layout.languages["en"]), downloads(layout.languages["zh_CN"])


def test_chinese_downloads_are_chinese(editions) -> None:
    _, chinese = editions
    assert len(chinese) >= 190, "the gallery's scripts and notebooks, the tutorial's, the zips'"
    english = []
    for name, content in chinese.items():
        cells = [c for c in text_cells(name, content) if re.search(r"[A-Za-z]{3}", c)]
        if not cells or not all(CJK.search(c) for c in cells):
            english.append(name)
        sentences = [run for c in cells for run in ENGLISH_RUN.findall(NOT_PROSE.sub(" ", c))]
        english += [f"{name}: {run!r}" for run in sentences]
    assert not english, f"{len(english)} Chinese downloads read as English: {english[:8]}"


# what of a download's text is not prose: its code, math, links' addresses, quotations and the
# papers' titles (an English sentence, pagechecks.ENGLISH_RUN, is looked for in the rest)
NOT_PROSE = re.compile(
    r"```.*?```|``?[^`]*``?|\$[^$]*\$|\]\([^)]*\)|<[^>]+>|https?://\S+|:\w+:|\{\w+\}"
    r"|“[^”]*”|「[^」]*」|《[^》]*》|Attention Is All You Need|Are Sixteen Heads Really Better",
    re.DOTALL,
)


def test_each_chinese_download_has_an_english_twin(editions) -> None:
    english, chinese = editions
    assert english.keys() == chinese.keys()


def test_the_chinese_code_prints_no_english_label(editions) -> None:
    _, chinese = editions
    left = [
        f"{name}: {label!r}"
        for name, content in chinese.items()
        for label in english_labels(code(name, content))
    ]
    assert not left, f"{len(left)} English labels printed by Chinese downloads: {left[:8]}"


def outputs(page: Path) -> list[str]:
    return output_blocks(page.read_text(encoding="utf-8"))


def test_chinese_tutorial_outputs_are_chinese(layout) -> None:
    if "zh_CN" not in layout.languages:
        pytest.skip("this build has no Chinese edition")
    pages = sorted((layout.languages["zh_CN"] / "tutorial").glob("[0-9][0-9]_*.html"))
    blocks = [block for page in pages for block in outputs(page)]
    worded = [block for block in blocks if re.search(r"[A-Za-z]{2}", block)]
    chinese = [block for block in worded if CJK.search(block)]
    assert len(worded) >= 20, f"{len(worded)} output blocks with letters on the tutorial pages"
    share = len(chinese) / len(worded)
    assert share == 1, (
        f"{len(chinese)} of {len(worded)} output blocks ({share:.0%}) have Chinese; English: "
        f"{[b[:60] for b in worded if not CJK.search(b)][:6]}"
    )


MAY_NOT_RUN = (ast.If, ast.FunctionDef, ast.Lambda, ast.ClassDef, ast.IfExp, ast.Match)


def printed_labels(code: str) -> list[str]:
    """The Chinese words a code block surely prints: each piece of text with Chinese in the
    strings of a ``print`` outside a branch, a function or a class, which may print elsewhere or
    not at all (a loop's and an ``except``'s do print here: the examples' errors are raised)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    labels = []
    maybe = {id(n) for b in ast.walk(tree) if isinstance(b, MAY_NOT_RUN) for n in ast.walk(b)}
    for statement in ast.walk(tree):
        call = getattr(statement, "value", None)
        if not (isinstance(statement, ast.Expr) and id(statement) not in maybe):
            continue
        if not (isinstance(call, ast.Call) and getattr(call.func, "id", None) == "print"):
            continue
        for arg in call.args:
            for part in arg.values if isinstance(arg, ast.JoinedStr) else [arg]:
                if isinstance(part, ast.Constant) and isinstance(part.value, str):
                    labels += [t.strip() for t in part.value.split("\n") if CJK.search(t)]
    return labels


def test_chinese_outputs_show_their_codes_labels(layout) -> None:
    """Under each code block of a Chinese page, the output shows the Chinese words that the
    block's own ``print`` calls print: an output left in English (or the English edition's)
    fails, on gallery and tutorial pages alike."""
    folder = layout.languages["zh_CN"]
    missing, checked = [], 0
    for page in sorted(folder.rglob("*.html")):
        labels: list[str] = []
        for found in CODE_OR_OUTPUT.finditer(page.read_text(encoding="utf-8")):
            text = html.unescape(re.sub(r"<[^>]+>", "", found["body"]))
            if found["kind"] in ("cell_input", "highlight-Python"):
                labels = printed_labels(text)
                continue
            checked += len(labels)
            missing += [f"{page.relative_to(folder)}: {label!r} not in {text[:60]!r}"
                        for label in labels if label not in text]  # fmt: skip
            labels = []
    assert checked >= 100, f"only {checked} labels checked"
    assert not missing, "\n".join(missing[:10])


PACKAGE_PO = Path(__file__).parents[1] / "src/mha/locale/zh_CN/LC_MESSAGES/mha.po"


def package_messages_in_english() -> list[str]:
    """The words of each of the package's messages in English, up to its first placeholder
    (24 characters or more): what a Chinese page must not show, the package printing Chinese."""
    text = PACKAGE_PO.read_text(encoding="utf-8")
    found = []
    for entry in re.findall(r'^msgid ((?:".*"\n)+)msgstr', text, re.MULTILINE):
        english = "".join(re.findall(r'"(.*)"', entry)).replace('\\"', '"')
        start = re.split(r"\{[^}]*\}|%\(?\w*\)?[sdr]", english)[0]
        if len(start) >= 24:
            found.append(start)
    return found


def test_chinese_pages_show_the_packages_messages_in_chinese(layout) -> None:
    """An error or report of the package shown on a Chinese page is its Chinese one: the code
    sets the language (``mha.set_language``), so an English message there is a wrong output."""
    english = package_messages_in_english()
    assert len(english) >= 30, f"only {len(english)} messages read from {PACKAGE_PO.name}"
    shown = [
        f"{page.relative_to(layout.root)}: {message!r}"
        for page in sorted(layout.languages["zh_CN"].rglob("*.html"))
        for block in outputs(page)
        for message in english
        if message in block
    ]
    assert not shown, "\n".join(shown[:10])


def reports(folder: Path) -> list[str]:
    """Each line of an output that starts an :mod:`mha.check` report (``✓`` or ``✗``)."""
    return [
        f"{page.relative_to(folder)}: {line.strip()}"
        for page in sorted(folder.rglob("*.html"))
        for block in outputs(page)
        for line in block.splitlines()
        if line.lstrip().startswith(("✓", "✗"))
    ]


def test_every_check_report_on_a_chinese_page_is_chinese(layout) -> None:
    if "zh_CN" not in layout.languages or "en" not in layout.languages:
        pytest.skip("this build has not both editions")
    chinese, english = reports(layout.languages["zh_CN"]), reports(layout.languages["en"])
    assert len(english) >= 2, f"the gallery's exercise shows reports: {english}"
    assert len(chinese) == len(english)
    left = [line[:80] for line in chinese if not CJK.search(line)]
    assert not left, f"English check reports on Chinese pages: {left}"


# what the command the site prints installs (mha, PyTorch with it, matplotlib and numpy)
INSTALLED = {"mha", "torch", "matplotlib", "numpy"}
READS_A_FILE = {"open", "read_text", "read_bytes", "load", "loadtxt", "imread"}


def test_every_download_needs_only_what_the_site_installs(layout) -> None:
    """Each download, in either edition, imports only the installed packages and Python's own
    modules, and reads no file: it runs in a reader's empty folder (``nox -s downloads`` runs
    a sample there; each edition's build runs every one)."""
    problems, count = [], 0
    for folder in layout.languages.values() or [layout.main]:
        for name, content in downloads(folder).items():
            count += 1
            tree = ast.parse(code(name, content))
            for node in ast.walk(tree):
                modules = []
                if isinstance(node, ast.Import):
                    modules = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom):
                    modules = [node.module or ""]
                for module in modules:
                    top = module.split(".")[0]
                    if top not in INSTALLED and top not in sys.stdlib_module_names:
                        problems.append(f"{name} imports {module}")
                if isinstance(node, ast.Call):
                    called = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                    if called in READS_A_FILE and not (called == "load" and node.args == []):
                        problems.append(f"{name} calls {called}(), line {node.lineno}")
    assert count >= 380
    assert not problems, problems[:10]
