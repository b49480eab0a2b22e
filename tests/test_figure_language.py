"""The figures' labels in another language (docs/_ext/site_figures.py): the table's
entries and patterns, every kind of text of a figure translated, and a figure that would show a
box for a missing glyph refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

matplotlib = pytest.importorskip("matplotlib")
pytest.importorskip("babel")
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import site_figures
from site_figures import Labels, MissingLabels

pytestmark = pytest.mark.usefixtures("close_figures")


LABELS = Labels(
    {
        "head {}": "头 {}",
        "head {}, after training": "头 {}，训练后",
        "query {}, q = {}": "查询 {}，q = {}",
        "key position": "键的位置",
        "Variance of the scores": "分数的方差",
        "unscaled": "未缩放",
        "scaled by $1/\\sqrt{d_k}$": "乘以 $1/\\sqrt{d_k}$ 缩放",
        "cat": "cat",
    }
)


@pytest.mark.parametrize(
    ("english", "chinese"),
    [
        ("head 3", "头 3"),
        ("head 0, after training", "头 0，训练后"),  # the longer pattern wins
        ("query 1, q = -0.46", "查询 1，q = -0.46"),
        ("key position", "键的位置"),
        ("cat", "cat"),  # a name keeps its text
        ("the dog", None),
    ],
)
def test_table_translates_entries_and_patterns(english: str, chinese: str | None) -> None:
    assert LABELS.translate(english) == chinese
    assert (LABELS.entry(english) is None) == (chinese is None)


def test_every_text_of_a_figure_is_translated() -> None:
    fig, (ax, other) = plt.subplots(2, 1)
    ax.set_title("Variance of the scores")
    ax.set_xlabel("key position")
    ax.plot([0, 1], label="unscaled")
    ax.plot([1, 0], label="scaled by $1/\\sqrt{d_k}$")
    ax.legend()
    ax.set_xticks([0, 1], ["head 0", "head 1"])
    other.text(0.5, 0.5, "cat")
    with site_figures.in_language_fonts():
        english = site_figures.translate_figure(fig, LABELS)
        fig.canvas.draw()
    assert ax.get_title() == "分数的方差"
    assert ax.get_xlabel() == "键的位置"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "未缩放",
        "乘以 $1/\\sqrt{d_k}$ 缩放",
    ]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["头 0", "头 1"]
    assert "head 0" in english and "cat" in english and "key position" in english


def test_a_label_without_an_entry_fails() -> None:
    fig, ax = plt.subplots()
    ax.set_title("Softmax saturation")
    with pytest.raises(MissingLabels, match="Softmax saturation"):
        site_figures.translate_figure(fig, LABELS)


def test_a_glyph_missing_from_the_font_fails(tmp_path: Path) -> None:
    """A character the font subset lacks would show as a box: the figure is not saved."""
    fig, ax = plt.subplots()
    ax.set_title("head 0")
    missing = Labels({"head {}": "頭 {}"})  # traditional 頭: no label uses it
    with site_figures.in_language_fonts():
        site_figures.translate_figure(fig, missing)
        with pytest.raises(MissingLabels, match="glyph"):
            site_figures.save(fig, tmp_path / "figure.png", 50)
    assert not (tmp_path / "figure.png").exists()


def test_an_edition_saves_only_its_own_language_and_records_every_language(
    tmp_path: Path,
) -> None:
    """The English build writes no Chinese copy, yet records what the Chinese one uses."""
    title = "Ablating one head at a time"
    chinese = Labels.read("zh_CN").translate(title)
    fig, ax = plt.subplots()
    ax.set_title(title)
    path, labels = tmp_path / "figure.png", tmp_path / "figure.labels.json"
    fig.savefig(path, dpi=50)
    copy = site_figures.language_path(path, "zh_CN")
    site_figures.save_languages(fig, [(path, 50)], labels, saved={"en"})
    assert not copy.exists()
    record = json.loads(labels.read_text(encoding="utf-8"))
    assert record == {"labels": [title], "alt": {"zh_CN": chinese}}
    site_figures.save_languages(fig, [(path, 50)], labels, saved={"zh_CN"})
    assert copy.is_file()
    assert json.loads(labels.read_text(encoding="utf-8")) == record


def test_the_table_and_the_font_cover_every_label() -> None:
    """Every translated label of the real table can be drawn with the shipped font."""
    from fontTools.ttLib import TTFont

    cmap = TTFont(site_figures.FONT).getBestCmap()
    table = Labels.read("zh_CN")
    text = "".join([*table.exact.values(), *(t for _, t, _ in table.patterns)])
    lacking = sorted({c for c in text if c != "\n" and ord(c) not in cmap})
    assert lacking == [], f"run nox -s fonts: the font lacks {''.join(lacking)!r}"
