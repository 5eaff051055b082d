"""Baseline players, one module per game and kind: ``random`` (any game), ``kardinal_greedy`` (with
``kardinal_heuristics``), ``koenig_greedy``, ``koenig_heuristic`` (with its ``_weights``, ``_value`` and
``_plan``) and ``koenig_tuning``. Tools reach them through a game's agents' entry (:mod:`agents.registry`:
``GameAgents.baselines``, ``GameAgents.rollout``), never by the game's name."""
