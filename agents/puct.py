"""Network-guided tree search (``puct:N:PATH``): AlphaZero-style PUCT over a PPO checkpoint.

The trained network supplies both halves of the search: its masked policy is the prior over the
legal moves of every node, its value evaluates the leaves; no rollouts. Search runs on
``game.clone()``; the real game is never touched. N simulations per decision; forced moves (a single
legal move) are played inside an edge and never become nodes, and a decision with one legal move is
answered without searching.

**Selection.** At a node where seat ``p`` decides, the child maximising
``Q_p(a) + c_puct * P(a) * sqrt(N) / (1 + N(a))`` (``N``: the node's visits, ``N(a)``: the child's,
``P``: the prior). An unvisited child's ``Q`` is the node's own value for ``p`` (first-play urgency
at the parent's value).

**Leaf values** (per seat, on the scale of the training return). For a new node where seat ``p``
decides, one forward pass gives the prior and ``v_p``; the value of the position for ``p`` is
``V_p = v_p + k * m_p`` where ``m`` are :func:`agents.rewards.projected_margins` and ``k`` is the
checkpoint's ``score_shaping`` (the network's value is the return *still to come*; adding the shaping
potential makes values of different positions comparable). The network only values positions for
the seat that decides, so the other seats get ``V_q = (2 - n - v_p) / (n - 1) + k * m_q``: with one
winner the ``win_loss`` terminal rewards sum to ``2 - n``, so the others share what ``p`` is not
expected to get (for two players this is exactly ``V_q = -V_p``). At the end of the game the values
are exact: terminal reward plus ``k`` times the final margin.

**Move.** The most visited root child (ties: the higher prior). ``temperature > 0`` samples the root
move in proportion to ``visits ** (1 / temperature)`` with the agent's seeded generator instead.

The network runs on one crop per leaf (:func:`agents.ppo_agent.prepare`); one simulation costs about
one forward pass of batch size one, so ``puct:64`` is roughly 64 times slower than ``ppo:PATH``.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from kardinal_env.notation import format_move

from .base import BaseAgent
from .network import collate
from .ppo_agent import crop_indices, net_from_checkpoint, prepare
from .rewards import projected_margins, terminal_rewards

__all__ = ["PUCTAgent"]


class _Node:
    __slots__ = ("player", "codes", "prior", "child_visits", "child_value", "children", "visits", "value")

    def __init__(self, player, codes, prior, values):
        self.player = player  # None at the end of the game
        self.codes = codes
        self.prior = prior  # numpy float64, one per code
        n = len(codes)
        self.child_visits = np.zeros(n)
        self.child_value = np.zeros(n)  # sum of the deciding seat's values through each child
        self.children = [None] * n
        self.visits = 0
        self.value = values  # this node's own leaf values, one per seat


class PUCTAgent(BaseAgent):
    """PUCT search guided by a policy/value network (see the module docstring)."""

    def __init__(self, net, simulations: int = 64, seed: int | None = None, c_puct: float = 1.5,
                 score_shaping: float = 0.0, reward: str = "win_loss", temperature: float = 0.0,
                 window: int = 53, margin: int = 1, name: str | None = None):
        super().__init__(seed)
        if not isinstance(simulations, int) or isinstance(simulations, bool) or simulations < 1:
            raise ValueError(f"puct: simulations must be a positive integer, got {simulations!r}")
        if c_puct <= 0:
            raise ValueError(f"puct: c_puct must be positive, got {c_puct!r}")
        if temperature < 0:
            raise ValueError(f"puct: temperature must be >= 0, got {temperature!r}")
        self.net = net.eval()
        self.simulations = simulations
        self.c_puct = c_puct
        self.score_shaping = score_shaping
        self.reward = reward
        self.temperature = temperature
        self.window = window
        self.margin = margin
        self.name = name or f"puct:{simulations}"
        self._rules = None
        self._np_rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._np_rng = np.random.default_rng(seed)

    @classmethod
    def from_checkpoint(cls, path, simulations: int = 64, seed: int | None = None, **kw) -> PUCTAgent:
        ckpt = torch.load(path, weights_only=True, map_location="cpu")
        config = ckpt.get("config", {})
        kw.setdefault("margin", int(config.get("crop_margin", 1)))
        kw.setdefault("score_shaping", float(config.get("score_shaping", 0.0)))
        kw.setdefault("reward", config.get("reward", "win_loss"))
        kw.setdefault("name", f"puct:{simulations}:{path}")
        return cls(net_from_checkpoint(ckpt), simulations, seed=seed, **kw)

    # ------------------------------------------------------------------ public
    def select_move(self, game) -> str:
        return format_move(self.select_code(game))

    def select_code(self, game) -> tuple:
        codes = game.legal_move_codes()
        if not codes:
            raise ValueError("no legal move: the game is over")
        if len(codes) == 1:
            return codes[0]
        if self._rules is not game.rules:
            from kardinal_env.actions import ActionCodec
            from kardinal_env.observation import ObservationEncoder

            self._rules = game.rules
            self.encoder = ObservationEncoder(game.rules, self.window)
            self.codec = ActionCodec(game.rules, self.window)
        root = self._expand(game)
        for _ in range(self.simulations):
            self._simulate(game, root)
        visits = root.child_visits
        if self.temperature > 0:
            weights = visits ** (1.0 / self.temperature)
            i = int(self._np_rng.choice(len(visits), p=weights / weights.sum()))
        else:
            i = int(np.lexsort((root.prior, visits))[-1])  # most visits, then highest prior
        return root.codes[i]

    # ------------------------------------------------------------------ search
    def _simulate(self, root_game, root):
        g = root_game.clone()
        node = root
        path = []
        while True:
            i = self._select(node)
            path.append((node, i))
            _play_edge(g, node.codes[i])
            child = node.children[i]
            if child is None:
                child = node.children[i] = self._expand(g)
                break
            node = child
            if node.player is None:
                break
        values = child.value
        for nd, i in path:
            nd.visits += 1
            nd.child_visits[i] += 1
            nd.child_value[i] += values[nd.player]

    def _select(self, node) -> int:
        p = node.player
        visits = node.child_visits
        q = np.where(visits > 0, node.child_value / np.maximum(visits, 1), node.value[p])
        u = self.c_puct * node.prior * math.sqrt(max(node.visits, 1)) / (1.0 + visits)
        return int(np.argmax(q + u))

    @torch.no_grad()
    def _expand(self, g) -> _Node:
        rules = g.rules
        n = rules.players
        k = self.score_shaping
        margins = projected_margins(g, rules) if k else [0.0] * n
        if g.is_over:
            final = terminal_rewards(g, rules, self.reward)
            return _Node(None, [], np.zeros(0), [final[s] + k * margins[s] for s in range(n)])
        d = prepare(g, self.encoder, self.codec, self.margin)
        sp, sc, valid = collate([d.spatial], [d.scalars])
        logits, value = self.net(sp, sc, valid)
        legal_logits = logits[0].numpy().astype(np.float64)[crop_indices(d.legal, d.box, d.window)]
        prior = np.exp(legal_logits - legal_logits.max())
        prior /= prior.sum()
        p = d.seat
        v = float(value[0])
        others = (2.0 - n - v) / (n - 1)
        values = [(v if s == p else others) + k * margins[s] for s in range(n)]
        return _Node(p, g.legal_move_codes(), prior, values)


def _play_edge(g, code) -> None:
    """Play ``code`` and then every forced move that follows (a decision with one legal move)."""
    g._apply(code)  # codes come from the engine's own legal list
    while not g.is_over:
        codes = g.legal_move_codes()
        if len(codes) != 1:
            return
        g._apply(codes[0])
