"""Kardinal as a PettingZoo AEC environment: ``kardinal_v0``.

===================  ==================================================================
Import               ``from kardinal_env import kardinal_v0``
Creation             ``kardinal_v0.env(players=4)`` or
                     ``pettingzoo.make("aec", "kardinal/kardinal-v0", players=4)``
Agents               ``player_0 .. player_{n-1}`` (``n = players``, 2..4)
Action space         ``Discrete(17·W² + 5)`` (47 758 for the default ``W = 53``)
Observation space    ``Dict(observation=Box(0, 48, (72, W, W), uint8),
                     action_mask=Box(0, 1, (17·W² + 5,), int8))``
Rewards              terminal ±1 by default (see below)
===================  ==================================================================

Keyword options: ``players`` (2–4), ``preset`` (``"english"``/``"german"``), ``shared_pool``,
``exhausted_colour``, ``neutral_build_chips``, ``neutral_touch_chips`` (see ``kardinal_env.rules``),
``window`` (odd, default 53), ``reward`` (``"win_loss"`` or ``"margin"``), ``chip_shaping``
(float, default 0), ``render_mode`` (``"human"``, ``"ansi"``, ``"rgb_array"`` or ``None``).

**Turns.** ``agent_selection`` always follows the engine: the seat that built acts again for its
chip choice(s) and its cardinal decision, and seats that cannot build are skipped (never selected).
Each call to ``step`` is one decision.

**Observation.** ``observation`` is the lossless ego-centric tensor documented in
``kardinal_env.observation`` (channel table there); ``action_mask`` is an int8 vector with ones at
the legal actions of the selected agent. Agents that are not selected, and every agent once the
game is over, get an all-zero mask (the PettingZoo classic convention): never build a
distribution from it.

**Actions.** Contiguous slices documented in ``kardinal_env.actions``: 16 build planes (house,
tower, horizontal yard, vertical yard × 4 ego-centric colour slots) over the window, one cardinal
plane, four chip actions, and "keep the cardinal". ``raw_env.decode_action(a)`` and
``raw_env.encode_move(move)`` translate to and from docs/rules.md notation for the selected agent; at
every decision ``{decode_action(a) for a with mask[a] == 1} == set(game.legal_moves())``.

**Window.** The default ``W = 53`` (``|x|, |y| <= 26``) holds every square on which any legal game
can build or place the cardinal (proof in ``kardinal_env.window``), so it loses nothing. A smaller
odd ``window`` is a different game: the engine then forbids moves outside it (rule "window"), so
mask and engine still agree.

**Rewards.** Credited to the agent whose action earned them, at the step that earned them.
``reward="win_loss"`` (default): at the end winners get +1 and all others −1 (tied winners all get
+1). ``reward="margin"``: at the end each seat gets ``clip((own score − best other score) / 20, −1,
1)``. ``chip_shaping=s`` adds ``s`` per chip the acting seat takes during play (scoring,
compensation and substitute chips; chips set aside give nothing). No truncation: every game ends.

**Illegal actions.** ``raw_env.step`` raises ``kardinal_env.IllegalMoveError`` naming the broken
rule; an action that is not an integer of the action space (``1.5``, ``"3"``, ``True``, ``-1``,
``num_actions``) raises it with rule ``"action"`` — nothing is rounded or clipped. ``env()`` wraps
``raw_env`` like the classic games (``kardinal_env.env_utils.wrap_classic``): an in-range action the
mask forbids gives the offender −1 and ends the game (``TerminateIllegalWrapper``); a value outside
the action space raises the same clear ``IllegalMoveError`` (our ``ActionCheckWrapper`` replaces
``AssertOutOfBoundsWrapper``, whose bare ``AssertionError`` said nothing); ``OrderEnforcingWrapper``
last.

**Masks without observations.** ``raw_env.action_mask(agent)`` and ``raw_env.legal_actions()``
give the mask / the legal action indices without encoding an observation (both come from
``ActionCodec.legal_actions``, the one mask builder every consumer uses).

**Rendering.** ``"human"`` prints the text board to stdout after every step; ``"ansi"`` returns
the text board of ``kardinal_env.render.game_text`` with a legend; ``"rgb_array"`` a ``uint8``
H×W×3 picture (``kardinal_env.render.game_image``).

Version history
* v0: initial release. (Later changes that keep observations, actions and rewards identical —
  checked by the golden playthroughs in ``tests/golden/playthroughs`` — keep the version.)
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from .actions import DEFAULT_WINDOW, ActionCodec
from .engine import Game
from .env_utils import check_action, wrap_classic
from .errors import IllegalMoveError
from .notation import format_move
from .observation import ObservationEncoder
from .rewards import REWARD_SCHEMES, check_scheme, chip_gain, terminal_rewards
from .rules import Rules
from .window import LOSSLESS_WINDOW, check_window

__all__ = ["env", "raw_env", "REWARD_SCHEMES", "RENDER_MODES"]

RENDER_MODES = ("human", "ansi", "rgb_array")


def env(**kwargs) -> AECEnv:
    """``raw_env`` with the classic wrappers (``kardinal_env.env_utils.wrap_classic``)."""
    return wrap_classic(raw_env(**kwargs))


class raw_env(AECEnv, EzPickle):
    """The unwrapped Kardinal AEC environment (see the module docstring)."""

    metadata = {
        "name": "kardinal_v0",
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        players: int = 4,
        preset: str = "english",
        shared_pool: bool = False,
        exhausted_colour: str | None = None,
        neutral_build_chips: str | None = None,
        neutral_touch_chips: str | None = None,
        window: int = DEFAULT_WINDOW,
        reward: str = "win_loss",
        chip_shaping: float = 0.0,
        render_mode: str | None = None,
    ):
        EzPickle.__init__(
            self,
            players,
            preset,
            shared_pool,
            exhausted_colour,
            neutral_build_chips,
            neutral_touch_chips,
            window,
            reward,
            chip_shaping,
            render_mode,
        )
        super().__init__()
        check_window(window)
        check_scheme(reward)
        modes = RENDER_MODES
        if render_mode is not None and render_mode not in modes:
            raise ValueError(f"render_mode must be one of {list(modes)} or None, got {render_mode!r}")
        self.rules = Rules(
            players=players,
            preset=preset,
            shared_pool=shared_pool,
            exhausted_colour=exhausted_colour,
            neutral_build_chips=neutral_build_chips,
            neutral_touch_chips=neutral_touch_chips,
            window=None if window == LOSSLESS_WINDOW else window,
        )
        self.window = window
        self.reward_scheme = reward
        self.chip_shaping = float(chip_shaping)
        self.render_mode = render_mode
        self.codec = ActionCodec(self.rules, window)
        self.encoder = ObservationEncoder(self.rules, window)
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        num_actions = self.codec.num_actions
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0, 48, self.encoder.shape, dtype=np.uint8),
                "action_mask": spaces.Box(0, 1, (num_actions,), dtype=np.int8),
            }
        )
        act_space: spaces.Discrete = spaces.Discrete(num_actions)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._game: Game | None = None
        self._actions_cache: tuple | None = None

    # ------------------------------------------------------------------ pickling
    _AEC_FIELDS = (
        "agents",
        "rewards",
        "_cumulative_rewards",
        "terminations",
        "truncations",
        "infos",
        "agent_selection",
    )

    def __getstate__(self):
        """Constructor arguments (EzPickle) plus the game so far: an unpickled env continues the game."""
        state = EzPickle.__getstate__(self)
        if self._game is not None:
            state["game_moves"] = self._game.history
            state["aec"] = {k: getattr(self, k) for k in self._AEC_FIELDS}
            state["action_spaces"] = self.action_spaces
        return state

    def __setstate__(self, state):
        EzPickle.__setstate__(self, state)
        if "game_moves" in state:
            self._game = game = Game(self.rules)
            for move in state["game_moves"]:
                game.play(move)
            for k, v in state["aec"].items():
                setattr(self, k, v)
            self.action_spaces = state["action_spaces"]

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    @property
    def game(self) -> Game:
        """The engine's game being played (RuntimeError before the first ``reset()``)."""
        game = self._game
        if game is None:
            raise RuntimeError("call reset() first: no game has started")
        return game

    @property
    def started(self) -> bool:
        """Whether ``reset()`` has been called (so :attr:`game` exists)."""
        return self._game is not None

    # ------------------------------------------------------------------ AEC API
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._seed_spaces(seed)
        self._game = Game(self.rules)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict] = {a: {} for a in self.agents}
        self._actions_cache = None
        self.agent_selection = self.possible_agents[0]  # seat 0 always builds first

    def _seed_spaces(self, seed: int) -> None:
        for i, agent in enumerate(self.possible_agents):
            self.action_spaces[agent].seed(seed + i)

    def observe(self, agent):
        seat = self.agent_name_mapping[agent]
        return {"observation": self.encoder.encode(self.game, seat), "action_mask": self._mask_for(seat)}

    def _mask_for(self, seat: int) -> np.ndarray:
        """The int8 legal-action mask of ``seat`` (a fresh array; all zeros when not deciding)."""
        mask = np.zeros(self.codec.num_actions, dtype=np.int8)
        if seat == self.game.current_player:  # None once the game is over
            mask[self.legal_actions()] = 1
        return mask

    def legal_actions(self) -> np.ndarray:
        """Legal actions of the selected agent's decision (``ActionCodec.legal_actions``, cached per
        decision; do not modify the array). Empty once the game is over."""
        game = self.game
        cache = self._actions_cache
        count = game.move_count
        if cache is None or cache[0] != count:
            cache = self._actions_cache = (count, self.codec.legal_actions(game))
        return cache[1]

    def action_mask(self, agent: str | None = None) -> np.ndarray:
        """The int8 action mask of ``agent`` (default: the selected agent) without encoding an observation."""
        return self._mask_for(self.agent_name_mapping[agent or self.agent_selection])

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        seat = self.agent_name_mapping[agent]
        code = self._legal_code(action, seat)
        self._cumulative_rewards[agent] = 0.0
        if self.chip_shaping:
            self._clear_rewards()  # without shaping every reward stays 0 until the end: nothing to clear
            before = game.chips_held(seat)
            game.apply_legal_code(code)
            self.rewards[agent] = self.chip_shaping * chip_gain(game, seat, before)
        else:
            game.apply_legal_code(code)
        if game.is_over:
            for a, r in zip(self.agents, self._final_rewards()):
                self.rewards[a] += r
            self.terminations = {a: True for a in self.agents}
            self.infos = {a: {"scores": game.scores(), "winners": game.winners()} for a in self.agents}
        else:
            self.agent_selection = self.possible_agents[game.current_player]  # type: ignore[index]  # not over
        if self.chip_shaping or game.is_over:  # otherwise every reward of this step is 0
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _legal_code(self, action, seat: int) -> tuple:
        game = self.game
        action = check_action(action, self.codec.num_actions)
        try:
            code = self.codec.decode_code(action, seat)
        except ValueError as exc:
            raise IllegalMoveError(f"action: {exc}", "action", action) from None
        if game.is_legal_code(code):
            return code
        game.play_code(code)  # raises IllegalMoveError naming the broken rule
        raise AssertionError("unreachable: an illegal action was accepted")  # pragma: no cover

    def _final_rewards(self) -> list[float]:
        return terminal_rewards(self.game, self.reward_scheme)

    # ------------------------------------------------------------------ codec for the selected agent
    def decode_action(self, action: int) -> str:
        """docs/rules.md notation of ``action`` for the agent now selected."""
        return format_move(self.codec.decode_code(action, self.agent_name_mapping[self.agent_selection]))

    def encode_move(self, move: str) -> int:
        """Action of a notation string for the agent now selected."""
        return self.codec.encode_move(move, self.agent_name_mapping[self.agent_selection])

    # ------------------------------------------------------------------ rendering
    def render(self):
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self._game is None:
            raise RuntimeError("call reset() before render()")
        from . import render

        if self.render_mode == "human":
            print(render.game_text(self.game), flush=True)
            return None
        if self.render_mode == "ansi":
            return render.game_text(self.game)
        return render.game_image(self.game, window=self.window)

    def close(self) -> None:
        pass
