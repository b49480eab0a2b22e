"""The glossary's rules as data: the terms a translation must not use, and the English it may keep.

``GLOSSARY.md`` is written for translators; its section "One term per concept" holds three
tables that this module reads, so that the rules a translator reads are the rules the checks
apply (``tests/test_glossary.py`` over the catalogs, ``english_share.py`` over the built site):

- "Never write": a variant, the term to write instead, and words whose presence in the same
  entry makes the variant legitimate (宽 is wrong for a dimension, right for a figure 7 英寸宽);
  a variant inside a longer word of the "write" or "unless" column is that word, not the
  variant (头维 is wrong, 头维度 right; 轴 is wrong for a tensor's dimension, 横轴 right for a
  figure's; 集中 is wrong for sharper weights, 训练集中 is 训练集 + 中);
- "Step names": each step of the lesson, its one Chinese name, the English phrases that name it
  and the other Chinese names it must not be given;
- "English that stays": proper names, abbreviations, units and the few terms the glossary keeps
  in English (softmax, dropout).

Everything else English in a translation must be code (roles, literals, math, URLs, markup),
a word the English source writes as code, a gloss after a Chinese term (词元（token）, once
per catalog), or a mention quoted from the source (“the cat sat on the mat”, *are*).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from pathlib import Path

GLOSSARY = Path(__file__).resolve().parent / "GLOSSARY.md"

# -- Text outside code ---------------------------------------------------------------------------

# What is not prose in a catalog entry: roles, literals (MyST ``a `b` c`` included), math,
# URLs, HTML tags and entities. Each is replaced by a space.
CODE = re.compile(
    r"\{[\w:.-]+\}`[^`]*`"  # MyST role: {func}`mha.split_heads`
    r"|:[\w:.-]+:`[^`]*`"  # reST role: :func:`mha.split_heads`
    r"|(`+)(?:(?!\1).)+?\1_{0,2}"  # literals of any fence, reST links
    r"|\$\$.+?\$\$|\$[^$\n]+\$"  # math
    r"|https?://[^\s)）>\]]+"  # URLs
    r"|<[^>]*>"  # HTML tags (raw HTML of the gallery index), kept apart below
    r"|&#?\w+;"  # entities
    r"|\{[a-z_]+\}",  # a template's placeholder: {ratio}, filled in by the build
    re.DOTALL,
)
# A link's explicit title is text a reader sees: {ref}`page 5 <target>` shows "page 5" (a
# Python role's title is a name: :py:obj:`KVCache <mha.KVCache>`).
ROLE_TITLE = re.compile(
    r"(?:\{(?:std:)?(?:doc|ref|numref|download|term)\}|:(?:std:)?(?:doc|ref|numref|download|term):)"
    r"`([^`<]*?)\s*<[^`>]*>`"
)
# The reader sees the gallery thumbnails' tooltip and title, both in raw HTML.
TOOLTIP = re.compile(r'tooltip="([^"]*)"')
TEX_COMMAND = re.compile(r"\\[A-Za-z]+")
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# An English word: starts with a letter not preceded by a letter, digit, dot or = (so 32k, 8B,
# 3a, torch.nn's parts and batch_first=False's value are not words); may hold letters, digits,
# _ . ' - inside. One followed by ( is a call: contiguous().
WORD = re.compile(r"(?<![\w.=])[A-Za-z](?:[\w'’-]|\.(?=\w))*(?![\w(])")
# English in full-width parentheses right after Chinese: a gloss, 词元（token）.
GLOSS = re.compile(r"(?<=[\u4e00-\u9fff])（([A-Za-z][A-Za-z0-9 ,.'’/-]*)）")
# A mention quoted from the source: “the cat sat on the mat”, "head 3", *are*.
QUOTED = re.compile(r"“([^”]*)”|\"([^\"]*)\"|(?<![*\w])\*([^*\s][^*]*?)\*(?![*\w])")


def prose(text: str) -> str:
    """``text`` with code, math, URLs and markup blanked out, role titles and tooltips kept."""
    titles = " ".join(ROLE_TITLE.findall(text))
    tooltips = html.unescape(" ".join(TOOLTIP.findall(text)))
    return f"{CODE.sub(' ', text)} {titles} {tooltips}"


def is_math_block(msgid: str, msgstr: str) -> bool:
    """A display-math entry (its text is TeX): no Chinese, some ``\\command``."""
    return bool(TEX_COMMAND.search(msgstr)) and not CJK.search(msgstr) and "$" not in msgid


def code_shaped(word: str) -> bool:
    """``embed_dim``, ``torch.nn``, ``float32``, ``MultiheadAttention``: a name, not a word."""
    return bool(re.search(r"[_.\d]", word) or re.search(r"[a-z][A-Z]", word))


# -- The tables of GLOSSARY.md ---------------------------------------------------------------------


@dataclass(frozen=True)
class Variant:
    never: str
    write: str
    unless: tuple[str, ...] = ()
    terms: tuple[str, ...] = ()  # words that hold ``never`` and are not it: 头维度, 训练集中


@dataclass(frozen=True)
class Step:
    step: str
    name: str
    english: tuple[str, ...]
    never: tuple[str, ...]


@dataclass(frozen=True)
class Rules:
    variants: tuple[Variant, ...]
    steps: tuple[Step, ...]
    english: frozenset[str] = field(default_factory=frozenset)  # lowercased
    phrases: tuple[str, ...] = ()  # kept names of several words: "Read the Docs"


def _table(text: str, heading: str) -> list[list[str]]:
    """The rows (cells as text) of the first table after ``heading``."""
    lines = text.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == heading)
    except StopIteration:
        raise LookupError(f"GLOSSARY.md has no heading {heading!r}") from None
    rows = []
    for line in lines[start + 1 :]:
        if line.startswith("#"):
            break
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not all(set(c) <= {"-", ":", " "} for c in cells):
            rows.append(cells)
    return rows[1:]  # without the header


def _items(cell: str) -> tuple[str, ...]:
    """The backticked items of a cell: ``a``, ``b c`` -> ("a", "b c")."""
    return tuple(re.findall(r"`([^`]+)`", cell))


def load(path: Path = GLOSSARY) -> Rules:
    text = path.read_text(encoding="utf-8")
    variants = tuple(
        Variant(
            never,
            row[1],
            tuple(u for u in _items(row[2]) if never not in u),
            tuple(t for t in _items(row[1]) + _items(row[2]) if never in t),
        )
        for row in _table(text, "### Never write")
        for never in _items(row[0])
    )
    steps = tuple(
        Step(_items(row[0])[0], _items(row[1])[0], _items(row[2]), _items(row[3]))
        for row in _table(text, "### Step names")
    )
    kept = [item for row in _table(text, "### English that stays") for item in _items(row[0])]
    return Rules(
        variants,
        steps,
        frozenset(k.lower() for k in kept if " " not in k),
        tuple(k for k in kept if " " in k),
    )


TERM_TABLES = (
    "## Terms",
    "### After the lesson (grouped-query attention, KV cache, tiled attention)",
)


def terms(path: Path = GLOSSARY) -> list[tuple[str, str]]:
    """(English, 中文) of each row of the tables of terms, the glossary's own choices."""
    text = path.read_text(encoding="utf-8")
    return [(row[0], row[1]) for heading in TERM_TABLES for row in _table(text, heading)]


# -- The checks on one entry ------------------------------------------------------------------------


def forbidden(rules: Rules, msgstr: str) -> list[Variant]:
    """The variants this translation uses where the glossary has another term.

    A variant is allowed in an entry that holds a word of its "unless" column (宽 with 英寸),
    and does not count inside a word of its "write" or "unless" column that holds it (头维
    inside 头维度, 轴 inside 横轴, 集中 inside 训练集中).
    """
    text = prose(msgstr)
    found = []
    for v in rules.variants:
        rest = text
        for term in sorted(v.terms, key=len, reverse=True):
            rest = rest.replace(term, " ")
        if v.never in rest and not any(u in text for u in v.unless):
            found.append(v)
    return found


def misnamed_steps(rules: Rules, msgid: str, msgstr: str) -> list[tuple[Step, str]]:
    """Steps this entry names in English but not by their Chinese name, or by another name."""
    found = []
    english = re.sub(r"\s+", " ", prose(msgid).lower())
    chinese = prose(msgstr)
    for step in rules.steps:
        for other in step.never:
            if other in chinese:
                found.append((step, other))
        if any(p in english for p in step.english) and step.name not in chinese:
            found.append((step, "(none)"))
    return found


def code_vocabulary(msgids: list[str]) -> frozenset[str]:
    """Words the English source writes as code (inside literals or Python roles), lowercased."""
    words: set[str] = set()
    for msgid in msgids:
        for match in CODE.finditer(msgid):
            chunk = match.group(0)
            if re.match(r"(\{|:)(doc|ref|download|numref|term)\b", chunk):
                continue
            if chunk.startswith(("$", "http", "<", "&")):
                continue
            words |= {w.lower() for w in WORD.findall(chunk.split("<")[0])}
    return frozenset(words)


def english_words(rules: Rules, msgid: str, msgstr: str, code_words: frozenset[str]) -> list[str]:
    """The English words of a translation that the glossary does not let it keep.

    Kept: names, abbreviations and units of the glossary; single letters (B, L, h) and the
    source's own capitals (the shape ``(BH, L, S)``); code-shaped names; words the source writes as code where the source too has them plain (the gallery's
    titles and thumbnails have no markup); glosses; mentions quoted from the source.
    """
    if is_math_block(msgid, msgstr):
        return []
    text = prose(msgstr)
    for phrase in rules.phrases:
        text = text.replace(phrase, " ")
    source = prose(msgid)
    for match in QUOTED.finditer(text):
        quoted = next(g for g in match.groups() if g is not None)
        if quoted in msgid or quoted in source:
            text = text.replace(match.group(0), " ")
    text = GLOSS.sub(" ", text)
    plain_in_source = {w.lower() for w in WORD.findall(source)}
    return [
        word
        for word in WORD.findall(text)
        if len(word) > 1
        and not code_shaped(word)
        and word.lower() not in rules.english
        and not (word.isupper() and len(word) <= 3 and word.lower() in plain_in_source)
        and not (word.lower() in code_words and word.lower() in plain_in_source)
    ]


def glosses(msgstr: str) -> list[str]:
    """The English glosses of a translation: 词元（token） -> ["token"]."""
    return GLOSS.findall(prose(msgstr))
