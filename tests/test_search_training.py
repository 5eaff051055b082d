"""Search-based self-play (agents/training/search_training.py): its options, its examples and targets,
the batched lockstep search, checkpoints that every network tool plays, and resume."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

pytest.importorskip("torch")

import torch  # noqa: E402

from agents import load_agent  # noqa: E402
from agents.networks.checkpoint import read_checkpoint  # noqa: E402
from agents.registry import game_agents  # noqa: E402
from agents.search.puct import PUCTAgent  # noqa: E402
from agents.training.config import ConfigError, make_config  # noqa: E402
from agents.training.run import make_trainer, train  # noqa: E402
from agents.training.search_training import SearchTrainer  # noqa: E402
from kardinal_env.core.registry import get_game  # noqa: E402

TINY = {
    "algorithm": "search",
    "channels": 4,
    "blocks": 1,
    "hidden": 8,
    "num_envs": 3,
    "steps_per_iter": 20,
    "total_steps": 20,
    "simulations": 6,
    "fast_simulations": 2,
    "full_search_share": 0.5,
    "progress": False,
    "track": False,
    "eval_games": 0,
    "final_eval_games": 0,
    "minibatch_size": 16,
}


def _config(tmp_path, **kw):
    return make_config(("test", {**TINY, "runs_dir": str(tmp_path), "run_name": "run", **kw}))


def _one_game_searched(tmp_path, steps: int, **kw):
    """A trainer that plays one game at a time, every decision searched in full, ``steps`` steps an iteration."""
    return make_trainer(_config(tmp_path, full_search_share=1.0, num_envs=1, steps_per_iter=steps, **kw))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"random_share": 0.5}, "'random_share'.*not allowed with algorithm=search"),
        ({"pool_share": 0.2}, "'pool_share'.*not allowed with algorithm=search"),
        ({"game": "kardinal_koenig", "players": 4, "search": "mcts"}, "mcts is not allowed for game kardinal_koenig"),
        ({"simulations": 4, "fast_simulations": 8}, "a fast search must not be larger than a full one"),
        ({"search": "alphabeta"}, "'search'.*expected one of puct, mcts, ismcts"),
        ({"full_search_share": 0.0}, "full_search_share"),
        ({"search": "rollout"}, "rollout is not allowed for game kardinal.*no rollout search"),
    ],
)
def test_bad_search_options_are_refused_naming_the_key(changes, message):
    with pytest.raises(ConfigError, match=message):
        make_config(("test", {"algorithm": "search", **changes}))


def test_the_algorithm_picks_the_trainer(tmp_path):
    assert type(make_trainer(_config(tmp_path))) is SearchTrainer
    assert type(make_trainer(_config(tmp_path, algorithm="ppo"))).__name__ == "Trainer"


@pytest.mark.parametrize(
    ("game", "search", "players"),
    [
        ("kardinal", "mcts", 2),
        ("kardinal", "puct", 3),
        ("kardinal_koenig", "puct", 4),
        ("kardinal_koenig", "ismcts", 4),
    ],
)
def test_examples_hold_the_searchs_policy_over_legal_moves_and_the_game_result(tmp_path, game, search, players):
    trainer = make_trainer(_config(tmp_path, game=game, search=search, players=players))
    ro = trainer.collect_rollout()
    assert len(ro) >= TINY["steps_per_iter"] and ro.games >= 1
    assert ro.searched > len(ro) * 0.5  # fast searches too (playout-cap randomisation)
    full_sims = TINY["simulations"]
    for e in ro.examples:
        assert e.probs.dtype == np.float32 and math.isclose(float(e.probs.sum()), 1.0, rel_tol=1e-5)
        assert (e.probs > 0).all() and len(set(e.actions.tolist())) == len(e.actions)
        assert e.decision.mask[e.actions].all(), "every searched move is a legal action of the decision"
        assert e.decision.seat == e.seat
        assert e.value in (-1.0, 1.0)  # win_loss, no shaping
        visits = e.probs * full_sims
        if search in ("puct", "ismcts"):  # every simulation passes through one root child
            assert np.allclose(visits, np.round(visits), atol=1e-4)
    # every game's examples of one seat share its result
    stats = trainer.update(ro)
    assert stats["updates"] == math.ceil(len(ro) * trainer.config.sample_reuse / TINY["minibatch_size"])
    assert all(math.isfinite(stats[k]) for k in ("policy_loss", "value_loss", "policy_kl", "entropy"))
    assert stats["policy_kl"] >= -1e-5


def test_training_lowers_the_loss_on_the_searchs_targets(tmp_path):
    trainer = make_trainer(_config(tmp_path, search="mcts", steps_per_iter=40, learning_rate=0.01))
    ro = trainer.collect_rollout()
    trainer.replay.extend(ro.examples)
    examples = list(trainer.replay)

    def loss():
        with torch.no_grad():
            logits, values, mask, target = trainer.adapter.forward_targets(
                trainer.net, [e.decision for e in examples], [e.actions for e in examples], [e.probs for e in examples]
            )
            logp = torch.log_softmax(torch.where(mask, logits, torch.full_like(logits, -1e9)), 1)
            return float(-(target * torch.where(mask, logp, torch.zeros_like(logp))).sum(1).mean())

    before = loss()
    trainer.replay.clear()
    for _ in range(6):
        trainer.update(type(ro)(examples, ro.games, ro.searched, ro.lengths, 0.0))
    assert loss() < before - 0.05


def test_lockstep_search_evaluates_the_leaves_of_all_games_in_one_call():
    spec = get_game("kardinal")
    rules = spec.rules(2)
    rng = random.Random(3)
    games = []
    for k in range(3):
        g = spec.new_game(rules)
        for _ in range(4 + k):
            g.play(rng.choice(g.legal_moves()))
        games.append(g)
    net = game_agents(spec).load("network")(rules, {"kind": "cnn", "channels": 4, "blocks": 1, "hidden": 8})
    from agents.networks.kardinal_net import KardinalPPOAgent

    evaluator = KardinalPPOAgent(net, rules)
    calls = []
    original = evaluator.policy_value

    def counted(batch):
        calls.append(len(batch))
        return original(batch)

    evaluator.policy_value = counted
    agent = PUCTAgent(evaluator, 12, seed=0, batch_size=4)
    roots = agent.expand_roots(games)
    assert calls == [3]
    agent.search_many([(g, r, 12) for g, r in zip(games, roots)])
    assert all(int(r.child_visits.sum()) == 12 for r in roots)
    assert len(calls) - 1 <= 3  # 12 simulations, 4 descents per game per call: 3 calls for all games
    assert max(calls[1:]) > 4  # a call holds leaves of several games


def test_a_search_checkpoint_plays_as_ppo_and_puct_and_resumes(tmp_path):
    path = train(_config(tmp_path, search="mcts"))
    ckpt, _ = read_checkpoint(path)
    assert ckpt["config"]["algorithm"] == "search" and ckpt["step"] >= 20
    assert ckpt["cpu_seconds"] > 0
    spec = get_game("kardinal")
    game = spec.new_game(spec.rules(2))
    for spec_text in (f"ppo:{path}", f"puct:4:{path}"):
        assert load_agent(spec_text, game="kardinal", seed=0).select_move(game) in game.legal_moves()
    again = train({"total_steps": 40}, resume=path)
    resumed, _ = read_checkpoint(again)
    assert resumed["step"] >= 40 and resumed["iteration"] > ckpt["iteration"]
    assert resumed["cpu_seconds"] > ckpt["cpu_seconds"]
    switched = train({"total_steps": 60, "search": "puct"}, resume=again)
    assert read_checkpoint(switched)[0]["config"]["search"] == "puct"


def test_replay_warmup_holds_updates_until_the_replay_has_refilled(tmp_path):
    trainer = make_trainer(_config(tmp_path, search="mcts", replay_warmup=150))
    before = [p.detach().clone() for p in trainer.net.parameters()]
    held = 0
    while True:
        ro = trainer.collect_rollout()
        stats = trainer.update(ro)
        if len(trainer.replay) >= 150:
            break
        held += 1
        assert stats["updates"] == 0
        assert all(torch.equal(a, b) for a, b in zip(before, trainer.net.parameters()))
    assert held >= 1, "the first rollouts were held back"
    assert stats["updates"] == math.ceil(len(ro) * trainer.config.sample_reuse / TINY["minibatch_size"])
    assert any(not torch.equal(a, b) for a, b in zip(before, trainer.net.parameters()))


@pytest.mark.parametrize(("game", "search", "players"), [("kardinal", "mcts", 2), ("kardinal_koenig", "ismcts", 4)])
def test_policy_play_games_play_the_networks_moves_and_keep_the_searchs_targets(tmp_path, game, search, players):
    """policy_play_share 1 (temperature_moves 0): every searching seat's move is the network's argmax,
    only full searches run (no fast one), and their visits are still the examples' targets."""
    trainer = make_trainer(
        _config(tmp_path, game=game, players=players, search=search, policy_play_share=1.0, temperature_moves=0)
    )
    flags: list[bool] = []
    search_fn, play_policy = trainer._search, trainer._play_policy

    def spy_search(slots, full):
        flags.extend(full)
        return search_fn(slots, full)

    def spy_policy(slots):
        before = [(slot, slot.game.clone()) for slot in slots]
        play_policy(slots)  # first: the evaluator must set itself up
        for slot, position in before:
            assert slot.game.history[len(position.history)] == trainer.evaluator.select_move(position)

    def no_search_move(slot, children):
        raise AssertionError("a search's move was played in a policy_play game")

    trainer._search, trainer._play_policy, trainer._play = spy_search, spy_policy, no_search_move
    ro = trainer.collect_rollout()
    assert ro.examples and flags and all(flags), "full searches only, and they stored examples"
    assert len(ro.examples) == len(flags)
    for e in ro.examples:
        assert e.probs.sum() == pytest.approx(1.0) and len(e.actions) == len(e.probs)


def test_the_learning_rate_anneals_by_stored_examples(tmp_path):
    """An iteration stores whole games, several times ``steps_per_iter`` here: the decay follows the
    examples, so the last iteration before ``total_steps`` trains at a small share of the rate."""
    trainer = make_trainer(_config(tmp_path, search="mcts", total_steps=150, anneal_lr=True, learning_rate=0.01))
    seen = []
    log = trainer.log_iteration

    def spy(iteration, ro, stats):
        seen.append((trainer.global_step - len(ro), trainer.optimizer.param_groups[0]["lr"]))
        log(iteration, ro, stats)

    trainer.log_iteration = spy
    trainer.run()
    assert len(seen) >= 2 and seen[0] == (0, 0.01)
    for before, lr in seen:
        assert lr == pytest.approx(0.01 * (1 - before / 150))
    assert seen[-1][1] < 0.01 * (1 - (len(seen) - 1) / trainer.num_iterations)  # below the iteration schedule


@pytest.mark.parametrize("players", [2, 4])
def test_games_against_the_baseline_store_the_searching_seats_examples_only(tmp_path, players, monkeypatch):
    trainer = make_trainer(_config(tmp_path, search="mcts", players=players, greedy_share=1.0))
    calls = []
    original = trainer.adapter.baseline_move

    def spy(name, game, rng_py):
        calls.append((name, game.current_player))
        return original(name, game, rng_py)

    monkeypatch.setattr(trainer.adapter, "baseline_move", spy)
    starts = []
    original_start = trainer._start

    def start():
        slot = original_start()
        starts.append(slot)
        return slot

    monkeypatch.setattr(trainer, "_start", start)
    ro = trainer.collect_rollout()
    assert ro.games >= 1 and calls and {name for name, _ in calls} == {"greedy"}
    for slot in starts:
        assert len(slot.baseline_seats) == players - 1
        assert all(e.seat not in slot.baseline_seats for e in slot.examples)
    examples = [e for slot in starts for e in slot.examples]
    assert examples and {e.seat for e in examples} <= set(range(players))
    assert len(ro) == sum(len(slot.examples) for slot in starts if slot.game.is_over)


def test_the_search_trainer_keeps_its_best_evaluated_network(tmp_path):
    """keep_best is the base trainer's, so the search trainer writes best.pt the same way."""
    path = train(_config(tmp_path, search="mcts", keep_best=True, final_eval_games=2))
    last, _ = read_checkpoint(path)
    best, _ = read_checkpoint(tmp_path / "run" / "best.pt")
    assert last["best"] == best["best"] and best["best"]["opponent"] == "greedy"
    assert best["winrates"]["greedy"] == best["best"]["winrate"]


def test_rollout_search_targets_the_rollout_agents_choice(tmp_path):
    """search=rollout (Kardinal & König): every example's target is one move, all the weight, and it
    is the move the game's rollout:N plays from the same position with the same generator."""
    from agents.search.heuristic_rollouts import HeuristicRolloutAgent

    trainer = _one_game_searched(
        tmp_path,
        6,
        game="kardinal_koenig",
        players=4,
        search="rollout",
        network="advised",
        simulations=8,
        fast_simulations=8,
        greedy_share=1.0,
        baseline="heuristic",
    )
    assert isinstance(trainer.full_search, HeuristicRolloutAgent) and trainer.full_search.worlds == 8
    ro = trainer.collect_rollout()
    assert len(ro) >= 6 and ro.games == 1
    for e in ro.examples:
        assert len(e.actions) == 1 and e.probs.tolist() == [1.0]
        assert e.decision.mask[e.actions[0]]
        assert e.decision.obs.shape == (trainer.adapter.obs_size + trainer.adapter.num_actions,)  # advice
    assert len({e.seat for e in ro.examples}) == 1  # three heuristic seats, one searching seat
    assert math.isfinite(trainer.update(ro)["policy_loss"])


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"algorithm": "ppo", "selfplay_workers": 2}, "'selfplay_workers'.*is for algorithm=search"),
        ({"algorithm": "ppo", "device": "cuda"}, "'device'.*is for algorithm=search"),
        ({"algorithm": "search", "device": "gpu"}, "'device'.*'gpu' is not a device; expected cpu, cuda or cuda:N"),
        ({"algorithm": "search", "selfplay_workers": 0}, "selfplay_workers"),
    ],
)
def test_bad_worker_and_device_options_are_refused_naming_the_key(changes, message):
    with pytest.raises(ConfigError, match=message):
        make_config(("test", changes))


def test_a_gpu_device_without_a_gpu_is_refused_by_name(tmp_path, monkeypatch):
    from agents.training.trainer import TrainingError

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(TrainingError, match="device 'cuda:1': torch sees no GPU"):
        make_trainer(_config(tmp_path, device="cuda:1"))


def test_updates_train_the_learner_copy_and_the_playing_network_follows(tmp_path):
    """The update trains a copy on ``device`` (here the CPU), starting from the playing network's weights
    whoever changed them last, and copies the result back; the optimizer's moments belong to the copy."""
    trainer = make_trainer(_config(tmp_path, search="mcts", steps_per_iter=30))
    ro = trainer.collect_rollout()
    original = {k: v.clone() for k, v in trainer.net.state_dict().items()}
    with torch.no_grad():  # a change to the playing network (as a warm start makes) reaches the update
        for p in trainer.net.parameters():
            p.add_(0.01)
    changed = {k: v.clone() for k, v in trainer.net.state_dict().items()}
    stats = trainer.update(ro)
    assert stats["updates"] > 0
    learned = trainer.learner.net.state_dict()
    after = trainer.net.state_dict()
    assert all(torch.equal(after[k], learned[k]) for k in after), "the playing network holds the update's weights"
    assert any(not torch.equal(after[k], changed[k]) for k in after)
    # the update started from the changed weights: they stay nearer to those than to the ones before the change
    near = sum(float((after[k] - changed[k]).abs().sum()) for k in after if after[k].is_floating_point())
    far = sum(float((after[k] - original[k]).abs().sum()) for k in after if after[k].is_floating_point())
    assert near < far
    params = {id(p) for p in trainer.learner.parameters()}
    assert trainer.optimizer.state and all(id(p) in params for p in trainer.optimizer.state)


def test_self_play_in_worker_processes_is_reproducible_and_counts_their_cpu(tmp_path):
    """selfplay_workers=2: the iteration's games are played in two spawned processes with the current
    weights; the same step gives the same examples again (whichever process plays which share), the
    workers' CPU time is counted, and a run with workers trains to its steps."""
    kw = {"search": "mcts", "steps_per_iter": 30, "total_steps": 60, "num_envs": 4, "selfplay_workers": 2}
    kw |= {"greedy_share": 0.3, "policy_play_share": 0.5}
    trainer = make_trainer(_config(tmp_path, run_name="first", **kw))
    try:
        ro = trainer.collect_rollout()
        assert len(ro) >= 30 and ro.games >= 2 and ro.cpu_seconds > 0
        for e in ro.examples:
            assert e.decision.mask[e.actions].all() and e.value in (-1.0, 1.0)
        again = trainer.collect_rollout()  # the same step: the same seeds, the same games
        assert [e.actions.tolist() for e in again.examples] == [e.actions.tolist() for e in ro.examples]
    finally:
        trainer.close()
    trained, _ = read_checkpoint(train(_config(tmp_path, run_name="a", **kw)))
    assert trained["step"] >= 60 and trained["config"]["selfplay_workers"] == 2
    alone, _ = read_checkpoint(train(_config(tmp_path, run_name="alone", **{**kw, "selfplay_workers": 1})))
    assert alone["step"] != trained["step"] or any(
        not torch.equal(alone["model"][k], trained["model"][k]) for k in trained["model"]
    ), "the workers play their own seeded games, not the single process's"


@pytest.mark.parametrize("bucket", [True, False])
def test_minibatches_of_crops_are_bucketed_by_size_from_uniform_draws(tmp_path, bucket):
    """bucket_minibatches: eight minibatches drawn at once, sorted by crop area and cut apart (each group's
    minibatches cover disjoint ranges of areas); off, or for a game without crops, plain uniform draws."""
    trainer = make_trainer(_config(tmp_path, search="mcts", steps_per_iter=60, bucket_minibatches=bucket))
    trainer.replay.extend(trainer.collect_rollout().examples)
    areas = [trainer.adapter.size(e.decision) for e in trainer.replay]
    assert len(set(areas)) > 1
    state = trainer.rng.bit_generator.state
    batches = trainer.minibatches(11, 16)
    assert len(batches) == 11 and all(len(b) == 16 for b in batches)
    plain = np.random.default_rng()
    plain.bit_generator.state = state
    if not bucket:
        assert all(np.array_equal(b, plain.integers(len(areas), size=16)) for b in batches)
        return
    for group in (batches[:8], batches[8:]):
        ranges = sorted((min(areas[i] for i in b), max(areas[i] for i in b)) for b in group)
        assert all(high <= low for (_, high), (low, _) in zip(ranges, ranges[1:]))
    drawn = plain.integers(len(areas), size=8 * 16)
    assert sorted(np.concatenate(batches[:8]).tolist()) == sorted(drawn.tolist()), "the same draws, regrouped"


def test_minibatches_without_crops_are_plain_uniform_draws(tmp_path):
    trainer = make_trainer(_config(tmp_path, game="kardinal_koenig", players=4, search="ismcts", steps_per_iter=30))
    trainer.replay.extend(trainer.collect_rollout().examples)
    state = trainer.rng.bit_generator.state
    batches = trainer.minibatches(3, 8)
    plain = np.random.default_rng()
    plain.bit_generator.state = state
    assert all(np.array_equal(b, plain.integers(len(trainer.replay), size=8)) for b in batches)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"search": "network"}, "'teacher'.*search=network needs the network to learn from"),
        ({"search": "mcts", "teacher": "zoo:kardinal-2p"}, "'teacher'.*is for search=network"),
        ({"algorithm": "ppo", "teacher": "zoo:kardinal-2p"}, "'teacher'.*is for algorithm=search"),
        ({"search": "network", "teacher": "greedy"}, "'teacher'.*greedy agent, not a network"),
        ({"search": "network", "teacher": "mcts:50"}, "'teacher'.*mcts agent, not a network"),
        ({"search": "network", "teacher": "ppo:no/such/file.pt"}, "'teacher'.*no checkpoint file"),
        ({"search": "network", "teacher": "zoo:nothing"}, "'teacher'.*nothing"),
        (
            {"search": "network", "teacher": "zoo:kardinal-koenig-4p"},
            "'teacher'.*trained on kardinal_koenig_v[0-9]+, not kardinal_v0",
        ),
    ],
)
def test_bad_teacher_options_are_refused_naming_the_key(changes, message):
    with pytest.raises(ConfigError, match=message):
        make_config(("test", {"algorithm": "search", **changes}))


def test_network_teacher_targets_are_its_policy_and_its_argmax_plays(tmp_path):
    """search=network: every example's target is the teacher's policy over the legal moves at that
    decision, and (no sampled moves, no DAgger, no baseline) the game is the teacher's own argmax game,
    replayed here move by move with the teacher alone."""
    trainer = _one_game_searched(
        tmp_path, 5, search="network", teacher="zoo:kardinal-2p", players=2, target_temperature=1.0, temperature_moves=0
    )
    assert trainer.teacher is not None and trainer.config.channels != 64  # the learner is not the teacher's net
    ro = trainer.collect_rollout()
    assert ro.games == 1 and len(ro) == ro.searched > 5
    teacher = load_agent("zoo:kardinal-2p", game="kardinal")
    spec = get_game("kardinal")
    game = spec.new_game(trainer.rules)
    examples = iter(ro.examples)
    while not game.is_over:
        legal = game.legal_moves()
        if len(legal) > 1:
            actions, prior, _ = teacher.policy_value([game])[0]
            e = next(examples)
            assert e.decision.seat == e.seat == game.current_player
            assert len(e.actions) == len(actions) and e.decision.mask[e.actions].all()
            assert np.allclose(np.sort(e.probs), np.sort(prior / prior.sum()), atol=1e-6)
            game.play(teacher.codec.decode(game, int(actions[int(np.argmax(prior))])))
        else:
            game.play(legal[0])
    assert next(examples, None) is None
    winners = set(game.winners())
    assert all((e.value > 0) == (e.seat in winners) for e in ro.examples)
    stats = trainer.update(ro)
    assert stats["updates"] >= 1 and stats["policy_kl"] >= -1e-5


def test_a_teacher_trained_for_other_players_is_allowed_with_a_warning():
    from agents.networks.checkpoint import PlayerCountWarning

    with pytest.warns(PlayerCountWarning, match="'teacher'.*trained for 2-player games and is used in 3-player games"):
        cfg = make_config(
            ("test", {"algorithm": "search", "search": "network", "teacher": "zoo:kardinal-2p", "players": 3})
        )
    assert cfg.teacher == "zoo:kardinal-2p"


def test_baseline_targets_give_the_baselines_move_where_every_legal_move_matches(tmp_path):
    """baseline_targets '^C' (Kardinal's cardinal moves): those decisions are not searched; their example
    is the baseline's move with all the weight, and that move is played; builds are searched as before."""
    trainer = make_trainer(_config(tmp_path, search="mcts", players=2, full_search_share=1.0, baseline_targets="^C"))
    searched_legal: list[list[str]] = []
    stored: list[tuple[list[str], list]] = []
    chosen: list[str] = []
    full_stats, target, store = trainer.full_search.root_statistics, trainer._baseline_target, trainer._store

    def spy_stats(game):
        searched_legal.append(game.legal_moves())
        return full_stats(game)

    def spy_target(game):
        out = target(game)
        if out is not None:
            chosen.append(out[0][0])
        return out

    def spy_store(slot, children):
        stored.append((slot.game.legal_moves(), children))
        store(slot, children)

    trainer.full_search.root_statistics, trainer._baseline_target, trainer._store = spy_stats, spy_target, spy_store
    ro = trainer.collect_rollout()
    assert searched_legal and not any(all(m.startswith("C") for m in legal) for legal in searched_legal)
    cardinal = [(legal, children) for legal, children in stored if all(m.startswith("C") for m in legal)]
    assert cardinal and len(cardinal) == len(chosen)
    for (legal, children), move in zip(cardinal, chosen, strict=True):
        assert children == [(move, 1.0, 1.0)] and move in legal
    assert sum(len(e.actions) == 1 for e in ro.examples) == len(cardinal)  # searched builds keep their visits


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"baseline_targets": "^(C"}, "'baseline_targets'.*not a regular expression"),
        ({"baseline_targets": "^C", "algorithm": "ppo"}, "'baseline_targets'.*is for algorithm=search"),
    ],
)
def test_bad_baseline_targets_are_refused_naming_the_key(changes, message):
    with pytest.raises(ConfigError, match=message):
        make_config(("test", {**TINY, **changes}))
