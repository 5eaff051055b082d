"""The model zoo (agents/zoo): every shipped model loads with this version's layout, plays, and its
card states what its checkpoint records; zoo specs work wherever agent specs do."""

from __future__ import annotations

import os
import random
import re

import pytest

pytest.importorskip("torch")

import torch  # noqa: E402

from agents import AgentSpecError, check_spec, load_agent  # noqa: E402
from agents.networks.checkpoint import CheckpointError, read_checkpoint  # noqa: E402
from agents.zoo import KEPT_KEYS, ZooError, card_path, export, main, model_path, names  # noqa: E402
from kardinal_env.core.registry import get_game  # noqa: E402

#: The models the package promises (the model-zoo issue: Kardinal 2 and 4 players, Kardinal & König 4).
PROMISED = {"kardinal-2p", "kardinal-4p", "kardinal-koenig-4p", "kardinal-2p-cnn", "kardinal-4p-cnn"}
MAX_MB = 5.0


def test_the_promised_models_are_shipped():
    assert PROMISED <= set(names())


@pytest.mark.parametrize("name", sorted(names()))
def test_a_model_loads_with_this_versions_layout_and_plays_a_whole_game(name):
    """read_checkpoint compares the recorded observation/action layout with the code's: a model the
    code has moved away from fails here instead of rotting silently."""
    ckpt, net = read_checkpoint(model_path(name))
    assert net is not None
    spec = get_game(ckpt["game"])
    rules = spec.rules(ckpt["rules"]["players"])
    game = spec.new_game(rules, seed=3)
    agent = load_agent(f"zoo:{name}", game=spec.name, seed=0)
    assert agent.name == f"zoo:{name}"
    rng = random.Random(0)
    while not game.is_over:
        moves = game.legal_moves()
        move = agent.select_move(game) if game.current_player == 0 else rng.choice(moves)
        assert move in moves
        game.play(move)


@pytest.mark.parametrize("name", sorted(names()))
def test_a_models_card_states_what_its_checkpoint_records(name):
    ckpt, _ = read_checkpoint(model_path(name), build=False)
    card = open(card_path(name), encoding="utf-8").read()
    players = ckpt["rules"]["players"]
    assert card.startswith(f"# zoo:{name} ")
    assert f"`{ckpt['game']}`" in card and f"`{ckpt['env']}`" in card
    assert f"{players} players" in card
    assert f"{ckpt['step']:,} " in card, "the card must give the checkpoint's step count"
    assert ckpt["revision"].removesuffix("-dirty") in card, "the card must give the code revision"
    parameters = sum(t.numel() for t in ckpt["model"].values())
    assert f"{parameters:,} parameters" in card
    assert re.search(r"\d\.\d{3}", card), "the card must give results"
    assert "95%" in card, "results with intervals"
    assert "kardinal-train" in card, "the training command"
    if "cpu_seconds" in ckpt:
        assert f"{ckpt['cpu_seconds'] / 60:.0f} min" in card or f"{ckpt['cpu_seconds'] / 3600:.1f} h" in card


@pytest.mark.parametrize("name", sorted(names()))
def test_a_model_is_small_and_holds_nothing_but_what_a_player_needs(name):
    path = model_path(name)
    size = os.path.getsize(path) / 1e6
    assert size < MAX_MB, f"{name}: {size:.2f} MB"
    ckpt = torch.load(path, weights_only=True, map_location="cpu")
    assert set(ckpt) <= set(KEPT_KEYS)
    assert not {"optimizer", "pool", "rng"} & set(ckpt)


def test_zoo_specs_search_and_check_like_checkpoint_specs():
    spec = get_game("kardinal")
    game = spec.new_game(spec.rules(2), seed=1)
    agent = load_agent("puct:4:zoo:kardinal-2p", game="kardinal", seed=1)
    assert agent.name == "puct:4:zoo:kardinal-2p"
    assert agent.select_move(game) in game.legal_moves()
    assert check_spec("zoo:kardinal-2p", players=2, game="kardinal") == []
    warnings = check_spec("zoo:kardinal-2p", players=3, game="kardinal")
    assert warnings and "2" in warnings[0]
    with pytest.raises(AgentSpecError, match="trained on kardinal_v0, not kardinal_koenig_v1"):
        check_spec("zoo:kardinal-2p", game="kardinal_koenig")


@pytest.mark.parametrize("spec", ["zoo:nope", "zoo:", "puct:8:zoo:nope", "zoo:../kardinal-2p"])
def test_an_unknown_zoo_model_is_refused_naming_the_models_there_are(spec):
    with pytest.raises(AgentSpecError) as info:
        load_agent(spec)
    assert "zoo model" in str(info.value) and "the zoo has: kardinal-2p" in str(info.value)


def test_export_strips_training_state_and_refuses_to_overwrite(tmp_path):
    from helpers import tiny_training_checkpoint

    src = tiny_training_checkpoint(tmp_path / "train.pt", {"runs_dir": "/somewhere/else"}, step=7)
    out = export(src, "tiny", folder=tmp_path)
    ckpt = torch.load(out, weights_only=True)
    assert "optimizer" not in ckpt and ckpt["step"] == 7 and ckpt["config"]["runs_dir"] == "runs"
    with pytest.raises(ZooError, match="exists"):
        export(src, "tiny", folder=tmp_path)
    export(src, "tiny", folder=tmp_path, force=True)
    with pytest.raises(ZooError, match="bad zoo model name"):
        export(src, "../up", folder=tmp_path)
    with pytest.raises(CheckpointError):
        export(tmp_path / "missing.pt", "other", folder=tmp_path)


def test_zoo_command_line_averages_checkpoints(tmp_path, capsys):
    from agents.networks.checkpoint import make_checkpoint, read_checkpoint, write_checkpoint
    from agents.training.adapters import make_adapter
    from agents.training.config import make_config

    adapter = make_adapter(make_config(("test", {"game": "kardinal", "players": 2, "channels": 4, "blocks": 1})))
    paths = []
    for step in (10, 20):
        torch.manual_seed(step)
        net = adapter.build_net()
        ckpt = make_checkpoint(adapter.spec, adapter.rules, net, step=step)
        paths.append(write_checkpoint(ckpt, tmp_path / f"{step}.pt"))
    out = tmp_path / "avg.pt"
    assert main(["average", str(out), *paths]) == 0
    assert "the mean of 2 checkpoints" in capsys.readouterr().out
    ckpt, _net = read_checkpoint(out)
    assert [s["step"] for s in ckpt["averaged_from"]] == [10, 20]
    assert main(["average", str(tmp_path / "one.pt"), paths[0]]) == 2
    assert "two or more" in capsys.readouterr().out and not (tmp_path / "one.pt").exists()


def test_zoo_command_line_lists_and_shows(capsys):
    assert main(["list"]) == 0
    listed = capsys.readouterr().out
    for name in names():
        assert f"zoo:{name}" in listed
    assert main(["show", "kardinal-2p"]) == 0
    assert capsys.readouterr().out.startswith("# zoo:kardinal-2p ")
    assert main(["show", "nope"]) == 2
    assert "no zoo model 'nope'" in capsys.readouterr().out


def test_kardinal_play_against_a_zoo_model_without_training(monkeypatch, capsys):
    """``kardinal-play --agents zoo:kardinal-2p``: a whole game, the person answering "1" each time."""
    import io

    from agents.serving.play import main as play

    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 200))
    assert play(["--agents", "zoo:kardinal-2p", "--players", "2", "--seed", "0"]) == 0
    out = capsys.readouterr().out
    assert "seat 1: zoo:kardinal-2p" in out
    assert "seat 1 (zoo:kardinal-2p) plays" in out
    assert "You win!" in out or "You lose" in out or "You share the win!" in out


def test_the_zoo_page_lists_every_model_and_their_total_size():
    from pathlib import Path

    page = (Path(__file__).resolve().parent.parent / "docs" / "zoo.md").read_text(encoding="utf-8")
    for name in names():
        assert f"| `zoo:{name}` |" in page, f"docs/zoo.md has no row for {name}"
    total = sum(os.path.getsize(model_path(n)) for n in names()) / 1e6
    assert f"The model files total {total:.1f} MB" in page
