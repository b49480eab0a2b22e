"""The device helper, and CPU-vs-GPU parity when a GPU is present."""

from __future__ import annotations

import pytest
import torch

import mha


def test_environment_variable_wins(monkeypatch) -> None:
    monkeypatch.setenv("MHA_DEVICE", "cpu")
    assert mha.get_device() == torch.device("cpu")
    monkeypatch.setenv("MHA_DEVICE", "meta")
    assert mha.get_device() == torch.device("meta")


def test_default_is_cuda_when_available(monkeypatch) -> None:
    monkeypatch.delenv("MHA_DEVICE", raising=False)
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert mha.get_device().type == expected
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert mha.get_device() == torch.device("cuda")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert mha.get_device() == torch.device("cpu")


def test_invalid_device_names(monkeypatch) -> None:
    monkeypatch.setenv("MHA_DEVICE", "tpu-please")
    with pytest.raises(ValueError, match="expected MHA_DEVICE to name a torch device"):
        mha.get_device()
    monkeypatch.setenv("MHA_DEVICE", "cuda")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ValueError, match=r"no available 'cuda' backend"):
        mha.get_device()


def test_available_devices() -> None:
    devices = mha.available_devices()
    assert devices[0] == torch.device("cpu")
    assert len(devices) == 1 + torch.cuda.is_available()


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
@pytest.mark.parametrize("need_weights", [True, False])
def test_cpu_and_gpu_agree(need_weights: bool) -> None:
    torch.manual_seed(0)
    cpu = mha.MultiHeadAttention(64, 8, batch_first=True, dtype=torch.float64)
    gpu = mha.MultiHeadAttention(64, 8, batch_first=True, dtype=torch.float64, device="cuda")
    gpu.load_state_dict(cpu.state_dict())
    x = torch.randn(2, 5, 64, dtype=torch.float64)
    mask = mha.causal_mask(5)
    out_cpu, w_cpu = cpu(x, x, x, attn_mask=mask, need_weights=need_weights)
    xg = x.cuda()
    out_gpu, w_gpu = gpu(xg, xg, xg, attn_mask=mask.cuda(), need_weights=need_weights)
    torch.testing.assert_close(out_gpu.cpu(), out_cpu)
    if need_weights:
        torch.testing.assert_close(w_gpu.cpu(), w_cpu)
