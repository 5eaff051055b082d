"""What the games of the suite share; imports no game (a test checks it).

``protocol`` (the game protocol), ``registry`` (the games), ``errors``, ``checks`` (the one "integer,
not a bool" test of arguments and files), ``game_base`` (the engines' turn state), ``records``
(records' common checks), ``rewards`` (reward terms and the one win definition), ``env_base`` /
``env_utils`` (the AEC environment plumbing), ``generic_env`` (an AEC environment for any registered
game), ``single_agent`` (the Gymnasium view against bots), ``registration`` (PettingZoo/Gymnasium
ids), ``cli`` (rules-option flags of the command lines), ``drawing`` / ``replay_page`` (pictures and
the HTML replay page), ``replay`` (the ``kardinal-replay`` command).
"""
