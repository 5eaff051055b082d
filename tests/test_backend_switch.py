"""The backend switch of each game's ``compiled`` module (``kardinal_env.kardinal.compiled``,
``kardinal_env.koenig.compiled``; ``KARDINAL_ENV_BACKEND``), without the core: ``python`` never uses
it, a bad value is refused, a missing core (or one of another interface) warns once and falls back,
or is an error when ``core`` is forced; the core's game wants the game's rules. With the core built:
tests/test_core_kardinal.py and tests/test_core_koenig.py."""

from __future__ import annotations

import sys
import types
import warnings

import pytest

from kardinal_env.kardinal import Rules as KardinalRules
from kardinal_env.kardinal import compiled as kardinal_compiled
from kardinal_env.koenig import Rules as KoenigRules
from kardinal_env.koenig import compiled as koenig_compiled

#: Per game: its compiled module and rules it can play.
GAMES = {
    "kardinal": (kardinal_compiled, lambda: KardinalRules(players=2)),
    "kardinal_koenig": (koenig_compiled, lambda: KoenigRules(players=3)),
}


@pytest.fixture(params=sorted(GAMES))
def game(request, monkeypatch):
    """``(compiled, rules)`` of a game, its import attempt and warning forgotten (one state for both
    games), restored afterwards; ``monkeypatch`` undoes the variables."""
    kardinal_compiled._reset_for_tests()
    compiled, rules = GAMES[request.param]
    yield compiled, rules()
    kardinal_compiled._reset_for_tests()


def test_backend_python_never_uses_the_core(game, monkeypatch):
    compiled, rules = game
    monkeypatch.setenv(compiled.BACKEND_VARIABLE, "python")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert compiled.available() is False
        assert compiled.backend() == "python"
        assert compiled.core_module() is None
        with pytest.raises(RuntimeError, match="KARDINAL_ENV_BACKEND=python"):
            compiled.core_game(rules)


def test_bad_backend_value_is_refused(game, monkeypatch):
    compiled, _ = game
    monkeypatch.setenv(compiled.BACKEND_VARIABLE, "rust")
    with pytest.raises(ValueError, match="KARDINAL_ENV_BACKEND"):
        compiled.available()


def test_core_game_wants_rules(game):
    compiled, rules = game
    with pytest.raises(TypeError):
        compiled.core_game({"players": rules.players})
    if compiled is koenig_compiled:
        with pytest.raises(TypeError):
            compiled.core_position("game")


def test_missing_core_warns_once_and_falls_back(game, monkeypatch):
    compiled, rules = game
    monkeypatch.setitem(sys.modules, "kardinal_core", None)  # `import kardinal_core` fails
    monkeypatch.delenv(compiled.BACKEND_VARIABLE, raising=False)
    with pytest.warns(RuntimeWarning, match=r"not built.*scripts/setup\.sh.*pip install \./cpp"):
        assert compiled.available() is False
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # only once per process
        assert compiled.backend() == "python"
        with pytest.raises(RuntimeError, match="not built"):
            compiled.core_game(rules)


def test_missing_core_is_an_error_when_forced(game, monkeypatch):
    compiled, _ = game
    monkeypatch.setitem(sys.modules, "kardinal_core", None)
    monkeypatch.setenv(compiled.BACKEND_VARIABLE, "core")
    with pytest.raises(ImportError, match="KARDINAL_ENV_BACKEND=core"):
        compiled.available()


def test_a_core_of_another_interface_counts_as_not_built(game, monkeypatch):
    """One version check when the core is imported (its ``ABI``), no probing for its classes."""
    compiled, _ = game
    monkeypatch.setitem(sys.modules, "kardinal_core", types.ModuleType("kardinal_core"))
    monkeypatch.delenv(compiled.BACKEND_VARIABLE, raising=False)
    with pytest.warns(RuntimeWarning, match="not built"):
        assert compiled.available() is False
    kardinal_compiled._reset_for_tests()
    monkeypatch.setenv(compiled.BACKEND_VARIABLE, "core")
    with pytest.raises(ImportError, match="interface version None, this kardinal_env needs"):
        compiled.core_module()
