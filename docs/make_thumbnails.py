"""Draw the gallery thumbnails of the examples that print shapes or errors instead of plotting.

Each such example names its picture with ``# sphinx_gallery_thumbnail_path``; the PNGs are
committed in ``_static/thumbnails``, each also in the site's other languages (``<name>.zh_CN.png``).
Redraw them in the docs environment, the site's extensions on the path:
``PYTHONPATH=docs/_ext python docs/make_thumbnails.py``.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import site_figures
from matplotlib.patches import FancyArrowPatch, Rectangle

HERE = Path(__file__).resolve().parent / "_static" / "thumbnails"

SIZE = (4.0, 2.8)  # sphinx-gallery's thumbnail box, 400 x 280 px at 100 dpi
BLUE, ORANGE, GREEN, RED, GREY = "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#555555"


def _canvas():
    fig = plt.figure(figsize=SIZE, dpi=100, facecolor="white")
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, 40)
    ax.set_ylim(0, 28)
    ax.axis("off")
    return fig, ax


def _tensor(ax, x, y, w, h, label, colour, heads=1, text_size=13):
    """A tensor as a box (split into ``heads`` slices), its shape written below."""
    for i in range(heads):
        ax.add_patch(
            Rectangle(
                (x + i * w / heads, y),
                w / heads,
                h,
                facecolor=colour,
                alpha=0.25 + 0.5 * (i % 2),
                edgecolor="black",
                linewidth=1,
            )
        )
    ax.text(
        x + w / 2, y - 1.6, label, ha="center", va="top", fontsize=text_size, family="monospace"
    )


def _arrow(ax, x0, x1, y, text=""):
    ax.add_patch(
        FancyArrowPatch((x0, y), (x1, y), arrowstyle="-|>", mutation_scale=18, color=GREY, lw=2)
    )
    if text:
        ax.text((x0 + x1) / 2, y + 1.2, text, ha="center", va="bottom", fontsize=12)


def _title(ax, text):
    ax.text(20, 26, text, ha="center", va="top", fontsize=15, weight="bold")


def _save(fig, name):
    """Save ``name.png``, then ``name.<language>.png`` in each of the site's other languages,
    its labels from docs/locale/<language>/LC_MESSAGES/figures.po (site_figures)."""
    fig.savefig(HERE / f"{name}.png", dpi=100, facecolor="white")
    site_figures.save_languages(fig, [(HERE / f"{name}.png", 100)], HERE / f"{name}.labels.json")
    plt.close(fig)


def step(name, title, left, right, op, left_heads=1, right_heads=1, colours=(BLUE, GREEN)):
    fig, ax = _canvas()
    _title(ax, title)
    _tensor(ax, 2, 9, 13, 9, left, colours[0], left_heads)
    _arrow(ax, 16, 24, 13.5, op)
    _tensor(ax, 25, 9, 13, 9, right, colours[1], right_heads)
    _save(fig, name)


def error(name, title, message, fix):
    fig, ax = _canvas()
    _title(ax, title)
    ax.add_patch(Rectangle((1.5, 10.5), 37, 10, facecolor="#fde0e0", edgecolor=RED, lw=2))
    ax.text(
        20,
        15.5,
        message,
        ha="center",
        va="center",
        fontsize=11.5,
        family="monospace",
        color="#8b0000",
    )
    ax.add_patch(Rectangle((1.5, 1.5), 37, 7, facecolor="#e2f4e2", edgecolor=GREEN, lw=2))
    ax.text(
        20, 5, fix, ha="center", va="center", fontsize=11.5, family="monospace", color="#145214"
    )
    _save(fig, name)


def main() -> None:
    # 01_shapes: one step each
    fig, ax = _canvas()
    _title(ax, "the input x")
    for i in range(5):
        ax.add_patch(
            Rectangle((8 + 5 * i, 9), 4, 12, facecolor=BLUE, alpha=0.3 + 0.1 * i, edgecolor="black")
        )
    ax.text(
        20, 7.2, "(B, L, E) = (2, 5, 64)", ha="center", va="top", fontsize=13, family="monospace"
    )
    ax.text(20, 2.5, "L tokens, E numbers each", ha="center", fontsize=12)
    _save(fig, "shapes_01_inputs")

    fig, ax = _canvas()
    _title(ax, "x -> Q, K, V")
    _tensor(ax, 2, 9, 9, 9, "(B,L,E)", BLUE)
    _arrow(ax, 12, 17, 13.5)
    for i, (letter, colour) in enumerate((("Q", ORANGE), ("K", GREEN), ("V", RED))):
        ax.add_patch(
            Rectangle((18 + 7 * i, 9), 6, 9, facecolor=colour, alpha=0.45, edgecolor="black")
        )
        ax.text(21 + 7 * i, 13.5, letter, ha="center", va="center", fontsize=16, weight="bold")
    ax.text(28.5, 7.4, "3 x (B,L,E)", ha="center", va="top", fontsize=13, family="monospace")
    _save(fig, "shapes_02_qkv")

    step("shapes_03_split", "split into heads", "(B,L,E)", "(B,H,L,D)", "view,\ntranspose", 1, 8)
    step(
        "shapes_04_scores",
        "scores, softmax",
        "Q, K (B,H,L,D)",
        "(B,H,L,S)",
        r"$QK^\top/\sqrt{D}$",
        8,
        8,
        (ORANGE, "#9467bd"),
    )
    step(
        "shapes_05_weighted", "weights @ V", "(B,H,L,S)", "(B,H,L,D)", "@ V", 8, 8, ("#9467bd", RED)
    )
    step(
        "shapes_06_merge",
        "merge the heads",
        "(B,H,L,D)",
        "(B,L,E)",
        "transpose,\nreshape",
        8,
        1,
        (RED, BLUE),
    )
    step(
        "shapes_07_output",
        "output projection",
        "(B,L,E)",
        "(B,L,E)",
        r"$x\,W_O^\top$",
        1,
        1,
        (BLUE, GREEN),
    )

    # 02_pytorch
    fig, ax = _canvas()
    _title(ax, "two modules, one result")
    ax.text(20, 19, "torch.nn.MultiheadAttention", ha="center", fontsize=12.5, family="monospace")
    ax.text(20, 14.5, "==", ha="center", fontsize=18, weight="bold", color=GREEN)
    ax.text(20, 10, "mha.MultiHeadAttention", ha="center", fontsize=12.5, family="monospace")
    ax.text(20, 4, "assert_close: outputs, weights", ha="center", fontsize=12, color=GREEN)
    _save(fig, "pytorch_01_side_by_side")

    fig, ax = _canvas()
    _title(ax, "in_proj_weight (3E, E)")
    for i, (name, colour) in enumerate((("W_Q", ORANGE), ("W_K", GREEN), ("W_V", RED))):
        ax.add_patch(
            Rectangle((12, 16 - 6 * i), 16, 6, facecolor=colour, alpha=0.45, edgecolor="black")
        )
        ax.text(20, 19 - 6 * i, name, ha="center", va="center", fontsize=14, family="monospace")
    ax.text(30, 19, "rows 0..E", fontsize=11, va="center")
    ax.text(30, 13, "E..2E", fontsize=11, va="center")
    ax.text(30, 7, "2E..3E", fontsize=11, va="center")
    _save(fig, "pytorch_03_in_proj_weight")

    # 04_errors: the message, then the fix
    error(
        "errors_01_embed_dim",
        "E = 64, H = 6",
        "ValueError:\nembed_dim must be\ndivisible by num_heads",
        "H in 1, 2, 4, 8, 16, ...",
    )
    error(
        "errors_03_view_shape",
        "hard-coded view",
        "RuntimeError: shape\n'[2, 5, 8, 8]' is invalid\nfor input of size 600",
        "x.view(B, L, H, -1)",
    )
    error(
        "errors_04_batch_first",
        "batch_first=False",
        "(B, L, E) read\nas (L, B, E):\nwrong, no error",
        "batch_first=True",
    )


if __name__ == "__main__":
    main()
