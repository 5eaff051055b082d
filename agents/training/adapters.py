"""Game adapters: everything game-specific that the self-play trainer (:mod:`agents.training.trainer`) needs.

The PPO update, per-seat GAE, the opponent pool, the warm start, logging and checkpoints are shared
code; they talk to a game only through a :class:`GameAdapter`:

===============================  =====================================================================
``rules``, ``env_name``           the rules of the training games, the environment the network is for
``new_game(rng)``                 a new game (Kardinal has no chance and draws nothing from ``rng``;
                                  Kardinal & König shuffles with a seed drawn from ``rng``: chance is
                                  inside the engine)
``eval_game(seed, index)``        the ``index``-th game of an evaluation seeded with ``seed``
``legal(game)`` / ``apply``       the engine's legal moves of the current decision and playing one
``greedy_move(game, rng_py)``     the greedy baseline's move (an engine move)
``prepare(game)``                 the current decision for ``game.current_player``: *only* that
                                  seat's observation and the legal-action mask (``.seat``, ``.mask``)
``policy_step(net, ds, ...)``     one batched forward pass: (stored actions, engine moves, log-probs,
                                  values); a stored action is an index into the decision's mask
``stored_action(d, move)``        the stored action of an engine move (the warm start's targets)
``forward(net, ds, actions)``     training forward pass: (logits, values, mask, actions) of a minibatch
``size(d)``                       a decision's input size (minibatches of similar size: less padding)
``build_net()``                   the network of the config; ``model_config(net)`` what rebuilds it
``layout()``                      the observation/action layout recorded in checkpoints
===============================  =====================================================================

:class:`KardinalAdapter` — crops of the 53 x 53 window around the sites (:mod:`agents.networks.kardinal_net`,
:mod:`agents.networks.ppo_agent`), the CNN :class:`agents.networks.kardinal_net.KardinalNet`, moves as engine codes, the
greedy baseline :func:`agents.baselines.kardinal_greedy.greedy_code`.

:class:`KoenigAdapter` — the flat ego-centric observation of
:class:`kardinal_env.koenig.observation.ObservationEncoder` (the deciding seat's own hand and public
facts only: never another seat's hand or the deck), actions = move ids of the board's move table,
the networks of :mod:`agents.networks.koenig_net` (``mlp`` or ``graph``), the greedy baseline
:func:`agents.baselines.koenig_greedy.koenig_greedy_move`.

Both games share the reward terms of :mod:`agents.rewards` (terminal ``win_loss``/``margin`` on the
final scores, ``score_shaping`` on the change of ``Game.projected_scores`` margin); ``chip_shaping``
is Kardinal-only (K&K has no chips; the config refuses it).

:func:`make_adapter` returns the adapter of a :class:`agents.training.config.TrainConfig`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

__all__ = ["GameAdapter", "KardinalAdapter", "KoenigAdapter", "KoenigDecision", "make_adapter", "EVAL_SEED_STRIDE"]

#: Evaluation game ``i`` of seed ``s`` shuffles with ``s * EVAL_SEED_STRIDE + i`` (K&K).
EVAL_SEED_STRIDE = 100_003


class GameAdapter:
    """The interface (see the module docstring); subclasses implement every method."""

    name = ""
    env_name = ""

    def __init__(self, config):
        self.config = config

    def new_game(self, rng: np.random.Generator):
        raise NotImplementedError

    def eval_game(self, seed: int, index: int):
        raise NotImplementedError

    def legal(self, game) -> list:
        raise NotImplementedError

    def apply(self, game, move) -> None:
        raise NotImplementedError

    def greedy_move(self, game, rng_py):
        raise NotImplementedError

    def prepare(self, game):
        raise NotImplementedError

    def policy_step(self, net, decisions, greedy: bool = False, generator=None):
        raise NotImplementedError

    def stored_action(self, decision, move) -> int:
        raise NotImplementedError

    def forward(self, net, decisions, actions):
        raise NotImplementedError

    def size(self, decision) -> int:
        return 0

    def build_net(self):
        raise NotImplementedError

    def model_config(self, net) -> dict:
        return dict(net.config)

    def layout(self) -> dict:
        raise NotImplementedError


# ---------------------------------------------------------------------- Kardinal
class KardinalAdapter(GameAdapter):
    """Kardinal: crops, the CNN, engine move codes (see the module docstring)."""

    name = "kardinal"
    env_name = "kardinal_v0"

    def __init__(self, config):
        super().__init__(config)
        from agents.baselines.kardinal_greedy import greedy_code
        from kardinal_env.kardinal.actions import ActionCodec
        from kardinal_env.kardinal.engine import Game
        from kardinal_env.kardinal.observation import ObservationEncoder
        from kardinal_env.kardinal.rules import Rules

        self._Game = Game
        self._greedy = greedy_code
        self.rules = Rules(players=config.players, preset=config.preset)
        self.encoder = ObservationEncoder(self.rules)
        self.codec = ActionCodec(self.rules)
        self.margin = config.crop_margin

    def new_game(self, rng):
        return self._Game(self.rules)  # no chance element: nothing is drawn from rng

    def eval_game(self, seed, index):
        return self._Game(self.rules)

    def legal(self, game):
        return game.legal_move_codes()

    def apply(self, game, move):
        game.apply_legal_code(move)

    def greedy_move(self, game, rng_py):
        return self._greedy(game, rng_py)

    def prepare(self, game):
        from agents.networks.ppo_agent import prepare

        return prepare(game, self.encoder, self.codec, self.margin)

    def policy_step(self, net, decisions, greedy=False, generator=None):
        from agents.networks.ppo_agent import policy_step

        crop_a, full_a, logp, values = policy_step(net, decisions, greedy=greedy, generator=generator)
        moves = [self.codec.decode_code(int(full_a[i]), d.seat) for i, d in enumerate(decisions)]
        return crop_a, moves, logp, values

    def stored_action(self, decision, move):
        from agents.networks.kardinal_net import full_to_crop

        return full_to_crop(self.codec.encode_code(move, decision.seat), decision.box, self.codec.window)

    def forward(self, net, decisions, actions):
        from agents.networks.kardinal_net import collate, crop_to_padded

        sp, sc, valid, mask = collate(
            [d.spatial for d in decisions], [d.scalars for d in decisions], [d.mask for d in decisions]
        )
        H, W = sp.shape[2], sp.shape[3]
        acts = torch.tensor(
            [crop_to_padded(a, H, W, d.spatial.shape[1], d.spatial.shape[2]) for d, a in zip(decisions, actions)]
        )
        logits, values = net(sp, sc, valid)
        return logits, values, mask, acts

    def size(self, decision):
        return decision.spatial.shape[1] * decision.spatial.shape[2]

    def build_net(self):
        from agents.networks.kardinal_net import KardinalNet

        cfg = self.config
        return KardinalNet(cfg.channels, cfg.blocks, cfg.hidden)

    def net_from_model_config(self, model_config: dict):
        from agents.networks.kardinal_net import KardinalNet

        return KardinalNet(**model_config)

    def layout(self):
        from agents.networks.checkpoint import current_layout

        return current_layout(self.encoder.window)


# ---------------------------------------------------------------------- Kardinal & König
@dataclass
class KoenigDecision:
    """One K&K decision: the deciding seat's own observation (scaled inside the network), the mask
    over the board's move table and the legal move ids."""

    seat: int
    obs: np.ndarray  # (observation size,) float32
    mask: np.ndarray  # (num_moves,) bool
    legal: list


class KoenigAdapter(GameAdapter):
    """Kardinal & König: flat observation, move ids, ``mlp``/``graph`` networks (module docstring)."""

    name = "kardinal_koenig"
    env_name = "kardinal_koenig_v0"

    def __init__(self, config):
        super().__init__(config)
        from agents.baselines.koenig_greedy import koenig_greedy_move
        from kardinal_env.koenig import Game, Rules
        from kardinal_env.koenig.observation import ObservationEncoder

        self._Game = Game
        self._greedy = koenig_greedy_move
        self.rules = Rules(players=config.players, discard=config.discard)
        self.board = self.rules.compiled
        self.encoder = ObservationEncoder(self.rules)
        self.num_actions = self.board.num_moves

    def new_game(self, rng):
        return self._Game(self.rules, seed=int(rng.integers(2**31)))

    def eval_game(self, seed, index):
        return self._Game(self.rules, seed=seed * EVAL_SEED_STRIDE + index)

    def legal(self, game):
        return game.legal_move_ids()

    def apply(self, game, move):
        game.apply_legal_id(move)

    def greedy_move(self, game, rng_py):
        return self.board.move_index[self._greedy(game, rng_py)]

    def prepare(self, game):
        seat = game.current_player
        ids = list(game.legal_move_ids())
        mask = np.zeros(self.num_actions, dtype=bool)
        mask[ids] = True
        return KoenigDecision(seat, self.encoder.encode(game, seat), mask, ids)

    @torch.no_grad()
    def policy_step(self, net, decisions, greedy=False, generator=None):
        from agents.networks.kardinal_net import MaskedCategorical

        obs = torch.from_numpy(np.stack([d.obs for d in decisions]))
        mask = torch.from_numpy(np.stack([d.mask for d in decisions]))
        logits, values = net(obs)
        dist = MaskedCategorical(logits, mask)
        actions = dist.mode() if greedy else dist.sample(generator)
        logp = dist.log_prob(actions)
        acts = actions.numpy().astype(np.int64)
        return acts, [int(a) for a in acts], logp.numpy(), values.numpy()

    def stored_action(self, decision, move):
        return int(move)

    def forward(self, net, decisions, actions):
        obs = torch.from_numpy(np.stack([d.obs for d in decisions]))
        mask = torch.from_numpy(np.stack([d.mask for d in decisions]))
        logits, values = net(obs)
        return logits, values, mask, torch.as_tensor(np.asarray(actions, dtype=np.int64))

    def build_net(self):
        from agents.networks.koenig_net import build_koenig_net

        cfg = self.config
        return build_koenig_net(cfg.resolved_network(), self.rules, hidden=cfg.hidden, rounds=cfg.rounds)

    def net_from_model_config(self, model_config: dict):
        return net_from_koenig_config(model_config, self.rules)

    def layout(self):
        return koenig_layout(self.rules, self.config.resolved_network())


def koenig_layout(rules, network: str) -> dict:
    """The observation/action layout of a K&K network for ``rules`` (recorded in checkpoints)."""
    from kardinal_env.koenig.observation import ObservationEncoder

    return {
        "env": KoenigAdapter.env_name,
        "observation_size": int(ObservationEncoder(rules).size),
        "num_actions": int(rules.compiled.num_moves),
        "board": rules.compiled.name,
        "network": network,
    }


def net_from_koenig_config(model_config: dict, rules):
    """A K&K network from a checkpoint's ``model_config`` (``{"kind": "mlp", "hidden", ...}`` or
    ``{"kind": "graph", "hidden", "rounds"}``) for ``rules``'s board."""
    from agents.networks.koenig_net import build_koenig_net

    kind = model_config.get("kind")
    if kind == "graph":
        return build_koenig_net("graph", rules, hidden=int(model_config["hidden"]), rounds=int(model_config["rounds"]))
    if kind == "mlp":
        return build_koenig_net("mlp", rules, hidden=int(model_config["hidden"]))
    raise ValueError(f"model_config kind must be 'mlp' or 'graph', got {kind!r}")


def make_adapter(config) -> GameAdapter:
    """The adapter of ``config.game`` (``kardinal`` or ``kardinal_koenig``)."""
    if config.game == "kardinal":
        return KardinalAdapter(config)
    if config.game == "kardinal_koenig":
        return KoenigAdapter(config)
    raise ValueError(f"game must be 'kardinal' or 'kardinal_koenig', got {config.game!r}")
