"""Kardinal as a PettingZoo AEC environment: ``kardinal_v0``, the generic
:class:`~kardinal_env.core.generic_env.GameEnv` (whose docstring gives the common rules) with Kardinal's options, chip
shaping and picture.

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

Keyword options: ``players`` (2–4; default 2, the registry's ``default_players``), ``preset``
(``"english"``/``"german"``), ``shared_pool``, ``exhausted_colour``, ``neutral_build_chips``, ``neutral_touch_chips``
(``kardinal_env.kardinal.rules``), ``window`` (odd, default 53), ``reward`` (``"win_loss"`` or ``"margin"``),
``chip_shaping`` (float, default 0), ``render_mode`` (``"human"``, ``"ansi"``, ``"rgb_array"`` or ``None``),
``illegal_action`` (``"raise"``, the default, or ``"lose"``), ``backend`` (``"core"``, ``"python"`` or ``None``:
:mod:`kardinal_env.core.backend`).

**Turns.** ``agent_selection`` follows the engine: the seat that built acts again for its chip choice(s) and its
cardinal decision; seats that cannot build are skipped. Each ``step`` is one decision.

**Observation**: the lossless ego-centric tensor of ``kardinal_env.kardinal.observation`` (channel table there);
``action_mask`` is int8, ones at the selected agent's legal actions, all zeros for other agents and once the game is
over (never build a distribution from it).

**Actions**: the 16 build planes, cardinal plane, four chip actions and "keep the cardinal" of
``kardinal_env.kardinal.actions``. ``raw_env.decode_action(a)`` / ``raw_env.encode_move(move)`` translate to and from
docs/rules.md notation for the selected agent; the decoded mask equals ``set(game.legal_moves())``.

**Window.** ``W = 53`` holds every square any legal game can use (``kardinal_env.kardinal.window``). A smaller odd
``window`` is a different game: the engine forbids moves outside it (rule "window"), so mask and engine still agree.

**Rewards**, credited to the agent whose action earned them: ``reward="win_loss"`` (default): at the end winners +1
(tied winners all +1), all others −1; ``reward="margin"``: at the end ``clip((own score − best other score) / 20, −1,
1)``. ``chip_shaping=s`` adds ``s`` per chip the acting seat takes during play (scoring, compensation and substitute
chips; chips set aside give nothing). No truncation: every game ends.

**Illegal actions** follow :mod:`kardinal_env.core.illegal`: a value that is not an integer of the action space
(``1.5``, ``"3"``, ``True``, ``-1``, ``num_actions``) raises ``IllegalMoveError`` with rule ``"action"`` in every mode,
nothing rounded or clipped; an id the mask forbids raises ``IllegalMoveError`` naming the broken rule (``"rule IV"``,
``"phase"``, ...) under ``"raise"`` and changes nothing, or under ``"lose"`` ends the episode by forfeit (−1 to the
offender, +1 to every other agent, the forfeit's report in every agent's ``infos``). ``env()`` without
``illegal_action`` applies PettingZoo's ``TerminateIllegalWrapper`` rule (−1 to the offender, 0 to the others, the game
ends; :func:`kardinal_env.core.env_utils.classic_env`); our ``OrderEnforcingWrapper`` checks the action space in place
of ``AssertOutOfBoundsWrapper``.

**Buffers.** On a core-backed game (``kardinal_env.kardinal.compiled``) ``observe`` and ``action_mask`` hand out
per-seat arrays the core rewrites in place (copy them to keep them), byte for byte the Python backend's.
``raw_env.action_mask(agent)`` and ``raw_env.legal_actions()`` skip encoding an observation.

**Rendering.** ``"human"`` prints the text board after every step; ``"ansi"`` returns
``kardinal_env.kardinal.text.game_text`` with a legend; ``"rgb_array"`` a ``uint8`` H×W×3 picture
(``kardinal_env.kardinal.render.game_image``).

Version history
* v0: initial release (later changes keep observations, actions and rewards identical, checked by the golden
  playthroughs in ``tests/golden/playthroughs``, and keep the version).
* v0, ``illegal_action`` option (issue 54): ``"lose"`` ends the episode by forfeit; the default ``"raise"`` and
  ``env()``'s classic wrapper behave as before.
* v0, issue 55: the generic ``GameEnv`` on the game protocol's action ids (the same spaces, ids and observations);
  ``players`` defaults to the registry's 2 (it was 4).
"""

from __future__ import annotations

import numpy as np
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from kardinal_env.core.env_base import RENDER_MODES
from kardinal_env.core.env_utils import classic_env
from kardinal_env.core.generic_env import GameEnv
from kardinal_env.core.registry import get_game
from kardinal_env.core.rewards import REWARD_SCHEMES, chip_gain
from kardinal_env.kardinal.rules import Rules
from kardinal_env.kardinal.window import LOSSLESS_WINDOW, check_window

__all__ = ["env", "raw_env", "REWARD_SCHEMES", "RENDER_MODES"]


def env(**kwargs) -> AECEnv:
    """``raw_env`` with the classic wrappers (``kardinal_env.core.env_utils.classic_env``: PettingZoo's
    ``TerminateIllegalWrapper`` unless ``illegal_action`` is given)."""
    return classic_env(raw_env, **kwargs)


class raw_env(GameEnv):
    """The unwrapped Kardinal AEC environment (see the module docstring)."""

    metadata = {**GameEnv.metadata, "name": "kardinal_v0"}
    writes_core_buffers = True  # a core-backed game writes into arrays the env owns (env_base)

    def __init__(
        self,
        players: int | None = None,
        preset: str = "english",
        shared_pool: bool = False,
        exhausted_colour: str | None = None,
        neutral_build_chips: str | None = None,
        neutral_touch_chips: str | None = None,
        window: int = LOSSLESS_WINDOW,
        reward: str = "win_loss",
        chip_shaping: float = 0.0,
        render_mode: str | None = None,
        illegal_action: str = "raise",
        backend: str | None = None,
    ):
        pickled = {k: v for k, v in locals().items() if k not in ("self", "__class__")}  # EzPickle's arguments
        check_window(window)
        rules = Rules(
            players=get_game("kardinal").default_players if players is None else players,
            preset=preset,
            shared_pool=shared_pool,
            exhausted_colour=exhausted_colour,
            neutral_build_chips=neutral_build_chips,
            neutral_touch_chips=neutral_touch_chips,
            window=None if window == LOSSLESS_WINDOW else window,
        )
        super().__init__("kardinal", None, reward, render_mode, illegal_action, rules, backend)
        EzPickle.__init__(self, **pickled)
        self.window = window
        self.chip_shaping = float(chip_shaping)

    def _play(self, action: int, seat: int) -> float | None:
        before = self.game.chips_held(seat)
        self.game.apply_action(action)
        return self.chip_shaping * chip_gain(self.game, seat, before) if self.chip_shaping else None

    def _render_image(self) -> np.ndarray:
        from kardinal_env.kardinal import render

        return render.game_image(self.game, window=self.window)
