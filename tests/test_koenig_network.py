"""The Kardinal & König networks: shapes, the action layout the graph policy reads off the board,
and that both can fit a small imitation task (they learn, not just run)."""

from __future__ import annotations

import random

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.baselines.koenig_greedy import koenig_greedy_move  # noqa: E402
from agents.networks.koenig_net import KoenigGraphNet, build_network  # noqa: E402
from kardinal_env.koenig import Game, Rules  # noqa: E402
from kardinal_env.koenig.observation import ObservationEncoder  # noqa: E402


def build_koenig_net(kind, rules, hidden=64):
    return build_network(rules, {"kind": kind, "hidden": hidden, "rounds": 2})


@pytest.mark.parametrize("kind", ["mlp", "graph"])
@pytest.mark.parametrize("players", [3, 5])
def test_shapes(kind, players):
    rules = Rules(players=players)
    net = build_koenig_net(kind, rules)
    enc = ObservationEncoder(rules)
    game = Game(rules, seed=1)
    obs = torch.tensor(np.stack([enc.encode(game, s) for s in range(players)]))
    logits, value = net(obs)
    assert logits.shape == (players, rules.compiled.num_moves)
    assert value.shape == (players,)
    assert torch.isfinite(logits).all() and torch.isfinite(value).all()


def test_graph_policy_reads_a_site_from_that_site():
    """Changing one site's owner changes the logits of that site's own moves more than the other
    sites' (the site block of the layout follows the board's site order)."""
    rules = Rules(players=4)
    torch.manual_seed(0)
    net = KoenigGraphNet(rules, hidden=32, rounds=0)
    enc = ObservationEncoder(rules)
    game = Game(rules, seed=2)
    obs = torch.tensor(enc.encode(game, 0)).unsqueeze(0)
    base, _ = net(obs)
    site = 7
    changed = obs.clone()
    start = enc.segments["site_owner"].start + site * 6
    changed[0, start : start + 6] = torch.tensor([0, 0, 1, 0, 0, 0])
    after, _ = net(changed)
    P = rules.compiled.pay_stride
    diff = (after - base).abs()[0]
    own = diff[site * P : (site + 1) * P].sum()
    others = diff[: rules.compiled.advisor_base].sum() - own
    assert own > 0 and others == 0  # no message passing (rounds=0): only the site itself moves


def test_bad_kind():
    with pytest.raises(ValueError, match="network kind"):
        build_koenig_net("transformer", Rules(players=4))


@pytest.mark.parametrize("kind", ["mlp", "graph"])
def test_both_networks_fit_greedy_moves(kind):
    rules = Rules(players=4)
    enc = ObservationEncoder(rules)
    board = rules.compiled
    rng = random.Random(0)
    xs, masks, actions = [], [], []
    for g in range(3):
        game = Game(rules, seed=g)
        while not game.is_over:
            ids = game.legal_actions()
            move = koenig_greedy_move(game, rng)
            if len(ids) > 1:
                xs.append(enc.encode(game, game.current_player))
                m = np.zeros(board.num_moves, dtype=bool)
                m[ids] = True
                masks.append(m)
                actions.append(board.move_index[move])
            game.play(move)
    x, mask, a = torch.tensor(np.array(xs[:256])), torch.tensor(np.array(masks[:256])), torch.tensor(actions[:256])
    torch.manual_seed(0)
    net = build_koenig_net(kind, rules, hidden=32)
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)

    def loss_now():
        logits, _ = net(x)
        return torch.nn.functional.cross_entropy(logits.masked_fill(~mask, -1e9), a)

    first = loss_now().item()
    for _ in range(60):
        loss = loss_now()
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert loss_now().item() < 0.75 * first  # it learns the greedy moves
