r"""Single-agent Gymnasium view of any registered game: the learner plays one seat against fixed opponents.

:class:`VsBots` (``game=NAME``) wraps the game's unwrapped AEC environment (its module's ``raw_env`` or the generic
:class:`kardinal_env.core.generic_env.GameEnv`). Every game with a ``gym_id`` is registered with Gymnasium
(:mod:`kardinal_env.core.registration`): ``kardinal/KardinalVsBots-v0`` (:class:`KardinalVsBots`) and
``kardinal/KardinalKoenigVsBots-v1`` (:class:`KardinalKoenigVsBots`). ``gymnasium.make("kardinal/KardinalVsBots-v0",
players=2, opponents="greedy")``; ``VsBots(game="nim")``.

Defaults: ``players``: the AEC environment's (4 for the built-in games, else ``default_players``), ``learner_seat=0``,
``opponents="random"``, ``illegal_action="lose"``.

* Spaces: the AEC environment's ``Dict(observation, action_mask)`` and ``Discrete`` (the learner's view).
* ``action_masks()``: the learner's mask as bool, without encoding an observation (for sb3-contrib's MaskablePPO). The
  ids are registered without Gymnasium's ``OrderEnforcing`` and passive checker (``step`` before ``reset`` still
  raises), so ``gymnasium.make(...).action_masks()`` works; through your own wrappers use
  ``env.get_wrapper_attr("action_masks")()``.
* ``step(action)`` plays the learner's decision, then the opponents' until the learner decides again or the game ends;
  the learner's reward under the AEC environment's scheme.
* ``illegal_action`` (:mod:`kardinal_env.core.illegal`) for the learner's actions: ``"lose"`` (the default) ends the
  episode by forfeit (``terminated``, the loss reward, masks all zero, ``info`` with ``learner_seat`` and the report);
  ``"raise"`` raises. An opponent's illegal move always raises.
* ``learner_seat``: a seat, or ``"random"`` (drawn from the reset seed).
* ``opponents``: ``"random"`` (uniform legal moves from the env's seeded generator), one policy for every other seat, or
  a list with one per other seat. A policy: an object with ``select_move(game) -> str``, a callable ``game -> str``, or
  an agent spec string (``"greedy"``, ``"mcts:50"``, ``"ppo:PATH"``; loaded once, seeded at every ``reset``) handed to
  ``load_agent(spec, game=NAME, seed=None)`` of the entry point group :data:`AGENTS_GROUP` (:func:`agent_loader`);
  without one a spec string is a ``ValueError`` saying so. This module imports no agent code.
* Other keywords go to the AEC environment (rule options, ``reward``, env options).
* Render modes (:func:`render_modes`): the game's, in the instance's ``metadata``; the class's ``metadata`` (read by
  ``gymnasium.make`` before it knows the game) lists every mode; a mode the game lacks is a ``ValueError`` naming the
  game's modes.

Version history (the ids keep their versions: play with legal actions is unchanged): ``illegal_action`` option, default
``"lose"`` (``"raise"`` restores the first behaviour).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np

from kardinal_env.core.env_base import RENDER_MODES
from kardinal_env.core.env_utils import check_action, fresh_observation
from kardinal_env.core.errors import IllegalMoveError
from kardinal_env.core.illegal import Forfeit, check_illegal_action, forfeit
from kardinal_env.core.registration import pettingzoo_entry
from kardinal_env.core.registry import GameSpec, get_game, resolve

__all__ = ["VsBots", "KardinalVsBots", "KardinalKoenigVsBots", "AGENTS_GROUP", "agent_loader", "render_modes"]

#: The entry point group of packages that provide agents; a module there may offer ``load_agent(spec, game=, seed=)``.
AGENTS_GROUP = "kardinal_env.agents"


def agent_loader() -> Callable[..., Any]:
    """``load_agent`` of the first module (by entry name) of :data:`AGENTS_GROUP` that has one (entries naming an
    attribute are skipped); ``LookupError`` when none does."""
    from importlib.metadata import entry_points

    for ep in sorted(entry_points(group=AGENTS_GROUP), key=lambda ep: ep.name):
        loader = None if ep.attr else getattr(ep.load(), "load_agent", None)
        if callable(loader):
            return loader
    raise LookupError(f"no agent loader is installed (no module with load_agent in entry point group {AGENTS_GROUP!r})")


def _policy(p: Any, game: str) -> Any:
    """An opponent as given, or the agent an agent spec string names (through :func:`agent_loader`)."""
    if isinstance(p, str) and p != "random":
        try:
            loader = agent_loader()
        except LookupError as exc:
            raise ValueError(f"opponents: {p!r} is an agent spec, but {exc}") from None
        try:
            return loader(p, game=game, seed=None)
        except ValueError as exc:
            raise ValueError(f"opponents: {exc}") from None
    if not (p == "random" or callable(p) or hasattr(p, "select_move")):
        raise ValueError(
            f"opponents: {p!r} is neither 'random', an agent spec string, a callable nor an agent with select_move"
        )
    return p


def render_modes(spec: GameSpec) -> list[str]:
    """The render modes of a game's AEC environment (its module's, else the generic environment's)."""
    if spec.env_module is not None:
        return list(spec.load("env_module").raw_env.metadata["render_modes"])
    return list(resolve("kardinal_env.core.generic_env:generic_render_modes")(spec))


class VsBots(gym.Env):
    """The learner's seat of a game's AEC environment, opponents played inside ``step``."""

    #: Every mode some game may offer (``gymnasium.make`` checks it); an instance's are its game's.
    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 2}
    game: str | None = None

    def __init__(
        self,
        game: str | GameSpec | None = None,
        learner_seat: int | str = 0,
        opponents: Any = "random",
        render_mode: str | None = None,
        illegal_action: str = "lose",
        **env_kwargs: Any,
    ):
        game = type(self).game if game is None else game
        if game is None:
            raise ValueError("VsBots needs game=NAME, a registered game")
        self.illegal_action = check_illegal_action(illegal_action)
        self.forfeited: Forfeit | None = None
        self.game_spec = spec = get_game(game)
        modes = render_modes(spec)
        self.metadata = {**type(self).metadata, "render_modes": modes}
        if render_mode is not None and render_mode not in modes:
            hint = " (rgb_array needs an image renderer, GameSpec.renderers.image)"
            raise ValueError(
                f"render_mode {render_mode!r} is not a render mode of {spec.name}: expected one of {modes} or None"
                + (hint if render_mode == "rgb_array" else "")
            )
        entry, defaults = pettingzoo_entry(spec)  # the unwrapped AEC environment of the same module
        self.aec = resolve(entry.partition(":")[0]).raw_env(render_mode=render_mode, **defaults, **env_kwargs)
        self.render_mode = render_mode
        players = len(self.aec.possible_agents)
        if learner_seat != "random" and learner_seat not in range(players):
            raise ValueError(f"learner_seat must be 0..{players - 1} or 'random', got {learner_seat!r}")
        self.learner_seat_option = learner_seat
        policies = list(opponents) if isinstance(opponents, (list, tuple)) else [opponents] * (players - 1)
        if len(policies) != players - 1:
            raise ValueError(f"opponents: expected {players - 1} policies (one per other seat), got {len(policies)}")
        self.opponents = [_policy(p, spec.name) for p in policies]
        agent0 = self.aec.possible_agents[0]
        self.observation_space = self.aec.observation_space(agent0)
        self.action_space = self.aec.action_space(agent0)
        self.learner_seat: int = 0 if isinstance(learner_seat, str) else learner_seat

    @property
    def players(self) -> int:
        return len(self.aec.possible_agents)

    def _opponent_move(self, seat: int) -> str:
        """The move of ``seat``'s opponent (``opponents`` lists the other seats from the learner's on)."""
        return self._play(self.opponents[(seat - self.learner_seat - 1) % self.players])

    def _play(self, policy: Any) -> str:
        """The move ``policy`` picks in the current game: ``"random"``, an agent or a callable."""
        game = self.aec.game
        if isinstance(policy, str):  # "random"
            moves = game.legal_moves()
            return moves[int(self.np_random.integers(len(moves)))]
        if hasattr(policy, "select_move"):
            return policy.select_move(game)
        return policy(game)

    def _advance(self) -> float:
        """Play opponents until the learner decides or the game ends; return the learner's reward."""
        aec = self.aec
        learner = aec.possible_agents[self.learner_seat]
        reward = 0.0
        game = aec.game
        while game.current_player is not None and game.current_player != self.learner_seat:
            aec.step(aec.encode_move(self._opponent_move(game.current_player)))
            reward += aec.rewards[learner]
        return reward

    def _obs(self) -> dict:
        # A copy: callers may keep it, and the AEC env may rewrite its arrays.
        obs = fresh_observation(self.aec.observe(self.aec.possible_agents[self.learner_seat]))
        if self.forfeited is not None:  # the episode is over: no legal action (the AEC env does not know)
            obs["action_mask"][:] = 0
        return obs

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if self.learner_seat_option == "random":
            self.learner_seat = int(self.np_random.integers(self.players))
        for p in self.opponents:
            if not isinstance(p, str) and hasattr(p, "reset"):
                p.reset(None if seed is None else seed + 1)
        self.forfeited = None
        self.aec.reset(seed=seed)
        self._advance()
        return self._obs(), {"learner_seat": self.learner_seat}

    def step(self, action):
        aec = self.aec
        if not aec.started:
            raise RuntimeError("step() called before reset(); call reset() first")
        if aec.game.is_over or self.forfeited is not None:
            raise RuntimeError("step() called after the episode ended; call reset()")
        action = check_action(action, self.aec.num_actions)  # not an action id: raises in every mode
        info: dict[str, Any] = {"learner_seat": self.learner_seat}
        try:
            aec.step(action)
        except IllegalMoveError as error:  # the engine refused the move: nothing has changed
            if self.illegal_action == "raise":
                raise
            lost = self.forfeited = forfeit(error, action, self.learner_seat, self.players, aec.reward_scheme)
            info.update(lost.info())
            return self._obs(), float(lost.rewards[self.learner_seat]), True, False, info
        reward = aec.rewards[aec.possible_agents[self.learner_seat]] + self._advance()
        terminated = aec.game.is_over
        if terminated:
            info.update(scores=aec.game.scores(), winners=aec.game.winners())
        return self._obs(), float(reward), terminated, False, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal-action mask as bool (all False once the game is over or forfeited)."""
        if not self.aec.started:
            raise RuntimeError("action_masks() called before reset(); call reset() first")
        if self.forfeited is not None:
            return np.zeros(self.aec.num_actions, dtype=np.bool_)
        return self.aec.action_mask(self.aec.possible_agents[self.learner_seat]).view(np.bool_)

    def render(self):
        return self.aec.render()


class KardinalVsBots(VsBots):
    """``VsBots`` with ``game="kardinal"`` (the class behind ``kardinal/KardinalVsBots-v0``)."""

    game = "kardinal"


class KardinalKoenigVsBots(VsBots):
    """``VsBots`` with ``game="kardinal_koenig"`` (``kardinal/KardinalKoenigVsBots-v1``)."""

    game = "kardinal_koenig"
