"""The site's layout, read by its build and by nox: standard library only (nox loads it)."""

from __future__ import annotations

from pathlib import Path

DOCS = Path(__file__).resolve().parents[1]
# English, the source, then each language with catalogs in docs/locale/<language>/LC_MESSAGES
LANGUAGES = ("en", *sorted(p.parent.name for p in (DOCS / "locale").glob("*/LC_MESSAGES")))
# What a build writes into its source folder (each edition into its own), the pages first:
# ``nox -s docs -- clean`` removes them, git ignores them (tests_build/test_site_facts.py).
GENERATED_PAGES = ("auto_examples", "reference/generated")
GENERATED = (*GENERATED_PAGES, "_build", "gen_modules", ".jupyter_cache", "tutorial/notebooks",
             "sg_execution_times.rst")  # fmt: skip
