"""Each edition's figures in its own language: a Chinese example, run as its download runs,
draws Chinese labels in a font that has them (docs/_ext/site_figures.py); a character that a
figure's fonts lack is reported (the build then fails), and the shipped font has them all."""

from __future__ import annotations

import importlib.util
import runpy
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import pytest
import site_figures
from translated_sources import GALLERY, messages, translate_example, with_fonts

pytestmark = pytest.mark.usefixtures("close_figures")


def test_a_chinese_download_draws_chinese_labels(tmp_path: Path, monkeypatch) -> None:
    script = next(GALLERY.glob("*/plot_01_eight_to_four_heads.py"))
    entries = messages("zh_CN", f"auto_examples/{script.parent.name}/{script.stem}")
    source = with_fonts(translate_example(script.read_text(encoding="utf-8"), *entries), "zh_CN")
    (tmp_path / script.name).write_text(source, encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # a reader's empty folder
    monkeypatch.setenv("MHA_LANG", "zh_CN")
    site_figures.register_font()  # as the build does; a reader's system has one of the fonts
    with matplotlib.rc_context():
        runpy.run_path(script.name, run_name="__main__")
        assert plt.rcParams["font.sans-serif"] == site_figures.CJK_FONTS
        fig = plt.figure(plt.get_fignums()[-1])
        fig.savefig(tmp_path / "figure.png")
        top, bottom = fig.axes
        assert [top.get_title(), bottom.get_title()] == [
            "8 个头，每个头 8 维",
            "4 个头，每个头 16 维",
        ]
        assert bottom.get_xlabel() == "Q 的特征（每个词元 64 维）"
        assert site_figures.lacking_glyphs(fig) == []


def test_a_character_its_fonts_lack_is_reported() -> None:
    fig, ax = plt.subplots()
    ax.set_title("头 0")  # matplotlib's own font, DejaVu Sans, has no Chinese
    assert site_figures.lacking_glyphs(fig) == ["头"]
    site_figures.register_font()
    with matplotlib.rc_context({"font.sans-serif": site_figures.CJK_FONTS}):
        assert site_figures.lacking_glyphs(fig) == []
        ax.set_title("头 0，頭 $\\sqrt{d_k}$")  # traditional 頭: no label uses it
        assert site_figures.lacking_glyphs(fig) == ["頭"]  # (the math has its own fonts)
    ax.set_title("")
    ax.text(0, 0, "头 ≈", fontfamily=["DejaVu Sans", "Noto Sans CJK SC"])  # a fallback list
    assert site_figures.lacking_glyphs(fig) == []


def test_the_shipped_font_has_every_character_of_the_chinese_code() -> None:
    path = site_figures.FONT.with_name("subset_font.py")  # nox -s fonts
    spec = importlib.util.spec_from_file_location("subset_font", path)
    subset_font = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(subset_font)
    fig = plt.figure()
    fig.text(0, 0, "".join(sorted(subset_font.label_characters())), family="Noto Sans CJK SC")
    site_figures.register_font()
    assert site_figures.lacking_glyphs(fig) == [], "run nox -s fonts"
