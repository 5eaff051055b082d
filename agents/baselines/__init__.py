"""Baseline players, one module per game and kind: ``random`` (any game), ``kardinal_greedy`` and
``kardinal_heuristics`` (Kardinal: the greedy agent and the playout policy of search), ``koenig_greedy``
(Kardinal & König: the greedy agent and the playout policy), ``koenig_heuristic`` and
``koenig_tuning`` (Kardinal & König: a one-ply turn planner and the tournaments that tune it; the
planner's weights, board value and plans are ``koenig_heuristic_weights``, ``_value`` and ``_plan``). A
game's agents' entry (:mod:`agents.registry`) names its baselines (``GameAgents.baselines``) and its playout policy
(``GameAgents.rollout``); tools reach them through it, never by the game's name."""
