"""The shape trace and the ``python -m mha`` command line."""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch

import mha
from mha.__main__ import main


def test_trace_follows_the_lesson() -> None:
    steps = mha.trace_shapes(batch=2, target_len=5, embed_dim=64, num_heads=8)
    shapes = {s.name: s.shape for s in steps}
    assert [s.name for s in steps] == [
        "x", "Q", "K", "V", "Q_heads", "K_heads", "V_heads",
        "scores", "attn_weights", "context", "concat", "output",
    ]  # fmt: skip
    assert shapes["x"] == shapes["Q"] == shapes["concat"] == shapes["output"] == (2, 5, 64)
    assert shapes["Q_heads"] == shapes["context"] == (2, 8, 5, 8)
    assert shapes["scores"] == shapes["attn_weights"] == (2, 8, 5, 5)
    assert [s.step for s in steps][::3] == ["1) input", "2) project", "3) split heads", "4) attend"]


@pytest.mark.parametrize("heads", [1, 4, 64])
def test_trace_matches_a_real_forward(heads: int) -> None:
    """The trace runs the package's steps, so it agrees with real tensors for any sizes."""
    steps = {s.name: s for s in mha.trace_shapes(3, 4, 64, heads, source_len=7)}
    d = 64 // heads
    assert steps["K_heads"].shape == (3, heads, 7, d)
    assert steps["scores"].shape == (3, heads, 4, 7)
    attn = mha.MultiHeadAttention(64, heads, batch_first=True)
    out, weights = attn(
        torch.randn(3, 4, 64),
        torch.randn(3, 7, 64),
        torch.randn(3, 7, 64),
        average_attn_weights=False,
    )
    assert out.shape == steps["output"].shape
    assert weights.shape == steps["attn_weights"].shape
    for step in steps.values():  # the letters describe the shape
        assert len(step.letters.split(",")) == len(step.shape)


def test_trace_rejects_bad_sizes() -> None:
    with pytest.raises(ValueError, match="embed_dim must be divisible by num_heads"):
        mha.trace_shapes(2, 5, 64, 6)
    with pytest.raises(ValueError, match="expected batch to be a positive int, got batch=0"):
        mha.trace_shapes(0, 5, 64, 8)


def test_table_lists_every_step() -> None:
    table = mha.format_shape_table(mha.trace_shapes(2, 5, 64, 8)).splitlines()
    assert table[0].split() == ["step", "tensor", "letters", "shape"]
    assert len(table) == 2 + 12
    assert table[-1].split()[-3:] == ["(2,", "5,", "64)"]


def test_cli_prints_the_table(capsys) -> None:
    assert main(["--batch", "2", "--seq", "5", "--d-model", "64", "--heads", "8"]) == 0
    out = capsys.readouterr().out
    assert "D=E/H=8" in out
    lines = out.splitlines()
    assert lines[3].endswith("(2, 5, 64)") and "input" in lines[3]
    assert any(line.endswith("(2, 8, 5, 8)") and "Q_heads" in line for line in lines)
    assert any(line.endswith("(2, 8, 5, 5)") and "attn_weights" in line for line in lines)
    assert lines[-1].endswith("(2, 5, 64)") and "output" in lines[-1]


def test_cli_bad_sizes_exit_with_a_message(capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--d-model", "64", "--heads", "6"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "embed_dim must be divisible by num_heads" in err
    assert "1, 2, 4, 8, 16, 32, 64" in err


def test_python_dash_m_entry_point() -> None:
    """The one real ``python -m mha`` run: the module runs as a program and exits 0. Every
    other command-line test calls ``main`` in this process (the same code, no interpreter
    start-up): ``__main__``'s ``raise SystemExit(main())`` is what only a real run proves."""
    args = ["--batch", "2", "--seq", "5", "--d-model", "64", "--heads", "8"]
    result = subprocess.run(
        [sys.executable, "-m", "mha", *args], capture_output=True, text=True, check=True
    )
    assert "(2, 8, 5, 5)" in result.stdout


def test_the_table_speaks_the_readers_language(monkeypatch: pytest.MonkeyPatch) -> None:
    """lang= chooses; without it MHA_LANG does; English by default and for an unknown value."""
    steps = mha.trace_shapes(2, 5, 64, 8, num_kv_heads=2)
    chinese = mha.format_shape_table(steps, lang="zh_CN")
    assert chinese.splitlines()[0].split() == ["步骤", "张量", "维度字母", "形状"]
    assert "3) 拆分多头" in chinese and "4) 计算注意力" in chinese and "3b) 重复键/值头" in chinese
    assert not any(word in chinese for word in ("step", "project", "attend", "merge"))
    english = mha.format_shape_table(steps, lang="en")
    assert "3) split heads" in english and "步骤" not in english
    monkeypatch.delenv("MHA_LANG", raising=False)
    assert mha.format_shape_table(steps) == english
    monkeypatch.setenv("MHA_LANG", "zh_CN")
    assert mha.format_shape_table(steps) == chinese
    monkeypatch.setenv("MHA_LANG", "fr")
    assert mha.format_shape_table(steps) == english
    with pytest.raises(ValueError, match="expected lang to be one of"):
        mha.format_shape_table(steps, lang="fr")


def test_chinese_columns_line_up() -> None:
    """A Chinese character takes two columns: every row's tensor name starts in one column."""
    import unicodedata

    lines = mha.format_shape_table(mha.trace_shapes(2, 5, 64, 8), lang="zh_CN").splitlines()
    starts = set()
    for line in lines[2:]:
        step = line.split("  ")[0]
        columns = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in step)
        starts.add(columns + len(line[len(step) :]) - len(line[len(step) :].lstrip()))
    assert len(starts) == 1, starts


def test_cli_takes_the_language(capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    """--lang chooses; without it MHA_LANG does; an unknown --lang is a usage error."""

    def run(*args: str) -> str:
        assert main(list(args)) == 0
        return capsys.readouterr().out

    monkeypatch.delenv("MHA_LANG", raising=False)
    assert "拆分多头" in run("--lang", "zh_CN")
    assert "split heads" in run()
    monkeypatch.setenv("MHA_LANG", "zh_CN")
    assert "拆分多头" in run()
    assert "split heads" in run("--lang", "en")
    with pytest.raises(SystemExit) as refused:
        main(["--lang", "fr"])
    assert refused.value.code == 2
    assert "参数 --lang：应为 en, zh_CN 之一，实际为 fr" in capsys.readouterr().err
    monkeypatch.delenv("MHA_LANG")
    with pytest.raises(SystemExit) as refused:
        main(["--lang", "fr"])
    assert refused.value.code == 2
    assert "argument --lang: expected one of en, zh_CN, got fr" in capsys.readouterr().err
