"""Network-guided tree search (``puct:N:PATH``): AlphaZero-style PUCT over a PPO checkpoint, for every game of the
suite, over the game protocol (:mod:`kardinal_env.core.protocol`).

The network's agent (:class:`agents.networks.ppo_agent.PPOAgent`) gives, in one forward pass per batch,
``policy_value(games)``: per game the deciding seat's legal action ids, their prior and its value. Descents play ids
with ``apply_action``; ``action_to_string`` names the root's moves. N simulations per decision; forced moves (one legal
move) are played inside an edge, never become nodes, and are answered at the root without searching.

**Worlds.** Every descent runs on ``game.determinize(seat, rng)`` (the agent's generator): plain PUCT with perfect
information, else one tree shared by the worlds (as ``ismcts``). A node's moves are the first world's to reach it; a
later world offering unseen moves stops there, its evaluation's prior adds them, its value is backed up like a leaf's.
Selection sees only the moves legal in the descent's world, their priors renormalised.

**Selection.** Where seat ``p`` decides, the child maximising ``Q_p(a) + c_puct * P(a) * sqrt(N) / (1 + N(a))``; an
unvisited child's ``Q`` is the node's own value.

**Leaf values** (per seat, on the training return's scale). ``V_p = v_p + k * m_p`` for the deciding seat ``p``
(``v_p``: the network's value, ``m``: :func:`kardinal_env.core.rewards.projected_margins`, ``k``: the checkpoint's
``score_shaping``); the others get ``V_q = (2 - n - v_p) / (n - 1) + k * m_q`` (``win_loss`` rewards sum to ``2 - n``;
two players: ``V_q = -V_p``). A finished game: :func:`kardinal_env.core.rewards.terminal_rewards` plus ``k`` times the
final margin.

**Playouts at the leaves** (``rollouts=R``, default 0). A new leaf may also be valued by ``R`` playouts drawn from the
agent's generator, with the game's playout policy (``GameAgents.rollout``, else uniform random;
``GameAgents.compiled_playout`` in the core when named: same policy, other draws). With ``z_s`` seat ``s``'s mean
terminal reward the value is ``(1 - w) * (network value) + w * z_s + k * m_s`` (``w``: ``rollout_weight``, default 0.5).

**Move.** The most visited root child (ties: the higher prior, then the later move in the network's order);
``temperature > 0`` samples in proportion to ``visits ** (1 / temperature)``.

**Batches.** Leaves are evaluated ``batch_size`` (8) at a time in one forward pass; each descent adds a virtual loss
(:data:`VIRTUAL_LOSS` for the deciding seat, one visit) along its path until its leaf is backed up; descents reaching
the same new leaf share its evaluation.

**A network's own defaults.** A checkpoint may record its search arguments (``search_defaults``: ``batch_size``,
``c_puct``, ``score_shaping``, ``rollouts``, ``rollout_weight``; ``python scripts/zoo.py search-defaults``);
:meth:`PUCTAgent.from_checkpoint` (and ``puct:N:PATH``) takes them unless told otherwise. Timings: docs/benchmarks.md.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from agents.base import BaseAgent
from agents.registry import game_agents
from agents.search.common import check_count, forced_root, play_out, search_argument_problem, spec_of
from kardinal_env.core import limits
from kardinal_env.core.registry import GameSpec
from kardinal_env.core.rewards import REWARD_SCHEMES, projected_margins, terminal_rewards

__all__ = ["PUCTAgent", "VIRTUAL_LOSS"]

VIRTUAL_LOSS = -1.0  # added to a pending path's values (for the deciding seat) until its leaf is valued
_PENDING = object()  # placeholder child: a leaf that a descent of the current batch is evaluating


class _Node:
    __slots__ = (
        "player",
        "actions",
        "moves",
        "index",
        "prior",
        "child_visits",
        "child_value",
        "children",
        "visits",
        "value",
    )

    def __init__(
        self, player: int | None, actions: np.ndarray, moves: list[str | None], prior: np.ndarray, values: list[float]
    ):
        self.player = player  # None at the end of the game
        self.actions = actions  # the network's action ids of the moves
        self.moves = moves  # their notation (None: not named, in a search whose worlds all agree)
        self.index: dict[str, int] | None = None
        self.prior = prior  # numpy float64, one per move
        n = len(moves)
        self.child_visits = np.zeros(n)
        self.child_value = np.zeros(n)  # sum of the deciding seat's values through each child
        self.children: list[Any] = [None] * n
        self.visits = 0
        self.value = values  # this node's own leaf values, one per seat

    def move_index(self) -> dict[str, int]:
        """Move → position (nodes of a search over several worlds)."""
        if self.index is None:
            self.index = {m: i for i, m in enumerate(self.moves) if m is not None}
        return self.index

    def add_moves(self, actions: np.ndarray, moves: list[str | None], prior: np.ndarray) -> None:
        """Moves a later world offers (with that world's prior), appended."""
        index = self.move_index()
        new = [j for j, m in enumerate(moves) if m is not None and m not in index]
        if not new:
            return
        for j in new:
            index[moves[j]] = len(self.moves)  # type: ignore[index]
            self.moves.append(moves[j])
            self.children.append(None)
        k = len(new)
        self.actions = np.concatenate([self.actions, np.asarray(actions)[new]])
        self.prior = np.concatenate([self.prior, np.asarray(prior, dtype=np.float64)[new]])
        self.child_visits = np.concatenate([self.child_visits, np.zeros(k)])
        self.child_value = np.concatenate([self.child_value, np.zeros(k)])


class PUCTAgent(BaseAgent):
    """PUCT guided by ``evaluator`` (``policy_value(games)``, e.g. a :class:`~agents.networks.ppo_agent.PPOAgent`);
    ``game`` defaults to the first world's registry entry."""

    def __init__(
        self,
        evaluator: Any,
        simulations: int = 64,
        seed: int | None = None,
        c_puct: float = 1.5,
        score_shaping: float = 0.0,
        reward: str = "win_loss",
        temperature: float = 0.0,
        batch_size: int = 8,
        rollouts: int = 0,
        rollout_weight: float = 0.5,
        name: str | None = None,
        game: GameSpec | None = None,
    ):
        super().__init__(seed)
        check_count("puct: simulations", simulations, maximum=limits.SIMULATIONS)
        for key, value in (
            ("c_puct", c_puct),
            ("score_shaping", score_shaping),
            ("batch_size", batch_size),
            ("rollouts", rollouts),
            ("rollout_weight", rollout_weight),
        ):
            problem = search_argument_problem(key, value)
            if problem:
                raise ValueError(f"puct: {problem}")
        if reward not in REWARD_SCHEMES:
            raise ValueError(f"puct: reward must be one of {REWARD_SCHEMES}, got {reward!r}")
        if temperature < 0:
            raise ValueError(f"puct: temperature must be >= 0, got {temperature!r}")
        if not callable(getattr(evaluator, "policy_value", None)):
            raise TypeError(f"puct: the evaluator must offer policy_value(games), got {type(evaluator).__name__}")
        self.evaluator, self.simulations, self.c_puct, self.reward = evaluator, simulations, c_puct, reward
        self.score_shaping, self.temperature, self.batch_size = score_shaping, temperature, batch_size
        self.rollouts, self.rollout_weight = rollouts, float(rollout_weight)
        self.name, self.game = name or f"puct:{simulations}", game
        self._np_rng = np.random.default_rng(seed)
        self._game_class: type | None = None
        self._same_worlds = True
        self._policy: Any = None  # the game's playout policy (None: uniform random moves)
        self._compiled_playout: Any = None  # GameAgents.compiled_playout, when the game names one

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._np_rng = np.random.default_rng(seed)
        if hasattr(self.evaluator, "reset"):
            self.evaluator.reset(seed)

    @classmethod
    def from_checkpoint(cls, path, simulations: int = 64, seed: int | None = None, **kw) -> PUCTAgent:
        """The search over the checkpoint at ``path``; arguments not given: its ``search_defaults``, then its training
        config's ``score_shaping`` and ``reward``, then the constructor's defaults."""
        from agents.networks.ppo_agent import PPOAgent  # imports torch

        evaluator = PPOAgent.from_checkpoint(path, seed=seed)
        for key, value in evaluator.search_defaults.items():
            kw.setdefault(key, value)
        config = getattr(evaluator, "config", None) or {}
        kw.setdefault("score_shaping", float(config.get("score_shaping", 0.0)))
        kw.setdefault("reward", config.get("reward", "win_loss"))
        kw.setdefault("name", f"puct:{simulations}:{path}")
        return cls(evaluator, simulations, seed=seed, **kw)

    def select_move(self, game) -> str:
        forced = forced_root(game)
        if forced is not None:
            return forced[0][0]
        root = self.expand_root(game)
        self.search(game, root, self.simulations)
        visits = root.child_visits
        if self.temperature > 0:
            weights = visits ** (1.0 / self.temperature)
            i = int(self._np_rng.choice(len(visits), p=weights / weights.sum()))
        else:
            i = int(np.lexsort((root.prior, visits))[-1])  # most visits, then highest prior
        move = root.moves[i]
        assert move is not None, "the root's moves are named when it is expanded"
        return move

    def _setup(self, game) -> None:
        """Whether all worlds agree (perfect information, no chance), and the playout policy; once per game class."""
        if type(game) is self._game_class:
            return
        spec = spec_of(self.game, game)
        self._same_worlds = spec.perfect_information and not spec.chance
        if self.rollouts:
            wiring = game_agents(spec)
            self._policy = wiring.load("rollout")
            self._compiled_playout = wiring.load("compiled_playout")
        self._game_class = type(game)

    def expand_root(self, game) -> _Node:
        """The root node of a search from ``game``, evaluated on a world of the deciding seat."""
        return self.expand_roots([game])[0]

    def expand_roots(self, games: list) -> list[_Node]:
        """:meth:`expand_root` of several games in one batched call of the network."""
        worlds = []
        for game in games:
            seat = game.current_player
            world = game.determinize(seat, self.rng) if seat is not None else game.clone()
            self._setup(world)
            worlds.append(world)
        return self._expand_many(worlds, decode=True)

    def search(self, root_game, root: _Node, simulations: int) -> None:
        """Run ``simulations`` from ``root`` (:meth:`expand_root` of ``root_game``, left unmodified) into its counts."""
        self.search_many([(root_game, root, simulations)])

    def search_many(self, searches: list[tuple[Any, _Node, int]]) -> None:
        """Searches ``(root_game, root, simulations)`` in lockstep, each round's new leaves valued in one call."""
        left = [simulations for _, _, simulations in searches]
        while True:
            rounds = []
            for k, (root_game, root, _) in enumerate(searches):
                if left[k] <= 0:
                    continue
                batch = min(self.batch_size, left[k])
                left[k] -= batch
                seat = root_game.current_player
                rounds.append([self._descend(self._world(root_game, seat), root) for _ in range(batch)])
            if not rounds:
                return
            leaves = [d for descents in rounds for d in descents if d[2] is not None]
            evaluated = self._expand_many([g for _, _, g, _ in leaves], decode=not self._same_worlds)
            for (parent, i, _, path), node in zip(leaves, evaluated, strict=True):
                if i is None:  # a world with moves the node had not seen: they join it, its value is backed up
                    parent.add_moves(node.actions, node.moves, node.prior)
                    _back_up(path, node.value)
                else:
                    parent.children[i] = node
            for descents in rounds:
                for parent, i, _, path in descents:
                    if i is not None:  # a new leaf, or a finished game / a leaf this batch evaluated
                        _back_up(path, parent.children[i].value)

    def _world(self, root_game, seat: int):
        world = root_game.determinize(seat, self.rng)
        self._setup(world)
        return world

    def _descend(self, g, root: _Node):
        """A path to a leaf in world ``g`` with virtual losses: ``(node, index, game, path)``, ``game`` the new leaf to
        evaluate (child ``index`` of ``node``; index ``None``: ``node`` itself, whose moves ``game`` extends), or
        ``None`` for a finished game in the tree or a leaf another descent of this batch evaluates."""
        node = root
        path: list[tuple[_Node, int]] = []
        while True:
            available = None
            if not self._same_worlds:
                if g.is_over:  # this world ended where others go on: its result is the leaf's value
                    return node, None, g, path
                available = _available(node, g)
                if available is False:
                    return node, None, g, path
            i = self._select(node, available)
            path.append((node, i))
            node.visits += 1
            node.child_visits[i] += 1
            node.child_value[i] += VIRTUAL_LOSS
            child = node.children[i]
            if child is None:
                node.children[i] = _PENDING
                _play_edge(g, int(node.actions[i]))
                return node, i, g, path
            if child is _PENDING or child.player is None:
                return node, i, None, path
            _play_edge(g, int(node.actions[i]))
            node = child

    def _select(self, node: _Node, available) -> int:
        p = node.player
        assert p is not None, "a finished game is never selected from"
        visits, prior, value = node.child_visits, node.prior, node.child_value
        if available is not None:  # only the moves of this world, their priors renormalised
            visits, value = visits[available], value[available]
            prior = prior[available] / prior[available].sum()
        q = np.where(visits > 0, value / np.maximum(visits, 1), node.value[p])
        u = self.c_puct * prior * math.sqrt(max(node.visits, 1)) / (1.0 + visits)
        best = int(np.argmax(q + u))
        return int(available[best]) if available is not None else best

    def _expand_many(self, games: list, decode: bool) -> list[_Node]:
        """New nodes for ``games``: one forward pass per rule set (finished games: exact values); ``decode`` names every
        move (the root, and every node when worlds may differ)."""
        out: list[Any] = [None] * len(games)
        groups: dict[int, list[int]] = {}
        for j, g in enumerate(games):
            if g.is_over:
                values = self._plus_shaping_potential(g, terminal_rewards(g, self.reward))
                out[j] = _Node(None, np.zeros(0, np.int64), [], np.zeros(0), values)
            else:
                groups.setdefault(id(g.rules), []).append(j)
        for rows in groups.values():
            batch = [games[j] for j in rows]
            for j, g, (legal, prior, v) in zip(rows, batch, self.evaluator.policy_value(batch), strict=True):
                name = g.action_to_string
                moves: list[str | None] = [name(int(a)) for a in legal] if decode else [None] * len(legal)
                out[j] = self._decision_node(g, g.current_player, legal, moves, np.asarray(prior, np.float64), v)
        return out

    def _decision_node(self, g, seat: int, actions, moves: list[str | None], prior: np.ndarray, v: float) -> _Node:
        n = g.num_players
        v = float(v)
        others = (2.0 - n - v) / (n - 1)
        values = [v if s == seat else others for s in range(n)]
        if self.rollouts:
            w = self.rollout_weight
            values = [(1.0 - w) * a + w * z for a, z in zip(values, self._playout_values(g), strict=True)]
        return _Node(seat, np.asarray(actions), moves, prior, self._plus_shaping_potential(g, values))

    def _playout_values(self, g) -> list[float]:
        totals = [0.0] * g.num_players
        for _ in range(self.rollouts):
            end = self._compiled_playout(g, self.rng) if self._compiled_playout is not None else None
            if end is None:
                end = g.clone()
                play_out(end, self._policy, self.rng, None)
            for s, r in enumerate(terminal_rewards(end, self.reward)):
                totals[s] += r
        return [t / self.rollouts for t in totals]

    def _plus_shaping_potential(self, g, values: list[float]) -> list[float]:
        """``values`` plus ``score_shaping`` times each seat's projected margin in ``g``."""
        k = self.score_shaping
        if not k:
            return list(values)
        return [v + k * m for v, m in zip(values, projected_margins(g), strict=True)]


def _available(node: _Node, g) -> Any:
    """Indices of ``node``'s moves legal in ``g`` (``None``: all), or ``False`` when ``g`` offers an unseen move."""
    index = node.move_index()
    found = []
    for m in g.legal_moves():
        i = index.get(m)
        if i is None:
            return False
        found.append(i)
    if len(found) == len(node.moves):
        return None
    return np.array(sorted(found), dtype=np.int64)


def _back_up(path: list[tuple[_Node, int]], values: list[float]) -> None:
    for nd, j in path:
        assert nd.player is not None
        nd.child_value[j] += values[nd.player] - VIRTUAL_LOSS


def _play_edge(g, action: int) -> None:
    """Play ``action``, then every forced move that follows."""
    g.apply_action(action)
    while not g.is_over:
        actions = g.legal_actions()
        if len(actions) != 1:
            return
        g.apply_action(int(actions[0]))
