"""kardinal_env.core.checks: the one "integer, not a bool" test, and no module spelling it again."""

from __future__ import annotations

import ast
import math
from pathlib import Path

import numpy as np
import pytest

from kardinal_env.core.checks import is_finite_number, is_int, is_integral, is_number

ROOT = Path(__file__).resolve().parents[1]
CASES = [True, False, 0, -3, 7, np.int64(2), np.int8(-1), np.bool_(True), 1.0, math.nan, math.inf, "3", None, [1]]


@pytest.mark.parametrize("value", CASES, ids=repr)
def test_each_predicate_against_its_definition(value):
    plain_int = type(value) is int
    assert is_int(value) is plain_int
    assert is_integral(value) is (plain_int or isinstance(value, np.integer))
    assert is_number(value) is (type(value) in (int, float))
    assert is_finite_number(value) is (type(value) in (int, float) and math.isfinite(value))


def test_subclasses_of_int_other_than_bool_count():
    class Count(int):
        pass

    assert is_int(Count(3)) and is_integral(Count(3)) and is_number(Count(3))


def _int_and_not_bool(node: ast.BoolOp) -> bool:
    """``node`` tests one name both with ``isinstance(x, bool)`` and with ``isinstance(x, <int ...>)``."""
    tested: dict[str, set[str]] = {}
    for operand in ast.walk(node):
        if (
            isinstance(operand, ast.Call)
            and isinstance(operand.func, ast.Name)
            and operand.func.id == "isinstance"
            and len(operand.args) == 2
        ):
            kinds = tested.setdefault(ast.unparse(operand.args[0]), set())
            kinds.update(n.id for n in ast.walk(operand.args[1]) if isinstance(n, ast.Name))
            kinds.update(n.attr for n in ast.walk(operand.args[1]) if isinstance(n, ast.Attribute))
    return any("bool" in kinds and kinds & {"int", "integer", "Integral"} for kinds in tested.values())


def _spellings(source: str) -> list[int]:
    tree = ast.parse(source)
    return [n.lineno for n in ast.walk(tree) if isinstance(n, ast.BoolOp) and _int_and_not_bool(n)]


def test_the_scan_finds_the_idiom():
    assert _spellings("ok = isinstance(v, int) and not isinstance(v, bool)\n") == [1]
    assert _spellings("if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:\n    pass\n") == [1]
    assert _spellings("ok = isinstance(v, bool) or isinstance(w, int)\n") == []
    assert _spellings("ok = is_int(v) and v > 0\n") == []


def test_no_module_spells_integer_not_bool_again():
    found = []
    for folder in ("kardinal_env", "agents", "scripts"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path == ROOT / "kardinal_env" / "core" / "checks.py":
                continue
            found += [f"{path.relative_to(ROOT)}:{line}" for line in _spellings(path.read_text())]
    assert not found, f"use kardinal_env.core.checks (is_int / is_integral / is_number) instead: {found}"
