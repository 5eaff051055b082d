"""Pieces every environment of this package shares: the action check, the action mask and the classic wrappers.

* :func:`check_action` — an action must be a Python or NumPy integer (not a bool, not a float such
  as ``1.5``, not a string) inside ``Discrete(n)``; anything else raises
  :class:`~kardinal_env.core.errors.IllegalMoveError` with rule ``"action"`` and a message that names the
  value and the allowed range. Nothing is rounded or clipped.
* :func:`seat_action_mask` — a codec's ``action_mask`` (PettingZoo's classic convention): ones at the
  legal actions when the seat asked about decides now, all zeros otherwise and once the game is over.
* :func:`wrap_classic` — PettingZoo's classic wrapper stack for a raw AEC env, in one layer
  (:class:`_Classic`, a subclass of PettingZoo's ``OrderEnforcingWrapper``): the order checks, an
  action check in place of ``AssertOutOfBoundsWrapper`` (whose bare ``AssertionError`` does not say
  what was wrong: :func:`check_action` names the value and the range), and
  ``TerminateIllegalWrapper(illegal_reward=-1)``'s rule (a legal-range action that the mask forbids
  costs the offender −1 and ends the game). The wrapper reads the AEC state (``agent_selection``,
  ``terminations`` ...) straight from the raw env through properties rather than through
  ``__getattr__`` (the same values). ``terminate_illegal=False`` leaves the illegal-move rule out.
* :func:`classic_env` — what every environment module's ``env(**kwargs)`` is: its ``raw_env`` in the
  classic stack. Without ``illegal_action`` (or with ``None``) the stack has
  ``TerminateIllegalWrapper`` (the classic behaviour: −1 to the offender, 0 to the others, the game
  ends, PettingZoo prints a warning); with ``illegal_action="raise"`` or ``"lose"`` it is passed to
  ``raw_env`` and the stack has no ``TerminateIllegalWrapper``, so the raw env's rule applies
  (:mod:`kardinal_env.core.illegal`).
* :func:`fresh_observation` / :class:`FreshObservationWrapper` — copies of observations, for code that
  keeps them (an environment may hand out arrays it rewrites in place).
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
    """int8 mask of length ``num_actions`` (written into ``out`` when given): ones at ``legal(game)``
    (the legal action ids) when ``seat`` (default: the deciding seat) decides now, all zeros
    otherwise and once the game is over. ``legal`` is called only when the seat decides."""
    if out is None:
        out = np.zeros(num_actions, dtype=np.int8)
    else:
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
    def put(self, value):
        setattr(self._raw, name, value)

    if not guarded:  # a C-level getter: the common case costs one call
        return property(operator.attrgetter(f"_raw.{name}"), put, doc=f"The unwrapped environment's ``{name}``.")

    def get(self):
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw, name)

    return property(get, put, doc=f"The unwrapped environment's ``{name}``.")


class _ForwardState:
    """Reads the AEC state (``agents``, ``agent_selection``, ``terminations`` ...) straight from the
    unwrapped environment through properties. PettingZoo's ``BaseWrapper`` forwards it through
    ``__getattr__``, once per wrapper layer: with three layers that was a third of an agent loop's
    time. The same values (no wrapper of the classic stack defines them), and the same errors."""

    _raw: AECEnv
    _guard_order = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name in _HOT_STATE:
            setattr(cls, name, _forwarded(name, cls._guard_order and name in _ORDER_GUARDED))

    def _bind_raw(self, env: AECEnv) -> None:
        self._raw = env.unwrapped


class _Classic(_ForwardState, wrappers.OrderEnforcingWrapper):
    """The classic stack in one layer: PettingZoo's ``OrderEnforcingWrapper`` (its before-reset errors
    kept) with :class:`_ForwardState`, which also

    * checks actions (:func:`check_action`: an ``IllegalMoveError`` naming the value and the range for
      anything but an id of the action space; ``None`` stays allowed for agents that are done, as
      PettingZoo requires), in place of ``AssertOutOfBoundsWrapper``;
    * with ``terminate_illegal``, does what PettingZoo's ``TerminateIllegalWrapper`` does with an id
      the mask forbids: PettingZoo's illegal-move warning, the offender's reward ``illegal_reward``
      and every other agent's 0, every agent terminated and truncated, the game ends. The raw
      environment (``illegal_action="raise"``) is the judge: the engine's ``IllegalMoveError``, after
      which nothing has changed, rather than a kept observation's mask (the same ids). One layer
      instead of three: an agent loop pays one wrapper call per step."""

    _guard_order = True

    def __init__(self, env: AECEnv, terminate_illegal: bool, illegal_reward: float = -1.0):
        self._bind_raw(env)
        super().__init__(env)
        self._terminate_illegal = terminate_illegal
        self._illegal_reward = float(illegal_reward)
        self._ended_by_illegal = False

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
                    self._end_by_illegal_move(raw, agent)
                return
        raw.step(action)

    def observe(self, agent):
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self._raw.observe(agent)

    def last(self, observe: bool = True):
        """``AECEnv.last`` read straight from the raw environment (the same values)."""
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        raw: Any = self._raw
        agent = raw.agent_selection
        return (
            raw.observe(agent) if observe else None,
            raw._cumulative_rewards[agent],
            raw.terminations[agent],
            raw.truncations[agent],
            raw.infos[agent],
        )

    def _end_by_illegal_move(self, raw: Any, agent: str) -> None:
        EnvLogger.warn_on_illegal_move()
        raw._cumulative_rewards[agent] = 0
        raw.terminations = dict.fromkeys(raw.agents, True)
        raw.truncations = dict.fromkeys(raw.agents, True)
        raw.rewards = dict.fromkeys(raw.agents, 0)
        raw.rewards[agent] = self._illegal_reward
        raw._accumulate_rewards()
        raw._deads_step_first()
        self._ended_by_illegal = True

    def __str__(self) -> str:
        return str(self.env) if hasattr(self, "metadata") else repr(self)


def fresh_observation(observation: Any) -> Any:
    """A copy of ``observation`` (its NumPy arrays copied; a dict of them copied entry by entry), for
    code that keeps observations: an environment may hand out arrays it owns and rewrites in place
    (``kardinal_v0`` on a core-backed game)."""
    if isinstance(observation, dict):
        return {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in observation.items()}
    return observation.copy() if isinstance(observation, np.ndarray) else observation


class FreshObservationWrapper(_ForwardState, BaseWrapper):
    """``observe`` (and so ``last``) returns copies (:func:`fresh_observation`): for learners that keep
    the observations they are given (RLlib's episodes hold references until they are batched)."""

    def __init__(self, env: AECEnv):
        self._bind_raw(env)
        super().__init__(env)

    def observe(self, agent):
        return fresh_observation(super().observe(agent))


def wrap_classic(raw: AECEnv, terminate_illegal: bool = True) -> AECEnv:
    """The classic wrapper stack described in the module docstring (``terminate_illegal=False``:
    without ``TerminateIllegalWrapper``'s rule), as one layer (:class:`_Classic`)."""
    return _Classic(raw, terminate_illegal)


def classic_env(raw_class: Callable[..., AECEnv], **kwargs: Any) -> AECEnv:
    """``raw_class(**kwargs)`` in the classic stack; ``illegal_action`` picks it (the module docstring)."""
    if kwargs.get("illegal_action") is None:
        kwargs.pop("illegal_action", None)
        return wrap_classic(raw_class(**kwargs))
    return wrap_classic(raw_class(**kwargs), terminate_illegal=False)
