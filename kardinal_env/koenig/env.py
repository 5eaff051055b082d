"""Kardinal & König (Web of Power) as a PettingZoo AEC environment: ``kardinal_koenig_v1``, the generic
:class:`~kardinal_env.core.generic_env.GameEnv` (whose docstring gives the common rules) with this game's options.

===================  ==================================================================
Import               ``from kardinal_env import kardinal_koenig_v1``
Creation             ``kardinal_koenig_v1.env(players=4)`` or
                     ``pettingzoo.make("aec", "kardinal/kardinal-koenig-v1", players=4)``
Agents               ``player_0 .. player_{n-1}`` (``n = players``, 3..5)
Action space         ``Discrete(A)``: every move the board allows (390 on the default board)
Observation space    ``Dict(observation=Box(0, 255, (L,), float32),
                     action_mask=Box(0, 1, (A,), int8))`` (``L = 494`` on the default board)
Rewards              terminal ±1 by default (see below)
===================  ==================================================================

Keyword options: ``players`` (3–5), ``discard`` (``"one"``: exactly one card, the printed rule; ``"any"``: one to
three, one decision each), ``board`` (``None`` for the packaged default board — a reconstruction, see
``docs/rules-koenig.md`` — a board file path, or a board dict), ``reward`` (``"win_loss"`` or ``"margin"``),
``render_mode`` (``"human"``, ``"ansi"``, ``"rgb_array"`` or ``None``), ``illegal_action`` (``"raise"``, the default,
or ``"lose"``; below), ``backend`` (``"core"``, ``"python"`` or ``None``: :mod:`kardinal_env.core.backend`).

**Turns and chance.** ``agent_selection`` follows the engine: the seat on turn decides its first piece (or a discard),
the optional second piece (``end`` stops), further discards under ``discard="any"``, and each card it draws. Deck
draws, refills, the interim scoring and the reshuffle happen inside ``step``; ``reset(seed=s)`` fixes every shuffle
(without a seed, the env's generator, seeded by the last seed given, deals). A seat without cards misses its turn and
is never selected.

**Observation.** The ego-centric ``float32`` vector of ``kardinal_env.koenig.observation`` (segment table there; its
shape depends only on the board): the observer's own hand and only public facts about the others. ``action_mask`` has
ones at the selected agent's legal actions, all zeros for every other agent and once the game is over.

**Buffers.** On a core-backed game (``kardinal_env.koenig.compiled``) ``observe`` and ``action_mask`` hand out per-seat
arrays the core rewrites in place: they hold that seat's values until its next call; copy them to keep them. The values
are byte for byte the Python backend's (``KARDINAL_ENV_BACKEND=python``).

**Actions.** The board's move table (``kardinal_env.koenig.board.Board``), as the game protocol's ids;
``decode_action(a)`` and ``encode_move(move)`` translate; the decoded mask equals ``game.legal_moves()`` at every
decision. ``raw_env.action_mask(agent)`` and ``raw_env.legal_actions()`` skip encoding an observation.

**Rewards.** At the end only. ``reward="win_loss"`` (default): +1 to every winner (tied winners all get +1), −1 to the
others. ``reward="margin"``: ``clip((own − best other score) / 20, −1, 1)``. No truncation: every game ends.

**Illegal actions** follow :mod:`kardinal_env.core.illegal`: an action that is not an integer of the action space
raises ``kardinal_env.IllegalMoveError`` with rule ``"action"`` in every mode; an id the mask forbids raises
``kardinal_env.koenig.IllegalMoveError`` naming the broken rule (``"payment"``, ``"advisor limit"``, ...) under
``"raise"`` (the default) and changes nothing, or under ``"lose"`` ends the episode by forfeit (no move is played, no
card is drawn; −1 to the offender, +1 to every other agent, the forfeit's report in every agent's ``infos``). ``env()``
without ``illegal_action`` applies PettingZoo's ``TerminateIllegalWrapper`` rule (−1 to the offender, 0 to the others,
the game ends; :func:`kardinal_env.core.env_utils.classic_env`).

**Rendering.** ``"ansi"``: the map as text (:mod:`kardinal_env.koenig.text`, the selected agent's hand only);
``"human"`` prints it after every step; ``"rgb_array"``: :func:`kardinal_env.koenig.render.game_image`.

Version history
* v1, issue 55: the environment is the generic ``GameEnv`` on the game protocol's action ids (the same spaces, ids,
  observations and seeds).
* v1, ``illegal_action`` option (issue 54): ``"lose"`` ends the episode by forfeit; the default ``"raise"`` and
  ``env()``'s classic wrapper behave as before, so the version is kept.
* v1: seeded games deal with the shared shuffler (:mod:`kardinal_env.core.shuffle`, the same deal on the compiled
  core), so ``reset(seed=...)`` gives other games than v0 did; observations, actions and rewards are unchanged
  (checkpoints trained on v0 load for v1). ``kardinal_env.kardinal_koenig_v0`` now raises an error naming v1.
* v0: initial release.
"""

from __future__ import annotations

from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from kardinal_env.core.env_base import RENDER_MODES
from kardinal_env.core.env_utils import classic_env
from kardinal_env.core.generic_env import GameEnv
from kardinal_env.core.rewards import REWARD_SCHEMES
from kardinal_env.koenig.rules import Rules

__all__ = ["env", "raw_env", "REWARD_SCHEMES", "RENDER_MODES"]


def env(**kwargs) -> AECEnv:
    """``raw_env`` with the classic wrappers (``kardinal_env.core.env_utils.classic_env``: PettingZoo's
    ``TerminateIllegalWrapper`` unless ``illegal_action`` is given)."""
    return classic_env(raw_env, **kwargs)


class raw_env(GameEnv):
    """The unwrapped Kardinal & König AEC environment (module docstring): the generic ``GameEnv``."""

    metadata = {**GameEnv.metadata, "name": "kardinal_koenig_v1", "previous_names": ("kardinal_koenig_v0",)}
    writes_core_buffers = True  # a core-backed game writes into arrays the env owns (env_base)

    def __init__(
        self,
        players: int = 4,
        discard: str = "one",
        board: object = None,
        reward: str = "win_loss",
        render_mode: str | None = None,
        illegal_action: str = "raise",
        backend: str | None = None,
    ):
        rules = Rules(players=players, discard=discard, board=board)
        super().__init__(
            "kardinal_koenig",
            reward=reward,
            render_mode=render_mode,
            illegal_action=illegal_action,
            rules=rules,
            backend=backend,
        )
        EzPickle.__init__(self, players, discard, board, reward, render_mode, illegal_action, backend)
        self.board = rules.compiled

    def _render_text(self) -> str:
        from kardinal_env.koenig.text import game_text

        return game_text(self.game, self.game.current_player)  # the deciding seat's hand, no other
