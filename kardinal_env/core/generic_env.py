"""An AEC environment for any registered game, built from its registry entry: :class:`GameEnv`.

A game whose :class:`~kardinal_env.core.registry.GameSpec` has no ``env_module`` gets this environment::

    from kardinal_env.core.generic_env import env
    aec = env(game="nim", players=3, pile=10)         # the classic wrappers
    raw = GameEnv(game="nim")                         # unwrapped

* ``game``: a registered game's name or spec; ``players``: a seat count it supports (default ``spec.default_players``);
  its rule options by name, or ``rules=`` a rules object (then neither); every other keyword is an *env option* for the
  observation encoder (one it does not take is a ``ValueError`` naming it and the rule options). ``backend``: ``"core"``
  / ``"python"`` (:mod:`kardinal_env.core.backend`).
* Agents ``player_0 ..``; observation space ``Dict(observation=Box(low, high, encoder.shape, encoder.dtype),
  action_mask=Box(0, 1, (num_actions,), int8))``, ``low``/``high`` the encoder's if it has them, else the dtype's range
  (±inf for floats); action space ``Discrete(num_actions)``, the game protocol's ids.
* ``step(action)`` plays ``game.apply_action(action)``; an illegal action as
  :class:`~kardinal_env.core.env_base.TurnBasedEnv` says (``env()`` without ``illegal_action``: PettingZoo's
  ``TerminateIllegalWrapper`` rule, :func:`kardinal_env.core.env_utils.classic_env`).
* Rewards: ``reward="win_loss"`` or ``"margin"`` at the end (:mod:`kardinal_env.core.rewards`), 0 before; ``infos``
  carry ``scores`` and ``winners`` at the end.
* A new game per ``reset(seed)``; ``reset(seed=s)`` repeats the deal.
* Render modes (:func:`generic_render_modes`): ``"ansi"`` / ``"human"`` (``spec.game_text``), ``"rgb_array"`` when the
  game has an ``image`` renderer.
* :meth:`GameEnv.encode_move` / :meth:`GameEnv.decode_action`: notation ⇄ action id for the selected agent.
* A game's own environment module (``kardinal_v0``, ``kardinal_koenig_v1``) subclasses :class:`GameEnv`.

Version history: v0 — first version; the ``illegal_action`` option, actions through the protocol's ids and ``rules=``
came later without a new version (same spaces, ids and default behaviour).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from kardinal_env.core.env_base import RENDER_MODES, TurnBasedEnv
from kardinal_env.core.env_utils import classic_env
from kardinal_env.core.illegal import check_illegal_action
from kardinal_env.core.registry import GameSpec, get_game
from kardinal_env.core.rewards import check_scheme

__all__ = ["GameEnv", "env", "raw_env", "generic_render_modes"]


def env(**kwargs: Any) -> AECEnv:
    """:class:`GameEnv` with the classic wrappers (:func:`kardinal_env.core.env_utils.classic_env`)."""
    return classic_env(GameEnv, **kwargs)


def generic_render_modes(spec: GameSpec) -> list[str]:
    """``human``, ``ansi`` and, when ``spec`` has an ``image`` renderer, ``rgb_array``."""
    return [m for m in RENDER_MODES if m != "rgb_array" or spec.renderers.image is not None]


def observation_bounds(encoder: Any, dtype: np.dtype) -> tuple[Any, Any]:
    """The encoder's ``low``/``high`` when it has them (``encoder`` may be ``None``), else ``dtype``'s range."""
    if hasattr(encoder, "low") and hasattr(encoder, "high"):
        return encoder.low, encoder.high
    if np.issubdtype(dtype, np.integer):
        return np.iinfo(dtype).min, np.iinfo(dtype).max
    if dtype == np.bool_:
        return 0, 1
    return -np.inf, np.inf


class GameEnv(TurnBasedEnv):
    """The AEC environment of any registered game (see the module docstring)."""

    def __init__(
        self,
        game: str | GameSpec,
        players: int | None = None,
        reward: str = "win_loss",
        render_mode: str | None = None,
        illegal_action: str = "raise",
        rules: Any = None,
        backend: str | None = None,
        **options: Any,
    ):
        spec = get_game(game)
        EzPickle.__init__(self, spec.name, players, reward, render_mode, illegal_action, rules, backend, **options)
        self.backend = backend
        AECEnv.__init__(self)
        self.game_spec = spec
        modes = generic_render_modes(spec)
        self.metadata = {**type(self).metadata, "name": spec.env_name, "render_modes": modes}
        if render_mode is not None and render_mode not in modes:
            raise ValueError(f"render_mode for {spec.name} must be one of {modes} or None, got {render_mode!r}")
        rule_names = {o.name for o in spec.rule_options}
        rule_options = {k: v for k, v in options.items() if k in rule_names}
        self.env_options = {k: v for k, v in options.items() if k not in rule_names}
        if rules is None:
            rules = spec.rules(players, **rule_options)
        elif rule_options or players not in (None, rules.players):
            raise TypeError("GameEnv: pass either rules or players and rule options, not both")
        self.rules = rules
        try:
            self.encoder = spec.make_encoder(rules, **self.env_options)
        except TypeError as exc:
            if not self.env_options:
                raise
            raise ValueError(
                f"{spec.name}: option(s) {sorted(self.env_options)} are neither rule options "
                f"({sorted(rule_names) or 'none'}) nor options of its observation encoder ({exc})"
            ) from None
        dtype: Any = np.dtype(getattr(self.encoder, "dtype", np.float32))  # Any: gymnasium's stubs want scalar types
        box = spaces.Box(*observation_bounds(self.encoder, dtype), tuple(self.encoder.shape), dtype=dtype)
        num_actions = int(self._new_game(random.Random(0)).num_actions)
        self.reward_scheme = check_scheme(reward)
        self.illegal_action = check_illegal_action(illegal_action)
        self.render_mode = render_mode
        self._setup(rules.players, box, num_actions)

    def _new_game(self, chance: random.Random) -> Any:
        seed = chance.getrandbits(64) if self.game_spec.chance else None
        return self.game_spec.new_game(self.rules, seed=seed, backend=self.backend)

    def _compute_legal_actions(self) -> np.ndarray:
        return np.asarray(self.game.legal_actions(), dtype=np.intp)

    def _play(self, action: int, seat: int) -> float | None:
        self.game.apply_action(action)
        return None

    def _render_text(self) -> str:
        return self.game_spec.game_text(self.game, None)

    def _render_image(self) -> np.ndarray:
        return self.game_spec.renderer("image")(self.game)

    def decode_action(self, action: int) -> str:
        return self.game.action_to_string(action)

    def encode_move(self, move: str) -> int:
        return int(self.game.string_to_action(move))


raw_env = GameEnv
