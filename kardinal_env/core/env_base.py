"""The AEC plumbing every environment shares (``kardinal_v0``, ``kardinal_koenig_v1`` and the generic
:class:`kardinal_env.core.generic_env.GameEnv`).

:class:`TurnBasedEnv` holds what is not about one game: agents ``player_0 ..``, one ``Dict(observation, action_mask)``
space and one ``Discrete`` space for all, ``agent_selection`` following ``current_player``, the per-decision cache of
legal actions, masks all zero but the selected agent's, terminal rewards (:mod:`kardinal_env.core.rewards`, plus an
optional per-move reward), ``infos`` with scores and winners at the end, pickling that continues the game, seeding and
render modes.

**Illegal actions** (:mod:`kardinal_env.core.illegal`). ``step`` first checks that the action is an id of the action
space (rule ``"action"`` in every mode), then plays it; an id the engine refuses raises (``"raise"``, the default) or
ends the episode by forfeit (``"lose"``: every agent terminated, the forfeit's rewards and report in every agent's
``infos``). From then on every mask is all zero, :meth:`TurnBasedEnv.legal_actions` is empty and
:attr:`TurnBasedEnv.forfeited` holds the forfeit until the next ``reset``.

A subclass provides ``_new_game(chance: random.Random)`` (a fresh engine game), ``encoder`` (``encode(game, seat)``),
``_compute_legal_actions()`` (an ``intp`` array), ``_play(action, seat)`` (play an in-range action, raising the engine's
``IllegalMoveError`` when illegal; return the move's reward for the acting seat, or ``None`` without per-move rewards),
``_render_text()`` and ``_render_image()``; its constructor sets the options ``reward_scheme`` (checked),
``illegal_action`` (checked) and ``render_mode``, then calls ``_setup(players, observation_box, num_actions)``.

**Buffers of a core-backed game.** With ``writes_core_buffers = True`` and a core-backed game (``game.compiled``:
``encode_into(seat, out)``, ``action_mask_into(out, seat)``) the env owns one observation and one mask array per seat,
which the core rewrites in place and :meth:`TurnBasedEnv.observe` / :meth:`TurnBasedEnv.action_mask` hand out: no
allocation per step, and a kept array changes with that seat's next observation (copy it to keep it).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cached_property
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from kardinal_env.core.env_utils import check_action
from kardinal_env.core.errors import IllegalMoveError
from kardinal_env.core.illegal import Forfeit, forfeit
from kardinal_env.core.rewards import terminal_rewards

__all__ = ["TurnBasedEnv", "RENDER_MODES"]

RENDER_MODES = ("human", "ansi", "rgb_array")

#: What a pickle holds besides the constructor arguments (those set so far).
_PICKLED = (
    "_chance _game agents rewards _cumulative_rewards terminations truncations infos agent_selection _forfeit "
    "action_spaces"
).split()


class TurnBasedEnv(AECEnv, EzPickle):
    """Shared base of the environments (see the module docstring)."""

    metadata: dict[str, Any] = {"render_modes": list(RENDER_MODES), "is_parallelizable": False, "render_fps": 2}
    _forfeit: Forfeit | None = None

    def _setup(self, players: int, observation: spaces.Box, num_actions: int) -> None:
        """The agents, spaces and game state (the subclass sets the options first)."""
        self.num_actions = num_actions
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {"observation": observation, "action_mask": spaces.Box(0, 1, (num_actions,), dtype=np.int8)}
        )
        act_space: spaces.Discrete = spaces.Discrete(num_actions)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._game: Any = None
        self._chance = random.Random()
        self._actions_cache: tuple[int, np.ndarray] | None = None

    # what a subclass provides (the module docstring)
    _new_game: Callable[[random.Random], Any]
    _compute_legal_actions: Callable[[], np.ndarray]
    _play: Callable[[int, int], float | None]
    _render_text: Callable[[], str]
    _render_image: Callable[[], np.ndarray]

    #: Whether a core-backed game writes into arrays this env owns (the module docstring).
    writes_core_buffers = False

    def _core_mask(self, game: Any, seat: int) -> np.ndarray:
        out = self._buffers[seat][1]
        if self._forfeit is None:
            game.core.action_mask_into(out, seat)
        else:
            out.fill(0)
        return out

    @cached_property
    def _buffers(self) -> list[tuple[np.ndarray, np.ndarray]]:
        box: Any = self.observation_spaces[self.possible_agents[0]]["observation"]
        return [(np.zeros(box.shape, box.dtype), np.zeros(self.num_actions, np.int8)) for _ in self.possible_agents]

    def __getstate__(self):
        """Constructor arguments (EzPickle) plus the game so far: an unpickled env continues the game."""
        return {**EzPickle.__getstate__(self), "aec": {k: getattr(self, k) for k in _PICKLED if k in self.__dict__}}

    def __setstate__(self, state):
        EzPickle.__setstate__(self, state)
        self.__dict__.update(state["aec"])

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    @property
    def game(self) -> Any:
        """The engine's game (RuntimeError before the first ``reset()``)."""
        game = self._game
        if game is None:
            raise RuntimeError("call reset() first: no game has started")
        return game

    @property
    def started(self) -> bool:
        """Whether ``reset()`` has been called (so :attr:`game` exists)."""
        return self._game is not None

    @property
    def forfeited(self) -> Forfeit | None:
        """The forfeit that ended this episode (``illegal_action="lose"``), else None."""
        return self._forfeit

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._chance.seed(seed)
            for i, agent in enumerate(self.possible_agents):
                self.action_spaces[agent].seed(seed + i)
        game = self._game = self._new_game(self._chance)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict] = {a: {} for a in self.agents}
        self._actions_cache = None
        self._forfeit = None
        self.agent_selection = self.possible_agents[game.current_player]

    def observe(self, agent):
        seat = self.agent_name_mapping[agent]
        game = self.game
        if self.writes_core_buffers and game.compiled:  # the core writes both arrays the env owns
            observation = self._buffers[seat][0]
            game.core.encode_into(seat, observation)
            return {"observation": observation, "action_mask": self._core_mask(game, seat)}
        return {"observation": self.encoder.encode(game, seat), "action_mask": self.action_mask(agent)}

    def legal_actions(self) -> np.ndarray:
        """The selected agent's legal actions (cached per decision: do not modify); empty once over or forfeited."""
        if self._forfeit is not None:
            return np.empty(0, dtype=np.intp)
        count = self.game.move_count
        cache = self._actions_cache
        if cache is None or cache[0] != count:
            cache = self._actions_cache = (count, self._compute_legal_actions())
        return cache[1]

    def action_mask(self, agent: str | None = None) -> np.ndarray:
        """The int8 mask of ``agent`` (default: the selected one) without an observation; all zeros unless it decides
        (on a core-backed game the env's own array)."""
        seat = self.agent_name_mapping[agent or self.agent_selection]
        game = self.game
        if self.writes_core_buffers and game.compiled:
            return self._core_mask(game, seat)
        mask = np.zeros(self.num_actions, dtype=np.int8)
        if seat == game.current_player:  # legal_actions() is empty once forfeited
            mask[self.legal_actions()] = 1
        return mask

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        action = check_action(action, self.num_actions)  # not an action id: IllegalMoveError in every mode
        seat = self.agent_name_mapping[agent]
        try:
            earned = self._play(action, seat)
        except IllegalMoveError as error:  # the engine refused the move: nothing has changed
            if self.illegal_action == "raise":
                raise
            lost = self._forfeit = forfeit(error, action, seat, len(self.possible_agents), self.reward_scheme)
            self._cumulative_rewards[agent] = 0.0
            self.rewards.update(zip(self.agents, lost.rewards, strict=True))
            self.terminations = {a: True for a in self.agents}
            self.infos = {a: lost.info() for a in self.agents}
            self._accumulate_rewards()
            if self.render_mode == "human":
                self.render()
            return
        self._cumulative_rewards[agent] = 0.0
        if earned is not None:
            self._clear_rewards()  # without per-move rewards every reward stays 0 until the end
            self.rewards[agent] = earned
        if game.is_over:
            for a, r in zip(self.agents, terminal_rewards(game, self.reward_scheme), strict=True):
                self.rewards[a] += r
            self.terminations = {a: True for a in self.agents}
            self.infos = {a: {"scores": game.scores(), "winners": game.winners()} for a in self.agents}
        else:
            self.agent_selection = self.possible_agents[game.current_player]
        if earned is not None or game.is_over:  # otherwise every reward of this step is 0
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self):
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self._game is None:
            raise RuntimeError("call reset() before render()")
        if self.render_mode == "rgb_array":
            return self._render_image()
        if self.render_mode == "ansi":
            return self._render_text()
        print(self._render_text(), flush=True)

    def close(self) -> None:  # PettingZoo's api_test wants an override of AECEnv.close when render exists
        pass
