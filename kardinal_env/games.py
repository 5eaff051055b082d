"""The registry entries of the two built-in games (see :mod:`kardinal_env.core.registry`).

======================  =====================  ========  ===========================================
name                    environment            players   rule options (besides ``players``)
======================  =====================  ========  ===========================================
``kardinal``            ``kardinal_v0``        2–4       ``preset``, ``shared_pool``
``kardinal_koenig``     ``kardinal_koenig_v1`` 3–5       ``discard``, ``board``
======================  =====================  ========  ===========================================

Every field that names code is a ``"module:attribute"`` string, so registering imports neither engine nor their
environments. This file and the games' own folders are the only places that name a game.
"""

from __future__ import annotations

from typing import Any

from kardinal_env.core.registry import GameSpec, Renderers, RuleOption, register_game

__all__ = ["KARDINAL", "KARDINAL_KOENIG"]


def _builtin(name: str, package: str, version: int, *rule_options: RuleOption, **facts: Any) -> GameSpec:
    """A built-in game: its code the same module names in ``kardinal_env/<package>/``, its ids of env ``version``."""
    at = f"kardinal_env.{package}"
    return GameSpec(
        name=name,
        rules_class=f"{at}.rules:Rules",
        game_class=f"{at}.engine:Game",
        record_format=f"{name.replace('_', '-')}-record/1",
        observation=f"{at}.observation:ObservationEncoder",
        renderers=Renderers(
            text=f"{at}.text:game_text",
            image=f"{at}.render:game_image",
            html_replay=f"{at}.replay_html:write_replay_html",
        ),
        env_module=f"{at}.env",
        env_id=f"kardinal/{name.replace('_', '-')}-v{version}",
        gym_id=f"kardinal/{name.title().replace('_', '')}VsBots-v{version}",
        rule_options=rule_options,
        **facts,
    )


KARDINAL = _builtin(
    "kardinal",
    "kardinal",
    0,
    RuleOption("preset", "choice", "rules preset", choices=("english", "german"), default="english"),
    RuleOption("shared_pool", "flag", "shared-pool variant (3-4 players)", default=False),
    title="Kardinal",
    players=(2, 3, 4),
    default_players=2,
)
KARDINAL_KOENIG = _builtin(
    "kardinal_koenig",
    "koenig",
    1,
    RuleOption("discard", "choice", "a discarding turn discards one card or any number", choices=("one", "any")),
    RuleOption("board", "str", "a board name or board file (default: the packaged board)"),
    title="Kardinal & König",
    players=(3, 4, 5),
    default_players=4,
    chance=True,
    perfect_information=False,
)

register_game(KARDINAL)
register_game(KARDINAL_KOENIG)
