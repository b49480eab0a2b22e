"""The API reference lists every public name: the build fails on one without a page.

``reference/index.rst`` lists the package's names in the lesson's order, in autosummary
tables that generate one page per name. A name added to ``mha.__all__`` but not to that page
would have no reference page and no warning from autosummary: this extension warns, naming
the missing ones, when the configuration is read.
"""

from __future__ import annotations

from pathlib import Path

from sphinx.util import logging

logger = logging.getLogger(__name__)
INDEX = Path("reference") / "index.rst"


def check_every_name_listed(app, config) -> None:
    import mha

    text = (Path(app.confdir) / INDEX).read_text(encoding="utf-8")
    missing = [n for n in mha.__all__ if n != "__version__" and f"   {n}\n" not in text]
    if missing:
        logger.warning(
            "expected every name of mha.__all__ in %s, missing %s (add each to an "
            "autosummary table there)",
            INDEX,
            missing,
            type="mha",
            subtype="api_reference",
        )


def setup(app):
    app.connect("config-inited", check_every_name_listed)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
