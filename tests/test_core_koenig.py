"""The compiled core's Kardinal & König engine (``kardinal_core.KoenigGame``, cpp/src/koenig/engine.hpp) in
lockstep with the Python engine (kardinal_env.koenig.Game, the reference).

Seeded random games in every variant (3, 4 and 5 players, ``discard`` one and any, the packaged board,
the small test board and an odd board: card digits that are not 0..T-1, a type naming two countries, a
type naming none, branching roads): both engines are built from the same seed and must deal the same
deck; at every decision the ordered legal move ids, the whole state (``snapshot``: hands, display,
deck, pile, owners, advisors, supplies, scores, run-outs, turn, history, missed turns, reshuffle
order, winners), the projected scores and the scoring breakdown agree, and at the end the scores,
winners and finishing order. Records written by one engine replay on the other. Illegal moves raise
the same ``IllegalMoveError`` (rule and message); bad input through the bindings (wrong types,
out-of-range ids, malformed boards and decks) raises a Python exception and never crashes (a fuzz in
a subprocess). The shared shuffler draws the same in C++ as in Python. The default run plays 1,200
games; ``-m slow`` plays 12,000 more.

Skipped (with the reason) when ``kardinal_core`` is not importable, unless ``KARDINAL_REQUIRE_CORE=1``:
then they fail. The backend switch without the core: tests/test_backend_switch.py.
"""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap

import pytest
from helpers import kardinal_core_or_skip, lockstep_games
from koenig_helpers import small_board

from agents.search import koenig_compiled
from kardinal_env.core.errors import IllegalMoveError, RecordError
from kardinal_env.core.shuffle import ShuffleRng, seed_state
from kardinal_env.koenig import Game, Rules, compiled
from kardinal_env.koenig.core_game import CoreGame, board_args
from kardinal_env.koenig.engine import DeckError
from kardinal_env.koenig.knowledge import SeatKnowledge

ODD_BOARD = {
    "format": "kardinal-koenig-board/1",
    "name": "odd",
    "countries": [
        {"id": "A", "name": "Aland", "sites": ["A1", "A2", "A3", "A4", "A5"]},
        {"id": "B", "name": "Bland", "sites": ["B1", "B2", "B3"]},
        {"id": "C", "name": "Cland", "sites": ["C1", "C2"]},
        {"id": "D", "name": "Dland", "sites": ["D1"]},
    ],
    "cards": [
        {"type": 2, "countries": ["A"], "count": 7},
        {"type": 5, "countries": ["B", "D"], "count": 7},
        {"type": 7, "countries": ["C"], "count": 5},
        {"type": 9, "countries": [], "count": 6},
    ],
    "roads": [
        ["A1", "A2"],
        ["A2", "A3"],
        ["A3", "A4"],
        ["A2", "A5"],
        ["A5", "B1"],
        ["B1", "B2"],
        ["B2", "B3"],
        ["B1", "C1"],
        ["C1", "C2"],
        ["C2", "D1"],
        ["A4", "B3"],
    ],
    "alliances": [["A", "B"], ["B", "C"], ["C", "D"]],
}


def _variants() -> list[Rules]:
    out = []
    for board in (None, small_board(), ODD_BOARD):
        for players in (3, 4, 5):
            for discard in ("one", "any"):
                out.append(Rules(players=players, discard=discard, board=board))
    return out


VARIANTS = _variants()


@pytest.fixture
def core():
    module = kardinal_core_or_skip()
    if not hasattr(module, "KoenigGame"):
        pytest.fail("kardinal_core is built but has no KoenigGame: rebuild it (bash scripts/setup.sh)")
    return module


def _check_state(cc, py, where: str) -> None:
    assert cc.legal_move_ids() == py.legal_actions(), f"{where}: legal ids differ"
    assert cc.snapshot() == py.snapshot(), f"{where}: state differs"
    assert (cc.current_player, cc.phase, cc.is_over, cc.move_count) == (
        py.current_player,
        py.phase,
        py.is_over,
        py.move_count,
    ), where
    assert cc.projected_scores() == py.projected_scores(), f"{where}: projected scores differ"


def _lockstep(module, rules: Rules, seed: int) -> int:
    """One seeded random game on both engines (both shuffling from ``seed``), compared at every
    decision; its length."""
    rng = random.Random(seed)
    py = Game.reference(rules, seed=seed)
    cc = compiled.core_game(rules, seed, module=module)
    assert cc.initial_deck == py.initial_deck, f"{rules} seed {seed}: the deals differ"
    checked_clone = False
    while True:
        where = f"{rules} seed {seed} move {py.move_count}"
        ids = py.legal_actions()
        assert cc.legal_move_ids() == ids and cc.num_legal_moves() == len(ids), f"{where}: legal ids differ"
        if py.move_count % 7 == 0 or py.is_over or py.phase == "over":
            _check_state(cc, py, where)
            assert cc.scoring_now() == py.scoring_now(), f"{where}: scoring differs"
        if py.is_over:
            break
        move = rng.choice(ids)
        if not checked_clone and py.move_count >= 20:  # a clone is independent of its original
            checked_clone = True
            twin = cc.clone()
            twin.play_id(move)
            assert cc.legal_move_ids() == ids and twin.move_count == cc.move_count + 1
        if rng.random() < 0.1:  # an illegal id: the same error on both, nothing changes
            bad = rng.randrange(rules.compiled.num_moves)
            if bad not in ids:
                with pytest.raises(IllegalMoveError) as expected:
                    py.apply_action(bad)
                with pytest.raises(IllegalMoveError) as got:
                    cc.play_id(bad)
                assert (got.value.rule, str(got.value), got.value.move) == (
                    expected.value.rule,
                    str(expected.value),
                    expected.value.move,
                ), where
        how = rng.random()
        if how < 0.4:
            py.apply_action(move)
            cc.play_id(move)
        elif how < 0.7:
            py.apply_action(move)
            cc.play_index(ids.index(move))
        else:
            name = rules.compiled.moves[move]
            py.play(name)
            cc.play(name)
    _check_state(cc, py, f"{rules} seed {seed} end")
    assert cc.scores() == py.scores()
    assert cc.winners() == py.winners()
    assert cc.finishing_order() == py.finishing_order()
    assert cc.final_breakdown() == py.final_breakdown() and cc.interim_scores() == py.interim_scores()
    assert cc.missed_turns == py.missed_turns and cc.history == py.history
    assert cc.legal_move_ids() == [] and cc.current_player is None
    return py.move_count


def _run(module, games: int, seed0: int) -> None:
    lockstep_games(_lockstep, module, VARIANTS, games, seed0, min_length=10)


def test_lockstep_random_games_every_variant(core):
    _run(core, 1200, 0)


@pytest.mark.slow
def test_lockstep_thousands_of_random_games(core):
    _run(core, 12_000, 100_000)


def test_every_variant_is_covered():
    assert {(r.players, r.discard, r.compiled.name) for r in VARIANTS} == {
        (p, d, b) for p in (3, 4, 5) for d in ("one", "any") for b in ("default", "small", "odd")
    }


# ---------------------------------------------------------------- the shared shuffler


def test_the_shuffler_is_the_same_in_cpp(core):
    seeds: list = [0, 1, 2, 41, -1, -(2**63), 2**64 - 1, 2**64 + 5, 2**70 + 3, True, "", "a", "kardinal", "é∂"]
    seeds += [random.Random(s).getrandbits(64) for s in range(200)]
    for seed in seeds:
        assert core.koenig_seed_state(seed) == seed_state(seed), seed
        rng = ShuffleRng(seed)
        assert core.koenig_draws(seed, 8) == [rng.next() for _ in range(8)], seed
        for size in (0, 1, 2, 5, 70, 97):
            items = list(range(size))
            ShuffleRng(seed).shuffle(items)
            assert core.koenig_shuffle(seed, size) == items, (seed, size)
        for weights in ([1], [3, 0, 5, 2], [0, 7], [4, 6], [2**31, 2**31 - 1]):
            rng = ShuffleRng(seed)
            assert core.koenig_weighted(seed, weights, 20) == [rng.weighted(weights) for _ in range(20)], seed
        for bits in (1, 8, 33, 64):
            rng = ShuffleRng(seed)
            assert core.koenig_getrandbits(seed, bits, 5) == [rng.getrandbits(bits) for _ in range(5)], seed
    for bad in (1.5, b"x", [1]):
        with pytest.raises(TypeError):
            core.koenig_shuffle(bad, 3)
    for weights in ([], [0, 0], [-1, 2], [2**32]):
        with pytest.raises(ValueError):
            core.koenig_weighted(1, weights, 1)


def test_equal_seeds_deal_equal_decks(core):
    for rules in VARIANTS:
        for seed in (0, 7, "x", 2**64 + 9):
            assert (
                compiled.core_game(rules, seed, module=core).initial_deck
                == Game.reference(rules, seed=seed).initial_deck
            )


# ---------------------------------------------------------------- records


def _random_python_game(rules: Rules, seed: int, moves: int | None = None) -> Game:
    game = Game.reference(rules, seed=seed)
    rng = random.Random(seed)
    while not game.is_over and (moves is None or game.move_count < moves):
        game.apply_action(rng.choice(game.legal_actions()))
    return game


def test_records_written_by_one_engine_replay_on_the_other(core, monkeypatch):
    for i, rules in enumerate(VARIANTS):
        py = _random_python_game(rules, 500 + i)
        replayed = CoreGame.from_record(py.to_record())
        assert replayed.compiled and replayed.snapshot() == py.snapshot() and replayed.winners() == py.winners()
        cc = CoreGame(rules, 900 + i)
        rng = random.Random(i)
        while not cc.is_over:
            cc.apply_action(rng.choice(cc.legal_actions()))
        record = cc.to_record()
        with monkeypatch.context() as patch:  # the Python engine's from_record (Game(...) may be core-backed)
            patch.setenv(compiled.BACKEND_VARIABLE, "python")
            back = Game.from_record(record)
        assert not back.compiled
        assert back.snapshot() == cc.snapshot() and back.to_record() == record


def test_records_in_progress_and_positions(core):
    rules = Rules(players=4)
    for moves in (0, 5, 60, 150):
        py = _random_python_game(rules, 3, moves)
        cc = CoreGame.from_record(py.to_record())
        assert cc.snapshot() == py.snapshot() and cc.legal_actions() == py.legal_actions()
        assert compiled.core_position(py, core).snapshot() == py.snapshot()
        assert cc.to_record() == py.to_record()


def test_bad_records_are_refused_like_the_python_engine(core, monkeypatch):
    record = _random_python_game(Rules(players=3), 4).to_record()
    early = dict(record, moves=record["moves"][:30], result=None)  # stops before the first run-out
    cases = [dict(early, reshuffle=record["deck"][:3])]  # cannot hold the pile after 30 moves
    bad_move = dict(record, moves=list(record["moves"]))
    bad_move["moves"][3] = "draw:deck" if bad_move["moves"][3] != "draw:deck" else "end"
    cases.append(bad_move)
    cases.append(dict(record, deck=record["deck"][1:]))
    cases.append(dict(record, reshuffle=None))
    cases.append(dict(record, result={"scores": [0, 0, 0], "winners": [0, 1, 2]}))
    for case in cases:
        with monkeypatch.context() as patch, pytest.raises(RecordError) as expected:
            patch.setenv(compiled.BACKEND_VARIABLE, "python")
            Game.from_record(case)  # the Python engine
        with pytest.raises(RecordError) as got:
            CoreGame.from_record(case)
        assert str(got.value) == str(expected.value)
        with pytest.raises(RecordError) as public:
            Game.from_record(case)  # the core-backed Game
        assert str(public.value) == str(expected.value)


# ---------------------------------------------------------------- bad input


def test_illegal_moves_name_the_rule_like_the_python_engine(core):
    """Every move id and every move string of the table, in many positions: the same verdict, rule and message."""
    rules = Rules(players=4, discard="any")
    py = Game.reference(rules, seed=5)
    cc = compiled.core_game(rules, 5, module=core)
    rng = random.Random(5)
    names = list(rules.compiled.moves)
    positions = 0
    while not py.is_over:
        if py.move_count % 3 == 0:
            positions += 1
            for m, name in enumerate(names):
                if m in py.legal_actions():
                    assert cc.is_legal_id(m)
                    continue
                assert not cc.is_legal_id(m)
                for py_how, cc_how, arg in (("apply_action", "play_id", m), ("play", "play", name)):
                    with pytest.raises(IllegalMoveError) as expected:
                        getattr(py, py_how)(arg)
                    with pytest.raises(IllegalMoveError) as got:
                        getattr(cc, cc_how)(arg)
                    assert (got.value.rule, str(got.value)) == (expected.value.rule, str(expected.value))
        move = rng.choice(py.legal_actions())
        py.apply_action(move)
        cc.play_id(move)
    assert positions > 20
    with pytest.raises(IllegalMoveError, match="game over"):
        cc.play_id(rules.compiled.deck_id)


def _mutations(rng: random.Random, names: list[str]) -> list:
    """Move strings outside the move table: mutated moves, unknown ids and types, junk, non-strings."""
    out: list = [None, 3, b"end", ["end"], "", "END", "draw:", "draw:x", "draw:9", "discard:7", "discard:55"]
    out += ["K@XX1/1", "A@ZZ/0", "K@FR1/9", "A@FR/77", "K@FR1/12", "A@FR/3", "K@FR1/0", "K@@/1", "end "]
    alphabet = "KA@/:0123456789FRITSWdrawdeckend "
    for _ in range(300):
        name = list(rng.choice(names))
        for _ in range(rng.randrange(1, 3)):
            i = rng.randrange(len(name) + 1)
            op = rng.random()
            if op < 0.4 and i < len(name):
                name[i] = rng.choice(alphabet)
            elif op < 0.7:
                name.insert(i, rng.choice(alphabet))
            elif i < len(name):
                del name[i]
        out.append("".join(name))
    return out


def test_moves_outside_the_table_get_the_python_engine_s_errors(core):
    """Malformed strings, unknown sites, countries and card types, and single cards that do not name the
    country (well-formed, but not in the move table): play() gives the same rule and message."""
    rng = random.Random(3)
    for rules in (Rules(players=4), Rules(players=3, discard="any", board=ODD_BOARD)):
        names = list(rules.compiled.moves)
        py = Game.reference(rules, seed=8)
        cc = compiled.core_game(rules, 8, module=core)
        checked = 0
        while True:
            for move in _mutations(rng, names) if py.move_count % 10 == 0 else ():
                if isinstance(move, str) and move in rules.compiled.move_index:
                    continue
                with pytest.raises(IllegalMoveError) as expected:
                    py.play(move)
                with pytest.raises(IllegalMoveError) as got:
                    cc.play(move)
                assert (got.value.rule, str(got.value)) == (expected.value.rule, str(expected.value)), move
                checked += 1
            if py.is_over:
                break
            move = rng.choice(py.legal_actions())
            py.apply_action(move)
            cc.play_id(move)
        assert checked > 400


def test_out_of_range_and_wrong_types(core):
    rules = Rules(players=3)
    cc = compiled.core_game(rules, 1, module=core)
    before = cc.snapshot()
    for bad in (-1, rules.compiled.num_moves, 10**6, 2**63, 2**70, -(2**70), None, "7", 1.0, b"\x00", [1], object()):
        with pytest.raises(IllegalMoveError, match="malformed move") as got:
            cc.play_id(bad)
        assert got.value.rule == "malformed move" and got.value.move is bad
        with pytest.raises(IllegalMoveError):
            cc.apply_legal_id(bad)
        assert cc.is_legal_id(bad) is False
    for bad in (None, 3, "", "draw:"):
        with pytest.raises(IllegalMoveError, match="malformed move"):
            cc.play(bad)
    with pytest.raises(IllegalMoveError, match="unknown id: no site 'nowhere'"):
        cc.play("K@nowhere/1")
    for index in (-1, cc.num_legal_moves(), 10**6):
        with pytest.raises(IndexError):
            cc.play_index(index)
    with pytest.raises(TypeError):
        cc.play_index("0")
    for seat in (-1, 3, 2**40):
        for method in (cc.hand, cc.hand_counts, cc.hand_size, cc.pieces_left):
            with pytest.raises((IndexError, TypeError)):
                method(seat)
    assert cc.snapshot() == before
    for method in ("scores", "winners", "finishing_order"):
        if method != "scores":
            with pytest.raises(RuntimeError, match="once the game is over"):
                getattr(cc, method)()


def test_bad_decks_and_rules_are_refused(core):
    rules = Rules(players=3)
    board = compiled.core_board(rules.compiled, core)
    deck = Game.reference(rules, seed=0).initial_deck
    for bad in (deck[1:], deck + [0], [9] + deck[1:], "0123", [None] * len(deck), [True] + deck[1:], 5):
        with pytest.raises(DeckError) as got:
            core.KoenigGame(board, 3, "one", 0, bad)
        assert str(got.value).startswith("deck:")
        with pytest.raises(DeckError):
            Game.reference(rules, deck=bad)
    with pytest.raises(DeckError, match="reshuffle"):
        core.KoenigGame(board, 3, "one", 0, None, deck + deck)
    for players in (2, 6, -1):
        with pytest.raises(ValueError, match="players"):
            core.KoenigGame(board, players, "one", 0)
    with pytest.raises(ValueError, match="discard"):
        core.KoenigGame(board, 3, "some", 0)
    for bad_seed in (1.5, b"x", [1]):
        with pytest.raises(TypeError, match="seed"):
            core.KoenigGame(board, 3, "one", bad_seed)
    with pytest.raises(TypeError):
        core.KoenigGame("default", 3)


def _board_args(rules: Rules) -> list:
    return board_args(rules.compiled)


@pytest.mark.parametrize(
    "index, value, message",
    [
        (1, [], "no countries"),
        (3, [0, 0], "one entry per site"),
        (3, "reversed", "country by country"),
        (3, "out of range", "out of range"),
        (4, [0, 1, 2, 3], "one entry per card type"),
        (4, [0, 0, 1, 2, 3], "ascending"),
        (4, [3, 2, 1, 0, 4], "ascending"),
        (4, [0, 1, 2, 3, 10], "digit"),
        (5, [0, 3, 3, 3, 3], "positive"),
        (6, [[0], [0], [], [], []], "two card types"),
        (6, [[], [], [], [], []], "no card type names"),
        (6, [[99], [], [], [], []], "out of range"),
        (7, [(0, 0)], "with itself"),
        (7, [(0, 10**4)], "out of range"),
        (7, [(0, 1), (1, 0)], "twice"),
        (8, [(0, 99)], "out of range"),
        (2, "repeat", "repeated ids"),
    ],
)
def test_malformed_boards_are_refused(core, index, value, message):
    args = _board_args(Rules(players=3))
    if value == "reversed":
        value = list(reversed(args[3]))
    elif value == "out of range":
        value = [len(args[1])] * len(args[3])
    elif value == "repeat":
        value = [args[2][0]] * len(args[2])
    args[index] = value
    with pytest.raises(ValueError, match=message):
        core.KoenigBoard(*args)


def test_wrong_board_types_are_refused(core):
    args = _board_args(Rules(players=3))
    for index, value in ((1, "FR"), (3, ["0"]), (4, None), (6, [0, 1]), (7, [(0, 1, 2)]), (8, 5)):
        bad = list(args)
        bad[index] = value
        with pytest.raises(TypeError):
            core.KoenigBoard(*bad)


def test_too_small_decks_are_refused_by_the_core(core):
    tiny = small_board()
    args = _board_args(Rules(players=3, board=tiny))
    args[5] = [1, 2, 2, 2]  # 4 players: 3 cards, the deal needs 14; 3 players remove 2 of each type
    board = core.KoenigBoard(*args)
    with pytest.raises(ValueError, match="does not outlast the deal"):
        core.KoenigGame(board, 4, "one", 0)
    with pytest.raises(ValueError, match="remove 2 of each type"):
        core.KoenigGame(board, 3, "one", 0)


_FUZZ = textwrap.dedent(
    """
    import random, sys
    import kardinal_core
    from kardinal_env.koenig import Rules, compiled

    rng = random.Random(int(sys.argv[1]))
    variants = ((3, "one", 1), (4, "any", 2), (5, "one", 3))
    games = [compiled.core_game(Rules(players=p, discard=d), s, module=kardinal_core) for p, d, s in variants]
    board = compiled.core_board(Rules(players=3).compiled, kardinal_core)
    pool = [None, -1, 0, 1, 389, 390, 2**31, 2**63, 2**64, -2**64, 1.5, "3", "draw:deck", "end", b"\\xff", [], (1,),
            True, float("nan"), object()]
    calls = refused = 0
    for _ in range(int(sys.argv[2])):
        i = rng.randrange(len(games))
        if games[i].is_over:  # a fresh deal
            p, d, _ = variants[i]
            games[i] = compiled.core_game(Rules(players=p, discard=d), rng.getrandbits(64), module=kardinal_core)
        g = games[i]
        kind = rng.random()
        x = rng.choice(pool) if rng.random() < 0.5 else rng.randrange(-5, 400)
        if rng.random() < 0.1:
            x = bytes(rng.randrange(256) for _ in range(rng.randrange(8))).decode("latin-1")
        calls += 1
        try:
            if kind < 0.4:
                g.play_id(x)
            elif kind < 0.6:
                g.play(x)
            elif kind < 0.7:
                g.play_index(x)
            elif kind < 0.8:
                getattr(g, rng.choice(["hand", "hand_counts", "hand_size", "pieces_left"]))(x)
            elif kind < 0.9:
                deck = [rng.choice([0, 1, 2, 3, 4, 9, -1, None]) for _ in range(rng.randrange(80))]
                kardinal_core.KoenigGame(board, rng.choice([3, 4, 5, 2, x]), rng.choice(["one", "any", x]), x, deck)
            else:
                args = [rng.choice([[], [0], [x], "ab", None, [[x]], [(x, x)], [x, x, x]]) for _ in range(8)]
                kardinal_core.KoenigBoard("b", *args)
        except (TypeError, ValueError, IndexError, OverflowError):
            refused += 1
        if rng.random() < 0.3 and not g.is_over:
            g.play_index(rng.randrange(g.num_legal_moves()))

    # The world dealer's bindings (ismcts_root, deal_world) with malformed knowledge data: a seat's
    # real SeatKnowledge.deal_data(), before and after the first run-out, with one thing broken.
    from kardinal_env.koenig import Game
    from kardinal_env.koenig.knowledge import SeatKnowledge

    def broken(data):
        data = {key: (list(map(list, v)) if key in ("known", "start_known", "steps") and v is not None
                      else list(v) if isinstance(v, list) else v) for key, v in data.items()}
        key = rng.choice(sorted(data))
        how = rng.randrange(7)
        value = data[key]
        if how == 0:
            del data[key]  # a missing key
        elif how == 1:
            data[key] = rng.choice(pool)  # a value of another type
        elif how == 2 and isinstance(value, list):
            data[key] = value + [rng.choice([0, 1, x])] if rng.random() < 0.5 else value[:-1]  # another size
        elif how == 3 and isinstance(value, list) and value:
            i = rng.randrange(len(value))
            if isinstance(value[i], list) and value[i]:
                j = rng.randrange(len(value[i]))
                value[i][j] = rng.choice([-1, -7, value[i][j] + 1, value[i][j] - 1, 10**6, 2**40, x])
            else:
                value[i] = rng.choice([-1, -3, value[i] + 1, 10**7, x, [x]])  # negative, off by one
        elif how == 4 and isinstance(value, int):
            data[key] = rng.choice([value + 1, value - 1, -1, 2**70, x])  # counts that do not add up
        elif how == 5:
            data["steps"] = [[rng.randrange(-1, 4), rng.randrange(-1, 6), rng.randrange(-2, 11)]
                             for _ in range(rng.randrange(6))] + list(data.get("steps") or [])
        return data

    positions = []
    for players, seed, moves in ((3, 4, 30), (4, 5, 100), (5, 6, 85), (4, 7, 110), (3, 8, 90), (5, 9, 20)):
        game = Game(Rules(players=players), seed=seed)
        while not game.is_over and game.move_count < moves:
            game.apply_action(rng.choice(game.legal_actions()))
        if not game.is_over:
            positions.append((compiled.core_position(game, kardinal_core), SeatKnowledge(game, game.current_player)))
    assert len(positions) >= 4 and any(k.new_deck is not None for _, k in positions)
    for _ in range(int(sys.argv[3])):
        core, knowledge = rng.choice(positions)
        x = rng.choice(pool)
        data = broken(knowledge.deal_data())
        seed = rng.getrandbits(64) if rng.random() < 0.7 else rng.choice(pool)
        calls += 1
        try:
            if rng.random() < 0.5 and core.num_legal_moves() > 1:
                kardinal_core.koenig_search.ismcts_root(core, 3, 0.7, 8.0, data, seed)
            else:
                kardinal_core.koenig_search.deal_world(core, data if rng.random() < 0.9 else rng.choice(pool), seed)
        except (TypeError, ValueError):
            refused += 1
    print(calls, refused)
    """
)


def test_fuzz_the_bindings_never_crash(core):
    """Random ids, strings, bytes, seats, decks and board arrays, and malformed knowledge data and seeds
    for the world dealer (ismcts_root, deal_world): every call plays or raises; run in a subprocess so a
    crash fails the test."""
    result = subprocess.run(
        [sys.executable, "-c", _FUZZ, "7", "20000", "3000"], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-3000:]
    calls, refused = map(int, result.stdout.split())
    assert calls == 23_000 and 0 < refused < calls


# ---------------------------------------------------------------- playouts and the rest


def test_random_playouts_summary(core):
    game = compiled.core_game(Rules(players=4), 3, module=core)
    summary = core.koenig_search.random_playouts(game, 40, 7)
    assert summary["games"] == 40 and summary["decisions"] > 40 * 100
    assert sum(summary["wins"]) >= 40 and len(summary["score_sum"]) == 4
    assert game.move_count == 0  # played on copies
    assert core.koenig_search.random_playouts(game, 40, 7) == summary  # its own seeded generator
    assert core.koenig_search.random_playouts(game, 40, 8) != summary
    assert core.koenig_search.random_playouts(game, 0, 1)["games"] == 0
    with pytest.raises(ValueError):
        core.koenig_search.random_playouts(game, -1, 0)


def test_read_only_views_agree(core):
    rules = Rules(players=5, board=ODD_BOARD)
    py = _random_python_game(rules, 12, 70)
    cc = compiled.core_position(py, core)
    for seat in range(5):
        assert cc.hand(seat) == py.hand(seat) and cc.hand_counts(seat) == py.hand_counts(seat)
        assert cc.hand_size(seat) == py.hand_size(seat) and cc.pieces_left(seat) == py.pieces_left(seat)
    assert cc.display() == py.display() and cc.deck_size() == py.deck_size()
    assert cc.discard_pile() == py.discard_pile() and cc.owners() == py.owners()
    assert cc.cloister_counts() == py.cloister_counts() and cc.advisor_counts() == py.advisor_counts()
    assert (cc.runouts, cc.last_round, cc.turn_country, cc.pieces_this_turn, cc.cards_this_turn) == (
        py.runouts,
        py.last_round,
        py.turn_country,
        py.pieces_this_turn,
        py.cards_this_turn,
    )
    assert cc.legal_moves() == py.legal_moves() and cc.history == py.history
    assert "KoenigGame(players=5" in repr(cc) and "KoenigBoard('odd'" in repr(cc.board)


def test_the_move_tables_agree(core):
    for rules in VARIANTS[::6]:
        kb = compiled.core_board(rules.compiled, core)
        assert list(kb.moves) == list(rules.compiled.moves) and kb.num_moves == rules.compiled.num_moves


# ---------------------------------------------------------------- ismcts in the core


def test_compiled_ismcts_chooses_the_python_search_s_move_draw_for_draw(core, monkeypatch):
    """ISMCTSAgent with the compiled search (the default: worlds dealt in C++ from the seat's knowledge)
    and without it (compiled=False): the same move, the same root statistics and the same generator state
    afterwards, at positions of every player count, both discard options, before and after the first
    run-out, on the Python engine and on the core-backed game; the compiled search really ran."""
    from agents.search.ismcts import ISMCTSAgent

    monkeypatch.delenv(compiled.BACKEND_VARIABLE, raising=False)
    positions = after = 0
    for i, (players, discard, moves) in enumerate(
        [
            (3, "one", 8),
            (4, "any", 40),
            (5, "one", 75),
            (4, "one", 110),
            (3, "any", 90),
            (4, "one", 1),
            (5, "any", 100),
            (3, "one", 70),
            (5, "one", 30),
            (4, "any", 85),
        ]
    ):
        rules = Rules(players=players, discard=discard)
        game = _random_python_game(rules, 40 + i, moves)
        if game.is_over or len(game.legal_moves()) < 2:
            continue
        positions += 1
        after += game.runouts > 0
        backed = Game(rules, seed=40 + i)  # the same position on the core-backed game
        for m in game.history:
            backed.play(m)
        assert backed.compiled
        children = koenig_compiled.ismcts_root(game, random.Random(0), 30)
        assert children is not None and children == koenig_compiled.ismcts_root(backed, random.Random(0), 30)
        for seed in (0, 1):
            fast = ISMCTSAgent(60, seed=seed)
            slow = ISMCTSAgent(60, seed=seed, compiled=False)
            slow_backed = ISMCTSAgent(60, seed=seed, compiled=False)
            move = fast.select_move(game)
            assert move == slow.select_move(game) == slow_backed.select_move(backed), (players, discard, moves, seed)
            assert fast.rng.getstate() == slow.rng.getstate() == slow_backed.rng.getstate()
            assert fast._compiled is not None and slow._compiled is None
            again = ISMCTSAgent(60, seed=seed)
            assert again.select_move(backed) == move and again.rng.getstate() == fast.rng.getstate()
    assert positions >= 8 and after >= 3


def test_compiled_ismcts_root_statistics_equal_the_python_search_s(core, monkeypatch):
    """Not only the move: the compiled root's children (move, visits, mean) are the Python search's."""
    from agents.search.ismcts import ISMCTSAgent, _Node
    from kardinal_env.core.shuffle import ShuffleRng as Rng

    monkeypatch.delenv(compiled.BACKEND_VARIABLE, raising=False)
    for i, (players, moves) in enumerate([(4, 30), (5, 90), (3, 100)]):
        game = _random_python_game(Rules(players=players), 70 + i, moves)
        if game.is_over or len(game.legal_moves()) < 2:
            continue
        seed = random.Random(i).getrandbits(64)
        got = koenig_compiled.ismcts_root(game, _FixedBits(seed), 80)
        agent = ISMCTSAgent(80, compiled=False)
        root = _Node(-1, players)
        search_rng = Rng(seed)
        for _ in range(80):
            agent._simulate(game.determinize(game.current_player, search_rng), root, players, search_rng)
        seat = game.current_player
        # the Python tree keys its children by action id; the compiled root names the moves
        want = [(game.action_to_string(a), ch.visits, ch.totals[seat] / ch.visits) for a, ch in root.children.items()]
        assert got == want
        # the agent's public root statistics (what search trainers read) agree the same way
        fast = ISMCTSAgent(80, seed=i).root_statistics(game)
        assert fast == ISMCTSAgent(80, seed=i, compiled=False).root_statistics(game)
        assert sum(visits for _, visits, _ in fast) == 80


class _FixedBits:
    """A generator whose one ``getrandbits(64)`` is ``value``."""

    def __init__(self, value: int):
        self.value = value

    def getrandbits(self, k: int) -> int:
        assert k == 64
        return self.value


def test_compiled_ismcts_declines_what_it_cannot_search(core, monkeypatch):
    rules = Rules(players=4)
    game = Game.reference(rules, seed=1)
    rng = random.Random(0)
    state = rng.getstate()

    class Sub(Game):
        pass

    sub = Sub(rules, seed=1)
    assert koenig_compiled.ismcts_root(sub, rng) is None and rng.getstate() == state
    monkeypatch.setenv(compiled.BACKEND_VARIABLE, "python")
    assert koenig_compiled.ismcts_root(game, rng) is None and rng.getstate() == state
    monkeypatch.delenv(compiled.BACKEND_VARIABLE)
    cc = compiled.core_game(rules, 1, module=core)
    data = SeatKnowledge(Game(rules, seed=1), 0).deal_data()
    with pytest.raises(ValueError, match="from 1 to"):
        core.koenig_search.ismcts_root(cc, 0, 0.7, 8.0, data, 1)
    with pytest.raises(TypeError, match="must be a dict"):
        core.koenig_search.ismcts_root(cc, 5, 0.7, 8.0, list(data.items()), 1)
    for seed in ("1", None, 1.0, True, [1]):
        with pytest.raises(TypeError, match="seed must be an int"):
            core.koenig_search.ismcts_root(cc, 5, 0.7, 8.0, data, seed)
        with pytest.raises(TypeError, match="seed must be an int"):
            core.koenig_search.deal_world(cc, data, seed)
    other = SeatKnowledge(Game(rules, seed=1), 2).deal_data()
    with pytest.raises(ValueError, match="seat on turn"):
        core.koenig_search.ismcts_root(cc, 5, 0.7, 8.0, other, 1)
    assert len(core.koenig_search.deal_world(cc, other, 1)[0]) == 3  # a world for any seat

    def refused(error, match, **changes):
        bad = {**data, **changes}
        for key in [k for k, v in changes.items() if v is _MISSING]:
            del bad[key]
        with pytest.raises(error, match=match):
            core.koenig_search.ismcts_root(cc, 5, 0.7, 8.0, bad, 1)
        with pytest.raises(error, match=match):
            core.koenig_search.deal_world(cc, bad, 1)

    pool, known = data["pool"], data["known"]
    refused(ValueError, "missing key 'pool'", pool=_MISSING)
    refused(TypeError, "pool must be a list", pool="0123")
    refused(ValueError, "pool must have", pool=pool + [0])  # wrong sizes
    refused(ValueError, "known must have", known=known[:3])
    refused(ValueError, "hand_sizes must have", hand_sizes=data["hand_sizes"][:3])
    refused(TypeError, "must be an int", pool=[str(k) for k in pool])
    refused(ValueError, "negative count", pool=[-1] + pool[1:], known=[[known[1][0] + 1] + row[1:] for row in known])
    refused(ValueError, "do not add up", pool=[pool[0] + 1] + pool[1:])  # counts that do not add up
    refused(ValueError, "hand_sizes are not the game's", hand_sizes=[5, 5, 5, 6])
    refused(ValueError, "deck_size", deck_size=data["deck_size"] - 1)
    refused(ValueError, "out of range", seat=2**40)
    refused(ValueError, "seat out of range", seat=4)
    refused(ValueError, "after the run-out", steps=[[1, 1, -1]])
    refused(ValueError, "too large", pool=[10**5] + pool[1:])
    assert cc.move_count == 0


_MISSING = object()


def test_the_core_deals_the_python_dealer_s_worlds(core):
    """SeatKnowledge.sample (knowledge.deal_hidden) and the core's deal_world (koenig/worlds.hpp): the
    same knowledge and the same ShuffleRng state give the same world and leave the generator in the same
    state, for every seat of positions of 3-, 4- and 5-player games all along (before and after the first
    run-out, both discard options, another board)."""
    checked = after = 0
    for players, discard, board in ((3, "one", None), (4, "any", None), (5, "one", None), (4, "one", ODD_BOARD)):
        rules = Rules(players=players, discard=discard) if board is None else Rules(players=players, board=board)
        for game_seed in range(3):
            rng = random.Random(game_seed * 10 + players)
            game = Game.reference(rules, seed=game_seed)
            while not game.is_over:
                if game.move_count % 9 == 0:
                    cc = compiled.core_position(game, core)
                    for seat in range(players):
                        knowledge = SeatKnowledge(game, seat)
                        data = knowledge.deal_data()
                        for _ in range(2):
                            seed = rng.getrandbits(64)
                            world_rng = ShuffleRng(seed)
                            hands, deck = knowledge.sample(world_rng)
                            got_hands, got_deck, got_next = core.koenig_search.deal_world(cc, data, seed)
                            assert (got_hands, got_deck, got_next) == (hands, deck, world_rng.next())
                            checked += 1
                            after += knowledge.new_deck is not None
                game.apply_action(rng.choice(game.legal_actions()))
    assert checked > 1000 and after > 400
