"""Serve a built site on 127.0.0.1 as a static host does: text compressed with gzip.

A static host (GitHub Pages, Read the Docs) sends HTML, CSS, JavaScript, SVG and JSON gzipped
when the browser accepts it, and images, fonts and archives as they are (already compressed).
The browser checks (conftest.py) and ``nox -s lighthouse`` serve the site with this, so what a
page transfers here is what a reader's phone receives; :func:`sent_size` counts one file so.

``python tests_site/static_host.py SITE [PORT]`` serves SITE until interrupted (standard
library only).
"""

from __future__ import annotations

import functools
import gzip
import http.server
import io
import mimetypes
import sys
import threading
from pathlib import Path

# what a static host compresses (by the type it sends), at zlib's default level
COMPRESSED = ("text/", "application/javascript", "application/json", "image/svg+xml")
LEVEL = 6


@functools.lru_cache(maxsize=4096)
def _gzipped(path: str, mtime_ns: int) -> bytes:
    return gzip.compress(Path(path).read_bytes(), compresslevel=LEVEL, mtime=0)


def compressed(content_type: str) -> bool:
    """Whether a static host sends a file of this type gzipped."""
    return content_type.startswith(COMPRESSED)


def sent_size(path: Path) -> int:
    """The bytes of ``path``'s body as a static host sends it (gzipped text, other files as
    they are)."""
    known = http.server.SimpleHTTPRequestHandler.extensions_map.get(path.suffix.lower())
    content_type = known or mimetypes.guess_type(path.name)[0] or ""
    if compressed(content_type):
        return len(_gzipped(str(path), path.stat().st_mtime_ns))
    return path.stat().st_size


class GzipHandler(http.server.SimpleHTTPRequestHandler):
    """Sends text gzipped to a browser that accepts it, with ``max-age=600`` as GitHub Pages
    does (a page's scripts, styles and fonts come from the browser's cache on the next page)."""

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir() and self.path.split("?")[0].endswith("/"):
            path = path / "index.html"
        accepts = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (accepts and path.is_file() and compressed(self.guess_type(str(path)))):
            return super().send_head()  # redirects, 404s, images, fonts, archives
        body = _gzipped(str(path), path.stat().st_mtime_ns)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Vary", "Accept-Encoding")
        self.end_headers()
        return io.BytesIO(body)

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "max-age=600")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


def serve(directory: Path, port: int = 0) -> http.server.ThreadingHTTPServer:
    """Start serving ``directory`` on 127.0.0.1 (``port`` 0: a free one) in a thread."""
    handler = functools.partial(GzipHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


if __name__ == "__main__":
    site, port = Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 8000
    server = serve(site, port)
    sys.stdout.write(f"serving {site} gzipped at http://127.0.0.1:{server.server_address[1]}/\n")
    sys.stdout.flush()
    threading.Event().wait()
