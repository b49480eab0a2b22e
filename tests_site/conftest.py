"""Fixtures for the site checks: where the built site is, a local server, and Chromium.

The site is served from 127.0.0.1 on a free port. Every request to another host is aborted
and recorded, so a page that would need the network fails its test.

Two layouts are recognised: one language (``html/index.html``) or one folder per language
(``html/en/index.html``, ``html/zh_CN/index.html``, with a root ``index.html`` that picks one).
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from pagechecks import NARROW_DESKTOP, axe_script
from sitescan import html_pages
from static_host import serve

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SITE = ROOT / "docs" / "_build" / "html"
DEFAULT_SCREENSHOTS = ROOT / "docs" / "_build" / "screenshots"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # Every host but the local server fails to resolve: nothing leaves the machine, and each
    # such request is recorded (Watch) without routing every request through the test.
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
]
VIEWPORT = NARROW_DESKTOP
TIMEOUT_MS = 20_000
# the page's scripts start once it has loaded (docs/_templates/layout.html): they have all run
SCRIPTS_RUN = (
    "() => document.documentElement.dataset.scripts === 'run'"
    " || !document.querySelector('script[data-later]')"
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("site", "built site checks")
    group.addoption(
        "--site",
        default=os.environ.get("MHA_SITE", str(DEFAULT_SITE)),
        help="built HTML folder (default: $MHA_SITE or docs/_build/html)",
    )
    group.addoption(
        "--screenshots",
        default=os.environ.get("MHA_SCREENSHOTS", str(DEFAULT_SCREENSHOTS)),
        help="folder for screenshots (default: $MHA_SCREENSHOTS or docs/_build/screenshots)",
    )
    group.addoption(
        "--chromium",
        default=shutil.which("chromium") or "",
        help="Debian's Chromium (default: chromium on the PATH; apt-get install -y chromium)",
    )


@dataclass(frozen=True)
class Layout:
    """Where the pages of each language are.

    ``languages`` maps a language code to its folder; the one-language layout has the single
    entry ``{"": root}``. ``main`` is the English folder (or the root).
    """

    root: Path
    languages: dict[str, Path] = field(default_factory=dict)

    @property
    def main(self) -> Path:
        return self.languages.get("en", self.root)

    @property
    def main_prefix(self) -> str:
        """URL path of the English pages relative to the server root: ``""`` or ``"en/"``."""
        rel = self.main.relative_to(self.root).as_posix()
        return "" if rel == "." else rel + "/"

    @property
    def multilingual(self) -> bool:
        return "" not in self.languages


def detect_layout(root: Path) -> Layout:
    """Find the language folders of a build (``en/``, ``zh_CN/``...) or the single root."""
    languages = {
        child.name: child
        for child in sorted(root.iterdir())
        if child.is_dir()
        and (child / "index.html").is_file()
        and (child / "searchindex.js").is_file()
    }
    if languages:
        return Layout(root, languages)
    return Layout(root, {"": root})


def _site_path(config: pytest.Config) -> Path:
    return Path(config.getoption("--site")).resolve()


@functools.cache
def _pages(root: Path) -> list[str]:
    return [p.relative_to(root).as_posix() for p in html_pages(root)] if root.is_dir() else []


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Give ``page_path`` every page of the site, ``language_page`` every page of a language
    folder (all but the root page that picks one), ``gallery_page`` every gallery example."""
    root = _site_path(metafunc.config)
    pages = _pages(root)
    if "page_path" in metafunc.fixturenames:
        metafunc.parametrize("page_path", pages or ["<no site>"])
    if "language_page" in metafunc.fixturenames:
        layout = detect_layout(root) if root.is_dir() else Layout(root, {"": root})
        folders = [f"{name}/" for name in layout.languages if name]
        in_languages = [p for p in pages if not folders or p.startswith(tuple(folders))]
        metafunc.parametrize("language_page", in_languages or ["<no site>"])
    if "gallery_page" in metafunc.fixturenames:
        main = detect_layout(root).main if root.is_dir() else root
        prefix = main.relative_to(root).as_posix() + "/" if main != root else ""
        examples = [
            p
            for p in pages
            if p.startswith(prefix + "auto_examples/") and p.rsplit("/", 1)[-1].startswith("plot_")
        ]
        metafunc.parametrize("gallery_page", examples or ["<no gallery>"])


@pytest.fixture(scope="session")
def site_dir(pytestconfig: pytest.Config) -> Path:
    root = _site_path(pytestconfig)
    if not (root / "index.html").is_file():
        pytest.fail(f"no built site at {root} (no index.html): run nox -s docs first", False)
    return root


@pytest.fixture(scope="session")
def layout(site_dir: Path) -> Layout:
    return detect_layout(site_dir)


@pytest.fixture(scope="session")
def screenshot_dir(pytestconfig: pytest.Config) -> Path:
    path = Path(pytestconfig.getoption("--screenshots")).resolve()
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="session")
def base_url(site_dir: Path) -> str:
    """Serve the site on 127.0.0.1 (a free port) as a static host does, text gzipped and
    ``max-age=600`` (static_host.py); return ``http://127.0.0.1:PORT/``."""
    server = serve(site_dir)
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def browser(pytestconfig: pytest.Config):
    executable = pytestconfig.getoption("--chromium")
    if not executable or not Path(executable).is_file():
        pytest.fail(f"no Chromium at {executable!r}: apt-get install -y chromium", False)
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def new_context(browser, *, axe: bool = False, **options):
    """A light-mode browser context without service workers (options: Playwright's). With
    ``axe``, axe-core loads into every page it opens, before the page's own scripts
    (pagechecks.axe_problems runs it)."""
    ctx = browser.new_context(color_scheme="light", service_workers="block", **options)
    ctx.set_default_timeout(TIMEOUT_MS)
    if axe:
        ctx.add_init_script(path=axe_script())
    return ctx


@pytest.fixture(scope="session")
def context(browser):
    """One light-mode browser context shared by the tests that do not change settings."""
    ctx = new_context(browser, viewport=VIEWPORT)
    yield ctx
    ctx.close()


class Watch:
    """A page plus everything that went wrong on it since the last ``goto``.

    Requests to any origin but the local server are recorded (and fail: Chromium resolves no
    other host, see CHROMIUM_ARGS). Nothing is routed through the test: a route would send
    every request of every page through Python and turn off the browser's cache.
    """

    def __init__(self, page, base_url: str) -> None:
        self.page = page
        self.base_url = base_url
        self.origin = base_url.rstrip("/")
        self.problems: list[str] = []
        self.in_flight: set = set()  # requests sent and not yet answered
        self.opened = ""  # the page last opened (goto): each request is blamed on its page
        self.asked_by: dict = {}  # request -> the page open when it was sent
        self.watching = True
        page.on("console", self._console)
        page.on("pageerror", self._page_error)
        page.on("request", self._request)
        page.on("requestfinished", self._finished)
        page.on("requestfailed", self._failed)
        page.on("response", self._response)

    @contextlib.contextmanager
    def unwatched(self):
        """Not recording errors while the test's own tools run in the page: axe requests a
        stylesheet's @import relative to the page, a 404 the site does not cause (TOOLCHAIN.md).
        Playwright delivers the events of an ``evaluate`` before it returns. A request to
        another host is recorded all the same."""
        self.watching = False
        try:
            yield
        finally:
            self.watching = True

    def _page_error(self, error) -> None:
        if self.watching:
            self.problems.append(f"page error: {error}")

    def _finished(self, request) -> None:
        self.in_flight.discard(request)
        self.asked_by.pop(request, None)

    def _blame(self, request) -> str:
        """`` (asked by PAGE)`` for a request that an earlier page sent, else nothing."""
        page = self.asked_by.pop(request, self.opened)
        return "" if page == self.opened else f" (asked by {page}, not {self.opened})"

    def _request(self, request) -> None:
        self.in_flight.add(request)
        self.asked_by[request] = self.opened
        if not request.url.startswith(self.origin + "/"):  # recorded even while unwatched
            self.problems.append(f"request to another host: {request.url}")

    def _console(self, message) -> None:
        if message.type == "error" and self.watching:
            where = message.location.get("url", "")
            self.problems.append(f"console error: {message.text} ({where})")

    def _failed(self, request) -> None:
        self.in_flight.discard(request)
        if not self.watching:
            return
        # An image the browser itself dropped: a <picture> switched source (Chromium does so
        # while it takes a screenshot). A missing file still fails, as an HTTP 404.
        if request.failure == "net::ERR_ABORTED" and request.resource_type == "image":
            return
        # A page the browser left before it finished loading: the root page's script sends
        # the reader on to en/index.html, which can abort the root page's own load. The event
        # can arrive while page.url still names the root page (a CI run failed so), so the
        # address cannot tell: an aborted document is never a missing page, which is still an
        # HTTP 404.
        if request.failure == "net::ERR_ABORTED" and request.resource_type == "document":
            return
        if request.url.startswith(self.origin + "/"):  # another host's: recorded when sent
            blame = self._blame(request)
            self.problems.append(f"request failed: {request.url} ({request.failure}){blame}")

    def _response(self, response) -> None:
        if response.status >= 400 and self.watching:
            blame = self._blame(response.request)
            self.problems.append(f"HTTP {response.status}: {response.url}{blame}")

    def goto(self, path: str, wait_until: str = "settled"):
        """Open ``path`` (relative to the server root) and clear the problem list first.
        ``"settled"``: the page loaded and every request answered (``settle``), which is what
        Playwright's "networkidle" waits for, without its fixed 500 ms; any other value is
        Playwright's own ``wait_until``."""
        self.problems = []
        self.in_flight.clear()
        self.opened = path
        settled = wait_until == "settled"
        url = self.base_url + path
        response = self.page.goto(url, wait_until="load" if settled else wait_until)
        if response is None or response.status != 200:
            status = response.status if response is not None else "no response"
            self.problems.append(f"HTTP {status}: {path}")
        if wait_until in ("settled", "load"):  # and the scripts, which start once it has loaded
            self.page.wait_for_function(SCRIPTS_RUN)
        if settled:
            self.settle()
        return response

    def settle(self, quiet_ms: int = 100) -> None:
        """Wait until no request has been in flight for ``quiet_ms`` (after ``goto(...,
        wait_until="load")``): what Playwright's "networkidle" waits for, without its fixed
        500 ms, so that every request of the page has been answered or has failed."""
        quiet, waited = 0, 0
        while quiet < quiet_ms:
            if waited > TIMEOUT_MS:
                pending = sorted(request.url for request in self.in_flight)
                self.problems.append(f"requests still pending after {TIMEOUT_MS} ms: {pending}")
                return
            self.page.wait_for_timeout(25)
            waited += 25
            quiet = quiet + 25 if not self.in_flight else 0


@pytest.fixture(scope="session")
def shared(context, base_url):
    """One page reused by the read-only tests (the per-page sweep, math, search)."""
    page = context.new_page()
    yield Watch(page, base_url)
    page.close()


@pytest.fixture(scope="session")
def themed_contexts(browser):
    """One browser context per colour theme and window size, kept for the whole run: its cache
    serves the site's scripts, styles and fonts to the next test, as a reader's browser does."""
    contexts: dict[tuple, object] = {}
    yield contexts
    for ctx in contexts.values():
        ctx.close()


@pytest.fixture
def themed(browser, base_url, themed_contexts):
    """Factory: a new page whose colour theme is set before any page script runs, at
    ``viewport`` (the desktop's by default). With a theme the page opens in a context kept for
    that theme and size (the theme is set again on every load); without one, in a fresh
    context that the test may change (the theme switch stores the reader's choice)."""
    pages, fresh = [], []

    def make(theme: str | None, viewport: dict = VIEWPORT) -> Watch:
        key = (theme, viewport["width"], viewport["height"])
        ctx = themed_contexts.get(key) if theme is not None else None
        if ctx is None:
            ctx = new_context(browser, viewport=viewport)
            if theme is None:
                fresh.append(ctx)
            else:
                ctx.add_init_script(
                    f"localStorage.setItem('mode', '{theme}');"
                    f"localStorage.setItem('theme', '{theme}');"
                )
                themed_contexts[key] = ctx
        page = ctx.new_page()
        pages.append(page)
        return Watch(page, base_url)

    yield make
    for page in pages:
        page.close()
    for ctx in fresh:
        ctx.close()
