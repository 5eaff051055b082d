"""The documentation site in a real headless Chromium: built strictly, served on 127.0.0.1, opened.

Marked ``browser`` (the fixtures ``browser`` and ``tab`` of tests/conftest.py: Debian's chromium
driven by Playwright). The module builds the site once with ``mkdocs build --strict`` (mkdocs.yml,
the ``docs`` extra) into a temporary directory, serves it with the standard library's HTTP server
bound to 127.0.0.1 on a free port, and checks:

* the landing page and each game's page load with no console error or warning, no failed request
  and no HTTP error, and every picture on them is drawn;
* typing an environment's name into the Material search box lists a result that links to that
  game's page, and following it opens the page.
"""

from __future__ import annotations

import functools
import http.server
import importlib.util
import os
import subprocess
import sys
import threading
from pathlib import Path
from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
#: Page path -> the title its first heading shows.
PAGES = {
    "": "kardinal-env",
    "games/kardinal/": "Kardinal (kardinal_v0)",
    "games/kardinal-koenig/": "Kardinal & König (kardinal_koenig_v1)",
}


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    if importlib.util.find_spec("mkdocs") is None:
        pytest.fail("the documentation tests need the docs extra: bash scripts/setup.sh docs")
    out = tmp_path_factory.mktemp("site")
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert build.returncode == 0, f"mkdocs build --strict failed:\n{build.stdout}\n{build.stderr[-6000:]}"
    assert (out / "index.html").is_file() and (out / "search" / "search_index.json").is_file()
    return out


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the standard library's signature
        pass


@pytest.fixture(scope="module")
def served(site):
    """The built site on http://127.0.0.1:PORT/ (a free port)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    assert host == "127.0.0.1"
    yield f"http://127.0.0.1:{port}/"
    server.shutdown()
    server.server_close()


def _watch_requests(page) -> list[str]:
    failures: list[str] = []
    page.on("requestfailed", lambda r: failures.append(f"failed: {r.url} ({r.failure})"))
    page.on("response", lambda r: failures.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)
    return failures


@pytest.mark.parametrize("path", sorted(PAGES))
def test_page_loads_without_console_errors(tab, served, path):
    page = tab.page
    failures = _watch_requests(page)
    page.goto(served + path)
    page.wait_for_load_state("networkidle")
    assert page.locator("article h1").first.inner_text().rstrip("¶").strip() == PAGES[path]
    images = page.eval_on_selector_all("article img", "imgs => imgs.map(i => [i.getAttribute('src'), i.naturalWidth])")
    assert images, f"{path or 'the landing page'} shows no picture"
    assert [src for src, width in images if width == 0] == [], "pictures that did not load"
    assert failures == []
    assert tab.problems == []


@pytest.mark.parametrize(
    ("query", "target"),
    [("kardinal_koenig_v1", "games/kardinal-koenig/"), ("kardinal_v0", "games/kardinal/")],
)
def test_search_finds_an_environment(tab, served, query, target):
    page = tab.page
    failures = _watch_requests(page)
    page.goto(served)
    page.wait_for_load_state("networkidle")
    page.click("label.md-search__icon, .md-search__input")
    page.locator("input.md-search__input").press_sequentially(query, delay=20)  # typed: Material reads keys
    results = page.locator(".md-search-result__list a")
    results.first.wait_for(timeout=15_000)
    hrefs = results.evaluate_all("links => links.map(a => a.href)")
    matching = [i for i, h in enumerate(hrefs) if urlsplit(h).path == urlsplit(served + target).path]
    assert matching, f"no result for {query!r} links to {target}: {hrefs}"
    results.nth(matching[0]).click()
    page.wait_for_url(served + target + "**")
    assert page.locator("article h1").first.inner_text().rstrip("¶").strip() == PAGES[target]
    assert failures == []
    assert tab.problems == []
