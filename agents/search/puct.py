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

**Batches.** Leaves are evaluated ``batch_size`` at a time (default 8) in one forward pass: each
descent of a batch adds a virtual loss (``VIRTUAL_LOSS`` = -1 for the deciding seat, one visit) along
its path so that the next descents spread out, and the loss is taken back when the leaf's values are
backed up; two descents that reach the same new leaf share its evaluation. ``batch_size=1`` is the
sequential algorithm. On one CPU core with the long presets' network, a simulation costs about 2 ms
at ``batch_size=8`` (about 4 ms at 1), so ``puct:32`` takes about 0.1 s per decision.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from agents.base import BaseAgent
from agents.networks.kardinal_net import collate
from agents.networks.ppo_agent import crop_indices, load_checkpoint, prepare
from agents.rewards import REWARD_SCHEMES, projected_margins, terminal_rewards
from kardinal_env.kardinal.actions import ActionCodec
from kardinal_env.kardinal.notation import format_move
from kardinal_env.kardinal.observation import ObservationEncoder

__all__ = ["PUCTAgent"]

VIRTUAL_LOSS = -1.0  # added to a pending path's values (for the deciding seat) until its leaf is valued
_PENDING = object()  # placeholder child: a leaf that a descent of the current batch is evaluating


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

    def __init__(
        self,
        net,
        simulations: int = 64,
        seed: int | None = None,
        c_puct: float = 1.5,
        score_shaping: float = 0.0,
        reward: str = "win_loss",
        temperature: float = 0.0,
        batch_size: int = 8,
        window: int = 53,
        margin: int = 1,
        name: str | None = None,
    ):
        super().__init__(seed)
        if not isinstance(simulations, int) or isinstance(simulations, bool) or simulations < 1:
            raise ValueError(f"puct: simulations must be a positive integer, got {simulations!r}")
        if c_puct <= 0:
            raise ValueError(f"puct: c_puct must be positive, got {c_puct!r}")
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"puct: batch_size must be a positive integer, got {batch_size!r}")
        if reward not in REWARD_SCHEMES:
            raise ValueError(f"puct: reward must be one of {REWARD_SCHEMES}, got {reward!r}")
        if temperature < 0:
            raise ValueError(f"puct: temperature must be >= 0, got {temperature!r}")
        self.net = net.eval()
        self.simulations = simulations
        self.c_puct = c_puct
        self.score_shaping = score_shaping
        self.reward = reward
        self.temperature = temperature
        self.batch_size = batch_size
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
        net, config = load_checkpoint(path)
        kw.setdefault("margin", int(config.get("crop_margin", 1)))
        kw.setdefault("score_shaping", float(config.get("score_shaping", 0.0)))
        kw.setdefault("reward", config.get("reward", "win_loss"))
        kw.setdefault("name", f"puct:{simulations}:{path}")
        return cls(net, simulations, seed=seed, **kw)

    # ------------------------------------------------------------------ public
    def select_move(self, game) -> str:
        return format_move(self.select_code(game))

    def select_code(self, game) -> tuple:
        codes = game.legal_move_codes()
        if not codes:
            raise ValueError("no legal move: the game is over")
        if len(codes) == 1:
            return codes[0]
        root = self.expand_root(game)
        self.search(game, root, self.simulations)
        visits = root.child_visits
        if self.temperature > 0:
            weights = visits ** (1.0 / self.temperature)
            i = int(self._np_rng.choice(len(visits), p=weights / weights.sum()))
        else:
            i = int(np.lexsort((root.prior, visits))[-1])  # most visits, then highest prior
        return root.codes[i]

    # ------------------------------------------------------------------ search
    def search(self, root_game, root, simulations: int) -> None:
        """Run ``simulations`` simulations from ``root`` (made by :meth:`expand_root` for ``root_game``),
        ``batch_size`` leaves per forward pass; ``root`` then holds the visit counts and values. Public
        so that tests and analysis tools can look at the tree; ``root_game`` is never modified."""
        left = simulations
        while left > 0:
            batch = min(self.batch_size, left)
            left -= batch
            descents = [self._descend(root_game, root) for _ in range(batch)]
            new = [(parent, i, g) for parent, i, g, path in descents if g is not None]
            for (parent, i, _), node in zip(new, self._expand_many([g for _, _, g in new]), strict=True):
                parent.children[i] = node
            for parent, i, _, path in descents:
                values = parent.children[i].value
                for nd, j in path:
                    nd.child_value[j] += values[nd.player] - VIRTUAL_LOSS

    def _descend(self, root_game, root):
        """Select a path from ``root`` to a leaf, adding a virtual loss along it so that the next
        descents of the same batch spread out. Returns ``(parent, index, game, path)``: ``game`` is
        the position of a new leaf to evaluate, or ``None`` when the leaf is a finished game already
        in the tree or a new leaf another descent of this batch is evaluating."""
        g = root_game.clone()
        node = root
        path = []
        while True:
            i = self._select(node)
            path.append((node, i))
            node.visits += 1
            node.child_visits[i] += 1
            node.child_value[i] += VIRTUAL_LOSS
            child = node.children[i]
            if child is None:
                node.children[i] = _PENDING
                _play_edge(g, node.codes[i])
                return node, i, g, path
            if child is _PENDING or child.player is None:
                return node, i, None, path
            _play_edge(g, node.codes[i])
            node = child

    def _select(self, node) -> int:
        p = node.player
        visits = node.child_visits
        q = np.where(visits > 0, node.child_value / np.maximum(visits, 1), node.value[p])
        u = self.c_puct * node.prior * math.sqrt(max(node.visits, 1)) / (1.0 + visits)
        return int(np.argmax(q + u))

    @torch.no_grad()
    def _expand_many(self, games) -> list[_Node]:
        """New nodes for ``games``: priors and values from one batched forward pass (finished games
        get their exact values and no forward pass)."""
        nodes: list = [None] * len(games)
        decisions = []
        for j, g in enumerate(games):
            if g.is_over:
                nodes[j] = self._terminal_node(g)
            else:
                decisions.append((j, g, prepare(g, self.encoder, self.codec, self.margin)))
        if decisions:
            sp, sc, valid = collate([d.spatial for _, _, d in decisions], [d.scalars for _, _, d in decisions])
            logits, value = self.net(sp, sc, valid)
            logits = logits.numpy().astype(np.float64)
            padded = (sp.shape[2], sp.shape[3])
            for row, (j, g, d) in enumerate(decisions):
                legal_logits = logits[row, crop_indices(d.legal, d.box, d.window, padded)]
                prior = np.exp(legal_logits - legal_logits.max())
                nodes[j] = self._decision_node(g, d.seat, prior / prior.sum(), float(value[row]))
        return nodes

    def expand_root(self, game) -> _Node:
        """The root node of a search from ``game``: the network's prior over the legal moves and its
        value for every seat (encoder and codec follow ``game.rules``). Public, see :meth:`search`."""
        if self._rules is not game.rules:
            self._rules = game.rules
            self.encoder = ObservationEncoder(game.rules, self.window)
            self.codec = ActionCodec(game.rules, self.window)
        return self._expand_many([game])[0]

    def _terminal_node(self, g) -> _Node:
        final = terminal_rewards(g, g.rules, self.reward)
        return _Node(None, [], np.zeros(0), self._plus_shaping_potential(g, final))

    def _decision_node(self, g, seat: int, prior: np.ndarray, v: float) -> _Node:
        n = g.rules.players
        others = (2.0 - n - v) / (n - 1)
        values = [v if s == seat else others for s in range(n)]
        return _Node(seat, g.legal_move_codes(), prior, self._plus_shaping_potential(g, values))

    def _plus_shaping_potential(self, g, values: list[float]) -> list[float]:
        """``values`` plus ``score_shaping`` times each seat's projected margin in ``g``."""
        k = self.score_shaping
        if not k:
            return list(values)
        return [v + k * m for v, m in zip(values, projected_margins(g, g.rules), strict=True)]


def _play_edge(g, code) -> None:
    """Play ``code`` and then every forced move that follows (a decision with one legal move)."""
    g.apply_legal_code(code)  # codes come from the engine's own legal list
    while not g.is_over:
        codes = g.legal_move_codes()
        if len(codes) != 1:
            return
        g.apply_legal_code(codes[0])
