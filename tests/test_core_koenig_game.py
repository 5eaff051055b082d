"""The core-backed Kardinal & König :class:`~kardinal_env.koenig.core_game.CoreGame` against the Python
reference engine.

``Game(rules, seed)`` is a ``CoreGame`` when the compiled core is used; these tests play seeded random
games on both (``Game.reference(rules, seed)`` is always the Python engine) and compare the whole public
API at every decision: turn state, cards, board, scores, legal moves as ids and strings, ``live_view``,
what each seat knows (``deck_takes``, ``decision_log``, ``SeatKnowledge``), observations, records,
``clone`` and pickling; at the end scores, winners and finishing order. Determinized worlds are dealt
the same from the same ``rng``. Illegal input raises the same error with the same message.
``kardinal_koenig_v1`` on both backends hands out the same observations, masks and rewards. The backend
choice of ``Game(...)`` is checked with and without the core.

Skipped without the core unless ``KARDINAL_REQUIRE_CORE=1`` (scripts/test.sh), except the backend test
that needs no core.
"""

from __future__ import annotations

import copy
import pickle
import random

import numpy as np
import pytest
from helpers import kardinal_core_or_skip
from koenig_helpers import small_board

from kardinal_env import kardinal_koenig_v1
from kardinal_env.core.errors import IllegalMoveError
from kardinal_env.core.registry import game_of, get_game
from kardinal_env.koenig import Game, Rules, compiled
from kardinal_env.koenig.core_game import CoreGame
from kardinal_env.koenig.engine import DeckError
from kardinal_env.koenig.knowledge import SeatKnowledge
from kardinal_env.koenig.observation import ObservationEncoder


@pytest.fixture
def core(monkeypatch):
    module = kardinal_core_or_skip()
    monkeypatch.delenv(compiled.BACKEND_VARIABLE, raising=False)
    if not hasattr(module, "KoenigGame"):
        pytest.fail("kardinal_core is built but has no KoenigGame: rebuild it (bash scripts/setup.sh)")
    return module


VARIANTS = [
    Rules(players=3),
    Rules(players=4),
    Rules(players=5, discard="any"),
    Rules(players=4, discard="any", board=small_board()),
]


def _state(game, encoder: ObservationEncoder) -> dict:
    n = game.num_players
    over = game.is_over
    return {
        "turn": (game.current_player, game.phase, game.is_over, game.move_count, repr(game)),
        "turn_detail": (game.turn_country, game.pieces_this_turn, game.cards_this_turn, game.missed_turns),
        "deck": (
            game.runouts,
            game.last_round,
            game.deck_size(),
            game.initial_deck,
            game.reshuffle_order,
            game.reshuffle_plan,
        ),
        "cards": (
            [game.hand(s) for s in range(n)],
            [game.hand_counts(s) for s in range(n)],
            [game.hand_size(s) for s in range(n)],
            [list(game.hand_counts_view(s)) for s in range(n)],
            game.display(),
            game.discard_pile(),
        ),
        "board": (
            game.owners(),
            [game.owner(site) for site in game.board.site_ids],
            game.cloister_counts(),
            game.advisor_counts(),
            [game.pieces_left(s) for s in range(n)],
        ),
        "scores": (game.scores(), game.interim_scores(), game.final_breakdown(), game.scoring_now()),
        "projected": game.projected_scores(),
        "moves": (list(game.legal_actions()), game.legal_moves(), game.history),
        "live_view": tuple(game.live_view()),
        "seen": ([game.deck_takes(s) for s in range(n)], game.decision_log()),
        "knowledge": None if over else [SeatKnowledge(game, s).to_dict() for s in range(n)],
        "observations": [encoder.encode(game, s).tobytes() for s in range(n)],
        "record": game.to_record(),
        "snapshot": game.snapshot(),
        "end": (game.winners(), game.finishing_order()) if over else None,
    }


def _assert_same(py, cc, encoder: ObservationEncoder, where: str) -> None:
    expected, got = _state(py, encoder), _state(cc, encoder)
    for key in expected:
        assert got[key] == expected[key], f"{where}: {key} differs"


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: f"{r.players}p-{r.discard}-{r.compiled.name}")
def test_core_game_follows_the_python_engine(core, rules):
    for seed in range(3):
        py = Game.reference(rules, seed=seed)
        cc = Game(rules, seed=seed)
        assert type(cc) is CoreGame and cc.compiled and isinstance(cc, Game)
        assert type(py) is Game and not py.compiled
        encoder = ObservationEncoder(rules)
        rng = random.Random(seed)
        step = 0
        while True:
            if step % 7 == 0 or py.is_over:
                _assert_same(py, cc, encoder, f"{rules} seed {seed} move {step}")
            if py.is_over:
                break
            if step % 29 == 5:  # a clone and a pickled copy go on as the game does
                twin, thawed = cc.clone(), pickle.loads(pickle.dumps(cc))
                assert type(twin) is CoreGame and type(thawed) is CoreGame
                assert twin.snapshot() == cc.snapshot() == thawed.snapshot()
                assert copy.deepcopy(cc).snapshot() == cc.snapshot()
            moves = py.legal_actions()
            assert cc.legal_actions() == moves
            m = rng.choice(moves)
            if step % 3 == 0:
                py.play(py.board.moves[m])
                cc.play(cc.board.moves[m])
            else:
                py.apply_action(m)
                cc.apply_action(m)
            if step % 29 == 5:  # the copies are a move behind until they play it too
                assert twin.move_count == thawed.move_count == cc.move_count - 1
                twin.apply_action(m)
                thawed.apply_action(m)
                assert twin.snapshot() == cc.snapshot() == thawed.snapshot()
            step += 1
        assert cc.scores() == py.scores() and cc.winners() == py.winners()


def test_records_replay_on_the_core_backed_game(core):
    for i, rules in enumerate(VARIANTS):
        py = Game.reference(rules, seed=40 + i)
        rng = random.Random(i)
        while not py.is_over:
            py.apply_action(rng.choice(py.legal_actions()))
            if py.move_count in (10, 200):  # in progress too
                back = Game.from_record(py.to_record())
                assert type(back) is CoreGame and back.snapshot() == py.snapshot()
        record = py.to_record()
        back = Game.from_record(record)
        assert type(back) is CoreGame
        assert py.reshuffle_plan is None and back.reshuffle_plan == record["reshuffle"] is not None
        assert back.snapshot() == py.snapshot() and back.to_record() == py.to_record()
        assert get_game("kardinal_koenig").new_game(rules).compiled
        assert game_of(back).name == "kardinal_koenig"


def test_worlds_are_dealt_as_the_python_engine_deals_them(core):
    """determinize / with_hidden on the core-backed game: the same worlds for the same rng (Python
    worlds, which forget the hidden chance history as the Python engine's do)."""
    for seed, rules in enumerate(VARIANTS):
        py = Game.reference(rules, seed=seed)
        cc = Game(rules, seed=seed)
        rng = random.Random(seed)
        while not py.is_over:
            if py.move_count % 23 == 11:
                seat = py.current_player
                for observer in {seat, (seat + 1) % py.num_players}:
                    r1, r2 = random.Random(py.move_count), random.Random(py.move_count)
                    w1, w2 = py.determinize(observer, r1), cc.determinize(observer, r2)
                    assert w2.snapshot() == w1.snapshot() and r1.getstate() == r2.getstate()
                    assert w2.legal_actions() == w1.legal_actions()
                    assert w2.hand(observer) == cc.hand(observer)
                    with pytest.raises(RuntimeError, match="determinized world"):
                        w2.to_record()
                    w1.apply_action(w1.legal_actions()[0])
                    w2.apply_action(w2.legal_actions()[0])
                    assert w2.snapshot() == w1.snapshot()
                hands = {s: py.hand(s) for s in range(py.num_players)}
                deck = py.snapshot()["deck"]
                assert cc.with_hidden(hands, deck, 7).snapshot() == py.with_hidden(hands, deck, 7).snapshot()
                with pytest.raises(DeckError) as expected:
                    py.with_hidden({seat: []}, deck)
                with pytest.raises(DeckError) as got:
                    cc.with_hidden({seat: []}, deck)
                assert str(got.value) == str(expected.value)
            m = rng.choice(py.legal_actions())
            py.apply_action(m)
            cc.apply_action(m)


def test_illegal_moves_name_the_rule_as_the_python_engine(core):
    rules = Rules(players=4, discard="any")
    py = Game.reference(rules, seed=3)
    cc = Game(rules, seed=3)
    names = list(rules.compiled.moves)
    rng = random.Random(3)
    checked = 0
    while not py.is_over:
        if py.move_count % 17 == 0:
            legal = set(py.legal_actions())
            for m in rng.sample(range(len(names)), 40) + [-1, len(names), "x"]:
                if m in legal:
                    continue
                with pytest.raises(IllegalMoveError) as expected:
                    py.apply_action(m)
                with pytest.raises(IllegalMoveError) as got:
                    cc.apply_action(m)
                assert (got.value.rule, str(got.value)) == (expected.value.rule, str(expected.value))
                move = names[m] if isinstance(m, int) and 0 <= m < len(names) else "K@nowhere/1"
                with pytest.raises(IllegalMoveError) as expected:
                    py.play(move)
                with pytest.raises(IllegalMoveError) as got:
                    cc.play(move)
                assert (got.value.rule, str(got.value)) == (expected.value.rule, str(expected.value))
                checked += 1
            assert cc.snapshot() == py.snapshot()  # a refused move changes nothing
        m = rng.choice(py.legal_actions())
        py.apply_action(m)
        cc.apply_action(m)
    with pytest.raises(IllegalMoveError, match="game over"):
        cc.play("end")
    assert checked > 100


def test_backend_variable_chooses_the_game(core, monkeypatch):
    rules = Rules(players=3)
    assert type(Game(rules, seed=1)) is CoreGame
    monkeypatch.setenv(compiled.BACKEND_VARIABLE, "python")
    assert type(Game(rules, seed=1)) is Game
    assert type(Game.reference(rules, seed=1)) is Game
    with pytest.raises(RuntimeError, match="KARDINAL_ENV_BACKEND=python"):
        CoreGame(rules, seed=1)
    monkeypatch.setenv(compiled.BACKEND_VARIABLE, "core")
    assert type(Game(rules, seed=1)) is CoreGame


def test_python_backend_plays_on_the_python_engine(monkeypatch):
    monkeypatch.setenv(compiled.BACKEND_VARIABLE, "python")
    game = Game(Rules(players=3), seed=2)
    assert type(game) is Game and not game.compiled
    env = kardinal_koenig_v1.env(players=3)
    env.reset(seed=1)
    assert type(env.unwrapped.game) is Game


@pytest.mark.parametrize("players,discard", [(3, "one"), (4, "any"), (5, "one")])
def test_env_on_the_core_matches_the_python_backend(core, monkeypatch, players, discard):
    def run(backend: str | None) -> list:
        if backend is None:
            monkeypatch.delenv(compiled.BACKEND_VARIABLE, raising=False)
        else:
            monkeypatch.setenv(compiled.BACKEND_VARIABLE, backend)
        env = kardinal_koenig_v1.env(players=players, discard=discard)
        env.reset(seed=11)
        assert env.unwrapped.game.compiled == (backend is None)
        rng = random.Random(players)
        out = []
        for agent in env.agent_iter(max_iter=400):
            obs, reward, term, trunc, _ = env.last()
            out.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, term, trunc))
            if term or trunc:
                env.step(None)
            else:
                env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        return out

    python, core_run = run("python"), run(None)
    assert len(core_run) == len(python) > 50
    assert core_run == python
