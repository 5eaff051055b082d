"""Baseline players, one module per game and kind: ``random`` (any game), ``kardinal_greedy`` (+ ``_heuristics``),
``koenig_greedy``, ``koenig_heuristic`` (+ ``_weights``, ``_value``, ``_plan``) and ``koenig_tuning``. Tools reach them
through a game's agents' entry (:mod:`agents.registry`), never by the game's name."""
