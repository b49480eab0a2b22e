"""Figures in the page's language: every gallery figure (and every benchmark chart, drawn by
``benchmarks/bench.py``) is drawn again with its labels translated, and each edition serves
its own.

The gallery's examples draw their figures with English titles,
axis labels, legends and annotations, in either edition's build (the Chinese build runs the
examples with their printed labels translated, not their figures'). A Chinese page showing
them would teach in two
languages at once. So the gallery's scraper (``phone_figures.scraper``) hands every figure it
saves to :func:`save_translations`, which, for each language of :data:`LANGUAGES`:

- copies the figure, replaces each label by its translation from the language's **label
  table**, ``locale/<language>/LC_MESSAGES/figures.po`` (one source for every figure: the
  English label is the ``msgid``; ``{}`` in an entry stands for a word or number and
  ``{...}`` for any text, so ``head {}`` translates ``head 0`` to ``head 7``), and draws it
  with the Chinese font of ``_fonts/`` (a subset of Noto Sans CJK SC, SIL OFL) behind
  matplotlib's own fonts;
- saves it beside the English file as ``<name>.<language>.png`` (and its 2x and phone
  versions), the names Sphinx's ``figure_language_filename`` looks for;
- records the English labels it translated and the figure's alt text in the language, in
  ``<name>.labels.json`` (``nox -s translations`` checks the table against them).

A label with no entry in the table, or with a character the font lacks (a box in place of a
glyph), fails the example, and so the build, naming the labels or characters.

Serving: pages that embed a gallery figure with ``{image}`` or ``{figure}`` get the language's
file from Sphinx itself (``figure_language_filename``). The gallery's own images are
sphinx-gallery nodes that Sphinx does not substitute: :func:`serve_translations` points them,
their 2x versions and their alt text at the language's files. A gallery figure without a
version in the page's language is a warning (:func:`page_rules.unmatched`).
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import pickle
import re
import unicodedata
import warnings
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1]
LOCALE = DOCS / "locale"
FONT = DOCS / "_fonts" / "NotoSansCJKsc-Regular-subset.otf"
FAMILY = "Noto Sans CJK SC"
LANGUAGES = ("zh_CN",)
ALT_SEPARATOR = {"zh_CN": "，"}
# a label needs a translation when it has letters outside its math
LETTER = re.compile(r"[A-Za-z]")
MATH = re.compile(r"\$[^$]*\$")


def needs_translation(text: str) -> bool:
    return bool(LETTER.search(MATH.sub("", text)))


class MissingLabels(Exception):
    """Labels of a figure that its language's table does not translate, or cannot draw."""


PLACEHOLDER = re.compile(r"\{\}|\{\.\.\.\}")


def _pattern(entry: str) -> re.Pattern:
    """An entry with placeholders as a pattern: ``{}`` a word or number, ``{...}`` any text."""
    parts = [re.escape(p) for p in PLACEHOLDER.split(entry)]
    kinds = ["(\\S+?)" if m == "{}" else "(.+?)" for m in PLACEHOLDER.findall(entry)]
    return re.compile("^" + "".join(a + b for a, b in zip(parts, [*kinds, ""], strict=True)) + "$")


class Labels:
    """One language's label table: English label -> translation.

    ``{}`` in an entry stands for one word or number (no space) and ``{...}`` for any text,
    each carried over in order: ``query {}, q = {}`` -> ``查询 {}，q = {}``,
    ``Self-attention: {...}`` -> ``自注意力：{...}``. An exact entry wins over a pattern, and
    a longer pattern over a shorter one.
    """

    def __init__(self, entries: dict[str, str], source: str = "") -> None:
        self.source = source
        self.exact = {k: v for k, v in entries.items() if not PLACEHOLDER.search(k)}
        patterns = sorted(
            (k for k in entries if PLACEHOLDER.search(k)),
            key=lambda k: len(PLACEHOLDER.sub("", k)),
            reverse=True,
        )
        self.patterns = [(_pattern(k), entries[k], k) for k in patterns]

    @classmethod
    def read(cls, language: str, locale: Path = LOCALE) -> Labels:
        from babel.messages.pofile import read_po

        path = locale / language / "LC_MESSAGES" / "figures.po"
        with path.open("rb") as f:
            catalog = read_po(f)
        entries = {m.id: m.string for m in catalog if m.id and m.string and not m.fuzzy}
        return cls(entries, source=str(path.relative_to(DOCS.parent)))

    def _lookup(self, text: str) -> tuple[str, str, tuple[str, ...]] | None:
        """(entry, translation, the values of its placeholders) for a label on one line."""
        if text in self.exact:
            return text, self.exact[text], ()
        for pattern, translation, english in self.patterns:
            match = pattern.match(text)
            if match:
                return english, translation, match.groups()
        return None

    def entry(self, text: str) -> str | None:
        """The table's entry (its English side) that translates ``text``, if any (a label
        wrapped onto several lines is looked up as one line)."""
        found = self._lookup(text) or self._lookup(" ".join(text.split()))
        return found[0] if found else None

    def translate(self, text: str) -> str | None:
        """``text`` in the table's language, or ``None`` where the table has no entry. A label
        wrapped onto several lines (a phone's figure) is looked up as one line, and its
        translation wrapped again to the same width."""
        if text not in self.exact and "\n" in text:
            one_line = self.translate(" ".join(text.split()))
            if one_line is None or "\n" in one_line:  # the translator's own line breaks stay
                return one_line
            lines = text.split("\n")  # as many lines, each as wide as the widest
            width = max(max(map(_width, lines)), -(-_width(one_line) // len(lines)) + 1)
            return wrap(one_line, width)
        found = self._lookup(text)
        if found is None:
            return None
        _, translation, values = found
        parts = PLACEHOLDER.split(translation)
        if len(parts) != len(values) + 1:
            return None
        filled = [parts[0]]
        for value, part in zip(values, parts[1:], strict=True):
            filled += [value, part]
        return "".join(filled)


def _width(text: str) -> int:
    """How wide ``text`` is drawn, in Latin letters: a CJK character counts twice."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def wrap(text: str, width: int) -> str:
    """``text`` broken onto lines no wider than ``width`` (:func:`_width`): between words,
    and between any two CJK characters (Chinese has no spaces), never after an opening or
    before a closing punctuation mark."""
    opening, closing = "（《“", "，。：；、）》”"  # never at the end, never at the start of a line
    pieces = re.findall(
        rf"\s+|[{opening}]*[^\s\u3000-\u9fff\uff00-\uffef]+[{closing}]*|[{opening}]*.[{closing}]*",
        text,
    )
    lines, line = [], ""
    for piece in pieces:
        if line and not piece.isspace() and _width(line.rstrip() + piece) > width:
            lines.append(line.rstrip())
            line = ""
        if not (piece.isspace() and not line):
            line += piece
    return "\n".join([*lines, line.rstrip()])


def language_path(path: Path, language: str) -> Path:
    """``x_001.png`` -> ``x_001.zh_CN.png`` (Sphinx's ``figure_language_filename``)."""
    return path.with_name(f"{path.stem}.{language}{path.suffix}")


def _register_font() -> None:
    from matplotlib import font_manager

    if FAMILY not in {f.name for f in font_manager.fontManager.ttflist}:
        font_manager.fontManager.addfont(str(FONT))


@contextlib.contextmanager
def in_language_fonts():
    """matplotlib's fonts, then the Chinese font for what they lack (every text, new ones too:
    the phone layout makes new legends)."""
    import matplotlib

    _register_font()
    families = matplotlib.rcParams["font.family"]
    with matplotlib.rc_context({"font.family": [*families, FAMILY]}):
        yield


def _titles(fig, separator: str) -> str:
    """The figure's alt text as sphinx-gallery writes it: its suptitle, else its axes' titles."""
    suptitle = getattr(fig, "_suptitle", None)
    titles = [suptitle.get_text()] if suptitle is not None and suptitle.get_text() else []
    if not titles:
        for ax in fig.axes:
            titles += [t for t in (ax.get_title(loc=s) for s in ("left", "center", "right")) if t]
    return separator.join(" ".join(t.split()) for t in titles)


def translate_figure(fig, labels: Labels) -> list[str]:
    """Translate every label of ``fig`` in place; return the English labels it translated.

    Tick labels are made again at every draw, so each axis' formatters are wrapped; every
    other text (titles, axis labels, legends, annotations, table cells) is set once. Draw it
    inside :func:`in_language_fonts`. Raises :class:`MissingLabels` for labels the table lacks.
    """
    from matplotlib.text import Text
    from matplotlib.ticker import FuncFormatter

    _register_font()
    fig.canvas.draw()  # the ticks as they are drawn
    english: list[str] = []
    missing: list[str] = []

    produced: set[str] = set()  # a text met twice (a tick label) is translated once

    def translated(text: str) -> str:
        if text in produced or not needs_translation(text):
            return text
        english.append(text)
        result = labels.translate(text)
        if result is None:
            missing.append(text)
            return text
        produced.add(result)
        return result

    ticks = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for tick in [*axis.get_major_ticks(), *axis.get_minor_ticks()]:
                ticks |= {id(tick.label1), id(tick.label2)}
            for which in ("major", "minor"):
                formatter = getattr(axis, f"get_{which}_formatter")()
                wrapped = FuncFormatter(lambda x, pos, f=formatter: translated(f(x, pos)))
                wrapped.set_locs = formatter.set_locs  # ScalarFormatter's offsets
                getattr(axis, f"set_{which}_formatter")(wrapped)
                axis.set_tick_params(which=which, labelfontfamily=["sans-serif", FAMILY])
    for text in fig.findobj(Text):
        if id(text) not in ticks and text.get_text():
            text.set_text(translated(text.get_text()))
    set_fonts(fig)
    with warnings.catch_warnings():  # a missing glyph is reported where the figure is saved
        warnings.filterwarnings("ignore", message="Glyph")
        fig.canvas.draw()  # the tick labels, through their formatters
    if missing:
        raise MissingLabels(
            f"expected a translation of every figure label in {labels.source}, got none for "
            f"{sorted(set(missing))}: add each as an entry (its msgstr the label in that "
            "language, or the label itself for a name that stays as it is)"
        )
    return sorted(set(english))


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def set_fonts(fig) -> None:
    """Give every text of ``fig`` matplotlib's font, then the Chinese one for what it lacks;
    a text with math gets the Chinese font first (mathtext draws the words around the math
    with one font, without fallback)."""
    from matplotlib.text import Text

    for text in fig.findobj(Text):
        family = [f for f in text.get_fontfamily() if f != FAMILY]
        mixed = "$" in text.get_text() and not text.get_text().isascii()
        text.set_fontfamily([FAMILY, *family] if mixed else [*family, FAMILY])


@functools.cache
def _covered() -> frozenset[int]:
    """The characters that the fonts of a translated figure draw: matplotlib's DejaVu Sans
    (and its monospace) and the Chinese subset."""
    from matplotlib import font_manager
    from matplotlib.ft2font import FT2Font

    paths = [font_manager.findfont(name) for name in ("DejaVu Sans", "DejaVu Sans Mono")]
    return frozenset().union(*(FT2Font(p).get_charmap() for p in [*paths, str(FONT)]))


def lacking_glyphs(fig) -> list[str]:
    """The characters of ``fig``'s texts (outside math) that none of its fonts has."""
    from matplotlib.text import Text

    texts = [MATH.sub("", t.get_text()) for t in fig.findobj(Text) if t.get_visible()]
    return sorted({c for s in texts for c in s if not c.isspace() and ord(c) not in _covered()})


def save(fig, path: Path, dpi: float) -> None:
    """Save, failing where a glyph is missing from every font (it would show as a box): the
    figure's characters are looked up in its fonts, and matplotlib's own warnings (about text)
    and log records (about math) are checked too."""
    records, mathtext = _Records(), logging.getLogger("matplotlib.mathtext")
    mathtext.addHandler(records)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fig.savefig(path, dpi=dpi, facecolor=fig.get_facecolor())
    finally:
        mathtext.removeHandler(records)
    found = [str(w.message) for w in caught] + records.messages
    boxes = sorted({m for m in found if "missing from" in m or "does not have a glyph" in m})
    boxes += [f"no font has {c!r} (U+{ord(c):04X})" for c in lacking_glyphs(fig)]
    if boxes:
        path.unlink(missing_ok=True)
        raise MissingLabels(
            f"expected every glyph of {path.name} in its fonts, got {boxes}: run `nox -s fonts` "
            f"to cut {FONT.name} again with the labels' characters"
        )


@contextlib.contextmanager
def translated_copy(fig, language: str):
    """A copy of ``fig`` with its labels in ``language``, to save inside the block (the fonts
    are set for it there); ``copy.english_labels`` lists the English labels it translated."""
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    copy = pickle.loads(pickle.dumps(fig))
    FigureCanvasAgg(copy)
    try:
        with in_language_fonts():
            copy.english_labels = translate_figure(copy, Labels.read(language))
            yield copy
    finally:
        plt.close(copy)


def save_translations(fig, path: Path, dpi: float, relayout) -> None:
    """Save ``fig`` (already saved in English at ``path``) in every language of
    :data:`LANGUAGES`, 1x and 2x, and its phone version where ``relayout`` makes one.

    ``relayout(fig) -> bool`` lays a figure out for a phone (``phone_figures``); the paths of
    the phone versions come from ``phone_paths(path)``. Writes ``<name>.labels.json``.
    """
    from phone_figures import phone_paths

    record = {"labels": [], "alt": {}}
    two = path.with_name(f"{path.stem}_2_00x{path.suffix}")
    phone, phone2 = phone_paths(path)
    for language in LANGUAGES:
        with translated_copy(fig, language) as copy:
            record["labels"] = copy.english_labels
            record["alt"][language] = _titles(copy, ALT_SEPARATOR.get(language, ", "))
            save(copy, language_path(path, language), dpi)
            save(copy, language_path(two, language), 2 * dpi)
            if relayout(copy):
                set_fonts(copy)  # the phone layout makes new legends
                save(copy, language_path(phone, language), dpi)
                save(copy, language_path(phone2, language), 2 * dpi)
            else:
                for stale in (phone, phone2):
                    language_path(stale, language).unlink(missing_ok=True)
    write_labels(path.with_name(f"{path.stem}.labels.json"), record)


def save_languages(fig, files: list[tuple[Path, float]], labels: Path) -> None:
    """Save ``fig``, already saved in English as each ``(path, dpi)`` of ``files``, in every
    language of :data:`LANGUAGES` (``language_path(path, language)``), and record the labels
    its translations used in ``labels`` (the benchmark's charts, the custom thumbnails)."""
    record = {"labels": [], "alt": {}}
    for language in LANGUAGES:
        with translated_copy(fig, language) as copy:
            record["labels"] = copy.english_labels
            for path, dpi in files:
                save(copy, language_path(path, language), dpi)
    write_labels(labels, record)


def write_labels(path: Path, record: dict) -> None:
    """Record what a figure's translations used (``nox -s translations`` checks the table)."""
    path.write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


# ---- Serving each edition its figures ---------------------------------------------------------


def _language_uri(uri: str, srcdir: Path, language: str) -> str | None:
    """The language's version of an image given by its source path, if it exists."""
    relative = uri.lstrip("/")
    translated = language_path(Path(relative), language)
    if not (srcdir / translated).is_file():
        return None
    return ("/" if uri.startswith("/") else "") + translated.as_posix()


def serve_translations(app, doctree, docname: str) -> None:
    """Point the page's gallery figures (sphinx-gallery's image nodes) at their versions in
    the page's language, with the alt text recorded when they were drawn."""
    from page_rules import unmatched
    from sphinx_gallery.directives import imgsgnode

    language = app.config.language or "en"
    if language not in LANGUAGES:
        return
    srcdir = Path(app.srcdir)
    for node in doctree.findall(imgsgnode):
        uri = node["uri"]
        translated = _language_uri(uri, srcdir, language)
        if translated is None:
            unmatched("figures in the page's language", docname, f"{uri} in {language}")
            continue
        node["uri"] = translated
        if node.get("srcset"):
            entries = []
            for entry in node["srcset"].split(","):
                path, *density = entry.split()
                entries.append(" ".join([_language_uri(path, srcdir, language) or path, *density]))
            node["srcset"] = ", ".join(entries)
        record = srcdir / Path(uri.lstrip("/")).with_suffix(".labels.json")
        with contextlib.suppress(FileNotFoundError, KeyError, ValueError):
            node["alt"] = json.loads(record.read_text(encoding="utf-8"))["alt"][language]


THUMBNAIL_PATH = re.compile(
    r"^#\s*sphinx_gallery_thumbnail_path\s*=\s*['\"](.+?)['\"]", re.MULTILINE
)
THUMBNAIL_NUMBER = re.compile(r"^#\s*sphinx_gallery_thumbnail_number\s*=\s*(-?\d+)", re.MULTILINE)


def _thumbnail_source(script: Path, images: Path, srcdir: Path) -> Path | None:
    """The English image that sphinx-gallery made the example's thumbnail from: its
    ``sphinx_gallery_thumbnail_path``, else its figure ``sphinx_gallery_thumbnail_number``
    (the first by default); ``None`` for an example without either."""
    text = script.read_text(encoding="utf-8") if script.is_file() else ""
    path = THUMBNAIL_PATH.search(text)
    if path:
        return srcdir / path[1]
    number = int(THUMBNAIL_NUMBER.search(text)[1]) if THUMBNAIL_NUMBER.search(text) else 1
    figures = sorted(images.glob(f"sphx_glr_{script.stem}_[0-9][0-9][0-9].png"))
    return figures[number - 1 if number > 0 else number] if figures else None


def translate_thumbnails(app) -> None:
    """Make each gallery thumbnail in every language of :data:`LANGUAGES`, from the same image
    in that language (``<thumbnail>.zh_CN.png``), after sphinx-gallery has made the English
    ones. The pages then show them through ``figure_language_filename``."""
    from page_rules import unmatched
    from sphinx_gallery.utils import scale_image

    srcdir = Path(app.srcdir)
    width, height = app.config.sphinx_gallery_conf.get("thumbnail_size", (400, 280))
    for thumb in sorted(srcdir.glob("auto_examples/*/images/thumb/sphx_glr_*_thumb.png")):
        stem = thumb.name.removeprefix("sphx_glr_").removesuffix("_thumb.png")
        images = thumb.parent.parent
        source = _thumbnail_source(images.parent / f"{stem}.py", images, srcdir)
        docname = f"{images.parent.relative_to(srcdir).as_posix()}/{stem}"
        for language in LANGUAGES:
            translated = None if source is None else language_path(source, language)
            target = language_path(thumb, language)
            if translated is None or not translated.is_file():
                what = "a thumbnail source" if translated is None else translated.name
                unmatched("figures in the page's language", docname, what)
                continue
            if not target.is_file() or target.stat().st_mtime < translated.stat().st_mtime:
                scale_image(translated, target, width, height)


def setup(app):
    app.setup_extension("page_rules")
    app.connect("builder-inited", translate_thumbnails, priority=600)  # after the gallery's
    app.connect("doctree-resolved", serve_translations)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
