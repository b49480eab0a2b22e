"""What the build, nox and the site's checks share (docs/_ext/site_facts.py), against the one
file that cannot import it: git ignores every path a build writes into docs/."""

from __future__ import annotations

import subprocess

import site_facts
from docpages import DOCS


def test_git_ignores_what_the_build_writes() -> None:
    inside = [f"docs/{path}/x" for path in site_facts.GENERATED]  # a file or a folder's file
    found = subprocess.run(
        ["git", "check-ignore", *inside],
        cwd=DOCS.parent,
        capture_output=True,
        text=True,
        check=False,
    )
    assert found.stdout.split() == inside, found.stderr
