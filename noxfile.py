"""Every job of the project: ``nox -l`` lists them, ``nox -s NAME`` runs one, ``nox`` runs CI."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
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

# What CI runs: `.ci/run` and the GitHub workflow call `nox -s ci` (plain `nox` runs it too).
# Each step is a session of this file, started as `nox ARGS` once the steps it waits for have
# passed; steps that do not wait for each other run at the same time (2 CPU cores: the tests
# beside the site build, then the translations, browser and downloads checks of the built site).
# "env" installs the environment that tests, docs and translations share (torch once, not
# three times); "downloads-env" installs the downloads' own environment while the site builds.
CI_STEPS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # step: (arguments of nox, steps it waits for)
    "lint": (("-s", "lint"), ()),
    "env": (("--install-only", "-s", "translations"), ()),  # its extras: tests' and docs' too
    "tests": (("-s", "tests"), ("env",)),  # the README's test command
    "docs": (("-s", "docs", "--", "clean"), ("env",)),  # every example executes
    "downloads-env": (("--install-only", "-s", "downloads"), ("env",)),
    "translations": (("-s", "translations"), ("docs",)),
    "browser": (("-s", "browser"), ("docs",)),
    "downloads": (("-R", "-s", "downloads"), ("docs", "downloads-env")),
}

nox.options.sessions = ["ci"]

# pytest's closing line (its colours removed), and the counts in it
ANSI_COLOUR = re.compile(r"\x1b\[[0-9;]*m")
PYTEST_CLOSING = re.compile(r"^=+ (.*\d+ (?:passed|failed|errors?|skipped).*) in [\d.]+s.*=+$")
PYTEST_COUNT = re.compile(r"(\d+) (passed|failed|errors|error|skipped|xfailed|xpassed)")
nox.options.default_venv_backend = "venv"

# One environment for the sessions that import the source tree (tests, docs, translations):
# each installs what it needs into it, and skips pip when that is already there.
SHARED_ENV = ROOT / ".nox" / "mha"


def shared_env(session: nox.Session, extras: str) -> str:
    """Create .nox/mha if needed, install torch (pinned) and the package with ``extras``.

    Returns the environment's ``python``. What is installed is recorded with a hash of
    pyproject.toml, so a session whose packages are there already runs no pip at all.
    """
    python = SHARED_ENV / "bin" / "python"
    if not python.is_file():
        base = shutil.which("python3.11") or sys.executable
        session.run_install(base, "-m", "venv", str(SHARED_ENV), external=True)
    key = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + TORCH_CPU.encode())
    stamp = SHARED_ENV / "installed.txt"
    lines = stamp.read_text().split() if stamp.is_file() else []
    installed = set(lines[1:]) if lines[:1] == [key.hexdigest()] else set()
    wanted = {TORCH_CPU, *extras.split(",")}
    if not wanted <= installed:
        pip = (str(python), "-m", "pip", "install", "--quiet")
        session.run_install(*pip, TORCH_CPU, external=True)  # before the package: no CUDA build
        every = sorted((installed | wanted) - {TORCH_CPU})
        session.run_install(*pip, "-e", f".[{','.join(every)}]", external=True)
        stamp.write_text("\n".join([key.hexdigest(), *sorted(installed | wanted)]) + "\n")
    return str(python)


def kernel_profile(session: nox.Session) -> Path:
    """An IPython profile that silences the notebook kernel's warning about local TCP."""
    ipython = Path(session.create_tmp()) / "ipython"
    kernel_config = ipython / "profile_default" / "ipython_kernel_config.py"
    kernel_config.parent.mkdir(parents=True, exist_ok=True)
    kernel_config.write_text('c.IPKernelApp.log_level = "ERROR"\n')
    return ipython


@nox.session(venv_backend="none")
def tests(session: nox.Session) -> None:
    """Run the test suite and every docstring example (pytest, warnings are errors)."""
    python = shared_env(session, "test")
    # The catalog checks need Sphinx and the built site's gallery: nox -s translations runs them.
    ignore = "--ignore=tests/test_catalogs.py"
    session.run(python, "-m", "pytest", ignore, *session.posargs, external=True)


# The site's languages: English is the source, the others are translated from gettext catalogs
# in docs/locale/<language>/LC_MESSAGES. Each builds into docs/_build/html/<language>.
LANGUAGES = ("en", "zh_CN")
LOCALE = DOCS / "locale"


def build_site(
    session: nox.Session, python: str, args: list[str], env: dict[str, str] | None = None
) -> None:
    """Build every language into docs/_build/html/<language>, then the root page.

    ``clean`` among ``args`` first removes every output of earlier builds; the other arguments
    go to sphinx-build. ``nox -s docs`` and ``nox -s gpu`` build the same layout with this.
    """
    args = list(args)
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
    env = {
        "PYTHONHASHSEED": "0",
        "MPLBACKEND": "Agg",
        "IPYTHONDIR": str(kernel_profile(session)),
        **(env or {}),
    }
    for language in LANGUAGES:
        session.log(f"site in {language} -> {html / language}")
        session.run(
            *(python, "-m", "sphinx", "-W", "--keep-going", "-b", "html"),
            *("-D", f"language={language}", *args, "docs", str(html / language)),
            env=env,
            external=True,
        )
    if (html / LANGUAGES[0] / "index.html").is_file():  # not after --install-only
        shutil.copyfile(LOCALE / "site-root.html", html / "index.html")


@nox.session(venv_backend="none")
def docs(session: nox.Session) -> None:
    """Build the site in English and Chinese into docs/_build/html/{en,zh_CN} (warnings are errors).

    English builds first and executes the examples and notebooks; the Chinese build reuses
    their outputs (unchanged examples and cached notebooks do not run again). An example or
    notebook re-runs when its file or the package's sources change (the build compares a hash
    of ``src/mha``). docs/_build/html/index.html sends the reader to the browser's language.
    ``nox -s docs -- clean`` starts from nothing; other arguments go to sphinx-build.
    """
    python = shared_env(session, "docs")
    build_site(session, python, session.posargs)


@nox.session(venv_backend="none")
def translations(session: nox.Session) -> None:
    """Check the Chinese catalogs: fails while an entry is untranslated, fuzzy or stale.

    Regenerates the message templates from the sources (a gettext build, which reuses the
    gallery pages of the last ``nox -s docs`` or executes the examples) and compares them with
    docs/locale/zh_CN/LC_MESSAGES/*.po, then prints how much is translated.
    ``nox -s translations -- update`` brings the .po files up to date instead: new entries
    empty, changed ones fuzzy, removed ones dropped (sphinx-intl).
    """
    python = shared_env(session, "docs,test")
    env = {"PYTHONHASHSEED": "0", "MPLBACKEND": "Agg", "IPYTHONDIR": str(kernel_profile(session))}
    catalogs = (python, "docs/locale/catalogs.py")
    if "update" in session.posargs:
        session.run(*catalogs, "update", env=env, external=True)
        session.run(*catalogs, "stats", external=True)
        return
    session.run(*catalogs, "stats", external=True)
    session.run(
        python, "-m", "pytest", "tests/test_catalogs.py", *session.posargs, env=env, external=True
    )


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
    session.install("pytest", "pytest-xdist", "playwright", "axe-playwright-python")
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
        # three browsers at a time: the checks mostly wait on page loads, not on the CPU
        *("--numprocesses", "3"),
        *session.posargs,
    )


@nox.session(python="3.11")
def downloads(session: nox.Session) -> None:
    """Run every gallery download (.py and .ipynb) in an empty folder, as a reader would.

    Run ``nox -s docs`` first. The package is installed from a wheel, not from the source tree,
    so a script that leans on a file of the repository fails. Three at a time (pytest-xdist).
    """
    session.install(TORCH_CPU)
    session.install(
        ".", "matplotlib", "pytest", "pytest-xdist", "nbclient", "nbformat", "ipykernel"
    )
    site = Path(os.environ.get("MHA_SITE", BUILD / "html")).resolve()  # checked by the tests
    reader_home = tempfile.mkdtemp(prefix="mha-downloads-")  # outside the repository
    session.run(
        "pytest",
        "-c",
        "tests_site/pytest.ini",
        "tests_site/test_downloads.py",
        f"--site={site}",
        f"--basetemp={reader_home}",
        *("--numprocesses", "3"),
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
    # the same site as `nox -s docs -- clean`, every example and notebook run on the GPU
    build_site(session, "python", ["clean"], env=env)


@nox.session(venv_backend="none")
def ci(session: nox.Session) -> None:
    """Run every check of CI, as .ci/run and the GitHub workflow do: lint, tests, docs, ...

    The steps are the sessions listed in CI_STEPS (lint, tests, docs from clean, translations,
    browser, downloads), each started as its own `nox -s NAME` as soon as the steps it waits
    for have passed, two or three at a time. Their output is prefixed with the step's name;
    a table of the steps' times closes the run. Fails if any step fails.
    """
    nox_command = (sys.executable, "-m", "nox", "--noxfile", str(ROOT / "noxfile.py"))
    results: dict[str, tuple[str, float, float]] = {}  # step -> (outcome, wall s, CPU s)
    counts: dict[str, dict[str, int]] = {}  # step -> pytest's closing counts, by outcome
    done = threading.Condition()
    print_lock = threading.Lock()

    def run_step(name: str, args: tuple[str, ...]) -> None:
        start = time.monotonic()
        with print_lock:
            session.log(f"[{name}] nox {' '.join(args)}")
        process = subprocess.Popen(
            [*nox_command, *args],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            errors="replace",
        )
        assert process.stdout is not None
        for line in process.stdout:
            with print_lock:
                sys.stdout.write(f"[{name}] {line}")
                sys.stdout.flush()
            closing = PYTEST_CLOSING.match(ANSI_COLOUR.sub("", line).strip())
            if closing:  # "=== 198 passed, 4 skipped in 28.1s ===": one pytest run's counts
                step_counts = counts.setdefault(name, {})
                for number, outcome in PYTEST_COUNT.findall(closing.group(1)):
                    outcome = "errors" if outcome == "error" else outcome
                    step_counts[outcome] = step_counts.get(outcome, 0) + int(number)
        _, status, usage = os.wait4(process.pid, 0)  # CPU time of the step and its children
        process.returncode = os.waitstatus_to_exitcode(status)
        outcome = "passed" if process.returncode == 0 else "FAILED"
        with done:
            results[name] = (outcome, time.monotonic() - start, usage.ru_utime + usage.ru_stime)
            done.notify_all()

    started: set[str] = set()
    threads = []
    start = time.monotonic()
    with done:
        while len(results) < len(CI_STEPS):
            for name, (args, needs) in CI_STEPS.items():
                if name in started or not all(n in results for n in needs):
                    continue
                started.add(name)
                if any(results[n][0] != "passed" for n in needs):
                    results[name] = ("skipped", 0.0, 0.0)
                    continue
                thread = threading.Thread(target=run_step, args=(name, args), daemon=True)
                threads.append(thread)
                thread.start()
            if len(results) < len(CI_STEPS):
                done.wait()
    for thread in threads:
        thread.join()
    session.log(f"CI steps, {time.monotonic() - start:.0f} s in all:   wall s    CPU s")
    for name in CI_STEPS:
        outcome, wall, cpu = results[name]
        session.log(f"  {name:<14} {outcome:<8} {wall:11.0f} {cpu:8.0f}")
    # each test step's pytest counts, then the sum, as plain "N passed, N failed" lines
    total = {"passed": 0, "failed": 0}
    for name, step_counts in counts.items():
        failures = step_counts.get("failed", 0) + step_counts.get("errors", 0)
        print(f"{name}: {step_counts.get('passed', 0)} passed, {failures} failed")
        total["passed"] += step_counts.get("passed", 0)
        total["failed"] += failures
    print(f"ci: {total['passed']} passed, {total['failed']} failed")
    failed = [name for name, (outcome, *_) in results.items() if outcome != "passed"]
    if failed:
        session.error(f"CI steps not passed: {', '.join(failed)}")


if __name__ == "__main__":
    nox.main()
