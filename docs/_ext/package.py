"""The package as the site uses it: outputs rerun when it changes, its wheel served, its API listed.

sphinx-gallery and myst-nb's cache see a change of an example or a notebook, not of ``src/mha``:
a hash of the package (``mha_source_hash``; a changed value rebuilds every page) turns on
``run_stale_examples`` for one build and gives myst-nb a cache per hash. ``_wheel/<mha_wheel>``,
built from the same sources, is linked by ``{install}`matplotlib``` (``mha_install``), also under
each example's download note, and followed by :data:`CPU_NOTE` on PyTorch's CPU-only build."""

from __future__ import annotations

import fcntl
import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

from docutils import nodes
from languages import TO_DOWNLOAD
from sphinx import addnodes
from sphinx.locale import _
from sphinx.util import logging

STAMP = Path("auto_examples") / ".mha-source-hash"  # beside the generated gallery
WHEELS = Path("_wheel")  # in the source folder: the {install} role links the wheel there
ROOT = Path(__file__).resolve().parents[2]  # the repository: pyproject.toml
logger = logging.getLogger(__name__)


def _hash(*files: Path) -> str:
    return hashlib.sha256(b"".join(p.read_bytes() for p in files)).hexdigest()[:16]


def _hash_and_cache(app, config) -> None:
    """Hash the package; myst-nb's cache for this hash, those of older hashes removed; warn of
    a public name that reference/index.rst does not list (it would have no page)."""
    import mha

    config.mha_source_hash = _hash(*sorted(Path(mha.__file__).resolve().parent.glob("*.py")))
    cache = Path(app.confdir) / ".jupyter_cache"
    config.nb_execution_cache_path = str(cache / config.mha_source_hash)  # absolute
    for old in [p for p in cache.glob("*") if p.name != config.mha_source_hash]:
        shutil.rmtree(old, ignore_errors=True)
    listed = (Path(app.confdir) / "reference" / "index.rst").read_text(encoding="utf-8")
    if missing := [n for n in mha.__all__ if n != "__version__" and f"   {n}\n" not in listed]:
        message = f"expected every name of mha.__all__ in reference/index.rst, missing {missing}"
        logger.warning(message, type="mha", subtype="api_reference")


def _build_wheel(app, config) -> None:
    """``_wheel/<mha_wheel>``, unless it is built from these sources already."""
    folder = Path(app.confdir) / WHEELS  # the editions share it: one builds, under a lock
    folder.mkdir(exist_ok=True)
    wheel, stamp = folder / config.mha_wheel, folder / ".built-from"
    built_from = config.mha_source_hash + _hash(ROOT / "pyproject.toml")
    with (folder / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if wheel.is_file() and stamp.is_file() and stamp.read_text() == built_from:
            return
        for old in folder.glob("*.whl"):
            old.unlink()
        pip = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir"]
        subprocess.run([*pip, folder, ROOT], check=True)  # another name: the role's link fails
        stamp.write_text(built_from)


def install_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """``{install}`matplotlib```: ``python -m pip install <the wheel, linked> matplotlib``."""
    env = inliner.document.settings.env
    before, _, after = env.config.mha_install.partition(env.config.mha_wheel)
    if after.strip() != text.strip():
        message = f"expected {{install}}`{after.strip()}` (mha_install), got {{install}}`{text}`"
        return [], [inliner.reporter.error(message, line=lineno)]
    wheel = env.config.mha_wheel
    link = addnodes.download_reference(
        rawtext, "", nodes.Text(wheel), reftarget=f"/{WHEELS / wheel}", refdoc=env.docname
    )
    literal = nodes.literal(rawtext, "", nodes.Text(before), link, nodes.Text(after))
    literal["classes"].append("mha-install")
    return [literal], []


INSTALL_NOTE = (  # on each example's page, under sphinx-gallery's note on its downloads
    "Save the package from this site beside the download and install it, PyTorch with it (a "
    "notebook's first cell runs the same command): :install:`matplotlib`."
)
CPU_NOTE = (  # after each install line, in the page's language (sphinx.po); {page}: the link
    "On Linux, pip takes PyTorch's CUDA build for this line, several gigabytes. For the "
    "CPU-only build, first open {page}, choose your system, pip and CPU, and install PyTorch "
    "with the command it gives; then run the line above."
)
PYTORCH_PAGE, PYTORCH_INSTALL = "PyTorch's install page", "https://pytorch.org/get-started/locally/"


def cpu_note(app, doctree, docname: str) -> None:
    """After each paragraph that holds an install line, the note on PyTorch's CPU-only build."""
    for literal in list(doctree.findall(nodes.literal)):
        paragraph, next_ = literal.parent, literal.parent.next_node(descend=False, siblings=True)
        if "mha-install" not in literal["classes"] or not isinstance(paragraph, nodes.paragraph):
            continue
        if isinstance(next_, nodes.paragraph) and "mha-install-note" in next_["classes"]:
            continue  # one note a paragraph
        before, _page, after = str(_(CPU_NOTE)).partition("{page}")
        link = nodes.reference("", str(_(PYTORCH_PAGE)), refuri=PYTORCH_INSTALL, internal=False)
        note = nodes.paragraph("", "", nodes.Text(before), link, nodes.Text(after))
        paragraph.parent.insert(paragraph.parent.index(paragraph) + 1, note)
        note["classes"].append("mha-install-note")


def _install_note(app, docname: str, source: list[str]) -> None:
    if docname.startswith("auto_examples/") and docname.rsplit("/", 1)[-1].startswith("plot_"):
        note = TO_DOWNLOAD + "\n"  # sphinx-gallery's words, as languages finds them
        source[0] = source[0].replace(note, f"{note}\n        {INSTALL_NOTE}\n", 1)


def _rerun_examples_if_changed(app) -> None:  # after the builder hashed the configuration
    stamp = Path(app.confdir) / STAMP
    changed = not stamp.is_file() or stamp.read_text().strip() != app.config.mha_source_hash
    app.config.sphinx_gallery_conf["run_stale_examples"] = changed


def _record(app, exception) -> None:  # which sources the outputs of a good build came from
    if exception is None and (Path(app.confdir) / STAMP).parent.is_dir():
        (Path(app.confdir) / STAMP).write_text(app.config.mha_source_hash + "\n")


def setup(app):
    for name in ("mha_source_hash", "mha_wheel", "mha_install"):
        app.add_config_value(name, "", "env")
    app.add_role("install", install_role)
    app.connect("config-inited", _hash_and_cache)
    app.connect("config-inited", _build_wheel, priority=600)
    app.connect("source-read", _install_note)
    app.connect("doctree-resolved", cpu_note)
    app.connect("builder-inited", _rerun_examples_if_changed, priority=100)
    app.connect("build-finished", _record, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
