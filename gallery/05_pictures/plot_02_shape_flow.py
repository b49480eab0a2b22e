r"""
The shape flow, drawn from the code
===================================

A diagram of every tensor in multi-head attention, from the input ``(2, 5, 64)`` to the
output ``(2, 5, 64)``: one box per tensor with its name, shape and dimension letters, one row
per step, and arrows labelled with the step that leads from one row to the next. Nothing is
drawn by hand: the boxes come from :func:`mha.trace_shapes`, which runs the package's own
steps on shape-only tensors, and carry the names of the lesson's script on page 2, such as
Q_proj, attn_scores, head_outputs and concat_output. Drawing a second size, cross-attention
with a source of 7 tokens, shows the diagram following the code.
"""

from itertools import groupby

import matplotlib.pyplot as plt
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Patch

import mha

# %%
# The trace
# ---------
#
# :func:`mha.trace_shapes` returns one :class:`mha.ShapeStep` per tensor, in execution order:
# the step it belongs to, the tensor's name, its shape and its letters.

trace = mha.trace_shapes(2, 5, 64, 8)
print(mha.format_shape_table(trace))
assert trace[0].shape == trace[-1].shape == (2, 5, 64)

# %%
# Drawing a trace
# ---------------
#
# ``draw_shape_flow`` groups the trace by step, in order, and draws each group as a row of
# boxes (one per tensor, left to right in execution order). Between two rows, an arrow
# carries the name of the step that produces the lower row. Tensors with the model width
# ``E`` as last axis are blue; tensors split into heads (4-D) are orange. The figure is white
# with dark text, so it reads the same on light and dark pages.

COLOURS = {3: "#cfe2f3", 4: "#fce5cd"}  # fill by number of dimensions
EDGE = "#333333"
CHANGED = "#c0392b"
# inches: narrow enough for a phone's screen (4.2 in is 420 px, shown at 340 px or more on a
# 390 px phone) and wide enough for three boxes of 10 pt text side by side
BOX_W, BOX_H, ROW_GAP, WIDTH = 1.26, 1.05, 1.75, 4.2
LEGEND_H = 1.0  # room below the rows for the legend, off the boxes
# each box's name: the name the tensor has in page 2's script, the lesson's names (the trace
# calls some of them more briefly)
NAMES = {
    "Q": "Q_proj",
    "K": "K_proj",
    "V": "V_proj",
    "scores": "attn_scores",
    "context": "head_outputs",
    "concat": "concat_output",
}
# each arrow's label, by the number of its step in the trace ("3) split heads" is step 3): the
# step's name in the page's language (the trace's names are English)
STEP_LABELS = {
    2: "2) project",
    3: "3) split heads",
    4: "4) attend",
    5: "5) merge heads",
    6: "6) project out",
}


def draw_shape_flow(steps, title, highlight=()):
    """Draw a list of ShapeStep as rows of boxes joined by labelled arrows.

    Tensors named in ``highlight`` get a thick red outline. Returns the figure, the box
    patches (one per tensor) and the arrow labels.
    """
    groups = [(step, list(rows)) for step, rows in groupby(steps, key=lambda s: s.step)]
    height = ROW_GAP * len(groups) + 0.3 + LEGEND_H
    fig = plt.figure(figsize=(WIDTH, height), facecolor="white")
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, WIDTH)
    ax.set_ylim(-height, 0)
    ax.axis("off")
    # the figure's title (sphinx-gallery also makes it the image's alt text)
    fig.suptitle(
        title,
        x=0.15 / WIDTH,
        y=1 - 0.2 / height,
        ha="left",
        va="top",
        fontsize=11.5,
        fontweight="bold",
    )

    boxes, arrow_labels = [], []
    for row, (step, tensors) in enumerate(groups):
        y = -ROW_GAP * (row + 0.5) - 0.2  # centre of this row
        for i, s in enumerate(tensors):
            x = WIDTH * (i + 0.5) / len(tensors)  # centre of this box
            box = FancyBboxPatch(
                (x - BOX_W / 2, y - BOX_H / 2),
                BOX_W,
                BOX_H,
                boxstyle="round,pad=0.02,rounding_size=0.12",
                facecolor=COLOURS.get(len(s.shape), "#eeeeee"),
                edgecolor=CHANGED if s.name in highlight else EDGE,
                linewidth=3.0 if s.name in highlight else 1.2,
            )
            ax.add_patch(box)
            name = NAMES.get(s.name, s.name)
            ax.text(x, y + 0.27, name, ha="center", va="center", fontsize=10, weight="bold")
            ax.text(x, y, str(s.shape), ha="center", va="center", family="monospace")
            ax.text(x, y - 0.27, s.letters, ha="center", va="center", family="monospace")
            box.set_label(f"{name} {s.shape}")
            boxes.append(box)
        if row > 0:  # arrow from the row above, labelled with this row's step
            top = y + BOX_H / 2 + 0.05
            arrow = FancyArrowPatch(
                (WIDTH / 2, top + ROW_GAP - BOX_H - 0.1),
                (WIDTH / 2, top),
                arrowstyle="-|>",
                mutation_scale=18,
                color=EDGE,
                linewidth=1.5,
            )
            ax.add_patch(arrow)
            label = ax.text(
                WIDTH / 2 + 0.15,
                top + (ROW_GAP - BOX_H) / 2 - 0.05,
                STEP_LABELS[int(step[0])],
                va="center",
                fontsize=10,
                style="italic",
            )
            arrow_labels.append(label.get_text())
    legend = [
        Patch(facecolor=COLOURS[3], edgecolor=EDGE, label="(B, L|S, E): one row per token"),
        Patch(facecolor=COLOURS[4], edgecolor=EDGE, label="(B, H, ·, ·): one slice per head"),
    ]
    if highlight:
        legend.append(Patch(facecolor="white", edgecolor=CHANGED, linewidth=2, label="changed"))
    ax.legend(handles=legend, loc="lower center", frameon=False, fontsize=10)
    return fig, boxes, arrow_labels


# %%
# Self-attention at the lesson's sizes
# ------------------------------------
#
# ``B = 2, L = S = 5, E = 64, H = 8``. One box per tensor of the trace, and one arrow per
# step after the input.

fig, boxes, arrow_labels = draw_shape_flow(trace, "Self-attention: B=2, L=S=5, E=64, H=8")
steps_in_order = list(dict.fromkeys(s.step for s in trace))
assert len(boxes) == len(trace) == 12
assert boxes[0].get_label() == "x (2, 5, 64)"
assert boxes[-1].get_label() == "output (2, 5, 64)"
# the names of page 2's script, in its order
assert [box.get_label().split(" ")[0] for box in boxes] == [
    "x", "Q_proj", "K_proj", "V_proj", "Q_heads", "K_heads", "V_heads",
    "attn_scores", "attn_weights", "head_outputs", "concat_output", "output",
]  # fmt: skip
assert arrow_labels == [STEP_LABELS[int(step[0])] for step in steps_in_order[1:]]
print(f"arrows: {arrow_labels}")

# %%
# Cross-attention: a source of 7 tokens
# -------------------------------------
#
# With ``source_len=7`` the keys and values come from another sequence, ``S = 7``. The
# trace, and so the picture, change where the code says they must: ``K`` and ``V`` become
# ``(2, 7, 64)``, the scores and weights ``(2, 8, 5, 7)``, while the queries, the context and
# the output keep the target length ``L = 5``. The boxes whose shape differs from the
# self-attention trace, or are not in it, are found by comparing the two traces, and outlined
# in red: the trace now starts from three inputs, the query input ``x`` and the ``key`` and
# ``value`` inputs ``(2, 7, 64)``, the source sequence.

cross = mha.trace_shapes(2, 5, 64, 8, source_len=7)
shapes = {s.name: s.shape for s in cross}
assert shapes["K"] == shapes["V"] == (2, 7, 64)
assert shapes["scores"] == shapes["attn_weights"] == (2, 8, 5, 7)
assert shapes["context"] == (2, 8, 5, 8)
assert cross[0].shape == cross[-1].shape == (2, 5, 64)

self_shapes = {s.name: s.shape for s in trace}
changed = [s.name for s in cross if self_shapes.get(s.name) != s.shape]
assert changed == ["key", "value", "K", "V", "K_heads", "V_heads", "scores", "attn_weights"]
print(f"changed by S = 7: {changed}")

fig, boxes, arrow_labels = draw_shape_flow(
    cross, "Cross-attention: B=2, L=5, S=7, E=64, H=8", highlight=changed
)
assert len(boxes) == len(cross)
assert boxes[0].get_label() == "x (2, 5, 64)"
assert boxes[-1].get_label() == "output (2, 5, 64)"
assert "K_proj (2, 7, 64)" in [box.get_label() for box in boxes]
assert "head_outputs (2, 8, 5, 8)" in [box.get_label() for box in boxes]

# %%
# Functions used: :func:`mha.trace_shapes`, :func:`mha.format_shape_table`.
