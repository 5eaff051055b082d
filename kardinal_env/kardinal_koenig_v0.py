"""Kardinal & König (Web of Power) as a PettingZoo AEC environment: ``kardinal_koenig_v0``.

===================  ==================================================================
Import               ``from kardinal_env import kardinal_koenig_v0``
Creation             ``kardinal_koenig_v0.env(players=4)`` or
                     ``pettingzoo.make("aec", "kardinal/kardinal-koenig-v0", players=4)``
Agents               ``player_0 .. player_{n-1}`` (``n = players``, 3..5)
Action space         ``Discrete(A)``: every move the board allows (391 on the default board)
Observation space    ``Dict(observation=Box(0, 255, (L,), float32),
                     action_mask=Box(0, 1, (A,), int8))`` (``L = 494`` on the default board)
Rewards              terminal ±1 by default (see below)
===================  ==================================================================

Keyword options: ``players`` (3–5), ``discard`` (``"one"``: exactly one card, the printed rule;
``"any"``: one to three, one decision each), ``board`` (``None`` for the packaged default board —
a reconstruction, see ``docs/rules-koenig.md`` — a board file path, or a board dict), ``reward``
(``"win_loss"`` or ``"margin"``), ``render_mode`` (``"human"``, ``"ansi"``, ``"rgb_array"`` or
``None``).

**Turns and chance.** ``agent_selection`` follows the engine: the seat on turn decides its first
piece (or a discard), the optional second piece (``end`` to stop), further discards under
``discard="any"``, and each card it draws. Deck draws, display refills, the interim scoring and
the reshuffle happen inside ``step``; ``reset(seed=s)`` fixes every shuffle of the game (without a
seed, the shuffles follow the environment's own generator, seeded by the last seed given). A seat
without cards misses its turn and is never selected.

**Observation.** The ego-centric ``float32`` vector of ``kardinal_env.koenig.observation``
(segment table there): slot 0 is the observer, 5 seat slots whatever the player count, so the
shape depends only on the board. It holds the observer's own hand and only public facts about
the others (hand sizes, pieces left, scores, the board, the display, the deck size, the discard
pile): hidden information stays hidden. ``action_mask`` has ones at the legal actions of the
selected agent, all zeros for every other agent and once the game is over.

**Actions.** The board's move table (``kardinal_env.koenig.board.Board``), ``P = T + 1`` payments
per target (the single card naming the target's country, then a pair of each type):

==============================  ================================  ==========================
slice                           move                              default board
==============================  ================================  ==========================
``[0, S·P)``                    ``K@{site}/{pay}``                0–323
``[S·P, S·P + C·P)``            ``A@{country}/{pay}``             324–377
``end_id``                      ``end``                           378
``discard_base + i``            ``discard:{t}`` (type index i)    379–383
``draw_base + i``               ``draw:{t}``                      384–388
``deck_id``                     ``draw:deck``                     389
==============================  ================================  ==========================

(390 actions: ids 0..389; the table in ``Board`` is the reference.) ``decode_action(a)`` and
``encode_move(move)`` translate; at every decision the decoded mask equals
``game.legal_moves()``.

**Rewards.** At the end only. ``reward="win_loss"`` (default): +1 to every winner (tied winners
all get +1), −1 to the others. ``reward="margin"``: ``clip((own − best other score) / 20, −1, 1)``.
No truncation: every game ends.

**Illegal actions.** ``raw_env.step`` raises ``kardinal_env.koenig.IllegalMoveError`` naming the
broken rule (``"payment"``, ``"advisor limit"``, ...); an action that is not an integer of the
action space raises ``kardinal_env.IllegalMoveError`` with rule ``"action"``. ``env()`` adds the
classic wrappers (``kardinal_env.env_utils.wrap_classic``): an in-range masked action gives the
offender −1 and ends the game.

**Rendering.** ``"ansi"``: the map as text (countries with their sites and owners, seals with
advisors, the observer's hand — the selected agent's — display, deck, scores); ``"human"`` prints
it after every step; ``"rgb_array"``: a ``uint8`` picture of the map drawn from the board's
layout (sites coloured by owner, roads, numbered alliance links, seals with advisor counts).

Version history
* v0: initial release.
"""

from __future__ import annotations

import random

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from .env_utils import check_action, wrap_classic
from .errors import IllegalMoveError
from .koenig import Game, Rules
from .koenig.observation import ObservationEncoder
from .rewards import REWARD_SCHEMES, check_scheme, terminal_rewards

__all__ = ["env", "raw_env", "REWARD_SCHEMES", "RENDER_MODES"]

RENDER_MODES = ("human", "ansi", "rgb_array")


def env(**kwargs) -> AECEnv:
    """``raw_env`` with the classic wrappers (``kardinal_env.env_utils.wrap_classic``)."""
    return wrap_classic(raw_env(**kwargs))


class raw_env(AECEnv, EzPickle):
    """The unwrapped Kardinal & König AEC environment (see the module docstring)."""

    metadata = {
        "name": "kardinal_koenig_v0",
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        players: int = 4,
        discard: str = "one",
        board: object = None,
        reward: str = "win_loss",
        render_mode: str | None = None,
    ):
        EzPickle.__init__(self, players, discard, board, reward, render_mode)
        super().__init__()
        check_scheme(reward)
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {list(RENDER_MODES)} or None, got {render_mode!r}")
        self.rules = Rules(players=players, discard=discard, board=board)
        self.board = self.rules.compiled
        self.reward_scheme = reward
        self.render_mode = render_mode
        self.encoder = ObservationEncoder(self.rules)
        self.num_actions = self.board.num_moves
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0, 255, self.encoder.shape, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (self.num_actions,), dtype=np.int8),
            }
        )
        act_space: spaces.Discrete = spaces.Discrete(self.num_actions)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._game: Game | None = None
        self._seeds = random.Random()
        self._legal_cache: tuple[int, np.ndarray, frozenset] | None = None

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
        """Constructor arguments (EzPickle) plus the game so far (hidden cards and shuffles included)."""
        state = EzPickle.__getstate__(self)
        state["seeds"] = self._seeds.getstate()
        if self._game is not None:
            state["game"] = self._game
            state["aec"] = {k: getattr(self, k) for k in self._AEC_FIELDS}
            state["action_spaces"] = self.action_spaces
        return state

    def __setstate__(self, state):
        EzPickle.__setstate__(self, state)
        self._seeds.setstate(state["seeds"])
        if "game" in state:
            self._game = state["game"]
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
            self._seeds.seed(seed)
            for i, agent in enumerate(self.possible_agents):
                self.action_spaces[agent].seed(seed + i)
        self._game = Game(self.rules, seed=self._seeds.getrandbits(64))
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict] = {a: {} for a in self.agents}
        self._legal_cache = None
        self.agent_selection = self.possible_agents[self._game.current_player]  # type: ignore[index]

    def observe(self, agent):
        seat = self.agent_name_mapping[agent]
        return {"observation": self.encoder.encode(self.game, seat), "action_mask": self.action_mask(agent)}

    def _legal(self) -> tuple[np.ndarray, frozenset]:
        game = self.game
        cache = self._legal_cache
        count = game.move_count
        if cache is None or cache[0] != count:
            ids = game.legal_move_ids()
            cache = self._legal_cache = (count, np.array(ids, dtype=np.intp), frozenset(ids))
        return cache[1], cache[2]

    def legal_actions(self) -> np.ndarray:
        """Legal actions of the selected agent (move ids, the engine's order); empty once over."""
        return self._legal()[0]

    def action_mask(self, agent: str | None = None) -> np.ndarray:
        """The int8 action mask of ``agent`` (default: the selected agent) without an observation."""
        mask = np.zeros(self.num_actions, dtype=np.int8)
        seat = self.agent_name_mapping[agent or self.agent_selection]
        if seat == self.game.current_player:
            mask[self._legal()[0]] = 1
        return mask

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        action = check_action(action, self.num_actions)
        if action in self._legal()[1]:
            game.apply_legal_id(action)
        else:
            game.play_id(action)  # raises IllegalMoveError naming the broken rule
            raise AssertionError("unreachable: an illegal action was accepted")  # pragma: no cover
        self._cumulative_rewards[agent] = 0.0
        if game.is_over:
            for a, r in zip(self.agents, terminal_rewards(game, self.reward_scheme), strict=True):
                self.rewards[a] = r
            self.terminations = {a: True for a in self.agents}
            self.infos = {a: {"scores": game.scores(), "winners": game.winners()} for a in self.agents}
            self._accumulate_rewards()
        else:
            self.agent_selection = self.possible_agents[game.current_player]  # type: ignore[index]
        if self.render_mode == "human":
            self.render()

    # ------------------------------------------------------------------ codec
    def decode_action(self, action: int) -> str:
        """Notation of ``action`` (the same for every agent: the move table is not ego-centric)."""
        return self.board.moves[check_action(action, self.num_actions)]

    def encode_move(self, move: str) -> int:
        """Action of a move string; IllegalMoveError (rule ``"malformed move"``) for an unknown one."""
        action = self.board.move_index.get(move) if isinstance(move, str) else None
        if action is None:
            raise IllegalMoveError(
                f"malformed move: {move!r} is no move on board {self.board.name!r}", "malformed move", move
            )
        return action

    # ------------------------------------------------------------------ rendering
    def render(self):
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self._game is None:
            raise RuntimeError("call reset() before render()")
        from .koenig import render

        seat = self._game.current_player
        if self.render_mode == "human":
            print(render.map_text(self._game, seat), flush=True)
            return None
        if self.render_mode == "ansi":
            return render.map_text(self._game, seat)
        return render.map_image(self._game)

    def close(self) -> None:
        pass
