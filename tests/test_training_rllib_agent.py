"""agents.networks.rllib_agent.RLlibAgent plays any registered game from an RLModule (here a stub with
the RLModule's inference interface, so neither Ray nor training is needed): the game's own
observation and mask, legal moves only, and a clear refusal of an observation shape the module was
not trained on."""

from __future__ import annotations

import random

import numpy as np
import pytest

torch = pytest.importorskip("torch")
gym = pytest.importorskip("gymnasium")

from agents.networks.rllib_agent import RLlibAgent  # noqa: E402
from kardinal_env.core.registry import get_game  # noqa: E402


class StubModule:
    """The parts of an RLModule that RLlibAgent uses: ``observation_space``, ``eval``,
    ``forward_inference`` (logits prefer the highest action id, masked like the real modules)."""

    def __init__(self, obs_shape, num_actions, spatial_head=False):
        self.observation_space = gym.spaces.Dict(
            {
                "observation": gym.spaces.Box(0.0, 1.0, obs_shape, dtype=np.float32),
                "action_mask": gym.spaces.Box(0, 1, (num_actions,), dtype=np.int8),
            }
        )
        self.spatial_head = spatial_head
        self.seen: list = []

    def eval(self):
        return self

    def forward_inference(self, batch):
        obs, mask = batch["obs"]["observation"], batch["obs"]["action_mask"]
        self.seen.append(tuple(obs.shape))
        logits = torch.arange(mask.shape[-1], dtype=torch.float32)[None].expand(mask.shape[0], -1)
        return {"action_dist_inputs": torch.where(mask.bool(), logits, torch.full_like(logits, -1e9))}


@pytest.mark.parametrize("game_name", ["kardinal", "kardinal_koenig"])
def test_plays_legal_moves_of_any_game(game_name):
    spec = get_game(game_name)
    rules = spec.rules()
    shape = tuple(spec.make_encoder(rules).shape)
    module = StubModule(shape, spec.new_game(rules).num_actions)
    agent = RLlibAgent(module, seed=0)
    game = spec.new_game(rules, seed=3)
    rng = random.Random(0)
    for _ in range(12):
        if game.is_over:
            break
        move = agent.select_move(game)
        legal = game.legal_moves()
        assert move in legal
        assert game.string_to_action(move) == max(game.legal_actions())  # the highest legal logit
        game.play(move if rng.random() < 0.5 else rng.choice(legal))
    assert module.seen and all(s == (1, *shape) for s in module.seen)


def test_refuses_another_observation_shape_unless_fully_convolutional():
    spec = get_game("kardinal")
    rules = spec.rules()
    num_actions = spec.new_game(rules).num_actions
    agent = RLlibAgent(StubModule((72, 9, 9), num_actions), name="rllib:x")  # trained on a 9 x 9 window
    with pytest.raises(ValueError, match=r"rllib:x: this module was trained on observations of shape \(72, 9, 9\)"):
        agent.select_move(spec.new_game(rules))
    conv = RLlibAgent(StubModule((72, 9, 9), num_actions, spatial_head=True))
    assert conv.select_move(spec.new_game(rules)) in spec.new_game(rules).legal_moves()
