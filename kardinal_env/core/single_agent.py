r"""Single-agent Gymnasium views of both games — the learner plays one seat against fixed opponents.

=================================  ==========================  ====================================
id                                 class                       AEC environment underneath
=================================  ==========================  ====================================
``kardinal/KardinalVsBots-v0``     :class:`KardinalVsBots`     ``kardinal_v0.raw_env``
``kardinal/KardinalKoenigVsBots-   :class:`KardinalKoenig\    ``kardinal_koenig_v0.raw_env``
v0``                               VsBots`
=================================  ==========================  ====================================

``gymnasium.make("kardinal/KardinalVsBots-v0", players=2, learner_seat=0, opponents="greedy")``

Defaults: ``players=4`` (both AEC environments' default), ``learner_seat=0``, ``opponents="random"``.

* Spaces: the same ``Dict(observation, action_mask)`` observation space and ``Discrete`` action
  space as the AEC environment (the learner's ego-centric view), so one network serves both.
* ``action_masks()`` returns the learner's current mask as a bool array (the method sb3-contrib's
  MaskablePPO looks for) without encoding an observation; the mask is in the observation too.
  The id is registered without Gymnasium's ``OrderEnforcing`` and passive-checker wrappers (this
  class checks the call order itself: ``step`` before ``reset`` raises), so
  ``gymnasium.make("kardinal/KardinalVsBots-v0").action_masks()`` works as it is. Through wrappers
  of your own use ``env.get_wrapper_attr("action_masks")()``.
* ``step(action)`` plays the learner's decision, then every opponent decision until the learner
  decides again or the game ends (Kardinal & König's deck draws happen inside). Reward: the
  learner's reward from the AEC environment's scheme (terminal ±1 by default, plus Kardinal's chip
  shaping if enabled). An illegal action raises
  ``IllegalMoveError`` (no silent replacement).
* ``learner_seat``: a seat number, or ``"random"`` to draw the seat from the reset seed.
* ``opponents``: ``"random"`` (uniform legal moves from the env's seeded generator), one policy for
  every other seat, or a list with one per other seat. A policy is an object with
  ``select_move(game) -> str`` (every agent in ``agents/``), a callable ``game -> str``, or an
  agent spec string that ``agents.load_agent`` understands (``"greedy"``, ``"mcts:50"``,
  ``"ppo:PATH"``, ...; loaded once, seeded at every ``reset``).
* Other keyword options are passed to the AEC ``raw_env``.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from kardinal_env import kardinal_koenig_v0, kardinal_v0

__all__ = ["VsBots", "KardinalVsBots", "KardinalKoenigVsBots"]


def _policy(p):
    """An opponent as given, or the agent an agent spec string names (``agents.load_agent``)."""
    if isinstance(p, str) and p != "random":
        try:
            from agents import AgentSpecError, load_agent
        except ImportError:  # pragma: no cover - agents ships in the same distribution
            raise ValueError(f"opponents: {p!r} needs the 'agents' package to load an agent spec") from None
        try:
            return load_agent(p)
        except AgentSpecError as exc:
            raise ValueError(f"opponents: {exc}") from None
    if not (p == "random" or callable(p) or hasattr(p, "select_move")):
        raise ValueError(
            f"opponents: {p!r} is neither 'random', an agent spec string, a callable nor an agent with select_move"
        )
    return p


class VsBots(gym.Env):
    """The learner's seat of an AEC environment of this package, opponents played inside ``step``."""

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}
    #: The AEC ``raw_env`` class (set by the subclasses).
    raw_env: type = kardinal_v0.raw_env

    def __init__(self, learner_seat: int | str = 0, opponents="random", render_mode: str | None = None, **env_kwargs):
        self.aec = type(self).raw_env(render_mode=render_mode, **env_kwargs)
        self.render_mode = render_mode
        players = self.aec.rules.players
        if learner_seat != "random" and learner_seat not in range(players):
            raise ValueError(f"learner_seat must be 0..{players - 1} or 'random', got {learner_seat!r}")
        self.learner_seat_option = learner_seat
        if isinstance(opponents, (list, tuple)):
            if len(opponents) != players - 1:
                raise ValueError(
                    f"opponents: expected {players - 1} policies (one per other seat), got {len(opponents)}"
                )
            self.opponents = list(opponents)
        else:
            self.opponents = [opponents] * (players - 1)
        self.opponents = [_policy(p) for p in self.opponents]
        agent0 = self.aec.possible_agents[0]
        self.observation_space = self.aec.observation_space(agent0)
        self.action_space = self.aec.action_space(agent0)
        self.learner_seat: int = 0 if isinstance(learner_seat, str) else learner_seat

    # ------------------------------------------------------------------
    def _opponent_move(self, seat: int) -> str:
        index = (seat - self.learner_seat - 1) % self.aec.rules.players
        policy = self.opponents[index]
        game = self.aec.game
        if policy == "random":
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
            seat = game.current_player
            aec.step(aec.encode_move(self._opponent_move(seat)))
            reward += aec.rewards[learner]
        return reward

    def _obs(self) -> dict:
        return self.aec.observe(self.aec.possible_agents[self.learner_seat])

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if self.learner_seat_option == "random":
            self.learner_seat = int(self.np_random.integers(self.aec.rules.players))
        for p in self.opponents:
            if hasattr(p, "reset") and p != "random":
                p.reset(None if seed is None else seed + 1)
        self.aec.reset(seed=seed)
        self._advance()
        return self._obs(), {"learner_seat": self.learner_seat}

    def step(self, action):
        aec = self.aec
        learner = aec.possible_agents[self.learner_seat]
        if not aec.started:
            raise RuntimeError("step() called before reset(); call reset() first")
        if aec.game.is_over:
            raise RuntimeError("step() called after the episode ended; call reset()")
        if aec.game.current_player != self.learner_seat:  # pragma: no cover - guarded by _advance
            raise RuntimeError("internal error: the learner is not on turn")
        aec.step(action)  # raw_env checks the type and range (IllegalMoveError, rule "action")
        reward = aec.rewards[learner]
        reward += self._advance()
        terminated = aec.game.is_over
        info = {"learner_seat": self.learner_seat}
        if terminated:
            info.update(scores=aec.game.scores(), winners=aec.game.winners())
        return self._obs(), float(reward), terminated, False, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal-action mask as bool (all False once the game is over)."""
        if not self.aec.started:
            raise RuntimeError("action_masks() called before reset(); call reset() first")
        return self.aec.action_mask(self.aec.possible_agents[self.learner_seat]).view(np.bool_)

    def render(self):
        return self.aec.render()


class KardinalVsBots(VsBots):
    """``kardinal/KardinalVsBots-v0``: the learner's seat of ``kardinal_v0``."""

    raw_env = kardinal_v0.raw_env


class KardinalKoenigVsBots(VsBots):
    """``kardinal/KardinalKoenigVsBots-v0``: the learner's seat of ``kardinal_koenig_v0``."""

    raw_env = kardinal_koenig_v0.raw_env
