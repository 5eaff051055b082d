"""People at the table, for every registered game: ``play`` (``kardinal-play`` in the terminal) and ``webplay``
(``--web``: a local play page in the browser). ``table`` holds the options both share (read from the registry of games);
``pages`` finds a game's play page (``kardinal_page``, ``koenig_page``, or a plain text page for any other game)."""
