"""The ``illegal_action`` option of every environment: the one rule for an action the mask forbids.

The AEC environments (:class:`kardinal_env.core.env_base.TurnBasedEnv`), the Gymnasium view
(:class:`kardinal_env.core.single_agent.VsBots`) and :class:`kardinal_env.vector.VectorEnv` all call :func:`forfeit`.

=========  =============================================================================================================
mode       an id of the action space that is not legal now
=========  =============================================================================================================
``raise``  ``IllegalMoveError`` (a ``ValueError``) whose ``rule`` names the broken rule; nothing changes. The default of
           the AEC environments' ``raw_env`` and of ``VectorEnv``.
``lose``   pgx's rule for masked games: the episode ends at once by the acting seat's forfeit: −1 to it, +1 to every
           other seat (both schemes, :func:`kardinal_env.core.rewards.forfeit_rewards`). The default of the Gymnasium
           view, so that ``check_env`` and RLlib's pre-check (unmasked ``action_space.sample()``) run through.
=========  =============================================================================================================

**What a forfeit reports** (:meth:`Forfeit.info`)::

    {"scores": None,
     "winners": [every seat but the offender],
     "illegal_action": {"rule": ..., "message": ..., "action": ..., "move": ..., "seat": ...}}

``rule`` and ``message`` are the engine's :class:`~kardinal_env.core.errors.IllegalMoveError`'s, ``action`` the id,
``move`` its notation (``None`` when the engine gave none), ``seat`` the offender. No move is played, so there are no
final scores; win shares (:func:`~kardinal_env.core.rewards.win_share`) count a forfeit as a win shared by the other
seats. The AEC environments put the report in every agent's ``infos``, the Gymnasium view in the step's ``info`` (with
``learner_seat``), ``VectorEnv`` in the slot's ``final_info`` (with ``move_count`` and ``last_player``, the offender).

**Not an action id at all** (``-1``, ``A``, ``1.5``, ``"3"``, ``True``): ``IllegalMoveError`` with rule ``"action"`` in
every mode (:func:`kardinal_env.core.checks.check_action`): no policy over the action space sends one, so it is the
caller's bug, which a forfeit would hide.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kardinal_env.core.errors import IllegalMoveError
from kardinal_env.core.rewards import forfeit_rewards

__all__ = ["ILLEGAL_ACTIONS", "Forfeit", "check_illegal_action", "forfeit"]

ILLEGAL_ACTIONS = ("raise", "lose")


def check_illegal_action(mode: object) -> str:
    if not isinstance(mode, str) or mode not in ILLEGAL_ACTIONS:
        raise ValueError(f"illegal_action must be one of {list(ILLEGAL_ACTIONS)}, got {mode!r}")
    return mode


@dataclass(frozen=True)
class Forfeit:
    """A game ended by the forfeit of ``seat`` (:func:`forfeit`): every seat's reward and the report."""

    seat: int
    rewards: tuple[float, ...]
    illegal_action: dict[str, Any]

    @property
    def winners(self) -> list[int]:
        return [s for s in range(len(self.rewards)) if s != self.seat]

    def info(self) -> dict[str, Any]:
        return {"scores": None, "winners": self.winners, "illegal_action": dict(self.illegal_action)}


def forfeit(error: IllegalMoveError, action: int, seat: int, num_players: int, scheme: str) -> Forfeit:
    """The forfeit of ``seat``, whose ``action`` the engine refused with ``error``."""
    move = error.move if isinstance(error.move, str) else None
    report = {"rule": error.rule, "message": str(error), "action": int(action), "move": move, "seat": int(seat)}
    return Forfeit(int(seat), tuple(forfeit_rewards(num_players, seat, scheme)), report)
