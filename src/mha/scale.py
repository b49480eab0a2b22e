r"""What the :math:`1/\sqrt{d_k}` scale does, measured: one function, one set of numbers.

One query attends over ``n_keys`` random keys, ``n_rows`` times for each head width ``d_k``,
with the scale and without it (``scale=1.0``). Queries, keys and values are drawn from a
standard normal distribution, as the scores of freshly initialised projections roughly are.
The loss is a fixed random linear function of the weights, so its gradient measures only how
much the softmax lets through.

The draws depend on ``seed`` and ``d_k`` alone (a generator per width, on the CPU), so a
page that measures ``d_k = 8, 64, 512`` shows the same numbers as one that measures every
width from 1 to 512, on any device.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import torch

from mha._validation import positive_int
from mha.functional import scaled_dot_product_attention

__all__ = ["RowStats", "ScaleMeasurement", "measure_scale"]

WIDTHS = tuple(2**i for i in range(10))  # d_k = 1, 2, 4, ..., 512


@dataclass(frozen=True)
class RowStats:
    """Medians over the rows of one width, with or without the scale.

    Attributes
    ----------
    largest : float
        The median of each row's largest weight: ``1 / n_keys`` for a uniform row, 1 for a
        row that puts all its weight on one key.
    entropy : float
        The median entropy of a row, in nats: ``log(n_keys)`` when uniform, 0 when saturated.
    grad_q : float
        The median norm of the gradient that reaches the query.
    grad_q_mean : float
        Its mean, which the few rows whose two best keys almost tie can carry alone.
    grad_k : float
        The median norm of the gradient that reaches a key.
    """

    largest: float
    entropy: float
    grad_q: float
    grad_q_mean: float
    grad_k: float


@dataclass(frozen=True)
class ScaleMeasurement:
    """One head width, measured with the scale and without it.

    Attributes
    ----------
    d_k : int
        The head width.
    scaled, unscaled : RowStats
        The rows' statistics with the scale ``1 / sqrt(d_k)`` and with ``scale=1.0``.
    """

    d_k: int
    scaled: RowStats
    unscaled: RowStats

    @property
    def ratio(self) -> float:
        """How many times smaller the query's gradient is without the scale (< 1: larger)."""
        return self.scaled.grad_q / self.unscaled.grad_q

    @property
    def key_ratio(self) -> float:
        """How many times smaller a key's gradient is without the scale (< 1: larger)."""
        return self.scaled.grad_k / self.unscaled.grad_k


def _stats(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, upstream, scale) -> RowStats:
    q = q.detach().requires_grad_()
    k = k.detach().requires_grad_()
    _, weights = scaled_dot_product_attention(q, k, v, scale=scale)  # (N, 1, S)
    (weights * upstream).sum().backward()
    weights = weights.detach()
    entropy = -(weights * weights.clamp_min(1e-30).log()).sum(dim=-1)  # (N, 1)
    grad_q = q.grad.norm(dim=-1)  # (N, 1)
    return RowStats(
        largest=weights.amax(dim=-1).median().item(),
        entropy=entropy.median().item(),
        grad_q=grad_q.median().item(),
        grad_q_mean=grad_q.mean().item(),
        grad_k=k.grad.norm(dim=-1).median().item(),
    )


def measure_scale(
    widths: Iterable[int] = WIDTHS,
    *,
    n_rows: int = 4000,
    n_keys: int = 8,
    seed: int = 0,
    device: torch.device | str | None = None,
) -> list[ScaleMeasurement]:
    r"""Measure the softmax's weights and gradients with and without the :math:`1/\sqrt{d_k}` scale.

    Parameters
    ----------
    widths : iterable of int, default 1, 2, 4, ..., 512
        The head widths ``d_k`` to measure.
    n_rows : int, default 4000
        Queries per width, each with its own keys, values and loss.
    n_keys : int, default 8
        Keys each query attends over.
    seed : int, default 0
        With ``d_k``, it fixes every draw of a width.
    device : torch.device or str, optional
        Where the softmax and its gradient run; the draws are made on the CPU.

    Returns
    -------
    list of ScaleMeasurement
        One per width, in the order given.

    Examples
    --------
    >>> import mha
    >>> (m,) = mha.measure_scale([8], n_rows=500)
    >>> m.unscaled.largest > m.scaled.largest  # unscaled rows are sharper
    True
    >>> m.unscaled.grad_q > m.scaled.grad_q  # but at d_k = 8 their gradient is larger
    True
    """
    n_rows = positive_int(n_rows, "n_rows")
    n_keys = positive_int(n_keys, "n_keys")
    results = []
    for d_k in widths:
        d_k = positive_int(d_k, "d_k")
        gen = torch.Generator().manual_seed(seed * 4096 + d_k)
        q = torch.randn(n_rows, 1, d_k, generator=gen)  # (N, L=1, D)
        k, v = torch.randn(2, n_rows, n_keys, d_k, generator=gen)  # (N, S, D) each
        upstream = torch.randn(n_rows, 1, n_keys, generator=gen)  # d(loss) / d(weights)
        q, k, v, upstream = (t.to(device) for t in (q, k, v, upstream))
        results.append(
            ScaleMeasurement(
                d_k,
                scaled=_stats(q, k, v, upstream, None),
                unscaled=_stats(q, k, v, upstream, 1.0),
            )
        )
    return results
