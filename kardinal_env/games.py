"""The registry entries of the two built-in games (see :mod:`kardinal_env.core.registry`).

======================  =====================  ========  ===========================================
name                    environment            players   rule options (besides ``players``)
======================  =====================  ========  ===========================================
``kardinal``            ``kardinal_v0``        2–4       ``preset``, ``shared_pool``
``kardinal_koenig``     ``kardinal_koenig_v1`` 3–5       ``discard``, ``board``
======================  =====================  ========  ===========================================

Every field that names code is a ``"module:attribute"`` string, imported on first use: registering
these entries imports neither engine, nor their environments, nor anything of ``agents`` (the
agent-side fields name classes there, which only the tools in ``agents`` load;
``tests/test_structure.py`` checks what ``import kardinal_env`` loads, and ``tests/test_registry.py``
that every name exists). This file and the games' own folders are the only places that name a game.
"""

from __future__ import annotations

from kardinal_env.core.registry import GameSpec, RuleOption, register_game

__all__ = ["KARDINAL", "KARDINAL_KOENIG"]

KARDINAL = GameSpec(
    name="kardinal",
    title="Kardinal",
    players=(2, 3, 4),
    default_players=2,
    rules_class="kardinal_env.kardinal.rules:Rules",
    game_class="kardinal_env.kardinal.engine:Game",
    record_format="kardinal-record/1",
    codec="kardinal_env.kardinal.actions:ActionCodec",
    observation="kardinal_env.kardinal.observation:ObservationEncoder",
    text="kardinal_env.kardinal.text:game_text",
    image="kardinal_env.kardinal.render:game_image",
    html_replay="kardinal_env.kardinal.replay_html:write_replay_html",
    env_module="kardinal_env.kardinal.env",
    env_id="kardinal/kardinal-v0",
    gym_id="kardinal/KardinalVsBots-v0",
    chance=False,
    perfect_information=True,
    rule_options=(
        RuleOption("preset", "choice", "rules preset", choices=("english", "german"), default="english"),
        RuleOption("shared_pool", "flag", "shared-pool variant (3-4 players)", default=False),
    ),
    baselines={
        "random": "agents.baselines.random:RandomAgent",
        "greedy": "agents.baselines.kardinal_greedy:GreedyAgent",
    },
    rollout="agents.baselines.kardinal_greedy:rollout_move",
    compiled_search="kardinal_env.kardinal.compiled:mcts_root",
    compiled_playout="kardinal_env.kardinal.compiled:play_out",
    network="agents.networks.kardinal_net:build_network",
    adapter="agents.training.adapters:KardinalAdapter",
    presets={
        "default": "kardinal_configs:default.yaml",
        "long_2p": "kardinal_configs:long_2p.yaml",
        "long_4p": "kardinal_configs:long_4p.yaml",
        "search_2p": "kardinal_configs:search_2p.yaml",
        "distill_2p": "kardinal_configs:distill_2p.yaml",
        "search_4p": "kardinal_configs:search_4p.yaml",
    },
    play_page="agents.serving.kardinal_page:make_page",
)

KARDINAL_KOENIG = GameSpec(
    name="kardinal_koenig",
    title="Kardinal & König",
    players=(3, 4, 5),
    default_players=4,
    rules_class="kardinal_env.koenig.rules:Rules",
    game_class="kardinal_env.koenig.engine:Game",
    record_format="kardinal-koenig-record/1",
    codec="kardinal_env.koenig.actions:ActionCodec",
    observation="kardinal_env.koenig.observation:ObservationEncoder",
    text="kardinal_env.koenig.text:game_text",
    image="kardinal_env.koenig.render:game_image",
    html_replay="kardinal_env.koenig.replay_html:write_replay_html",
    env_module="kardinal_env.koenig.env",
    env_id="kardinal/kardinal-koenig-v1",
    gym_id="kardinal/KardinalKoenigVsBots-v1",
    previous_envs=("kardinal_koenig_v0",),  # v1 changed how seeds deal, not observations or actions
    chance=True,
    perfect_information=False,
    rule_options=(
        RuleOption("discard", "choice", "a discarding turn discards one card or any number", choices=("one", "any")),
        RuleOption("board", "str", "a board name or board file (default: the packaged board)"),
    ),
    baselines={
        "random": "agents.baselines.random:RandomAgent",
        "greedy": "agents.baselines.koenig_greedy:GreedyAgent",
        "heuristic": "agents.baselines.koenig_heuristic:KoenigHeuristicAgent",
    },
    rollout="agents.baselines.koenig_greedy:rollout_move",
    compiled_ismcts="kardinal_env.koenig.compiled:ismcts_root",
    search_guide="agents.search.heuristic_rollouts:HeuristicGuide",
    rollout_search="agents.search.heuristic_rollouts:HeuristicRolloutAgent",
    network="agents.networks.koenig_net:build_network",
    adapter="agents.training.adapters:KoenigAdapter",
    presets={
        "default": "kardinal_configs:koenig_default.yaml",
        "long": "kardinal_configs:koenig_long.yaml",
        "heuristic": "kardinal_configs:koenig_heuristic.yaml",
        "search": "kardinal_configs:koenig_search.yaml",
    },
    play_page="agents.serving.koenig_page:make_page",
)

register_game(KARDINAL)
register_game(KARDINAL_KOENIG)
