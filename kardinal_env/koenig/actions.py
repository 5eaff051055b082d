"""The action space of Kardinal & König: the board's move table as one ``Discrete(A)``.

Action id ``a`` is move ``board.moves[a]``, the same for every seat (not ego-centric): the table's slices (cloisters,
advisors, ``end``, discards, display draws, ``draw:deck``; 390 ids on the default board) are
:class:`kardinal_env.koenig.board.Board`'s.

The game protocol's ids (``kardinal_env.core.protocol``) are these: ``Game.num_actions`` is the table's size,
``Game.legal_actions()`` the ids of ``legal_moves()`` in that order, ``Game.action_to_string(a)`` is ``board.moves[a]``
and ``Game.string_to_action`` its inverse (``Board.move_id``). No other module maps K&K's moves to numbers.
"""

__all__: list[str] = []
