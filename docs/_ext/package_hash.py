"""Run the examples and notebooks again when the package changes, and only then.

sphinx-gallery re-runs an example only when the example's file changes, and myst-nb's
notebook cache keys on the notebook's text: neither sees a change in ``src/mha``, so a build
after a change to the package would show outputs of the old code. This extension hashes the
package's sources when the configuration is read (``mha_source_hash``, a configuration value
that rebuilds every page when it changes) and, when the hash differs from the one the last
successful build recorded beside the gallery:

- turns on sphinx-gallery's ``run_stale_examples`` for this build only (set after the builder
  has hashed the configuration, so that the next build does not see it as changed);
- gives myst-nb a notebook cache of its own for this hash (``.jupyter_cache/<hash>``) and
  removes the caches of older hashes.

A build in which nothing changed re-runs nothing.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

STAMP = Path("auto_examples") / ".mha-source-hash"  # beside the generated gallery
CACHE = Path(".jupyter_cache")


def source_hash() -> str:
    """A hash of the installed package's ``.py`` files."""
    import mha

    package = Path(mha.__file__).resolve().parent
    sources = b"".join(p.read_bytes() for p in sorted(package.glob("*.py")))
    return hashlib.sha256(sources).hexdigest()[:16]


def _changed(app) -> bool:
    stamp = Path(app.confdir) / STAMP
    return not stamp.is_file() or stamp.read_text().strip() != app.config.mha_source_hash


def _hash_and_cache(app, config) -> None:
    config.mha_source_hash = source_hash()
    cache = Path(app.confdir) / CACHE
    config.nb_execution_cache_path = str(cache / config.mha_source_hash)  # absolute
    if cache.is_dir():  # the caches of older package versions
        for old in cache.iterdir():
            if old.name != config.mha_source_hash:
                shutil.rmtree(old, ignore_errors=True)


def _rerun_examples_if_changed(app) -> None:
    app.config.sphinx_gallery_conf["run_stale_examples"] = _changed(app)


def _record(app, exception) -> None:
    """After a successful build, remember which package sources the outputs came from."""
    stamp = Path(app.confdir) / STAMP
    if exception is None and stamp.parent.is_dir():
        stamp.write_text(app.config.mha_source_hash + "\n")


def setup(app):
    app.add_config_value("mha_source_hash", "", "env")
    app.connect("config-inited", _hash_and_cache)
    app.connect("builder-inited", _rerun_examples_if_changed, priority=100)
    app.connect("build-finished", _record, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
