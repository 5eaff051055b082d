"""Shared pytest set-up (the markers are registered in pyproject.toml)."""

from __future__ import annotations

# ---------------------------------------------------------------- real-browser fixtures
# Shared by the tests marked ``browser`` (tests/test_browser.py, tests/test_browser_docs.py).
# Chromium is Debian's ``chromium`` at /usr/bin/chromium (Playwright's own browser download is not
# used); when it or the ``playwright`` package is missing, ``browser`` runs scripts/setup_browser.sh
# to install them and fails with that script's output if it cannot. ``shots``: where screenshots go
# (the test's tmp directory, or ``KARDINAL_SCREENSHOTS=DIR``). ``tab``: a fresh page whose console
# errors/warnings and page errors are collected in ``tab.problems``.
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
_ROOT = Path(__file__).resolve().parent.parent


def _browser_missing() -> list[str]:
    missing = []
    if not os.access(CHROMIUM, os.X_OK):
        missing.append(CHROMIUM)
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("the playwright package")
    return missing


@pytest.fixture(scope="module")
def browser():
    missing = _browser_missing()
    if missing:
        setup = subprocess.run(
            ["bash", str(_ROOT / "scripts" / "setup_browser.sh")],
            env={**os.environ, "PYTHON": sys.executable},
            capture_output=True,
            text=True,
        )
        if setup.returncode != 0 or _browser_missing():
            pytest.fail(
                f"browser tests need {', '.join(missing)}; scripts/setup_browser.sh could not install them "
                f"(exit {setup.returncode}):\n{setup.stdout}\n{setup.stderr}"
            )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield chromium
        chromium.close()


@pytest.fixture
def shots(tmp_path):
    folder = Path(os.environ.get("KARDINAL_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class BrowserPage:
    """A page (1280 x 800) with its console problems collected in ``problems``."""

    def __init__(self, browser, **kw):
        self.context = browser.new_context(viewport={"width": 1280, "height": 800}, **kw)
        self.page = self.context.new_page()
        self.problems: list[str] = []
        self.page.on(
            "console", lambda m: self.problems.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None
        )
        self.page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))

    def close(self):
        self.context.close()


@pytest.fixture
def tab(browser):
    holder = BrowserPage(browser, accept_downloads=True)
    yield holder
    holder.close()


# ---------------------------------------------------------------- the backend of a run
def pytest_addoption(parser):
    parser.addoption(
        "--backend",
        choices=("default", "python"),
        default="default",
        help="python: run only the tests marked `backends` (the engine and environment tests), on the "
        "Python engines (KARDINAL_ENV_BACKEND=python); default: every test, the games on the compiled "
        "core where it is built",
    )
    parser.addoption(
        "--core-lane",
        action="store_true",
        help="the core lane of .ci/run (.venv-core: the installed wheels, no extras): only the test modules "
        "marked `core_lane` are imported, and of their tests those not marked `extras`",
    )


#: The marker a test module declares (``pytestmark``) to run in the core lane; ``--core-lane`` reads it
#: from the source, since the other modules may need extras just to be imported.
_CORE_LANE = re.compile(r"^pytestmark = .*pytest\.mark\.core_lane\b", re.MULTILINE)


def pytest_ignore_collect(collection_path, config):
    if config.getoption("--core-lane") and collection_path.suffix == ".py" and collection_path.name.startswith("test_"):
        return _CORE_LANE.search(collection_path.read_text(encoding="utf-8")) is None
    return None


def _kept(config, item) -> bool:
    if config.getoption("--backend") == "python" and not item.get_closest_marker("backends"):
        return False
    if config.getoption("--core-lane"):
        return bool(item.get_closest_marker("core_lane")) and not item.get_closest_marker("extras")
    return True


def pytest_collection_modifyitems(config, items):
    kept = [item for item in items if _kept(config, item)]
    if len(kept) != len(items):
        config.hook.pytest_deselected(items=[item for item in items if not _kept(config, item)])
        items[:] = kept


@pytest.fixture(autouse=True)
def _plugins_variable_restored():
    """A tool's ``main(argv)`` with ``--plugin`` adds the plugin to ``KARDINAL_ENV_PLUGINS`` for the
    processes it spawns (kardinal_env.core.cli); a test that calls one in-process must not leave it to
    the next test of the same worker, whose subprocesses would try to import that module."""
    before = os.environ.get("KARDINAL_ENV_PLUGINS")
    yield
    if before is None:
        os.environ.pop("KARDINAL_ENV_PLUGINS", None)
    else:
        os.environ["KARDINAL_ENV_PLUGINS"] = before


# ---------------------------------------------------------------- Ray cluster tests (tests/test_cluster.py)
def pytest_configure(config):
    if config.getoption("--backend") == "python":  # before any test module imports an engine
        os.environ["KARDINAL_ENV_BACKEND"] = "python"
    # Ray's business, not ours (ray 2.60.0): every RLlib multi-agent algorithm build re-registers
    # gymnasium's "rllib-multi-agent-env-v0", and gymnasium warns about the override (a UserWarning
    # from gymnasium/envs/registration.py). Only that message is ignored; our own warnings stay visible.
    config.addinivalue_line(
        "filterwarnings",
        "ignore:.*Overriding environment rllib-multi-agent-env-v0 already in registry:UserWarning",
    )


# ---------------------------------------------------------------- command lines in-process
@pytest.fixture
def cli(capsys, monkeypatch):
    """``cli(main, argv, stdin=None)``: a command line's ``main(argv)`` run in-process, its exit status
    and output as ``subprocess.run`` gives them (``returncode``, ``stdout``, ``stderr``; helpers.run_cli).
    Each console script keeps one subprocess smoke test (tests/test_console_scripts.py)."""
    from helpers import run_cli

    return lambda main, argv, stdin=None: run_cli(main, list(argv), capsys, monkeypatch, stdin)


# ---------------------------------------------------------------- the compiled core


@pytest.fixture
def core(monkeypatch):
    """The compiled core module, used by the games (``KARDINAL_ENV_BACKEND`` unset for the test); the test
    skips where the core is not built (fails under ``KARDINAL_REQUIRE_CORE=1``). A test file may define
    its own ``core`` fixture (tests/test_core_koenig.py does, for the Kardinal & König engine)."""
    from helpers import kardinal_core_or_skip

    module = kardinal_core_or_skip()
    monkeypatch.delenv("KARDINAL_ENV_BACKEND", raising=False)
    return module
