"""People at the table: ``play`` (``kardinal-play`` in the terminal) and ``webplay`` (``--web``: a local
play page in the browser)."""
