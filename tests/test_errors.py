"""The errors a learner meets: each is a clear ValueError or TypeError, never an assert."""

from __future__ import annotations

import re

import pytest
import torch

import mha


def test_embed_dim_not_divisible_by_num_heads() -> None:
    with pytest.raises(ValueError, match="embed_dim must be divisible by num_heads") as err:
        mha.MultiHeadAttention(64, 6)
    message = str(err.value)
    assert "embed_dim=64" in message and "num_heads=6" in message
    assert "1, 2, 4, 8, 16, 32, 64" in message  # the head counts that would work


@pytest.mark.parametrize(
    ("embed_dim", "num_heads", "error", "match"),
    [
        (0, 1, ValueError, "expected embed_dim to be a positive int, got embed_dim=0"),
        (8, -2, ValueError, "expected num_heads to be a positive int, got num_heads=-2"),
        (8.0, 2, TypeError, "expected embed_dim to be an int, got float"),
        (8, True, TypeError, "expected num_heads to be an int, got bool"),
    ],
)
def test_bad_sizes(embed_dim, num_heads, error, match: str) -> None:
    with pytest.raises(error, match=match):
        mha.MultiHeadAttention(embed_dim, num_heads)


def test_dropout_out_of_range() -> None:
    with pytest.raises(ValueError, match=r"expected dropout in \[0, 1\], got 1.5"):
        mha.MultiHeadAttention(8, 2, dropout=1.5)


def test_split_heads_wrong_last_dimension() -> None:
    with pytest.raises(ValueError, match="split_heads expected") as err:
        mha.split_heads(torch.randn(2, 5, 60), 8)
    message = str(err.value)
    assert "split_heads expected the last dimension of x to be divisible by num_heads=8" in message
    assert "got x of shape (2, 5, 60)" in message
    assert "1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30, 60" in message  # the fix: head counts for 60


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: mha.split_heads(torch.randn(5, 64), 8), ValueError, "expected x to be 3-D"),
        (lambda: mha.split_heads([[1.0]], 1), TypeError, "expected x to be a torch.Tensor"),
        (lambda: mha.split_heads(torch.randn(2, 5, 64), 0), ValueError, "positive int"),
        (lambda: mha.merge_heads(torch.randn(2, 5, 64)), ValueError, "expected x to be 4-D"),
        (
            lambda: mha.project(torch.randn(2, 5, 64), torch.randn(64, 32)),
            ValueError,
            r"expected x's last dimension to equal weight.shape\[1\]",
        ),
        (
            lambda: mha.scaled_dot_product_attention(*torch.randn(3, 2, 5, 8), dropout_p=2.0),
            ValueError,
            r"expected dropout_p in \[0, 1\]",
        ),
        (
            lambda: mha.scaled_dot_product_attention(
                torch.randn(2, 5, 8), torch.randn(2, 5, 4), torch.randn(2, 5, 4)
            ),
            ValueError,
            "expected query and key to have the same last dimension",
        ),
        (
            lambda: mha.scaled_dot_product_attention(
                *torch.randn(3, 5, 8), attn_mask=torch.ones(5, 5, dtype=torch.bool), is_causal=True
            ),
            ValueError,
            "expected either attn_mask or is_causal=True, got both",
        ),
        (
            lambda: mha.scaled_dot_product_attention(
                *torch.randn(3, 5, 8), attn_mask=torch.ones(5, 5, dtype=torch.int64)
            ),
            TypeError,
            "expected attn_mask to be a bool or floating-point tensor, got dtype torch.int64",
        ),
    ],
)
def test_step_function_errors(call, error, match: str) -> None:
    with pytest.raises(error, match=match):
        call()


@pytest.fixture
def attn() -> mha.MultiHeadAttention:
    torch.manual_seed(0)
    return mha.MultiHeadAttention(16, 4)  # batch_first=False: (L, B, E)


def test_wrong_model_width(attn) -> None:
    x = torch.randn(5, 2, 8)
    with pytest.raises(ValueError, match=r"expected query's last dimension to be embed_dim=16, "):
        attn(x, x, x)


def test_kdim_width_names_the_argument() -> None:
    attn = mha.MultiHeadAttention(16, 4, kdim=6)
    q, k = torch.randn(5, 2, 16), torch.randn(7, 2, 16)
    with pytest.raises(ValueError, match="expected key's last dimension to be kdim=6"):
        attn(q, k, torch.randn(7, 2, 16))


def test_batch_first_confusion_cross_attention_names_batch_first(attn) -> None:
    # (B, L, E) data given to a sequence-first module: batch sizes seem to differ
    query, memory = torch.randn(2, 5, 16), torch.randn(2, 7, 16)
    with pytest.raises(ValueError, match="share the batch size") as err:
        attn(query, memory, memory)
    assert "batch_first=False" in str(err.value)
    assert "construct the module with batch_first=True" in str(err.value)
    # the fix
    fixed = mha.MultiHeadAttention(16, 4, batch_first=True)
    assert fixed(query, memory, memory)[0].shape == (2, 5, 16)


def test_batch_first_confusion_padding_mask_names_batch_first(attn) -> None:
    # self-attention shapes fit either way, but the (B, S) padding mask gives the layout away
    x = torch.randn(2, 5, 16)  # (B, L, E), read by the module as L=2, B=5
    padding = torch.zeros(2, 5, dtype=torch.bool)  # (B, S)
    with pytest.raises(
        ValueError, match=re.escape("key_padding_mask of shape (B, S) = (5, 2)")
    ) as e:
        attn(x, x, x, key_padding_mask=padding)
    assert "batch_first=True" in str(e.value)


def test_batch_first_confusion_attn_mask_names_batch_first() -> None:
    attn = mha.MultiHeadAttention(16, 4, batch_first=True)
    x = torch.randn(5, 2, 16)  # (L, B, E) given to a batch-first module
    with pytest.raises(ValueError, match="attn_mask of shape") as err:
        attn(x, x, x, attn_mask=mha.causal_mask(5))
    assert "batch_first=False" in str(err.value)


def test_mask_shape_errors_without_layout_hint(attn) -> None:
    x = torch.randn(5, 2, 16)
    with pytest.raises(ValueError, match=re.escape("got (4, 4)")) as err:
        attn(x, x, x, attn_mask=torch.zeros(4, 4, dtype=torch.bool))
    assert "batch_first" not in str(err.value)  # no hint when the other layout does not fit
    with pytest.raises(ValueError, match=re.escape("(B*H, L, S) = (8, 5, 5)")):
        attn(x, x, x, attn_mask=torch.zeros(3, 5, 5))


def test_unbatched_mask_shapes(attn) -> None:
    x = torch.randn(5, 16)
    with pytest.raises(ValueError, match=re.escape("key_padding_mask of shape (S,) = (5,)")):
        attn(x, x, x, key_padding_mask=torch.zeros(1, 5, dtype=torch.bool))
    with pytest.raises(ValueError, match=re.escape("(H, L, S) = (4, 5, 5)")):
        attn(x, x, x, attn_mask=torch.zeros(2, 5, 5))


@pytest.mark.parametrize("name", ["key_padding_mask", "attn_mask"])
def test_integer_masks_are_type_errors(attn, name: str) -> None:
    x = torch.randn(5, 2, 16)
    shape = (2, 5) if name == "key_padding_mask" else (5, 5)
    with pytest.raises(TypeError, match=f"expected {name} to be a bool or floating-point tensor"):
        attn(x, x, x, **{name: torch.zeros(shape, dtype=torch.int64)})


def test_inputs_of_different_rank(attn) -> None:
    with pytest.raises(ValueError, match="same number of dimensions, got 3-D, 2-D and 2-D"):
        attn(torch.randn(5, 2, 16), torch.randn(5, 16), torch.randn(5, 16))
    with pytest.raises(ValueError, match="expected query to be 2-D or 3-D"):
        attn(torch.randn(16), torch.randn(16), torch.randn(16))


def test_key_value_length_mismatch(attn) -> None:
    with pytest.raises(ValueError, match="expected key and value to have the same sequence length"):
        attn(torch.randn(5, 2, 16), torch.randn(6, 2, 16), torch.randn(7, 2, 16))


def test_is_causal_needs_attn_mask(attn) -> None:
    x = torch.randn(5, 2, 16)
    with pytest.raises(ValueError, match=r"is_causal=True .* needs attn_mask"):
        attn(x, x, x, is_causal=True)


def test_errors_survive_python_optimise() -> None:
    """Validation is real code, not ``assert``: it still fires under ``python -O``."""
    import subprocess
    import sys

    code = (
        "import mha\ntry:\n    mha.MultiHeadAttention(64, 6)\nexcept ValueError:\n    print('ok')"
    )
    result = subprocess.run(
        [sys.executable, "-O", "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "ok"
