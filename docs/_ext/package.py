"""The package as the site uses it: its outputs run again when it changes, its wheel served,
every public name on a reference page.

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

It also builds the package's wheel from the same sources, ``_wheel/<mha_wheel>`` in the source
folder (again only when the sources or ``pyproject.toml`` changed), which the site serves:
the role ``{install}`matplotlib``` writes the one command that installs what a download
needs, ``python -m pip install mha-<version>-py3-none-any.whl matplotlib`` (``mha_install``),
the wheel's name a link to download it. Each gallery example's page says it in its download
note (:data:`INSTALL_NOTE`), the tutorial's pages and the gallery's index in their text.

``reference/index.rst`` lists the package's names in the lesson's order, in autosummary tables
that generate one page per name. A name added to ``mha.__all__`` but not to that page would have
no reference page and no warning from autosummary: :func:`check_every_name_listed` warns.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

from docutils import nodes
from languages import TO_DOWNLOAD
from sphinx import addnodes
from sphinx.util import logging

STAMP = Path("auto_examples") / ".mha-source-hash"  # beside the generated gallery
CACHE = Path(".jupyter_cache")
WHEELS = Path("_wheel")  # in the source folder: the {install} role links the wheel there
ROOT = Path(__file__).resolve().parents[2]  # the repository: pyproject.toml


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


def _build_wheel(app, config) -> None:
    """``_wheel/<mha_wheel>``, built from the sources unless it is already from these."""
    folder = Path(app.confdir) / WHEELS
    wheel, stamp = folder / config.mha_wheel, folder / ".built-from"
    built_from = (
        config.mha_source_hash
        + hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()[:16]
    )
    if wheel.is_file() and stamp.is_file() and stamp.read_text() == built_from:
        return
    shutil.rmtree(folder, ignore_errors=True)
    pip = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir"]
    subprocess.run([*pip, str(folder), str(ROOT)], check=True)
    if not wheel.is_file():
        found = sorted(p.name for p in folder.glob("*.whl"))
        raise RuntimeError(f"expected the wheel {config.mha_wheel}, got {found}")
    stamp.write_text(built_from)


def install_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """``{install}`matplotlib```: ``python -m pip install <the wheel, linked> matplotlib``."""
    config = inliner.document.settings.env.config
    before, _, after = config.mha_install.partition(config.mha_wheel)
    extra = text.strip()
    if after.strip() != extra:
        message = f"expected {{install}}`{after.strip()}` (mha_install), got {{install}}`{extra}`"
        return [], [inliner.reporter.error(message, line=lineno)]
    link = addnodes.download_reference(
        rawtext, "", nodes.Text(config.mha_wheel), reftarget=f"/{WHEELS / config.mha_wheel}",
        refdoc=inliner.document.settings.env.docname, refexplicit=True, refwarn=False,
    )  # fmt: skip
    command = nodes.literal(rawtext, "", nodes.Text(before), link, nodes.Text(after))
    command["classes"].append("mha-install")
    return [command], []


# what each example's page says under sphinx-gallery's "Go to the end to download" note
INSTALL_NOTE = (
    "Save the package from this site beside the download and install it, PyTorch with it (a "
    "notebook's first cell runs the same command): :install:`matplotlib`."
)
GALLERY_NOTE = TO_DOWNLOAD + "\n"  # sphinx-gallery's words, as languages matches them


def _install_note(app, docname: str, source: list[str]) -> None:
    """Each example page's download note: also the command that installs what it imports."""
    if docname.startswith("auto_examples/") and docname.rsplit("/", 1)[-1].startswith("plot_"):
        before, found, after = source[0].partition(GALLERY_NOTE)
        if found:
            source[0] = f"{before}{found}\n        {INSTALL_NOTE}\n{after}"


def _rerun_examples_if_changed(app) -> None:
    app.config.sphinx_gallery_conf["run_stale_examples"] = _changed(app)


def _record(app, exception) -> None:
    """After a successful build, remember which package sources the outputs came from."""
    stamp = Path(app.confdir) / STAMP
    if exception is None and stamp.parent.is_dir():
        stamp.write_text(app.config.mha_source_hash + "\n")


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
    app.add_config_value("mha_source_hash", "", "env")
    app.add_config_value("mha_wheel", "", "env")
    app.add_config_value("mha_install", "", "env")
    app.add_role("install", install_role)
    app.connect("config-inited", check_every_name_listed)
    app.connect("config-inited", _hash_and_cache)
    app.connect("config-inited", _build_wheel, priority=600)
    app.connect("source-read", _install_note)
    app.connect("builder-inited", _rerun_examples_if_changed, priority=100)
    app.connect("build-finished", _record, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
