"""Baseline players, one module per game and kind: ``random`` (any game), ``kardinal_greedy`` and
``kardinal_heuristics`` (Kardinal), ``koenig_greedy`` (Kardinal & König). A game's registry entry
names its baselines (``GameSpec.baselines``)."""
