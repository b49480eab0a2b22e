"""The site's phone figures (docs/_ext/site_figures.py, saved by gallery_figures.py): a figure
drawn for the 7 in column is laid out again 4.2 in wide. The browser checks measure the result
on the built site; these tests pin the layout rules on small figures."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest
import site_figures

pytestmark = pytest.mark.usefixtures("close_figures")


def _grid_position(ax) -> tuple[int, int]:
    spec = ax.get_subplotspec()
    return spec.rowspan.start, spec.colspan.start


def _labels_shown(ax, axis: str) -> bool:
    ax.figure.canvas.draw()
    return any(t.get_visible() and t.get_text() for t in getattr(ax, f"get_{axis}ticklabels")())


def test_side_by_side_panels_are_stacked_with_legends_below() -> None:
    fig, axes = plt.subplots(1, 3, figsize=(7, 2.8), sharey=True, layout="constrained")
    for i, ax in enumerate(axes):
        ax.plot([0, 1, 2], [i, i + 1, i + 3], label=f"curve {i}")
        ax.legend(loc="center left", bbox_to_anchor=(1.02, 0.5))  # beside the panel
        ax.set_xlabel("step")
    axes[0].set_ylabel("loss")

    assert site_figures.relayout_for_phone(fig)

    width, height = fig.get_size_inches()
    assert width == pytest.approx(site_figures.PHONE_WIDTH)
    assert height > 3 * 2.0  # three panels, each at least 2 in tall
    assert [_grid_position(ax) for ax in axes] == [(0, 0), (1, 0), (2, 0)]
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in axes:
        # each panel shows its own y ticks and label: none sits right of another any more
        assert _labels_shown(ax, "y") and ax.get_ylabel() == "loss"
        legend = ax.get_legend().get_window_extent(renderer)
        assert legend.y1 <= ax.bbox.y0, "the legend is not below its panel"
        assert legend.x1 <= fig.bbox.width and legend.x0 >= 0, "the legend leaves the figure"


def test_a_grid_of_heatmaps_becomes_two_columns() -> None:
    fig, axes = plt.subplots(2, 4, figsize=(7, 4), layout="constrained", squeeze=False)
    tokens = ["the", "cat", "sat"]
    for index, ax in enumerate(axes.flat):
        image = ax.imshow(np.random.default_rng(index).random((3, 3)), vmin=0, vmax=1)
        ax.set_yticks(range(3), tokens)
        ax.set_xticks(range(3), tokens)
        if index % 4:
            ax.tick_params(labelleft=False)  # queries only on the grid's left edge
        else:
            ax.set_ylabel("query")
        if index < 4:
            ax.tick_params(labelbottom=False)
        else:
            ax.set_xlabel("key")
    fig.colorbar(image, ax=list(axes.flat))

    assert site_figures.relayout_for_phone(fig)

    flat = list(axes.flat)
    assert [_grid_position(ax) for ax in flat] == [(i // 2, i % 2) for i in range(8)]
    for index, ax in enumerate(flat):
        left = index % 2 == 0
        bottom = index >= 6
        assert _labels_shown(ax, "y") == left, f"heatmap {index}: y tick labels"
        assert (ax.get_ylabel() == "query") == left, f"heatmap {index}: y label"
        assert _labels_shown(ax, "x") == bottom, f"heatmap {index}: x tick labels"
        assert (ax.get_xlabel() == "key") == bottom, f"heatmap {index}: x label"


def test_long_titles_and_crowded_tick_labels_are_wrapped() -> None:
    fig, (left, right) = plt.subplots(1, 2, figsize=(7, 3), layout="constrained")
    left.set_title("Keys and values: projected (dark) or read from the cache, token by token")
    right.bar(["removed: none", "removed: head 0", "removed: head 1"], [1, 2, 3])
    right.set_title("short")

    assert site_figures.relayout_for_phone(fig)

    fig.canvas.draw()
    assert "\n" in left.get_title()
    assert left.title.get_window_extent().width <= fig.bbox.width
    assert right.get_title() == "short"
    labels = [t.get_text() for t in right.get_xticklabels()]
    assert all("\n" in label for label in labels), labels


def test_figures_that_already_fit_or_are_free_drawings_are_left_alone() -> None:
    narrow = plt.figure(figsize=(4, 3))
    narrow.add_subplot().plot([0, 1])
    assert not site_figures.relayout_for_phone(narrow)
    assert tuple(narrow.get_size_inches()) == (4, 3)

    drawing = plt.figure(figsize=(7, 5))
    drawing.add_axes((0, 0, 1, 1)).text(0.5, 0.5, "a diagram in inches")
    assert not site_figures.relayout_for_phone(drawing)
    assert tuple(drawing.get_size_inches()) == (7, 5)


def test_copies_in_256_colours_only_where_no_pixel_moves(tmp_path) -> None:
    from gallery_figures import fewer_colours
    from PIL import Image

    fig = plt.figure(figsize=(4, 3))
    fig.add_subplot().plot([0, 1, 4], [0, 2, 1])  # antialiased: a few hundred shades
    fig.savefig(drawn := tmp_path / "drawn.png")
    noise = np.random.default_rng(0).integers(0, 256, (64, 64, 4), dtype=np.uint8)  # alpha too
    Image.fromarray(noise).save(noisy := tmp_path / "noisy.png")
    for path in (drawn, noisy):
        fewer_colours(path)
    with Image.open(drawn) as fewer, Image.open(noisy) as kept:
        assert (fewer.mode, kept.mode) == ("P", "RGBA")
