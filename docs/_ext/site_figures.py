"""The site's figures in every language and for phones: one library for the gallery's scraper
(``gallery_figures``), the benchmark's charts (``benchmarks/bench.py``) and the thumbnails
(``docs/make_thumbnails.py``). It imports matplotlib and babel only, and nothing of the site.

**Languages.** The examples draw their figures with English labels. :func:`save_languages`
saves each figure again in every language of :func:`languages`, for each:

- a copy of the figure with each label replaced by its translation from the language's
  **label table**, ``locale/<language>/LC_MESSAGES/figures.po`` (the English label is the
  ``msgid``; ``{}`` in an entry stands for a word or number and ``{...}`` for any text, so
  ``head {}`` translates ``head 0`` to ``head 7``), drawn with the Chinese font of ``_fonts/``
  (a subset of Noto Sans CJK SC, SIL OFL) behind matplotlib's own fonts;
- saved beside the English file as ``<name>.<language>.png``, the name Sphinx's
  ``figure_language_filename`` looks for;
- the English labels it translated and its alt text recorded in ``<name>.labels.json``
  (``nox -s translations`` checks the table against them).

A label with no entry in the table, or with a character the font lacks (a box in place of a
glyph), is a :class:`MissingLabels` error naming the labels or characters.

**Phones.** The figures are drawn for the text column, 7 in wide; a 390 px phone shows them at
half that size. :func:`relayout_for_phone` lays a grid of panels out again :data:`PHONE_WIDTH`
wide: panels stacked (two to a row when they are four or more images), legends beside a panel
moved below it, tick labels following the new grid, long titles wrapped.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import logging
import pickle
import re
import textwrap
import unicodedata
import warnings
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1]
LOCALE = DOCS / "locale"
FONT = DOCS / "_fonts" / "NotoSansCJKsc-Regular-subset.otf"
FAMILY = "Noto Sans CJK SC"
ALT_SEPARATOR = {"zh_CN": "，"}
PHONE_WIDTH = 4.2  # inches: 420 px at 100 dpi, shown at 358 px or more on a 390 px phone
PHONE = "_phone"  # <name>_phone.png: the phone version
RETINA = "_2_00x"  # <name>_2_00x.png: sphinx-gallery's name of a figure at 2x (image_srcset)
# a label needs a translation when it has letters outside its math
LETTER = re.compile(r"[A-Za-z]")
MATH = re.compile(r"\$[^$]*\$")


def languages() -> list[str]:
    """The site's translated languages: each folder of ``docs/locale`` with catalogs."""
    return sorted(p.parent.name for p in LOCALE.glob("*/LC_MESSAGES"))


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


def variant(path: Path, suffix: str) -> Path:
    """``x_001.png`` -> ``x_001_phone.png`` (:data:`PHONE`), ``x_001_2_00x.png``
    (:data:`RETINA`); the phone variant of ``x_001_2_00x.png`` is ``x_001_phone_2_00x.png``."""
    stem = path.stem.removesuffix(RETINA)
    return path.with_name(f"{stem}{suffix}{path.stem[len(stem) :]}{path.suffix}")


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
    titles = [fig.get_suptitle()] if fig.get_suptitle() else []
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


def save_languages(
    fig, files: list[tuple[Path, float]], labels: Path, relayout=None, saved=None
) -> None:
    """Save ``fig``, already saved in English as each ``(path, dpi)`` of ``files``, in every
    language of :func:`languages` (``language_path(path, language)``), and record the labels
    its translations used and its alt text in each language in ``labels``.

    With ``relayout`` (:func:`relayout_for_phone`), each translation is also laid out for a
    phone and saved as the :data:`PHONE` variant of each file, where ``relayout`` makes one.
    With ``saved`` (a set of languages), only those languages' files are written; the others
    are translated for the record only.
    """
    record = {"labels": [], "alt": {}}
    for language in languages():
        with translated_copy(fig, language) as copy:
            record["labels"] = copy.english_labels
            record["alt"][language] = _titles(copy, ALT_SEPARATOR.get(language, ", "))
            if saved is not None and language not in saved:
                continue
            for path, dpi in files:
                save(copy, language_path(path, language), dpi)
            if relayout is None:
                continue
            phone = relayout(copy)
            if phone:
                set_fonts(copy)  # the phone layout makes new legends
            for path, dpi in files:
                target = language_path(variant(path, PHONE), language)
                if phone:
                    save(copy, target, dpi)
                else:
                    target.unlink(missing_ok=True)
    write_labels(labels, record)


def write_labels(path: Path, record: dict) -> None:
    """Record what a figure's translations used (``nox -s translations`` checks the table)."""
    path.write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


# ---- Laying a figure out again for a phone ------------------------------------------------------


def _grid_axes(fig):
    """The figure's visible subplot axes (not colourbars), in reading order, and its grid."""
    axes = [ax for ax in fig.axes if ax.get_subplotspec() is not None]
    grids = {id(ax.get_subplotspec().get_gridspec()) for ax in axes}
    if len(grids) != 1:
        return [], None
    for ax in axes:
        if not ax.get_visible():
            fig.delaxes(ax)
    axes = [ax for ax in axes if ax.get_visible()]
    grid = axes[0].get_subplotspec().get_gridspec()
    axes.sort(
        key=lambda ax: (ax.get_subplotspec().rowspan.start, ax.get_subplotspec().colspan.start)
    )
    return axes, grid


def _same(axes, axis: str) -> bool:
    """Whether the axes show the same ticks on ``axis`` (shared, or set alike by hand)."""

    def ticks(ax):
        a = getattr(ax, f"{axis}axis")
        locs = tuple(a.get_ticklocs())
        labels = tuple(a.get_major_formatter().format_ticks(locs))  # hidden ones too
        return locs, labels, tuple(getattr(ax, f"get_{axis}lim")())

    first = ticks(axes[0])
    return all(ticks(ax) == first for ax in axes[1:])


def _common_label(axes, axis: str) -> str | None:
    labels = {getattr(ax, f"get_{axis}label")() for ax in axes} - {""}
    return labels.pop() if len(labels) == 1 else None


def _beside(ax) -> bool:
    """Whether the panel has a legend beside it (anchored right of the panel)."""
    legend = ax.get_legend()
    if legend is None:
        return False
    return legend.get_bbox_to_anchor().transformed(ax.transAxes.inverted()).x0 >= 1.0


def _legend_below(fig, ax) -> None:
    """Move a legend that sits beside its panel to below the panel's tick labels."""
    legend = ax.get_legend()
    if legend is None:
        return
    handles, labels = legend.legend_handles, [t.get_text() for t in legend.get_texts()]
    title = legend.get_title().get_text()
    legend.remove()
    from matplotlib.transforms import ScaledTranslation

    renderer = fig.canvas.get_renderer()
    below = (ax.bbox.y0 - ax.get_tightbbox(renderer).y0) / fig.dpi + 0.05  # inches
    longest = max((len(label) for label in labels), default=0)
    ax.legend(
        handles,
        labels,
        title=title or None,
        loc="upper center",
        bbox_to_anchor=(0.5, 0),
        bbox_transform=ax.transAxes + ScaledTranslation(0, -below, fig.dpi_scale_trans),
        ncols=1 if longest > 18 or len(labels) < 2 else 2,
        frameon=False,
    )


def _fits(text, room: float) -> None:
    """Wrap a title or label onto more lines until it is at most ``room`` pixels wide."""
    content = text.get_text()
    if not content or "$" in content or "\n" in content:
        return
    renderer = text.figure.canvas.get_renderer()
    width = text.get_window_extent(renderer).width
    if width > room:
        chars = max(8, int(len(content) * room / width) - 1)
        text.set_text(textwrap.fill(content, chars, break_long_words=False))


def _wrap_text(fig, axes) -> None:
    """Titles wider than their panel (or the figure) and tick labels that touch: wrapped."""
    from matplotlib.text import Text

    fig.canvas.draw()
    for text in fig.texts:
        if fig.get_suptitle() and text.get_text() == fig.get_suptitle():
            _fits(text, fig.bbox.width - 8)
    renderer = fig.canvas.get_renderer()
    for ax in axes:
        titles = {ax.get_title(loc=loc) for loc in ("left", "center", "right")} - {""}
        for title in ax.get_children():  # the titles: texts of the axes, not in ax.texts
            if isinstance(title, Text) and title not in ax.texts and title.get_text() in titles:
                _fits(title, ax.bbox.width + 20)
        labels = [t for t in ax.get_xticklabels() if t.get_text()]
        boxes = [t.get_window_extent(renderer) for t in labels]
        crowded = any(a.x1 + 4 > b.x0 for a, b in itertools.pairwise(boxes))
        if crowded and any(" " in t.get_text() for t in labels):
            longest = max(len(t.get_text()) for t in labels)
            ax.set_xticks(
                ax.get_xticks(),
                [
                    textwrap.fill(t.get_text(), max(6, longest // 2 + 1))
                    for t in ax.get_xticklabels()
                ],
            )


def relayout_for_phone(fig) -> bool:
    """Lay ``fig`` out again :data:`PHONE_WIDTH` wide; return False if it is not a grid of
    panels wider than that (a free drawing is left as it is: draw it narrow to begin with)."""
    width, height = fig.get_size_inches()
    if width <= PHONE_WIDTH * 1.05:
        return False
    if not hasattr(fig.canvas, "get_renderer"):  # closed by pyplot: draw it with Agg
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        FigureCanvasAgg(fig)
    axes, grid = _grid_axes(fig)
    if grid is None:
        return False
    nrows, ncols = grid.get_geometry()
    images = all(ax.images for ax in axes)
    cols = 2 if images and ncols > 1 and len(axes) >= 4 else 1
    rows = -(-len(axes) // cols)
    if images:  # room for the image at its aspect ratio, and for ticks and a title
        data = axes[0].images[0].get_array().shape
        colorbar = 0.9 if len(fig.axes) > len(axes) else 0.0  # a colour bar beside the grid
        cell = min((PHONE_WIDTH - colorbar) / cols - 0.8, 2.6)
        panel = min(cell * data[0] / data[1], 2.8) + 0.9
    else:
        panel = min(max(height / nrows * 0.9, 2.3), 3.2)
    title = 0.35 if fig.get_suptitle() else 0.0
    below = [ax for ax in axes if _beside(ax)]
    legends = sum(0.25 * len(ax.get_legend().get_texts()) + 0.3 for ax in below)
    if (rows, cols) != (nrows, ncols):
        same_x, same_y = _same(axes, "x"), _same(axes, "y")
        xlabel, ylabel = _common_label(axes, "x"), _common_label(axes, "y")
        new = fig.add_gridspec(rows, cols)
        for i, ax in enumerate(axes):
            row, col = divmod(i, cols)
            ax.set_subplotspec(new[row, col])
            last = i + cols >= len(axes)  # no panel below it
            if same_y:
                ax.tick_params(labelleft=col == 0)
                ax.set_ylabel(ylabel if col == 0 and ylabel else "")
            if same_x and cols > 1:
                ax.tick_params(labelbottom=last)
                ax.set_xlabel(xlabel if last and xlabel else "")
            elif not same_x:
                ax.tick_params(labelbottom=True)
                if xlabel and not ax.get_xlabel():
                    ax.set_xlabel(xlabel)
    fig.set_size_inches(PHONE_WIDTH, rows * panel + title + 0.6 * legends)
    _wrap_text(fig, axes)
    fig.canvas.draw()
    for ax in below:
        _legend_below(fig, ax)
    return True
