"""Pieces every environment of this package shares: the action check, the action mask and the classic wrappers.

* :func:`check_action` (:mod:`kardinal_env.core.checks`) — an action is an integer inside ``Discrete(n)``, else
  ``IllegalMoveError`` with rule ``"action"``; nothing is rounded or clipped.
* :func:`seat_action_mask` — a codec's ``action_mask``: ones at the legal actions when the seat asked about decides now,
  all zeros otherwise and once the game is over.
* :func:`wrap_classic` — PettingZoo's classic wrapper stack in one layer (:class:`_Classic`): the order checks,
  :func:`check_action` in place of ``AssertOutOfBoundsWrapper`` (whose bare ``AssertionError`` says nothing), and
  ``TerminateIllegalWrapper(illegal_reward=-1)``'s rule (``terminate_illegal=False`` leaves it out).
* :func:`classic_env` — every environment module's ``env(**kwargs)``: its ``raw_env`` in the classic stack. Without
  ``illegal_action`` (or ``None``) the stack has the ``TerminateIllegalWrapper`` rule (−1 to the offender, 0 to the
  others, PettingZoo's warning); with ``"raise"`` or ``"lose"`` it goes to ``raw_env`` and the raw env's rule applies
  (:mod:`kardinal_env.core.illegal`).
* :func:`fresh_observation` / :class:`FreshObservationWrapper` — copies of observations, for code that keeps them.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.base import BaseWrapper

from kardinal_env.core.checks import check_action as check_action  # re-exported: its home was here
from kardinal_env.core.errors import IllegalMoveError

__all__ = [
    "check_action",
    "seat_action_mask",
    "wrap_classic",
    "classic_env",
    "fresh_observation",
    "FreshObservationWrapper",
]


def seat_action_mask(
    game: Any, seat: int | None, out: np.ndarray | None, num_actions: int, legal: Callable[[Any], Any]
) -> np.ndarray:
    """int8 mask (into ``out``): ones at ``legal(game)`` (called only then) when ``seat`` decides now, else zeros."""
    if out is None:
        out = np.empty(num_actions, dtype=np.int8)
    out.fill(0)
    deciding = game.current_player
    if deciding is not None and (seat is None or seat == deciding):
        out[legal(game)] = 1
    return out


#: The AEC state every step of an agent loop reads through the wrappers: forwarded by properties.
_HOT_STATE = ("agents", "agent_selection", "terminations", "truncations", "rewards", "infos", "_cumulative_rewards")
#: What ``OrderEnforcingWrapper`` refuses to show before ``reset()``.
_ORDER_GUARDED = frozenset({"rewards", "terminations", "truncations", "infos", "agent_selection", "agents"})


def _forwarded(name: str, guarded: bool) -> property:
    def get(self):
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw, name)

    def put(self, value):
        setattr(self._raw, name, value)

    fget = get if guarded else operator.attrgetter(f"_raw.{name}")  # unguarded: a C-level getter, one call
    return property(fget, put, doc=f"The unwrapped environment's ``{name}``.")


class _Classic(wrappers.OrderEnforcingWrapper):
    """``OrderEnforcingWrapper`` that checks actions (``None`` allowed for done agents) and, with ``terminate_illegal``,
    does ``TerminateIllegalWrapper``'s rule: its warning, -1 to the offender, 0 to the others, every
    agent terminated and truncated (judged by the raw env's ``IllegalMoveError``, after which nothing changed)."""

    def __init__(self, raw: AECEnv, terminate_illegal: bool = True):
        self._raw = raw.unwrapped
        super().__init__(raw)
        self._terminate_illegal = terminate_illegal

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._ended_by_illegal = False
        super().reset(seed=seed, options=options)

    def step(self, action):  # noqa: D401 - PettingZoo signature
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        raw: Any = self._raw
        self._has_updated = True
        if not raw.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = raw.agent_selection
        done = raw.terminations[agent] or raw.truncations[agent]
        if done and self._ended_by_illegal:
            raw._was_dead_step(action)
            return
        if action is not None or not done:
            check_action(action, raw.num_actions)
            if self._terminate_illegal and not done:
                try:
                    raw.step(action)
                except IllegalMoveError:  # the raw env refused it (illegal_action="raise"): nothing changed
                    EnvLogger.warn_on_illegal_move()
                    raw._cumulative_rewards[agent] = 0
                    raw.terminations = dict.fromkeys(raw.agents, True)
                    raw.truncations = dict.fromkeys(raw.agents, True)
                    raw.rewards = {a: -1.0 if a == agent else 0 for a in raw.agents}
                    raw._accumulate_rewards()
                    raw._deads_step_first()
                    self._ended_by_illegal = True
                return
        raw.step(action)

    def last(self, observe: bool = True):
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self._raw.last(observe)  # AECEnv.last of the unwrapped env: no wrapper layer in between

    def __str__(self) -> str:
        return str(self.env) if hasattr(self, "metadata") else repr(self)


def fresh_observation(observation: Any) -> Any:
    """A copy of ``observation`` (its NumPy arrays, or a dict's, copied)."""
    if isinstance(observation, dict):
        return {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in observation.items()}
    return observation.copy() if isinstance(observation, np.ndarray) else observation


class FreshObservationWrapper(BaseWrapper):
    """``observe`` (and so ``last``) returns copies, for learners that keep observations (RLlib's episodes)."""

    def __init__(self, env: AECEnv):
        self._raw = env.unwrapped
        super().__init__(env)

    def observe(self, agent):
        return fresh_observation(super().observe(agent))


# Both wrappers read the AEC state of the unwrapped env by properties (``__getattr__`` per layer cost a third of a loop)
for _name in _HOT_STATE:
    setattr(_Classic, _name, _forwarded(_name, _name in _ORDER_GUARDED))
    setattr(FreshObservationWrapper, _name, _forwarded(_name, False))


wrap_classic = _Classic  # wrap_classic(raw, terminate_illegal=True): the classic stack in one layer (module docstring)


def classic_env(raw_class: Callable[..., AECEnv], **kwargs: Any) -> AECEnv:
    """``raw_class(**kwargs)`` in the classic stack; ``illegal_action`` picks it (the module docstring)."""
    if terminate := (kwargs.get("illegal_action") is None):
        kwargs.pop("illegal_action", None)
    return wrap_classic(raw_class(**kwargs), terminate)
