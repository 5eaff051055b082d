"""The API reference's docstring converter (docs/hooks/rst_docstrings.py, loaded by mkdocs.yml):
roles, literal blocks, simple tables and lists become Markdown, and the Griffe extension rewrites
the docstrings of a loaded package."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HOOK = ROOT / "docs" / "hooks" / "rst_docstrings.py"

pytest.importorskip("griffe", reason="the docs extra (griffe comes with mkdocstrings[python])")


@pytest.fixture(scope="module")
def hook():
    spec = importlib.util.spec_from_file_location("rst_docstrings", HOOK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_roles_become_optional_cross_references(hook):
    text = "See :class:`~agents.evaluation.tournament.Table`, :func:`evaluate` and :mod:`agents.search`."
    out = hook.rst_to_markdown(text, "agents.evaluation.tournament")
    assert out == (
        'See <autoref identifier="agents.evaluation.tournament.Table" optional><code>Table</code></autoref>, '
        '<autoref identifier="agents.evaluation.tournament.evaluate" slug="evaluate" optional>'
        "<code>evaluate</code></autoref> and "
        '<autoref identifier="agents.search" optional><code>agents.search</code></autoref>.'
    )
    assert ":class:" not in hook.rst_to_markdown(":py:class:`x <a.b.C>`")
    assert "<code>x</code>" in hook.rst_to_markdown(":py:class:`x <a.b.C>`")


def test_literal_blocks_become_fenced_code(hook):
    text = "Usage::\n\n    from x import y\n    y()\n\n    z = 1\n\nAfter.\n::\n\n    raw\n"
    assert hook.rst_to_markdown(text) == (
        "Usage:\n\n```\nfrom x import y\ny()\n\nz = 1\n```\n\nAfter.\n\n```\nraw\n```\n"
    )
    # a role inside a code block stays as written
    assert ":class:`X`" in hook.rst_to_markdown("Code::\n\n    :class:`X`\n")


def test_simple_tables_become_markdown_tables(hook):
    text = (
        "Title line\n"
        "=======  ==========\n"
        "``a``    first row\n"
        "         continued\n"
        "``b``    second | row\n"
        "=======  ==========\n"
        "\n"
        "Header\n"
        "====  ====\n"
        "name  what\n"
        "====  ====\n"
        "x     y\n"
        "====  ====\n"
    )
    assert hook.rst_to_markdown(text).split("\n") == [
        "Title line",
        "",
        "|  |  |",
        "|---|---|",
        "| ``a`` | first row continued |",
        "| ``b`` | second \\| row |",
        "",
        "",
        "Header",
        "",
        "| name | what |",
        "|---|---|",
        "| x | y |",
        "",
        "",
    ]


def test_a_border_without_a_table_is_left_alone(hook):
    text = "Not a table\n=====  =====\nthen prose\n\nmore"
    assert hook.rst_to_markdown(text) == text


def test_lists_get_a_blank_line_after_a_paragraph(hook):
    assert hook.rst_to_markdown("Version history\n* v0: first.\n* v1: second\n  continued.") == (
        "Version history\n\n* v0: first.\n* v1: second\n  continued."
    )


def test_the_extension_rewrites_a_loaded_package(hook):
    import griffe

    extensions = griffe.load_extensions(hook.RstDocstrings)
    protocol = griffe.load("kardinal_env.core.protocol", search_paths=[str(ROOT)], extensions=extensions)
    text = protocol.docstring.value
    assert ":class:`" not in text and "=====" not in text
    assert '<autoref identifier="kardinal_env.core.protocol.GameState" slug="GameState" optional>' in text
    assert "| ``legal_moves()`` |" in text
