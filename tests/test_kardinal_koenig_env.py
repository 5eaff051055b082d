"""``kardinal_koenig_v1``'s own: the board's moves, hidden information, the observation layout,
rendering, pickling and the Gymnasium view (PettingZoo conformance and masks against the engine, for
every game: tests/test_env.py)."""

from __future__ import annotations

import pickle
import random
import re

import gymnasium
import numpy as np
import pytest
from koenig_helpers import hidden_twins, play_common_move

import kardinal_env  # noqa: F401  (registers the ids)
from agents import load_agent
from kardinal_env import IllegalMoveError, kardinal_koenig_v1
from kardinal_env.koenig import PHASES, Game, Rules
from kardinal_env.koenig import IllegalMoveError as KoenigIllegalMoveError
from kardinal_env.koenig.observation import SEAT_SLOTS, ObservationEncoder
from kardinal_env.koenig.text import game_text

# run again on the Python engines (pytest --backend python) and in the core lane of .ci/run on the
# installed wheels (pytest --core-lane); tests/conftest.py
pytestmark = [pytest.mark.backends, pytest.mark.core_lane]


def _random_steps(env, rng, limit=10_000):
    """Play random legal actions; yield before each decision."""
    for _ in range(limit):
        if env.unwrapped.game.is_over:
            return
        yield
        env.step(int(rng.choice(env.unwrapped.legal_actions())))


def test_encode_and_decode_every_move_of_the_board():
    env = kardinal_koenig_v1.raw_env(players=4)
    env.reset(seed=0)
    for action in range(env.num_actions):
        assert env.encode_move(env.decode_action(action)) == action
    with pytest.raises(IllegalMoveError, match="no move on board"):
        env.encode_move("K@XX9/1")
    with pytest.raises(IllegalMoveError, match="outside Discrete"):
        env.decode_action(env.num_actions)


# One deal per observer seat (seed % 4) whose twins stay publicly alike for at least 8 decisions (the
# deal decides how soon they part; with the shared shuffler seeds 2 and 3 part after 4).
@pytest.mark.parametrize("seed", [0, 1, 6, 7])
def test_hidden_information_is_hidden(seed):
    """Games differing only in the other seats' hands and the deck order give the observer the same
    observation, decision after decision, as long as the public history is the same."""
    observer = seed % 4
    encoder = ObservationEncoder(Rules(players=4))
    g1, g2 = hidden_twins(seed, observer)  # the deck below hands, display and 8 more cards reordered
    assert [g1.hand(s) for s in range(4)] != [g2.hand(s) for s in range(4)]
    assert g1.hand(observer) == g2.hand(observer)
    rng = random.Random(seed)
    compared = 0
    while not g1.is_over and g1.display() == g2.display() and g1.deck_size() == g2.deck_size():
        # (a display refill from the differently ordered deck makes the public state differ: stop)
        np.testing.assert_array_equal(encoder.encode(g1, observer), encoder.encode(g2, observer))
        compared += 1
        # stay publicly identical: no deck draws by the observer (it would see different cards)
        if not play_common_move(g1, g2, rng, exclude=("draw:deck",) if g1.current_player == observer else ()):
            break
    assert compared >= 8


def test_observation_layout_and_segments():
    env = kardinal_koenig_v1.raw_env(players=3)
    env.reset(seed=5)
    rng = np.random.default_rng(1)
    encoder = env.encoder
    board = env.board
    S, C, T = board.num_sites, board.num_countries, board.num_types
    assert encoder.size == S * 6 + 2 * C * 5 + C + 4 * T + 5 * 5 + 1 + 3 + 1 + 5 + 5 + 2 + 5 + 3 + 1
    for step, _ in enumerate(_random_steps(env, rng)):
        game = env.game
        for seat in range(3):
            parts = encoder.describe(env.observe(env.possible_agents[seat])["observation"])
            owners = parts["site_owner"].reshape(S, SEAT_SLOTS + 1)
            assert (owners.sum(axis=1) == 1).all()
            for s, owner in enumerate(game.owners()):
                assert owners[s, 0 if owner is None else 1 + (owner - seat) % 3] == 1
            assert list(parts["hand"]) == game.hand_counts(seat)
            assert parts["hand_sizes"][0] == game.hand_size(seat)
            assert (parts["hand_sizes"][3:] == 0).all() and (parts["scores"][3:] == 0).all()
            total = parts["hand"] + parts["display"] + parts["discard_pile"] + parts["unseen"]
            assert total.sum() == len(game.rules.deck_cards)
            assert parts["unseen"].sum() == game.deck_size() + sum(game.hand_size(s) for s in range(3) if s != seat)
            assert parts["own_seat"][seat] == 1 and parts["players"][0] == 1
            assert parts["phase"].sum() == (1 if game.current_player in (seat, None) else 0)
        if step > 60:
            break


def test_pickled_env_continues_the_same_game():
    env = kardinal_koenig_v1.raw_env(players=4)
    env.reset(seed=3)
    rng = np.random.default_rng(2)
    for _ in range(25):
        env.step(int(rng.choice(env.legal_actions())))
    copy = pickle.loads(pickle.dumps(env))
    assert copy.game.history == env.game.history
    for _ in range(400):
        if env.game.is_over:
            break
        action = int(rng.choice(env.legal_actions()))
        env.step(action)
        copy.step(action)
        np.testing.assert_array_equal(
            copy.observe(copy.agent_selection)["observation"], env.observe(env.agent_selection)["observation"]
        )
    assert copy.game.snapshot() == env.game.snapshot()


def test_illegal_actions_name_the_rule():
    env = kardinal_koenig_v1.raw_env(players=4)
    env.reset(seed=0)
    with pytest.raises(KoenigIllegalMoveError) as info:
        env.step(env.board.deck_id)  # drawing before placing or discarding
    assert info.value.rule == "phase"
    with pytest.raises(IllegalMoveError, match="expected an integer"):
        env.step(2.5)
    wrapped = kardinal_koenig_v1.env(players=4)
    wrapped.reset(seed=0)
    agent = wrapped.agent_selection
    wrapped.step(wrapped.unwrapped.board.deck_id)
    assert wrapped.rewards[agent] == -1 and all(wrapped.terminations.values())


def test_rendering():
    env = kardinal_koenig_v1.raw_env(players=4, render_mode="ansi")
    env.reset(seed=7)
    text = env.render()
    game = env.game
    seat = game.current_player
    assert f"hand {game.hand(seat)}" in text
    others = [s for s in range(4) if s != seat]
    assert all(f"seat {s}: " in text and "3 cards" in text for s in others)
    assert "alliances: 1:" in text and "FR France" in text
    picture = kardinal_koenig_v1.raw_env(players=5, render_mode="rgb_array")
    picture.reset(seed=7)
    image = picture.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert len(np.unique(image.reshape(-1, 3), axis=0)) > 10


def _second_phase_game() -> Game:
    game = Game(Rules(players=4), seed=11)
    rng = random.Random(11)
    while game.phase != "second":
        game.play(rng.choice(game.legal_moves()))
    return game


def test_the_picture_does_not_show_the_deciding_seat_s_phase(monkeypatch):
    """The rgb_array picture is public: it names the seat to move but not its phase ("SECOND" would
    tell the other seats that it holds the cards for a second piece; the observation hides it)."""
    from kardinal_env.koenig import render

    game = _second_phase_game()
    drawn: list[str] = []
    original = render.Canvas.text

    def spy(self, x, y, text, *args, **kwargs):
        drawn.append(text)
        return original(self, x, y, text, *args, **kwargs)

    monkeypatch.setattr(render.Canvas, "text", spy)
    render.game_image(game)
    seat = game.current_player
    assert f"SEAT {seat} TO MOVE" in drawn
    phases = [p for p in PHASES if p != "over"]
    assert not [t for t in drawn if any(re.search(rf"\b{p}\b", t, re.IGNORECASE) for p in phases)], drawn


def test_the_text_shows_the_phase_only_to_the_deciding_seat():
    game = _second_phase_game()
    seat = game.current_player
    assert f"seat {seat} to decide (second)" in game_text(game, seat) and "(second)" in game_text(game)
    for other in range(4):
        if other != seat:
            text = game_text(game, other)
            assert f"seat {seat} to decide," in text and "second" not in text


def test_reward_margin():
    env = kardinal_koenig_v1.raw_env(players=3, reward="margin")
    env.reset(seed=4)
    for _ in _random_steps(env, np.random.default_rng(4)):
        pass
    scores = env.game.scores()
    for s, agent in enumerate(env.agents):
        best_other = max(v for i, v in enumerate(scores) if i != s)
        assert env._cumulative_rewards[agent] == pytest.approx(max(-1, min(1, (scores[s] - best_other) / 20)))


def test_gym_view_with_greedy_opponents():
    env = gymnasium.make("kardinal/KardinalKoenigVsBots-v1", players=3, opponents="greedy")
    obs, _ = env.reset(seed=2)
    np.testing.assert_array_equal(env.action_masks(), obs["action_mask"].astype(bool))
    rng = np.random.default_rng(3)
    terminated = False
    while not terminated:
        obs, reward, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
    assert reward in (-1.0, 1.0) and "winners" in info


def test_greedy_plays_legal_moves_and_beats_random():
    wins = 0.0
    games = 12
    for g in range(games):
        game = Game(Rules(players=4), seed=100 + g)
        seat = g % 4
        players = [
            load_agent("greedy", seed=g) if s == seat else load_agent("random", seed=10 * g + s) for s in range(4)
        ]
        while not game.is_over:
            move = players[game.current_player].select_move(game)
            assert move in game.legal_moves()
            game.play(move)
        winners = game.winners()
        wins += 1 / len(winners) if seat in winners else 0
    assert wins / games >= 0.75  # parity is 0.25; measured 1.0 over 40 games


def test_the_old_version_raises_naming_the_new_one():
    """v1 changed how seeds deal (kardinal_env.core.shuffle); v0 refuses with PettingZoo's error."""
    from pettingzoo.utils.deprecated_module import DeprecatedEnv

    from kardinal_env import kardinal_koenig_v0

    for make in (kardinal_koenig_v0.env, kardinal_koenig_v0.raw_env, kardinal_koenig_v0.parallel_env):
        with pytest.raises(DeprecatedEnv, match="kardinal_koenig_v0 is now deprecated, use kardinal_koenig_v1"):
            make(players=4)
    assert kardinal_koenig_v1.raw_env.metadata["name"] == "kardinal_koenig_v1"
