"""Shared pytest set-up."""

from __future__ import annotations


def pytest_configure(config):
    # Until pyproject.toml lists it with the other markers (--strict-markers is on).
    config.addinivalue_line("markers", "browser: real headless Chromium tests (Playwright; scripts/setup_browser.sh)")
