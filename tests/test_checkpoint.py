"""Checkpoints (agents.networks.checkpoint): the format version, the game, refusals with a clear
reason (no layout, another format, an unregistered game), atomic writes (a crash mid-write keeps
the last good checkpoint), and weight averaging."""

from __future__ import annotations

import os

import pytest

torch = pytest.importorskip("torch")

from agents.networks.checkpoint import (  # noqa: E402
    CHECKPOINT_FORMAT,
    CheckpointError,
    average_checkpoints,
    checkpoint_game,
    make_checkpoint,
    read_checkpoint,
    trained_players,
    write_checkpoint,
)
from agents.networks.kardinal_net import KardinalNet  # noqa: E402
from kardinal_env.core.registry import get_game  # noqa: E402
from kardinal_env.kardinal import Rules  # noqa: E402


def _ckpt(**changes) -> dict:
    torch.manual_seed(0)
    ckpt = make_checkpoint(get_game("kardinal"), Rules(players=2), KardinalNet(8, 1, 16), step=0, iteration=0)
    ckpt.update(changes)
    return ckpt


def test_a_new_checkpoint_names_its_format_game_and_layout(tmp_path):
    ckpt = _ckpt()
    assert ckpt["format"] == CHECKPOINT_FORMAT == "kardinal-checkpoint/2"
    assert (ckpt["game"], ckpt["env"]) == ("kardinal", "kardinal_v0")
    assert ckpt["layout"]["env"] == "kardinal_v0" and ckpt["layout"]["window"] == 53
    path = write_checkpoint(ckpt, tmp_path / "c.pt")
    read, net = read_checkpoint(path)
    assert checkpoint_game(read).name == "kardinal" and net.config == {"channels": 8, "blocks": 1, "hidden": 16}
    for k, v in ckpt["model"].items():
        assert torch.equal(net.state_dict()[k], v)


def _refused(tmp_path, ckpt, name="x.pt") -> str:
    path = tmp_path / name
    torch.save(ckpt, path)
    with pytest.raises(CheckpointError) as info:
        read_checkpoint(path)
    assert str(info.value).startswith(f"{path}: not a kardinal-env checkpoint (")
    return str(info.value)


def test_a_checkpoint_without_a_layout_is_refused(tmp_path):
    for ckpt in (_ckpt(), {k: v for k, v in _ckpt().items() if k not in ("format", "game")}):  # versions 2 and 1
        del ckpt["layout"]
        assert "no 'layout' key" in _refused(tmp_path, ckpt)


def test_version_1_with_a_layout_is_read_and_gets_its_game(tmp_path):
    old = {k: v for k, v in _ckpt().items() if k not in ("format", "game")}
    path = tmp_path / "v1.pt"
    torch.save(old, path)
    ckpt, net = read_checkpoint(path)
    assert ckpt["game"] == "kardinal" and net is not None
    old["env"] = "connect_four_v3"
    assert "made for env 'connect_four_v3'; this version knows 'kardinal_v0'" in _refused(tmp_path, old)
    del old["env"]
    assert "nothing says which game" in _refused(tmp_path, old)


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"format": "kardinal-checkpoint/3"}, "format 'kardinal-checkpoint/3': this version reads"),
        ({"format": 1}, "format 1: this version reads 'kardinal-checkpoint/2'"),
        ({"game": "chess"}, "made for game 'chess', which is not registered (registered games: ['kardinal'"),
        ({"game": None}, "'game' must be a registered game's name"),
        ({"env": "kardinal_koenig_v1"}, "game 'kardinal' has env 'kardinal_v0'"),
        ({"model_config": "big"}, "'model_config' must be a dict of network options"),
        ({"rules": {"players": 9}}, "'rules' do not build Kardinal rules"),
        ({"rules": None}, "a kardinal checkpoint needs a 'rules' dict"),
        ({"layout": "flat"}, "'layout' is a str, expected a dict"),
        ({"model_config": {"channels": 16, "blocks": 1, "hidden": 16}}, "weights do not fit model_config"),
        ({"model_config": {"channels": 8}}, "does not build a network"),
        ({"model_config": {"channels": 8, "blocks": 1, "hidden": 16, "kind": "graph"}}, "network kind must be"),
    ],
)
def test_bad_checkpoints_are_refused_naming_why(tmp_path, changes, reason):
    msg = _refused(tmp_path, _ckpt(**changes))
    assert reason in msg, msg


def test_another_layout_is_refused(tmp_path):
    ckpt = _ckpt()
    ckpt["layout"] = dict(ckpt["layout"], observation_channels=64)
    assert "observation_channels 64 (checkpoint) vs 72 (this version)" in _refused(tmp_path, ckpt)


def test_a_crash_mid_write_keeps_the_last_good_checkpoint(tmp_path, monkeypatch):
    """torch.save dies half-way through (a kill, a full disk): the file at the path is still the last
    good checkpoint, byte for byte, and no temporary file is left behind."""
    path = tmp_path / "checkpoint.pt"
    write_checkpoint(_ckpt(step=1), path)
    good = path.read_bytes()
    real_save = torch.save

    def half_then_crash(obj, fh, *args, **kwargs):
        import io

        buffer = io.BytesIO()
        real_save(obj, buffer)
        data = buffer.getvalue()
        fh.write(data[: len(data) // 2])
        fh.flush()
        raise OSError("simulated crash mid-write")

    monkeypatch.setattr(torch, "save", half_then_crash)
    with pytest.raises(OSError, match="simulated crash"):
        write_checkpoint(_ckpt(step=2), path)
    monkeypatch.undo()
    assert path.read_bytes() == good
    assert read_checkpoint(path)[0]["step"] == 1
    assert os.listdir(tmp_path) == ["checkpoint.pt"]
    write_checkpoint(_ckpt(step=3), path)  # the next write replaces it
    assert read_checkpoint(path)[0]["step"] == 3 and os.listdir(tmp_path) == ["checkpoint.pt"]


def test_the_trainer_writes_through_write_checkpoint(monkeypatch, tmp_path):
    """Every checkpoint the trainer writes goes through the atomic writer (no torch.save on the path)."""
    from agents.training import run, trainer

    written = []
    real = trainer.write_checkpoint

    def spy(ckpt, path):
        written.append(os.path.basename(str(path)))
        return real(ckpt, path)

    monkeypatch.setattr(trainer, "write_checkpoint", spy)
    path = run.train(
        {
            "total_steps": 40,
            "steps_per_iter": 40,
            "num_envs": 2,
            "channels": 4,
            "blocks": 0,
            "hidden": 8,
            "eval_games": 0,
            "final_eval_games": 0,
            "checkpoint_interval": 1,
            "track": False,
            "progress": False,
            "runs_dir": str(tmp_path),
            "run_name": "w",
        }
    )
    assert written == [f"checkpoint_{read_checkpoint(path)[0]['step']}.pt", "checkpoint.pt", "checkpoint.pt"]


def test_a_previous_env_version_of_the_same_game_is_accepted():
    """kardinal_koenig_v1 changed how seeds deal, not observations or actions: its previous_envs
    (kardinal_koenig_v0) still name the game; other versions and other games' envs do not."""
    spec = get_game("kardinal_koenig")
    assert spec.env_name == "kardinal_koenig_v1" and spec.previous_envs == ("kardinal_koenig_v0",)
    assert checkpoint_game({"env": "kardinal_koenig_v0"}) is spec  # version 1: the game named by its env
    v2 = {"format": CHECKPOINT_FORMAT, "game": "kardinal_koenig", "env": "kardinal_koenig_v0"}
    assert checkpoint_game(v2) is spec
    for env in ("kardinal_koenig_v2", "kardinal_v0"):
        with pytest.raises(CheckpointError, match="has env 'kardinal_koenig_v1'"):
            checkpoint_game({"format": CHECKPOINT_FORMAT, "game": "kardinal_koenig", "env": env})


def _seeded_ckpt(seed: int, channels: int = 8, **fields) -> dict:
    torch.manual_seed(seed)
    return make_checkpoint(get_game("kardinal"), Rules(players=2), KardinalNet(channels, 1, 16), **fields)


def test_averaging_checkpoints_gives_the_mean_of_their_weights(tmp_path):
    paths = [
        write_checkpoint(_seeded_ckpt(seed, step=100 * seed, optimizer={"x": 1}), tmp_path / f"c{seed}.pt")
        for seed in (1, 2, 3)
    ]
    averaged = average_checkpoints(paths)
    weights = [torch.load(p, weights_only=True)["model"] for p in paths]
    for name, value in averaged["model"].items():
        expected = (weights[0][name].double() + weights[1][name].double() + weights[2][name].double()) / 3
        assert torch.allclose(value.double(), expected, atol=1e-6), name
        assert value.dtype == weights[0][name].dtype
    assert not torch.equal(averaged["model"]["stem.weight"], weights[2]["stem.weight"])  # not just the last one
    assert averaged["step"] == 300 and "optimizer" not in averaged
    assert averaged["averaged_from"] == [{"path": str(p), "step": 100 * s} for p, s in zip(paths, (1, 2, 3))]
    read, net = read_checkpoint(write_checkpoint(averaged, tmp_path / "avg.pt"))
    assert read["averaged_from"][0]["step"] == 100 and net is not None


def test_averaging_refuses_other_networks_and_single_checkpoints(tmp_path):
    a = write_checkpoint(_seeded_ckpt(1), tmp_path / "a.pt")
    other = write_checkpoint(_seeded_ckpt(2, channels=4), tmp_path / "other.pt")
    with pytest.raises(CheckpointError, match="other.pt: cannot be averaged with .*a.pt: its layout|its model_config"):
        average_checkpoints([a, other])
    with pytest.raises(CheckpointError, match="two or more"):
        average_checkpoints([a])
    with pytest.raises(CheckpointError, match="no such file"):
        average_checkpoints([a, tmp_path / "missing.pt"])


def test_trained_players_reads_rules_then_config_and_refuses_bools():
    assert trained_players({"rules": {"players": 3}, "config": {"players": 4}}) == 3
    assert trained_players({"rules": {"players": "3"}, "config": {"players": 4}}) == 4
    assert trained_players({"rules": {"players": True}, "config": {"players": 4}}) == 4
    assert trained_players({"config": {"players": False}}) is None
    assert trained_players({}) is None
