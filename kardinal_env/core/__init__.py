"""What the games of the suite share; imports no game (a test checks it).

``protocol`` (the game protocol), ``registry`` (the games), ``errors`` (the error types and their
convention), ``checks`` (the one "integer, not a bool" test of arguments and files), ``limits`` (the
upper bound of every count and size), ``backend`` (the compiled core or the Python engines),
``game_base`` (the engines' turn state), ``records`` (records' common checks), ``rewards`` (reward
terms and the one win definition), ``illegal`` (the forfeit of an illegal action), ``env_base`` /
``env_utils`` (the AEC environment plumbing), ``generic_env`` (an AEC environment for any registered
game), ``single_agent`` (the Gymnasium view against bots), ``registration`` (PettingZoo/Gymnasium
ids), ``cli`` (rules-option flags and plugins of the command lines), ``drawing`` / ``page_shell`` /
``replay_page`` (pictures, the one HTML page shell of play pages and replays, the replay page),
``replay`` (the ``kardinal-replay`` command).
"""
