"""The registry entries of the two built-in games (see :mod:`kardinal_env.core.registry`).

======================  =====================  ========  ===========================================
name                    environment            players   rule options (besides ``players``)
======================  =====================  ========  ===========================================
``kardinal``            ``kardinal_v0``        2–4       ``preset``, ``shared_pool``
``kardinal_koenig``     ``kardinal_koenig_v1`` 3–5       ``discard``, ``board``
======================  =====================  ========  ===========================================

Every field that names code is a ``"module:attribute"`` string, imported on first use: registering
these entries imports neither engine nor their environments (``tests/test_structure.py`` checks what
``import kardinal_env`` loads, and ``tests/test_registry.py`` that every name exists). The entries hold
the games' facts only; what plays them is registered by the package that provides the agents. This
file and the games' own folders are the only places that name a game.
"""

from __future__ import annotations

from kardinal_env.core.registry import GameSpec, Renderers, RuleOption, register_game

__all__ = ["KARDINAL", "KARDINAL_KOENIG"]

KARDINAL = GameSpec(
    name="kardinal",
    title="Kardinal",
    players=(2, 3, 4),
    default_players=2,
    rules_class="kardinal_env.kardinal.rules:Rules",
    game_class="kardinal_env.kardinal.engine:Game",
    record_format="kardinal-record/1",
    observation="kardinal_env.kardinal.observation:ObservationEncoder",
    renderers=Renderers(
        text="kardinal_env.kardinal.text:game_text",
        image="kardinal_env.kardinal.render:game_image",
        html_replay="kardinal_env.kardinal.replay_html:write_replay_html",
    ),
    env_module="kardinal_env.kardinal.env",
    env_id="kardinal/kardinal-v0",
    gym_id="kardinal/KardinalVsBots-v0",
    chance=False,
    perfect_information=True,
    rule_options=(
        RuleOption("preset", "choice", "rules preset", choices=("english", "german"), default="english"),
        RuleOption("shared_pool", "flag", "shared-pool variant (3-4 players)", default=False),
    ),
)

KARDINAL_KOENIG = GameSpec(
    name="kardinal_koenig",
    title="Kardinal & König",
    players=(3, 4, 5),
    default_players=4,
    rules_class="kardinal_env.koenig.rules:Rules",
    game_class="kardinal_env.koenig.engine:Game",
    record_format="kardinal-koenig-record/1",
    observation="kardinal_env.koenig.observation:ObservationEncoder",
    renderers=Renderers(
        text="kardinal_env.koenig.text:game_text",
        image="kardinal_env.koenig.render:game_image",
        html_replay="kardinal_env.koenig.replay_html:write_replay_html",
    ),
    env_module="kardinal_env.koenig.env",
    env_id="kardinal/kardinal-koenig-v1",
    gym_id="kardinal/KardinalKoenigVsBots-v1",
    chance=True,
    perfect_information=False,
    rule_options=(
        RuleOption("discard", "choice", "a discarding turn discards one card or any number", choices=("one", "any")),
        RuleOption("board", "str", "a board name or board file (default: the packaged board)"),
    ),
)

register_game(KARDINAL)
register_game(KARDINAL_KOENIG)
