"""MathJax served from the site itself, in a parallel build.

``sphinx-mathjax-offline`` copies MathJax 3 into ``_static`` when the build has finished, so
that no page loads it from another host. It does not say whether it is safe in a parallel
build, and Sphinx then reads serially and warns (fatal under ``-W``). It only copies files
after the build, so this extension loads it and declares it safe for ``nox -s docs``'s
parallel readers and writers.
"""

from __future__ import annotations

OFFLINE = "sphinx-mathjax-offline"


def setup(app):
    app.setup_extension(OFFLINE)
    offline = app.extensions[OFFLINE]
    offline.parallel_read_safe = offline.parallel_write_safe = True
    return {"parallel_read_safe": True, "parallel_write_safe": True}
