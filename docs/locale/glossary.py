"""The tables of ``GLOSSARY.md``'s "One term per concept" as rules (tests_build/catalogs/test_glossary.py):
the rules translators read are the rules the checks apply. Other English than "English that
stays" must be code, a word the source writes as code, a gloss 词元（token）, a quoted mention."""

from __future__ import annotations

import html
import re
from collections import namedtuple
from pathlib import Path

GLOSSARY = Path(__file__).resolve().parent / "GLOSSARY.md"

CODE = re.compile(  # not prose: roles, literals of any fence and reST links, math, URLs, HTML
    r"\{[\w:.-]+\}`[^`]*`|:[\w:.-]+:`[^`]*`|(`+)(?:(?!\1).)+?\1_{0,2}|\$\$.+?\$\$|\$[^$\n]+\$"
    r"|https?://[^\s)）>\]]+|<[^>]*>|&#?\w+;|\{[a-z_]+\}",  # ...entities, a template's {ratio}
    re.DOTALL,
)
# A link's explicit title is text a reader sees: {ref}`page 5 <target>` shows "page 5".
ROLE_TITLE = re.compile(
    r"(?:\{(?:std:)?(?:doc|ref|numref|download|term)\}|:(?:std:)?(?:doc|ref|numref|download|term):)"
    r"`([^`<]*?)\s*<[^`>]*>`"
)
TOOLTIP = re.compile(r'tooltip="([^"]*)"')  # a gallery thumbnail's, in raw HTML
# An English word: a letter not after a letter, digit, dot or = (not 32k, torch.nn's parts,
# =False), then letters, digits, _ . ' -; not followed by ( (a call: contiguous()).
WORD = re.compile(r"(?<![\w.=])[A-Za-z](?:[\w'’-]|\.(?=\w))*(?![\w(])")
GLOSS = re.compile(r"(?<=[\u4e00-\u9fff])（([A-Za-z][A-Za-z0-9 ,.'’/-]*)）")  # 词元（token）
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
QUOTED = re.compile(r"“([^”]*)”|\"([^\"]*)\"|(?<![*\w])\*([^*\s][^*]*?)\*(?![*\w])")


def prose(text: str) -> str:
    """``text`` with code, math, URLs and markup blanked out, role titles and tooltips kept."""
    tooltips = html.unescape(" ".join(TOOLTIP.findall(text)))
    return f"{CODE.sub(' ', text)} {' '.join(ROLE_TITLE.findall(text))} {tooltips}"


# terms: words of the "write" and "unless" columns that hold the variant (头维度 holds 头维)
Variant = namedtuple("Variant", "never write unless terms")
Step = namedtuple("Step", "step name english never")
Rules = namedtuple(
    "Rules", "variants steps english phrases names"
)  # english: lowercased, one word each


def _table(text: str, heading: str) -> list[list[str]]:
    """The rows (cells as text) of the first table after ``heading``, without its header."""
    rows = []
    for line in text.split(f"\n{heading}\n", 1)[1].splitlines():
        if line.startswith("#") or (rows and not line.startswith("|")):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and not all(set(c) <= set("-: ") for c in cells):
            rows.append(cells)
    return rows[1:]


def _items(cell: str) -> tuple[str, ...]:
    return tuple(re.findall(r"`([^`]+)`", cell))


def load(path: Path = GLOSSARY) -> Rules:
    text = path.read_text(encoding="utf-8")
    variants = []
    for row in _table(text, "### Never write"):
        write, unless = _items(row[1]), _items(row[2])
        for never in _items(row[0]):
            terms = tuple(t for t in write + unless if never in t)
            unless_never = tuple(u for u in unless if never not in u)
            variants.append(Variant(never, row[1], unless_never, terms))
    steps = tuple(
        Step(_items(r[0])[0], _items(r[1])[0], _items(r[2]), _items(r[3]))
        for r in _table(text, "### Step names")
    )
    names = tuple(  # "Named one way": the same shape as a step, the concept in place of a step
        Step(r[0], _items(r[1])[0], _items(r[2]), _items(r[3]))
        for r in _table(text, "### Named one way")
    )
    kept = [item for row in _table(text, "### English that stays") for item in _items(row[0])]
    english = frozenset(k.lower() for k in kept if " " not in k)
    return Rules(variants, steps, english, tuple(k for k in kept if " " in k), names)


def forbidden(rules: Rules, msgstr: str) -> list[Variant]:
    """The variants this translation uses: not inside a longer term that holds one (头维度,
    横轴), not in an entry holding a word of its "unless" column (宽 with 英寸)."""
    text, found = prose(msgstr), []
    for v in rules.variants:
        rest = text
        for term in sorted(v.terms, key=len, reverse=True):
            rest = rest.replace(term, " ")
        if v.never in rest and not any(u in text for u in v.unless):
            found.append(v)
    return found


def misnamed_steps(rules: Rules, msgid: str, msgstr: str) -> list[tuple[Step, str]]:
    """(step, other name) of each step (and each concept "Named one way") named otherwise,
    "(none)" where the English names it and the translation does not."""
    english, chinese = re.sub(r"\s+", " ", prose(msgid).lower()), prose(msgstr)
    named = (*rules.steps, *rules.names)
    found = [(step, other) for step in named for other in step.never if other in chinese]
    return found + [
        (step, "(none)")
        for step in named
        if any(
            re.search(rf"(?<![\w.]){re.escape(p.lower())}(?![\w(])", english) for p in step.english
        )
        and step.name not in chinese
    ]


def code_vocabulary(msgids: list[str]) -> frozenset[str]:
    """Words the English source writes as code (literals, Python roles), lowercased."""
    chunks = [m[0] for msgid in msgids for m in CODE.finditer(msgid)]
    return frozenset(
        w.lower()
        for chunk in chunks
        if not re.match(r"(\{|:)(doc|ref|download|numref|term)\b", chunk)
        and not chunk.startswith(("$", "http", "<", "&"))
        for w in WORD.findall(chunk.split("<")[0])
    )


def english_words(rules: Rules, msgid: str, msgstr: str, code_words: frozenset[str]) -> list[str]:
    """The English words of a translation that the glossary does not let it keep. Kept besides
    the glossary's: single letters, the source's own capitals (``(BH, L, S)``), names shaped
    like code (``embed_dim``, ``float32``, ``MultiheadAttention``), words the source writes as
    code where it also has them plain, glosses, mentions quoted from the source; display math."""
    if "$" not in msgid and re.search(r"\\[A-Za-z]+", msgstr) and not CJK.search(msgstr):
        return []  # a display-math entry: its text is TeX
    text, source = prose(msgstr), prose(msgid)
    for phrase in rules.phrases:
        text = text.replace(phrase, " ")
    for match in QUOTED.finditer(text):
        quoted = next(g for g in match.groups() if g is not None)
        if quoted in msgid or quoted in source:
            text = text.replace(match[0], " ")
    plain = {w.lower() for w in WORD.findall(source)}
    return [
        word
        for word in WORD.findall(GLOSS.sub(" ", text))
        if len(word) > 1
        and not re.search(r"[_.\d]|[a-z][A-Z]", word)
        and word.lower() not in rules.english
        and not (word.isupper() and len(word) <= 3 and word.lower() in plain)
        and not (word.lower() in code_words and word.lower() in plain)
    ]


def glosses(msgstr: str) -> list[str]:
    """The English glosses of a translation: 词元（token） -> ["token"]."""
    return GLOSS.findall(prose(msgstr))


# ---------------------------------------------------------------------------
# Rules of form, not of words: "Patterns" (a regular expression a translation never matches)
# and the printed labels of code entries (no space after a full-width colon)
# ---------------------------------------------------------------------------

Pattern = namedtuple("Pattern", "pattern write what")
# a link's title in a catalog of a MyST page ({doc}`title <target>`) or of a reST page
# (:ref:`title <target>`): what the reader sees as the link text
LINK = re.compile(
    r"(?:\{(?:std:)?(?:doc|ref|numref)\}|:(?:std:)?(?:doc|ref|numref):)`([^`<]*?)(\s*<[^`>]*>)?`"
)
_PUNCT = "，。：；、（）「」“”！？"


def patterns(path: Path = GLOSSARY) -> tuple[Pattern, ...]:
    """The rows of "### Patterns": a regular expression (in the first cell's literal), what to
    write instead, and what the pattern finds."""
    text = path.read_text(encoding="utf-8")
    return tuple(
        Pattern(re.compile(_items(row[0])[0]), row[1], row[2])
        for row in _table(text, "### Patterns")
    )


def link_spacing(msgstr: str) -> list[str]:
    """The links of a translation whose text a reader sees wrapped in spaces: a space between a
    Chinese character and the link, on either side, or inside the link's own title
    ("取 {doc}`第 2 页 <p>` 的脚本" reads 「取 第 2 页 的脚本」)."""
    found = []
    chinese = rf"[\u4e00-\u9fff{_PUNCT}]"
    for match in LINK.finditer(msgstr):
        title, shown = match[1], match[1].strip()
        before, after = msgstr[: match.start()], msgstr[match.end() :]
        if (  # a Latin title keeps its space: 见 page 2
            re.search(rf"{chinese}[ \t]+$", before)
            and re.match(chinese, shown)
            and not before.endswith("\\ ")
        ):
            found.append(f"space before {match[0]!r}")
        if re.match(rf"[ \t]+{chinese}", after) and re.search(rf"{chinese}$", shown):
            found.append(f"space after {match[0]!r}")
        if CJK.search(title) and title != title.strip():
            found.append(f"space inside the link text of {match[0]!r}")
    return found


def spaced_colons(code: str) -> list[str]:
    """The printed labels of a code block that put a space after a full-width colon: a string
    holding "： ", or a ``print`` whose argument ends in "：" followed by another argument
    while ``sep`` is left at its default, one space (``print("参数量：", n)`` prints 参数量： 16640).
    ``code`` that is not Python has none."""
    import ast

    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "： " in node.value:
            found.append(f"{node.value!r} holds '： '")
        if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "print"):
            continue
        sep = next((k.value for k in node.keywords if k.arg == "sep"), None)
        if sep is not None and not (isinstance(sep, ast.Constant) and sep.value == " "):
            continue  # sep="" or "\n": no space after the colon
        for arg in node.args[:-1]:  # followed by another argument
            last = arg.values[-1] if isinstance(arg, ast.JoinedStr) and arg.values else arg
            text = getattr(last, "value", None)
            if isinstance(text, str) and text.endswith("："):
                found.append(f"print({text!r}, ...) puts a space after '：'")
    return found
