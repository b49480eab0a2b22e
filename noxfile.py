"""Every job of the project: ``nox -l`` lists them, ``nox -s NAME`` runs one."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import nox

ROOT = Path(__file__).parent
DOCS = ROOT / "docs"
BUILD = DOCS / "_build"
# The CPU wheel of torch; a range would pull a multi-GB CUDA build.
TORCH_CPU = "torch==2.13.0"

nox.options.sessions = ["lint", "tests", "docs"]
nox.options.default_venv_backend = "venv"


def install_package(session: nox.Session, extras: str, torch: str = TORCH_CPU) -> None:
    """Install torch first (pinned), then the package with ``extras``."""
    session.install(torch)
    session.install("-e", f".[{extras}]")


@nox.session(python="3.11")
def tests(session: nox.Session) -> None:
    """Run the test suite and every docstring example (pytest, warnings are errors)."""
    install_package(session, "test")
    session.run("pytest", *session.posargs)


@nox.session(python="3.11", reuse_venv=True)
def docs(session: nox.Session) -> None:
    """Build the site into docs/_build/html, executing every example (warnings are errors).

    ``nox -s docs -- clean`` removes the previous build and cached outputs first.
    """
    install_package(session, "docs")
    if "clean" in session.posargs:
        for path in (BUILD, DOCS / "auto_examples", DOCS / "api" / "generated"):
            shutil.rmtree(path, ignore_errors=True)
    session.run(
        "sphinx-build", "-W", "--keep-going", "-b", "html", "docs", str(BUILD / "html"),
        env={"PYTHONHASHSEED": "0", "MPLBACKEND": "Agg"},
    )


@nox.session(python="3.11")
def lint(session: nox.Session) -> None:
    """Check style with ruff (lint rules and formatting)."""
    session.install("ruff")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


if __name__ == "__main__":
    nox.main()
