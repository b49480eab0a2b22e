"""Shared fixtures: the devices to test on, and the hypothesis profile."""

from __future__ import annotations

import os

import pytest
import torch
from hypothesis import HealthCheck, settings

import mha

# Tests of the site's catalogs and translated sources: they need the docs extra and the built
# site's gallery, so nox -s translations runs them (with tests_build's settings).
collect_ignore = ["test_catalogs.py", "test_glossary.py", "test_translated_sources.py"]

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
