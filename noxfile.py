"""Every job of the project: ``nox -l`` lists them, ``nox -s NAME`` runs one."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import nox

ROOT = Path(__file__).parent
DOCS = ROOT / "docs"
BUILD = DOCS / "_build"
# what a docs build writes besides BUILD: removed by ``nox -s docs -- clean``
DOCS_GENERATED = [
    BUILD,
    DOCS / "auto_examples",
    DOCS / "reference" / "generated",
    DOCS / "gen_modules",
    DOCS / ".jupyter_cache",
]
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


# The site's languages: English is the source, the others are translated from gettext catalogs
# in docs/locale/<language>/LC_MESSAGES. Each builds into docs/_build/html/<language>.
LANGUAGES = ("en", "zh_CN")
LOCALE = DOCS / "locale"


def kernel_profile(session: nox.Session) -> Path:
    """An IPython profile that silences the notebook kernel's warning about local TCP."""
    ipython = Path(session.create_tmp()) / "ipython"
    kernel_config = ipython / "profile_default" / "ipython_kernel_config.py"
    kernel_config.parent.mkdir(parents=True, exist_ok=True)
    kernel_config.write_text('c.IPKernelApp.log_level = "ERROR"\n')
    return ipython


@nox.session(python="3.11", reuse_venv=True)
def docs(session: nox.Session) -> None:
    """Build the site in English and Chinese into docs/_build/html/{en,zh_CN} (warnings are errors).

    English builds first and executes the examples and notebooks; the Chinese build reuses
    their outputs (unchanged examples and cached notebooks do not run again). An example or
    notebook re-runs when its file or the package's sources change (the build compares a hash
    of ``src/mha``). docs/_build/html/index.html sends the reader to the browser's language.
    ``nox -s docs -- clean`` starts from nothing; other arguments go to sphinx-build.
    """
    install_package(session, "docs")
    args = list(session.posargs)
    html = BUILD / "html"
    if "clean" in args:
        args.remove("clean")
        for path in DOCS_GENERATED:
            shutil.rmtree(path, ignore_errors=True)
        for compiled in LOCALE.rglob("*.mo"):  # compiled from the .po files by each build
            compiled.unlink()
    if html.is_dir():  # a one-language build left pages at the root: the site root is new
        for child in html.iterdir():
            if child.is_dir() and child.name not in LANGUAGES:
                shutil.rmtree(child)
            elif child.is_file():
                child.unlink()
    env = {"PYTHONHASHSEED": "0", "MPLBACKEND": "Agg", "IPYTHONDIR": str(kernel_profile(session))}
    for language in LANGUAGES:
        session.log(f"site in {language} -> {html / language}")
        session.run(
            *("sphinx-build", "-W", "--keep-going", "-b", "html", "-D", f"language={language}"),
            *(*args, "docs", str(html / language)),
            env=env,
        )
    shutil.copyfile(LOCALE / "site-root.html", html / "index.html")


@nox.session(python="3.11", reuse_venv=True)
def translations(session: nox.Session) -> None:
    """Check the Chinese catalogs: fails while an entry is untranslated, fuzzy or stale.

    Regenerates the message templates from the sources (a gettext build, which reuses the
    gallery pages of the last ``nox -s docs`` or executes the examples) and compares them with
    docs/locale/zh_CN/LC_MESSAGES/*.po, then prints how much is translated.
    ``nox -s translations -- update`` brings the .po files up to date instead: new entries
    empty, changed ones fuzzy, removed ones dropped (sphinx-intl).
    """
    install_package(session, "docs,test")
    env = {"PYTHONHASHSEED": "0", "MPLBACKEND": "Agg", "IPYTHONDIR": str(kernel_profile(session))}
    if "update" in session.posargs:
        session.run("python", "docs/locale/catalogs.py", "update", env=env)
        session.run("python", "docs/locale/catalogs.py", "stats")
        return
    session.run("python", "docs/locale/catalogs.py", "stats")
    session.run("pytest", "tests/test_catalogs.py", *session.posargs, env=env)


@nox.session(python="3.11")
def lint(session: nox.Session) -> None:
    """Check style with ruff (lint rules and formatting)."""
    session.install("ruff")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


CHROMIUM = Path("/usr/bin/chromium")


def site_check(session: nox.Session) -> Path:
    """Return the site to check ($MHA_SITE or docs/_build/html); stop if it or Chromium is gone."""
    site = Path(os.environ.get("MHA_SITE", BUILD / "html")).resolve()
    if not (site / "index.html").is_file():
        session.error(f"no built site at {site}: run nox -s docs first")
    if not CHROMIUM.is_file():
        session.error(f"{CHROMIUM} is missing: install it with apt-get install -y chromium")
    return site


@nox.session(python="3.11", reuse_venv=True)
def browser(session: nox.Session) -> None:
    """Check the built site offline and in Chromium: every page, math, search, downloads, themes.

    Run ``nox -s docs`` first. Screenshots go to docs/_build/screenshots ($MHA_SCREENSHOTS).
    """
    site = site_check(session)
    # drives Debian's Chromium (no browser download); axe-core checks accessibility
    session.install("pytest", "playwright", "axe-playwright-python")
    screenshots = os.environ.get("MHA_SCREENSHOTS", str(BUILD / "screenshots"))
    session.run("python", "tests_site/sitescan.py", str(site))
    # -c: the site checks have their own pytest.ini (the unit-test settings stay in pyproject.toml)
    session.run(
        "pytest",
        "-c",
        "tests_site/pytest.ini",
        "tests_site",
        "--ignore=tests_site/test_downloads.py",  # nox -s downloads runs it, with torch
        f"--site={site}",
        f"--screenshots={screenshots}",
        *session.posargs,
    )


@nox.session(python="3.11")
def downloads(session: nox.Session) -> None:
    """Run every gallery download (.py and .ipynb) in an empty folder, as a reader would.

    Run ``nox -s docs`` first. The package is installed from a wheel, not from the source tree,
    so a script that leans on a file of the repository fails.
    """
    site = Path(os.environ.get("MHA_SITE", BUILD / "html")).resolve()
    if not (site / "index.html").is_file():
        session.error(f"no built site at {site}: run nox -s docs first")
    session.install(TORCH_CPU)
    session.install(".", "matplotlib", "pytest", "nbclient", "nbformat", "ipykernel")
    reader_home = tempfile.mkdtemp(prefix="mha-downloads-")  # outside the repository
    session.run(
        "pytest",
        "-c",
        "tests_site/pytest.ini",
        "tests_site/test_downloads.py",
        f"--site={site}",
        f"--basetemp={reader_home}",
        *session.posargs,
        env={"IPYTHONDIR": str(kernel_profile(session))},
    )


@nox.session(python="3.11")
def bench(session: nox.Session) -> None:
    """Time mha against torch.nn.MultiheadAttention, measure memory; fail if a goal is missed.

    Writes results.json, speed.png and memory.png to benchmarks/results/, or to the folder
    given after ``--``; ``nox -s bench -- --update-docs`` also copies them to
    docs/_static/bench/ for the Performance page. About 5 minutes on 2 CPU cores.
    """
    session.install(TORCH_CPU)
    session.install("-e", ".", "matplotlib")
    session.run("python", "benchmarks/bench.py", *session.posargs, env={"MPLBACKEND": "Agg"})


# A CUDA build of torch: the Linux wheel on the package index is one ($MHA_TORCH_CUDA overrides).
TORCH_CUDA = os.environ.get("MHA_TORCH_CUDA", "torch==2.14.1")
CHECK_CUDA = """
import sys, torch
if not torch.cuda.is_available():
    sys.exit(f"torch {torch.__version__} (CUDA {torch.version.cuda}) sees no GPU: "
             "check the NVIDIA driver, or set MHA_TORCH_CUDA to a build the driver supports")
print(f"torch {torch.__version__} on {torch.cuda.get_device_name(0)}")
"""


@nox.session(python="3.11")
def gpu(session: nox.Session) -> None:
    """On an NVIDIA GPU: run the tests with MHA_DEVICE=cuda, then build the site on the GPU.

    Stops at once, before installing a multi-GB CUDA build of torch, when no GPU is visible.
    Arguments after ``--`` go to pytest.
    """
    if shutil.which("nvidia-smi") is None or not list(Path("/dev").glob("nvidia[0-9]*")):
        session.error(
            "no NVIDIA GPU visible here (no nvidia-smi or no /dev/nvidia0): the gpu session "
            "needs one; on a CPU run `nox -s tests docs`"
        )
    session.run("nvidia-smi", "-L", external=True)
    session.install(TORCH_CUDA)
    session.install("-e", ".[test,docs]")
    session.run("python", "-c", CHECK_CUDA)
    env = {"MHA_DEVICE": "cuda", "PYTHONHASHSEED": "0", "MPLBACKEND": "Agg"}
    session.run("pytest", *session.posargs, env=env)
    for path in DOCS_GENERATED:  # every example and notebook runs again, on the GPU
        shutil.rmtree(path, ignore_errors=True)
    ipython = Path(session.create_tmp()) / "ipython"
    kernel_config = ipython / "profile_default" / "ipython_kernel_config.py"
    kernel_config.parent.mkdir(parents=True, exist_ok=True)
    kernel_config.write_text('c.IPKernelApp.log_level = "ERROR"\n')
    session.run(
        *("sphinx-build", "-W", "--keep-going", "-b", "html", "docs", str(BUILD / "html")),
        env={**env, "IPYTHONDIR": str(ipython)},
    )


if __name__ == "__main__":
    nox.main()
