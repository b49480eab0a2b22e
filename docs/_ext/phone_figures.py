"""Figures for phones: every gallery figure is drawn a second time, laid out for a phone.

The gallery's figures are drawn for the text column, 7 in wide. A 390 px phone shows them at
about half that size, so their 10 pt text reads at about 7 px. This module redraws each figure
:data:`PHONE_WIDTH` wide: the panels of a grid are stacked (two to a row when they are four or
more images), legends beside a panel move below it, and tick labels follow the new grid. The
site serves that version to narrow screens through ``<picture>``.

* :func:`scraper` is the gallery's image scraper: sphinx-gallery's own, plus the phone
  versions saved beside its images (``<name>_phone.png`` and ``<name>_phone_2_00x.png``).
* :func:`pictures` turns a page's ``<img>`` of a gallery figure into a ``<picture>`` whose
  first source is the phone version (the page body edited as a tree, see ``page_rules``).
"""

from __future__ import annotations

import itertools
import re
import shutil
import textwrap
from pathlib import Path

import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.transforms import ScaledTranslation

PHONE_WIDTH = 4.2  # inches: 420 px at 100 dpi, shown at 358 px or more on a 390 px phone
PHONE_MEDIA = "(max-width: 540px)"  # the theme's one-column layout
SUFFIX = "_phone"


# ---- Laying a figure out again ----------------------------------------------------------------


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
    fig.canvas.draw()
    if fig._suptitle is not None:
        _fits(fig._suptitle, fig.bbox.width - 8)
    renderer = fig.canvas.get_renderer()
    for ax in axes:
        for title in (ax.title, ax._left_title, ax._right_title):
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
    title = 0.35 if fig._suptitle is not None else 0.0
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


# ---- The gallery's scraper ----------------------------------------------------------------------


class _Recorder:
    """Passes sphinx-gallery's image paths through, keeping the ones handed out."""

    def __init__(self, paths):
        self._paths = paths
        self.used = []

    def __iter__(self):
        for path in self._paths:
            self.used.append(Path(path))
            yield path


def phone_paths(path: Path) -> tuple[Path, Path]:
    """Where the phone versions of the figure saved at ``path`` go (1x and 2x)."""
    return (
        path.with_name(f"{path.stem}{SUFFIX}{path.suffix}"),
        path.with_name(f"{path.stem}{SUFFIX}_2_00x{path.suffix}"),
    )


def scraper(block, block_vars, gallery_conf, **kwargs) -> str:
    """sphinx-gallery's matplotlib scraper, then each figure again: in the other languages
    (``figure_language``) and laid out for a phone."""
    import matplotlib.pyplot as plt
    from figure_language import save_translations
    from sphinx_gallery.scrapers import matplotlib_scraper

    figures = [plt.figure(number) for number in plt.get_fignums()]
    recorder = _Recorder(block_vars["image_path_iterator"])
    rst = matplotlib_scraper(block, {**block_vars, "image_path_iterator": recorder}, gallery_conf)
    for fig, path in zip(figures, recorder.used, strict=True):
        one, two = phone_paths(path)
        dpi = matplotlib.rcParams["savefig.dpi"]
        dpi = fig.dpi if dpi == "figure" else dpi
        # the same figure in the other languages, before its layout changes
        save_translations(fig, path, dpi, relayout_for_phone)
        if not relayout_for_phone(fig):
            one.unlink(missing_ok=True)
            two.unlink(missing_ok=True)
            continue
        fig.savefig(one, dpi=dpi, facecolor=fig.get_facecolor())
        fig.savefig(two, dpi=2 * dpi, facecolor=fig.get_facecolor())
    return rst


# ---- Pages: <picture> with the phone version first ----------------------------------------------

# a gallery figure's file name in an <img>'s src (an attribute's text)
_SRC = re.compile(r"^(?P<dir>.*?)(?P<name>sphx_glr_\w+?_\d{3})(?P<language>\.\w+)?\.png$")


def _sources(app) -> dict[str, Path]:
    """Every gallery image of the build, by file name (looked up once per build)."""
    found = getattr(app, "_mha_gallery_images", None)
    if found is None:
        srcdir = Path(app.srcdir)
        found = {p.name: p for p in srcdir.glob("auto_examples/*/images/sphx_glr_*.png")}
        app._mha_gallery_images = found
    return found


def _expected_pictures(doctree, sources: dict[str, Path]) -> int:
    """The page's gallery figures (images, and sphinx-gallery's own image nodes) that have a
    phone version."""
    from docutils import nodes
    from sphinx_gallery.directives import imgsgnode

    found = 0
    for image in doctree.findall(lambda n: isinstance(n, (nodes.image, imgsgnode))):
        match = _SRC.match(Path(image["uri"]).name)
        if match and all(p.name in sources for p in phone_paths(Path(f"{match['name']}.png"))):
            found += 1
    return found


def pictures(app, pagename, templatename, context, doctree) -> None:
    """Serve each gallery figure of the page at 2x where it is missing, and its phone version
    to screens of at most 540 px.

    The page body is edited as a tree (:func:`page_rules.body`). A page whose doctree holds a
    gallery figure with a phone version, and where no ``<img>`` became a ``<picture>``, gets a
    warning (:func:`page_rules.unmatched`).
    """
    from page_rules import body, unmatched  # the layout above needs only matplotlib

    if "sphx_glr_" not in context.get("body", ""):  # no gallery figure on this page
        if doctree is not None and _expected_pictures(doctree, _sources(app)):
            unmatched("phone figures", pagename, "a gallery figure's <img> in the page")
        return
    soup = body(context)
    if soup is None:
        return
    sources = _sources(app)
    images = Path(app.outdir) / app.builder.imagedir

    def copy(name: str) -> bool:
        if name not in sources:
            return False
        target = images / name
        if not target.is_file() or target.stat().st_mtime < sources[name].stat().st_mtime:
            images.mkdir(parents=True, exist_ok=True)
            shutil.copy2(sources[name], target)
        return True

    served = 0
    for img in soup.find_all("img"):
        src = _SRC.match(img.get("src", ""))
        if src is None or "_images/" not in src["dir"]:
            continue
        folder, name, language = src["dir"], src["name"], src["language"] or ""
        if "srcset" not in img.attrs and copy(f"{name}_2_00x{language}.png"):
            img["srcset"] = f"{folder}{name}{language}.png, {folder}{name}_2_00x{language}.png 2x"
        phone, phone2 = (f"{p.stem}{language}.png" for p in phone_paths(Path(f"{name}.png")))
        if not (copy(phone) and copy(phone2)):
            continue
        picture = soup.new_tag("picture")
        source = soup.new_tag(
            "source", media=PHONE_MEDIA, srcset=f"{folder}{phone}, {folder}{phone2} 2x"
        )
        img.wrap(picture)
        img.insert_before(source)
        served += 1
    if doctree is not None and served == 0 and _expected_pictures(doctree, sources):
        unmatched("phone figures", pagename, "a gallery figure's <img> to serve as <picture>")


def setup(app):
    app.setup_extension("page_rules")
    app.connect("html-page-context", pictures)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
