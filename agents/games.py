"""The two games as one small interface, so that tools (evaluation, training, play) take a game name.

================  =====================  ========  =========================================
name              environment            players   rule options (besides ``players``)
================  =====================  ========  =========================================
``kardinal``      ``kardinal_v0``        2–4       ``preset``, ``shared_pool``, ... (``kardinal_env.Rules``)
``kardinal_koenig`` ``kardinal_koenig_v0`` 3–5     ``discard``, ``board`` (``kardinal_env.koenig.Rules``)
================  =====================  ========  =========================================

:func:`game_kind` returns the :class:`GameKind` of a name (``ValueError`` naming the choices);
:func:`kind_of` the kind of a game or rules object. A kind builds rules from options or from a
record's ``rules`` dict, and starts a game: Kardinal has no chance element (the seed is ignored);
Kardinal & König shuffles with ``seed``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["GameKind", "GAMES", "game_kind", "kind_of", "add_table_arguments"]


@dataclass(frozen=True)
class GameKind:
    """One game of the suite (see the module docstring)."""

    name: str
    env_name: str
    players: tuple[int, ...]
    default_players: int

    def _module(self):
        if self.name == "kardinal":
            import kardinal_env as module
        else:
            import kardinal_env.koenig as module
        return module

    @property
    def rules_class(self) -> type:
        return self._module().Rules

    @property
    def game_class(self) -> type:
        return self._module().Game

    def rules(self, players: int, **options: Any):
        """Rules for ``players`` seats; ``None`` options are left at their defaults. The rules'
        own error (a ``ValueError`` naming the option) for a bad value."""
        given = {k: v for k, v in options.items() if v is not None}
        return self.rules_class(players=players, **given)

    def rules_from_dict(self, data: dict):
        return self.rules_class.from_dict(data)

    def new_game(self, rules, seed: int | None = None):
        if self.name == "kardinal":
            return self.game_class(rules)
        return self.game_class(rules, seed=seed)

    def has_chance(self) -> bool:
        return self.name != "kardinal"


GAMES: dict[str, GameKind] = {
    "kardinal": GameKind("kardinal", "kardinal_v0", (2, 3, 4), 2),
    "kardinal_koenig": GameKind("kardinal_koenig", "kardinal_koenig_v0", (3, 4, 5), 4),
}


def game_kind(name: str) -> GameKind:
    """The :class:`GameKind` called ``name``; ``ValueError`` naming the choices otherwise."""
    try:
        return GAMES[name]
    except (KeyError, TypeError):
        raise ValueError(f"game must be one of {list(GAMES)}, got {name!r}") from None


def kind_of(obj: Any) -> GameKind:
    """The kind of a game or rules object of either engine."""
    module = type(obj).__module__
    return GAMES["kardinal_koenig" if module.startswith("kardinal_env.koenig") else "kardinal"]


def add_table_arguments(parser) -> None:
    """The command-line options of a Kardinal table a person sits at (``kardinal-play`` in the
    terminal and in the browser): players, the person's seat, the agents, the rules preset, the
    shared pool and the agents' seed."""
    parser.add_argument("--players", type=int, default=2, choices=[2, 3, 4], help="players per game")
    parser.add_argument("--seat", type=int, default=0, help="your seat (0 moves first)")
    parser.add_argument(
        "--agents",
        nargs="+",
        default=["greedy"],
        metavar="SPEC",
        help="agent specs for the other seats (random, greedy, mcts:N, ppo:PATH, puct:N:PATH, ...)",
    )
    parser.add_argument("--preset", default="english", choices=["english", "german"], help="rules preset")
    parser.add_argument("--shared-pool", action="store_true", help="shared-pool variant (3-4 players)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the agents")
