"""The agents' registry entries (:mod:`agents.registry`) of the two built-in games, ``kardinal`` and
``kardinal_koenig``. Every field that names code is a ``"module:attribute"`` string (``tests/test_registry.py`` checks
that every name exists). The games themselves are registered by ``kardinal_env`` (``kardinal_env/games.py``).
"""

from __future__ import annotations

from agents.registry import GameAgents, register_agents

__all__ = ["KARDINAL", "KARDINAL_KOENIG"]


def _presets(prefix: str, *names: str) -> dict[str, str]:
    """Preset name → ``kardinal_configs:<prefix><name>.yaml``."""
    return {name: f"kardinal_configs:{prefix}{name}.yaml" for name in names}


KARDINAL = GameAgents(
    game="kardinal",
    baselines={"greedy": "agents.baselines.kardinal_greedy:GreedyAgent"},
    rollout="agents.baselines.kardinal_greedy:rollout_move",
    compiled_search="agents.search.kardinal_compiled:mcts_root",
    compiled_playout="agents.search.kardinal_compiled:play_out",
    network="agents.networks.kardinal_net:build_network",
    adapter="agents.training.adapters:KardinalAdapter",
    presets=_presets("", "default", "long_2p", "long_4p", "search_2p", "distill_2p", "search_4p"),
    play_page="agents.serving.kardinal_page:KardinalPage",
)

KARDINAL_KOENIG = GameAgents(
    game="kardinal_koenig",
    baselines={
        "greedy": "agents.baselines.koenig_greedy:GreedyAgent",
        "heuristic": "agents.baselines.koenig_heuristic:KoenigHeuristicAgent",
    },
    rollout="agents.baselines.koenig_greedy:rollout_move",
    compiled_ismcts="agents.search.koenig_compiled:ismcts_root",
    search_guide="agents.search.heuristic_rollouts:HeuristicGuide",
    rollout_search="agents.search.heuristic_rollouts:HeuristicRolloutAgent",
    network="agents.networks.koenig_net:build_network",
    adapter="agents.training.adapters:KoenigAdapter",
    presets=_presets("koenig_", "default", "long", "heuristic", "search"),
    play_page="agents.serving.koenig_page:KoenigPage",
)

register_agents(KARDINAL)
register_agents(KARDINAL_KOENIG)
