"""Checkpoints after a kill (issue 53): the temporary files an interrupted write leaves behind are removed
(only ours, only of the run's checkpoint files), the trainer writes checkpoint.pt before best.pt, and
``--resume`` makes best.pt agree with the checkpoint it resumes, whatever point the kill came at.
The kills are simulated by writing the files a killed run leaves; no real training beyond what
``train`` does with no step left to train (Nim, ``tests/third_game.py``, tiny networks)."""

from __future__ import annotations

import os
import shutil

import pytest

torch = pytest.importorskip("torch")

import third_game  # noqa: E402
from helpers import tiny_run  # noqa: E402

from agents.networks.checkpoint import make_checkpoint, read_checkpoint, write_checkpoint  # noqa: E402
from agents.networks.kardinal_net import KardinalNet  # noqa: E402
from agents.training import run  # noqa: E402
from agents.training import trainer as trainer_module  # noqa: E402
from agents.training.config import make_config  # noqa: E402
from kardinal_env.core.registry import get_game  # noqa: E402
from kardinal_env.kardinal import Rules  # noqa: E402

torch.set_num_threads(1)

NIM = tiny_run("nim", total_steps=100, num_envs=2, hidden=8, bc_games=0, final_eval_games=0, run_name="run")
NIM.update(checkpoint_interval=1, keep_best=True, baseline="greedy")


@pytest.fixture(scope="module")
def nim():
    with third_game.registered() as spec:
        yield spec


def _small_ckpt(step: int = 0) -> dict:
    torch.manual_seed(0)
    return make_checkpoint(get_game("kardinal"), Rules(players=2), KardinalNet(4, 0, 8), step=step, iteration=0)


# ---------------------------------------------------------------------- leftover temporary files
LEFTOVERS = [".checkpoint.pt.abcd1234.tmp", ".checkpoint.pt.x_9zq0ab.tmp"]
OTHER_TARGETS = [".best.pt.q1w2e3r4.tmp", ".checkpoint_100.pt.abcd1234.tmp", ".avg.pt.abcd1234.tmp"]
NOT_OURS = [
    "notes.txt",
    "checkpoint.pt.abcd1234.tmp",  # no leading dot
    ".checkpoint.pt.abc.tmp",  # not eight random characters
    ".checkpoint.pt.ABCD1234.tmp",  # not tempfile's characters
    ".checkpoint.pt.abcd1234.tmp.keep",
    ".checkpoint.pt.abcd1234",
]


def _populate(directory, names) -> None:
    for name in names:
        (directory / name).write_bytes(b"half a checkpoint")


def test_a_successful_write_removes_its_own_targets_leftovers_only(tmp_path):
    _populate(tmp_path, LEFTOVERS + OTHER_TARGETS + NOT_OURS)
    (tmp_path / ".checkpoint.pt.dir12345.tmp").mkdir()  # a directory: never removed
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"keep me")
    (tmp_path / ".checkpoint.pt.link1234.tmp").symlink_to(outside)  # a link: neither it nor its target
    write_checkpoint(_small_ckpt(step=1), tmp_path / "checkpoint.pt")
    left = set(os.listdir(tmp_path))
    assert not left & set(LEFTOVERS)
    assert left >= set(OTHER_TARGETS + NOT_OURS) | {".checkpoint.pt.dir12345.tmp", ".checkpoint.pt.link1234.tmp"}
    assert outside.read_bytes() == b"keep me" and read_checkpoint(tmp_path / "checkpoint.pt")[0]["step"] == 1
    write_checkpoint(_small_ckpt(step=2), tmp_path / "best.pt")
    assert ".best.pt.q1w2e3r4.tmp" not in os.listdir(tmp_path)
    assert ".checkpoint_100.pt.abcd1234.tmp" in os.listdir(tmp_path)


def test_a_failed_write_keeps_the_leftovers_and_the_name_of_a_real_temporary_file_matches(tmp_path, monkeypatch):
    """The pattern the cleanup removes is the one the writer really uses (tempfile's names)."""
    from agents.networks import checkpoint

    _populate(tmp_path, LEFTOVERS)
    created = []
    real_mkstemp = checkpoint.tempfile.mkstemp

    def spy(*args, **kwargs):
        fd, name = real_mkstemp(*args, **kwargs)
        created.append(os.path.basename(name))
        return fd, name

    monkeypatch.setattr(checkpoint.tempfile, "mkstemp", spy)
    monkeypatch.setattr(checkpoint.os, "replace", lambda *a: (_ for _ in ()).throw(OSError("disk full")))
    with pytest.raises(OSError, match="disk full"):
        write_checkpoint(_small_ckpt(), tmp_path / "checkpoint.pt")
    monkeypatch.undo()
    assert set(os.listdir(tmp_path)) == set(LEFTOVERS)  # its own temporary file removed, nothing else
    assert len(created) == 1 and checkpoint.temp_target(created[0]) == "checkpoint.pt"
    assert checkpoint.temp_target(".best.pt.q1w2e3r4.tmp") == "best.pt"
    assert checkpoint.temp_target(".checkpoint.pt.abc.tmp") is None


def test_a_run_removes_the_leftovers_of_its_checkpoint_files_when_it_starts(nim, tmp_path):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    ours = LEFTOVERS + [".best.pt.q1w2e3r4.tmp", ".checkpoint_100.pt.abcd1234.tmp"]
    others = [".avg.pt.abcd1234.tmp", ".best_step9.pt.abcd1234.tmp", *NOT_OURS]
    _populate(run_dir, ours + others)
    trainer = _trainer(tmp_path)
    trainer._open_outputs()  # what run() does first: nothing is written yet
    trainer._close_outputs()
    assert sorted(os.listdir(run_dir)) == sorted(others)


def test_resume_removes_the_leftovers_of_a_write_killed_at_the_end(nim, tmp_path):
    first = run.train(dict(NIM, runs_dir=str(tmp_path)))
    run_dir = tmp_path / "run"
    _populate(run_dir, [".checkpoint.pt.killed01.tmp", ".best.pt.killed02.tmp", ".checkpoint_100.pt.killed03.tmp"])
    step = read_checkpoint(first)[0]["step"]
    run.train({"runs_dir": str(tmp_path)}, resume=first, total_steps=step)  # nothing left to train
    assert not [name for name in os.listdir(run_dir) if name.endswith(".tmp")]


# ---------------------------------------------------------------------- checkpoint.pt before best.pt
def _trainer(tmp_path, ckpt=None):
    return trainer_module.Trainer(make_config(("test", dict(NIM, runs_dir=str(tmp_path)))), ckpt)


def _state(trainer, step: int, best: float | None, best_step: int | None = None) -> dict:
    """A checkpoint dict of ``trainer`` as if it stood at ``step`` with a best of ``best`` (at ``best_step``)."""
    trainer.global_step = step
    trainer.best = None if best is None else {"winrate": best, "step": best_step or step, "opponent": "greedy"}
    trainer.latest["greedy"] = best if best is not None else float("nan")
    return trainer.save_checkpoint(os.path.join(trainer.run_dir, "scratch.pt"), step // 100)


def _killed_run(tmp_path, best: tuple, checkpoint: tuple):
    """The run folder a killed run left: best.pt and checkpoint.pt as ``_state(trainer, *best)`` and
    ``_state(trainer, *checkpoint)`` write them."""
    trainer = _trainer(tmp_path)
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    os.replace(_state(trainer, *best), run_dir / "best.pt")
    os.replace(_state(trainer, *checkpoint), run_dir / "checkpoint.pt")
    return run_dir


def _resume(tmp_path):
    """Resume from the run's checkpoint.pt (what ``--resume`` does before it trains); the trainer."""
    ckpt = run.load_resume(str(tmp_path / "run" / "checkpoint.pt"))
    trainer = _trainer(tmp_path, ckpt)
    trainer._open_outputs()
    trainer._close_outputs()
    return trainer


def _step(path) -> int:
    return torch.load(path, weights_only=True)["step"]


@pytest.mark.parametrize("kill", ["none", "first write", "second write"])
def test_a_new_best_writes_checkpoint_pt_first_and_resume_agrees_at_any_kill(nim, tmp_path, monkeypatch, kill):
    """A run at step 200 (its best at 200 in best.pt) finds a new best at step 300; it is killed during the
    first or the second write of keep_if_best, or not at all. The resumed run's best.pt is the best its
    checkpoint.pt records, and never of a step that checkpoint.pt has not reached."""
    trainer = _trainer(tmp_path)
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    os.replace(_state(trainer, 200, 0.4), run_dir / "checkpoint.pt")
    shutil.copyfile(run_dir / "checkpoint.pt", run_dir / "best.pt")
    trainer.global_step, trainer.latest["greedy"] = 300, 0.6
    written = []
    real = trainer_module.write_checkpoint

    class Killed(BaseException):
        pass

    def killable(ckpt, path):
        written.append(os.path.basename(str(path)))
        if (kill, len(written)) in (("first write", 1), ("second write", 2)):
            directory, name = os.path.split(str(path))
            with open(os.path.join(directory, f".{name}.killed00.tmp"), "wb") as fh:  # what the kill leaves
                fh.write(b"half")
            raise Killed
        return real(ckpt, path)

    monkeypatch.setattr(trainer_module, "write_checkpoint", killable)
    if kill == "none":
        trainer.keep_if_best(3)
    else:
        with pytest.raises(Killed):
            trainer.keep_if_best(3)
    monkeypatch.undo()
    assert written == ["checkpoint.pt", "best.pt"][: len(written)]
    resumed = _resume(tmp_path)
    ckpt = torch.load(run_dir / "checkpoint.pt", weights_only=True)
    best = torch.load(run_dir / "best.pt", weights_only=True)
    assert best["best"] == ckpt["best"] == resumed.best and best["step"] == ckpt["best"]["step"] <= ckpt["step"]
    assert ckpt["step"] == (200 if kill == "first write" else 300)
    assert sorted(os.listdir(run_dir)) == ["best.pt", "checkpoint.pt"]  # no tmp file left, nothing set aside


def test_resume_sets_aside_a_best_pt_newer_than_the_checkpoint(nim, tmp_path):
    """What an earlier version left when killed after writing best.pt and before checkpoint.pt: best.pt
    at step 400, checkpoint.pt at 300 recording its best at 200 (whose best.pt was overwritten). The
    resumed run keeps the newer file under another name, has no best until it evaluates, and then
    writes best.pt with checkpoint.pt first."""
    run_dir = _killed_run(tmp_path, best=(400, 0.7), checkpoint=(300, 0.5, 200))
    newer = (run_dir / "best.pt").read_bytes()
    resumed = _resume(tmp_path)
    assert (run_dir / "best_step400.pt").read_bytes() == newer and not (run_dir / "best.pt").exists()
    assert resumed.best is None
    resumed.latest["greedy"] = 0.1  # any score is the resumed run's best so far
    resumed.keep_if_best(4)
    assert _step(run_dir / "best.pt") == _step(run_dir / "checkpoint.pt") == 300
    assert torch.load(run_dir / "best.pt", weights_only=True)["best"]["winrate"] == 0.1


def test_resume_from_an_earlier_checkpoint_sets_aside_the_later_best(nim, tmp_path):
    """Resuming checkpoint_{step}.pt of a run whose best.pt is of a later step: best.pt comes from
    beyond the resumed state, so it is renamed, never deleted, and the run's best.pt restarts from
    the record (here: the resumed checkpoint is itself the best it records)."""
    run_dir = _killed_run(tmp_path, best=(500, 0.9), checkpoint=(300, 0.6))
    _resume(tmp_path)
    assert _step(run_dir / "best_step500.pt") == 500
    assert _step(run_dir / "best.pt") == _step(run_dir / "checkpoint.pt") == 300


def test_resume_keeps_a_best_pt_that_is_the_recorded_best(nim, tmp_path):
    run_dir = _killed_run(tmp_path, best=(200, 0.6), checkpoint=(300, 0.6, 200))
    before = (run_dir / "best.pt").read_bytes()
    resumed = _resume(tmp_path)
    assert (run_dir / "best.pt").read_bytes() == before and resumed.best["step"] == 200
    assert sorted(os.listdir(run_dir)) == ["best.pt", "checkpoint.pt"]
