"""The site's figures: the Chinese font, the glyph check and the phone layout (matplotlib only;
used by the gallery's scraper, ``gallery_figures``, and by ``benchmarks/bench.py``).

Each edition's figures are drawn by its own code: a Chinese example has Chinese labels
(``translated_sources``) and sets :data:`CJK_FONTS`, among them the shipped subset of Noto Sans
CJK SC (``_fonts/``, SIL OFL), which :func:`register_font` makes one of matplotlib's fonts."""

from __future__ import annotations

import contextlib
import functools
import itertools
import re
import textwrap
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1]
FONT = DOCS / "_fonts" / "NotoSansCJKsc-Regular-subset.otf"  # family "Noto Sans CJK SC"
# the fonts a Chinese figure is drawn with: Windows', macOS', then Linux's Chinese fonts
CJK_FONTS = ["Microsoft YaHei", "PingFang SC", "Noto Sans CJK SC", "WenQuanYi Micro Hei",
             "DejaVu Sans"]  # fmt: skip
PHONE_WIDTH = 4.2  # inches: 420 px at 100 dpi, shown at 358 px or more on a 390 px phone
PHONE = "_phone"  # <name>_phone.png: the phone version
RETINA = "_2_00x"  # <name>_2_00x.png: sphinx-gallery's name of a figure at 2x (image_srcset)
CHART_RETINA = "@2x"  # <name>@2x.png: benchmarks/bench.py's name of a chart at 2x
MATH = re.compile(r"\$[^$]*\$")


def variant(path: Path, suffix: str) -> Path:
    """``x.png`` -> ``x{suffix}.png``; at 2x, ``x_2_00x.png`` -> ``x{suffix}_2_00x.png``."""
    stem = path.stem.removesuffix(RETINA)
    return path.with_name(f"{stem}{suffix}{path.stem[len(stem) :]}{path.suffix}")


def register_font() -> None:
    """Make the shipped Chinese subset one of matplotlib's fonts (once per process)."""
    from matplotlib import font_manager

    if str(FONT) not in {f.fname for f in font_manager.fontManager.ttflist}:
        font_manager.fontManager.addfont(str(FONT))


@functools.cache
def _charmap(path: str) -> frozenset[int]:
    from matplotlib.ft2font import FT2Font

    return frozenset(FT2Font(path).get_charmap())


def lacking_glyphs(fig) -> list[str]:
    """The characters of ``fig``'s texts (outside math) that their fonts lack, each drawn as a
    box; call it once the figure is drawn. A text's fonts: the first found of a generic family's
    list, else each family of its own list that is found (matplotlib's fallback)."""
    from matplotlib.font_manager import findfont
    from matplotlib.text import Text

    lacking = set()
    for text in fig.findobj(lambda a: isinstance(a, Text) and a.get_visible() and a.get_text()):
        prop, found = text.get_fontproperties(), set()
        for family in prop.get_family():
            one = prop.copy()
            one.set_family(family)
            with contextlib.suppress(ValueError):  # not installed: the next family
                found |= _charmap(findfont(one, fallback_to_default=False))
        found = found or _charmap(findfont(prop))
        lacking |= {c for c in MATH.sub("", text.get_text()) if ord(c) not in found}
    return sorted(lacking - {" ", "\n"})


def _same(axes, axis: str) -> bool:
    """Whether the axes show the same ticks on ``axis`` (shared, or set alike by hand)."""

    def ticks(ax):
        locs = tuple(getattr(ax, f"get_{axis}ticks")())
        labels = getattr(ax, f"{axis}axis").get_major_formatter().format_ticks(locs)  # all
        return locs, tuple(labels), tuple(getattr(ax, f"get_{axis}lim")())

    return all(ticks(ax) == ticks(axes[0]) for ax in axes[1:])


def _legend_below(fig, ax) -> None:
    """Move a legend that sits beside its panel to below the panel's tick labels."""
    from matplotlib.transforms import ScaledTranslation

    legend = ax.get_legend()
    handles, labels = legend.legend_handles, [t.get_text() for t in legend.get_texts()]
    title = legend.get_title().get_text()
    legend.remove()
    below = (ax.bbox.y0 - ax.get_tightbbox(fig.canvas.get_renderer()).y0) / fig.dpi + 0.05
    ax.legend(handles, labels, title=title or None, loc="upper center", bbox_to_anchor=(0.5, 0),
              bbox_transform=ax.transAxes + ScaledTranslation(0, -below, fig.dpi_scale_trans),
              ncols=1 if max(map(len, labels), default=0) > 18 or len(labels) < 2 else 2,
              frameon=False)  # fmt: skip


def _fits(text, room: float) -> None:
    """Wrap a title to at most ``room`` pixels wide: between words, or any characters (Chinese)."""
    content = text.get_text()
    if content and "$" not in content and "\n" not in content:
        width = text.get_window_extent(text.figure.canvas.get_renderer()).width
        if width > room:
            chars = max(8, int(len(content) * room / width) - 1)
            text.set_text(textwrap.fill(content, chars, break_long_words=not content.isascii()))


def _wrap_text(fig, axes) -> None:
    """Titles wider than their panel (or the figure) and tick labels that touch: wrapped."""
    fig.canvas.draw()
    for text in fig.texts:
        if fig.get_suptitle() and text.get_text() == fig.get_suptitle():
            _fits(text, fig.bbox.width - 8)
    renderer = fig.canvas.get_renderer()
    for ax in axes:
        _fits(ax.title, ax.bbox.width + 20)
        labels = [t.get_text() for t in ax.get_xticklabels()]
        boxes = [t.get_window_extent(renderer) for t in ax.get_xticklabels() if t.get_text()]
        words = any(" " in t or not t.isascii() for t in labels)
        if words and any(a.x1 + 4 > b.x0 for a, b in itertools.pairwise(boxes)):
            width = max(6, max(map(len, labels)) // 2 + 1)
            ax.set_xticks(ax.get_xticks(), [textwrap.fill(t, width, break_long_words=not t.isascii())
                                            for t in labels])  # fmt: skip


def _regrid(fig, axes, rows: int, cols: int) -> None:
    """Put ``axes`` on a new grid; shared ticks and labels only on its left and bottom edges."""
    same_x, same_y = _same(axes, "x"), _same(axes, "y")
    xlabel, ylabel = ({getattr(ax, f"get_{a}label")() for ax in axes} - {""} for a in "xy")
    xlabel, ylabel = (next(iter(s)) if len(s) == 1 else "" for s in (xlabel, ylabel))
    new = fig.add_gridspec(rows, cols)
    for i, ax in enumerate(axes):
        (row, col), last = divmod(i, cols), i + cols >= len(axes)  # last: no panel below it
        ax.set_subplotspec(new[row, col])
        if same_y:
            ax.tick_params(labelleft=col == 0)
            ax.set_ylabel(ylabel if col == 0 else "")
        if same_x and cols > 1:
            ax.tick_params(labelbottom=last)
            ax.set_xlabel(xlabel if last else "")
        elif not same_x:
            ax.tick_params(labelbottom=True)
            ax.set_xlabel(ax.get_xlabel() or xlabel)


def relayout_for_phone(fig) -> bool:
    """Lay ``fig`` out again :data:`PHONE_WIDTH` wide: panels stacked (two to a row if four or more
    images), legends beside a panel moved below it, ticks following the grid, long titles wrapped.
    False if it is not a grid of panels wider than that (draw a free drawing narrow instead)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    width, height = fig.get_size_inches()
    axes = [ax for ax in fig.axes if ax.get_subplotspec() is not None]  # not colour bars
    grids = {id(ax.get_subplotspec().get_gridspec()) for ax in axes}
    if width <= PHONE_WIDTH * 1.05 or len(grids) != 1:
        return False
    if not hasattr(fig.canvas, "get_renderer"):  # closed by pyplot: draw it with Agg
        FigureCanvasAgg(fig)
    for ax in [ax for ax in axes if not ax.get_visible()]:
        fig.delaxes(ax)
    spans = {ax: (ax.get_subplotspec().rowspan, ax.get_subplotspec().colspan) for ax in axes}
    axes = sorted((a for a in axes if a.get_visible()), key=lambda a: [s.start for s in spans[a]])
    nrows, ncols = axes[0].get_subplotspec().get_gridspec().get_geometry()
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
    anchors = {a: a.get_legend().get_bbox_to_anchor() for a in axes if a.get_legend()}
    below = [a for a, box in anchors.items() if box.transformed(a.transAxes.inverted()).x0 >= 1]
    legends = sum(0.25 * len(ax.get_legend().get_texts()) + 0.3 for ax in below)
    if (rows, cols) != (nrows, ncols):
        _regrid(fig, axes, rows, cols)
    title = 0.35 if fig.get_suptitle() else 0.0
    fig.set_size_inches(PHONE_WIDTH, rows * panel + title + 0.6 * legends)
    _wrap_text(fig, axes)
    fig.canvas.draw()
    for ax in below:
        _legend_below(fig, ax)
    return True
