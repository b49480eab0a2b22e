"""Small Sphinx builds for the tests of the site's own extensions (docs/_ext)."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import sphinx.locale
from sphinx.application import Sphinx
from sphinx.util.docutils import docutils_namespace


def build(
    src: Path, builder: str = "html", language: str = "en", fresh: bool = True
) -> tuple[Path, str]:
    """Build ``src`` (its own conf.py) into ``out-<builder>-<language>`` beside it.

    Returns the output folder and the warnings. Each build registers its nodes and
    directives afresh and starts without the catalogs of an earlier build in this process.
    """
    warnings = StringIO()
    out = src.parent / f"out-{builder}-{language}"
    sphinx.locale.translators.clear()  # no catalog of an earlier build in this process
    try:
        with docutils_namespace():  # each build registers its nodes and directives afresh
            app = Sphinx(
                str(src), str(src), str(out), str(out / ".doctrees"), builder,
                confoverrides={"language": language}, status=None, warning=warnings,
                freshenv=fresh,
            )  # fmt: skip
            app.build()
    finally:
        sphinx.locale.translators.clear()
    return out, warnings.getvalue()
