"""What the games of the suite share; imports no game.

The game protocol and registry (``protocol``, ``registry``, ``registration``), errors and argument checks (``errors``,
``checks``, ``limits``), the backend switch (``backend``), the engines' common parts (``game_base``, ``records``,
``rewards``, ``illegal``, ``shuffle``), the environments (``env_base``, ``env_utils``, ``generic_env``,
``single_agent``), the command lines (``cli``, ``replay``) and pictures and pages (``drawing``, ``picture``,
``page_shell``, ``replay_page``).
"""
