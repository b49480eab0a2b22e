"""mha.measure_scale: the one measurement of the 1/sqrt(d_k) scale that every page quotes."""

from __future__ import annotations

import math

import pytest
import torch

import mha


def test_a_width_gives_the_same_numbers_whatever_else_is_measured() -> None:
    """Page 6 measures d_k = 8, 64, 512 and page 5 more widths: the numbers must agree."""
    alone = mha.measure_scale([64], n_rows=300)[0]
    among = {m.d_k: m for m in mha.measure_scale([8, 64, 512], n_rows=300)}[64]
    assert alone == among


def test_the_scale_is_what_differs() -> None:
    """Scaled by 1/sqrt(d_k): the same rows as unscaled scores divided by sqrt(d_k) by hand."""
    (m,) = mha.measure_scale([16], n_rows=200)
    gen = torch.Generator().manual_seed(16)  # seed 0: the draws of d_k = 16
    q = torch.randn(200, 1, 16, generator=gen)
    k, _ = torch.randn(2, 200, 8, 16, generator=gen)
    weights = torch.softmax(q @ k.mT / math.sqrt(16), dim=-1)
    assert m.scaled.largest == pytest.approx(weights.amax(-1).median().item())
    unscaled = torch.softmax(q @ k.mT, dim=-1)
    assert m.unscaled.largest == pytest.approx(unscaled.amax(-1).median().item())


def test_the_lessons_numbers() -> None:
    """The numbers pages 2, 5 and 6 and the explanation state, at the default settings."""
    at = {m.d_k: m for m in mha.measure_scale([8, 64, 128, 512])}
    assert round(at[8].unscaled.largest, 2) == 0.63 and round(at[8].scaled.largest, 2) == 0.32
    assert round(at[64].unscaled.largest, 2) == 0.96
    assert round(at[64].ratio, 2) == 1.15 and round(at[128].ratio, 2) == 3.35
    assert round(at[512].ratio) == 367
    assert round(at[8].key_ratio, 2) == 1.68 and round(at[64].key_ratio) == 477
    assert at[8].key_ratio == at[8].scaled.grad_k / at[8].unscaled.grad_k
    assert at[8].ratio < 1 < at[64].ratio  # the query's gradient: larger, then smaller


def test_a_uniform_row_at_width_one_is_not_changed_by_the_scale() -> None:
    (m,) = mha.measure_scale([1], n_rows=100)
    assert m.scaled == m.unscaled  # 1 / sqrt(1) = 1
    assert m.ratio == 1


@pytest.mark.parametrize(
    ("kwargs", "says"),
    [({"n_rows": 0}, "n_rows"), ({"n_keys": -1}, "n_keys"), ({"widths": [8, 0]}, "d_k")],
)
def test_bad_settings_name_themselves(kwargs: dict, says: str) -> None:
    with pytest.raises(ValueError, match=f"expected {says} to be a positive int"):
        mha.measure_scale(**kwargs)
