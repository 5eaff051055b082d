"""The upper bound of every count and size a caller can ask of the suite, checked before anything is allocated or any
search starts (the same numbers as the core's ``kardinal_core.LIMITS``, ``cpp/src/common/boundary.hpp``).

=================  ============  ===========================================================
name               value         what it bounds
=================  ============  ===========================================================
``SIMULATIONS``    1,000,000     a search's simulations per decision (``mcts:N``, ``ismcts:N``,
                                 ``gismcts:N``, ``pismcts:N``, ``puct:N:...``)
``WORLDS``         10,000        heuristic playout worlds per candidate move (``rollout:N``)
``PLAYOUTS``       1,000,000     games of one ``random_playouts`` call of the compiled core
``NUM_ENVS``       1,048,576     games in one :class:`kardinal_env.vector.VectorEnv` or core batch
``BATCH_BYTES``    8 GiB         a batch's buffers, games and generators together
``THREADS``        1,024         threads of a batch's ``step`` / ``reset``
``KNOB``           1,000,000     small integer knobs of the searches (``widen``, ``batch``,
                                 ``widen_visits``, ``replan``)
``DRAWS``          1,000,000     draws of the shuffler's test helpers
=================  ============  ===========================================================

A value beyond its bound is refused with a ``ValueError`` that names the argument and the bound; nothing is silently
truncated.
"""

from __future__ import annotations

from kardinal_env.core.checks import is_integral

__all__ = [
    "SIMULATIONS",
    "WORLDS",
    "PLAYOUTS",
    "NUM_ENVS",
    "BATCH_BYTES",
    "THREADS",
    "KNOB",
    "DRAWS",
    "as_dict",
    "check_num_envs",
    "check_batch",
]

SIMULATIONS = 1_000_000
WORLDS = 10_000
PLAYOUTS = 1_000_000
NUM_ENVS = 1 << 20
BATCH_BYTES = 8 << 30
THREADS = 1024
KNOB = 1_000_000
DRAWS = 1_000_000


def as_dict() -> dict[str, int]:
    """The limits by lower-case name, as ``kardinal_core.LIMITS`` gives them."""
    return {name.lower(): globals()[name] for name in __all__ if name.isupper()}


def check_num_envs(num_envs: object) -> int:
    """``num_envs`` as an int from 1 to :data:`NUM_ENVS`; ``TypeError`` / ``ValueError`` naming the bound."""
    if not is_integral(num_envs) or not 1 <= num_envs <= NUM_ENVS:
        error = ValueError if is_integral(num_envs) else TypeError
        raise error(f"num_envs must be an integer from 1 to {NUM_ENVS}, got {num_envs!r}")
    return int(num_envs)


def check_batch(num_envs: int, bytes_per_game: int) -> None:
    """``ValueError`` when ``num_envs`` games of ``bytes_per_game`` bytes would take over :data:`BATCH_BYTES`."""
    if bytes_per_game > 0 and num_envs * bytes_per_game > BATCH_BYTES:
        raise ValueError(
            f"num_envs {num_envs} needs about {num_envs * bytes_per_game / 2**30:.1f} GiB of buffers, games and "
            f"generators, over the limit of {BATCH_BYTES >> 30} GiB (at most {BATCH_BYTES // bytes_per_game} "
            "games of these rules)"
        )
