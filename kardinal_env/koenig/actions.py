"""The action space of Kardinal & König: the board's move table as one ``Discrete(A)``.

Action id ``a`` is move ``board.moves[a]``, the same for every seat (not ego-centric): the table's slices (cloisters,
advisors, ``end``, discards, display draws, ``draw:deck``; 390 ids on the default board) are
:class:`kardinal_env.koenig.board.Board`'s.

These are the game protocol's ids (``kardinal_env.core.protocol``; ``Game.string_to_action`` is ``Board.move_id``).
No other module maps K&K's moves to numbers.
"""

__all__: list[str] = []
