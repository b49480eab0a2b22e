"""Module configurations that the tests share: each constructor option of PyTorch's module."""

from __future__ import annotations

# every storage case: packed or separate input projections, with or without biases and the
# extra key; the layout is a separate axis of each test
STORAGE_CONFIGS = [
    {},
    {"bias": False},
    {"add_bias_kv": True},
    {"add_zero_attn": True},
    {"kdim": 12, "vdim": 20},
    {"kdim": 12, "vdim": 20, "add_bias_kv": True, "bias": False},
]
CONFIGS = [*STORAGE_CONFIGS, {"batch_first": True, "dropout": 0.25}]


def config_id(config: dict) -> str:
    """A readable test id: ``kdim=12,vdim=20``, or ``defaults``."""
    return ",".join(f"{k}={v}" for k, v in config.items()) or "defaults"
