"""Shared fixtures: the devices to test on, every test in English whatever the machine's
locale, and the hypothesis profile."""

from __future__ import annotations

import os

import pytest
import torch
from hypothesis import HealthCheck, settings

import mha
from mha import _i18n

# Parity examples per run: at least 500, the same ones on every machine (derandomize), so a CI
# failure reproduces locally. MHA_HYPOTHESIS_EXAMPLES raises the count for a longer search.
settings.register_profile(
    "mha",
    max_examples=int(os.environ.get("MHA_HYPOTHESIS_EXAMPLES", "500")),
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
settings.load_profile("mha")


@pytest.fixture(params=mha.available_devices(), ids=str)
def device(request) -> torch.device:
    """Every available device: the CPU, and the first GPU when there is one."""
    return request.param


@pytest.fixture(autouse=True)
def english_by_default(monkeypatch):
    """No language chosen: ``MHA_LANG`` and the locale variables unset (a test sets the one
    it needs), and :func:`mha.set_language` back to the environment after each test."""
    for variable in ("MHA_LANG", *_i18n.ENVIRONMENT):
        monkeypatch.delenv(variable, raising=False)
    yield
    mha.set_language(None)
