"""Sphinx's own test harness (the ``sphinx`` marker, ``app``, ``make_app``): each test builds
its own copy of a small project, roots/test-<name> (``testroot="<name>"``). Figures are drawn
off-screen and closed after the tests that draw."""

from __future__ import annotations

from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

pytest_plugins = "sphinx.testing.fixtures"


@pytest.fixture(scope="session")
def rootdir() -> Path:
    return Path(__file__).parent / "roots"


@pytest.fixture
def sphinx_test_tempdir(tmp_path: Path) -> Path:
    """A folder per test: what a test writes into its project, no other test sees."""
    return tmp_path


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Build a copy of the root, never the root itself (a build compiles its catalogs)."""
    for item in items:
        if item.get_closest_marker("sphinx"):
            item.add_marker(pytest.mark.sphinx(copy_test_root=True))


@pytest.fixture
def close_figures():
    """Close every matplotlib figure a test opened (tests that draw use it)."""
    yield
    import matplotlib.pyplot as plt

    plt.close("all")
