"""Packaging promises: both engines (and the registry) without gymnasium/pettingzoo/numpy, one
version, the package list, what the wheel holds, the console entry points, the agent loader entry
point and the presets as package data.

Runs in both CI lanes (``.ci/run``): the full ``.venv`` (editable install, every extra) and the core
lane's ``.venv-core`` (the wheel without extras). Tests marked ``extras`` need more than the core
dependencies (building a wheel needs setuptools >= 77; the training entry points need torch) and are
deselected in the core lane.
"""

from __future__ import annotations

import importlib.metadata as metadata
import importlib.resources
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

import kardinal_env

# run in the core lane of .ci/run on the installed wheels (pytest --core-lane, tests/conftest.py)
pytestmark = pytest.mark.core_lane

ROOT = Path(__file__).resolve().parents[1]
DIST = "kardinal-env"
GOLDEN_RECORD = ROOT / "tests" / "golden" / "english_3p_tiebreak.json"

ENTRY_POINTS = {
    "kardinal-train": "agents.training:main",
    "kardinal-evaluate": "agents.evaluation:main",
    "kardinal-play": "agents.serving.play:main",
    "kardinal-replay": "kardinal_env.core.replay:main",
}
#: Entry points of other groups this distribution declares (group -> name -> object).
OTHER_ENTRY_POINTS = {"kardinal_env.agents": {"agents": "agents"}}
CORE_DEPENDENCIES = {"numpy", "gymnasium", "pettingzoo"}


def _project_version() -> str:
    """The version in pyproject.toml (its only source)."""
    text = (ROOT / "pyproject.toml").read_text()
    match = re.search(r'^version = "([^"]+)"$', text, re.MULTILINE)
    assert match, "pyproject.toml: no [project] version line"
    return match.group(1)


# ---------------------------------------------------------------- the engine alone

_BLOCKED_GAME = textwrap.dedent(
    """
    import importlib.abc, json, random, sys

    BLOCKED = set(sys.argv[1].split(","))

    class Block(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ImportError(f"{name} is blocked by this test")
            return None

    sys.meta_path.insert(0, Block())
    for name in BLOCKED:
        assert name not in sys.modules, name

    import kardinal_env.kardinal.engine, kardinal_env.kardinal.record, kardinal_env.kardinal.rules
    from kardinal_env.kardinal import Game, Rules
    from kardinal_env import RecordError, get_game

    rng = random.Random(7)
    game = Game(Rules(players=3, preset="german"))
    while not game.is_over:
        game.play(rng.choice(game.legal_moves()))
    record = json.loads(json.dumps(game.to_record()))
    again = Game.from_record(record)
    assert again.to_record() == record
    assert again.scores() == game.scores() and again.winners() == game.winners()
    record["result"]["scores"] = [s + 1 for s in record["result"]["scores"]]
    try:
        Game.from_record(record)
    except RecordError:
        pass
    else:
        raise AssertionError("a record with wrong scores was accepted")
    # the second engine, through the registry alone
    spec = get_game("kardinal_koenig")
    koenig = spec.new_game(spec.rules(players=4), seed=11)
    while not koenig.is_over:
        koenig.play(rng.choice(koenig.legal_moves()))
    again = spec.from_record(json.loads(json.dumps(koenig.to_record())))
    assert again.scores() == koenig.scores() and again.finishing_order() == koenig.finishing_order()
    loaded = sorted(m.split(".")[0] for m in sys.modules)
    print(json.dumps({"moves": game.move_count, "scores": game.scores(), "koenig_moves": koenig.move_count,
                      "modules": loaded}))
    """
)


@pytest.mark.parametrize(
    "blocked",
    [("gymnasium", "pettingzoo"), ("gymnasium", "pettingzoo", "numpy", "torch", "pygame")],
    ids=["no-gym-pettingzoo", "standard-library-only"],
)
def test_engine_plays_and_records_without_optional_libraries(blocked):
    """Both engines (Kardinal's imported directly, Kardinal & König's through the registry) play a
    whole game and round-trip its record while ``blocked`` cannot be imported (the package docstring
    promises the engines need only the standard library; gymnasium and pettingzoo are needed by the
    environments alone)."""
    result = subprocess.run(
        [sys.executable, "-c", _BLOCKED_GAME, ",".join(blocked)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    facts = json.loads(result.stdout.strip().splitlines()[-1])
    assert facts["moves"] > 20 and facts["koenig_moves"] > 20
    assert len(facts["scores"]) == 3
    assert not set(blocked) & set(facts["modules"])


# ---------------------------------------------------------------- version and metadata


def test_version_comes_from_package_metadata():
    assert kardinal_env.__version__ == metadata.version(DIST) == _project_version()


def test_core_dependencies_are_numpy_gymnasium_pettingzoo():
    """Requirements without an extra marker: nothing of training, rendering or RL libraries."""
    core = set()
    for requirement in metadata.requires(DIST) or []:
        if "extra ==" in requirement:
            continue
        core.add(re.match(r"[A-Za-z0-9_.-]+", requirement).group(0).lower())
    assert core == CORE_DEPENDENCIES


def test_entry_points_are_declared():
    declared = {ep.name: ep.value for ep in metadata.distribution(DIST).entry_points if ep.group == "console_scripts"}
    assert declared == ENTRY_POINTS


def test_other_entry_points_are_declared_and_load():
    """The agents package in the group ``kardinal_env.agents``: the single-agent view
    (``kardinal_env.core.single_agent``) finds its ``load_agent`` there; no game entry point (the
    built-in games, and their agents, register themselves)."""
    from kardinal_env.core.single_agent import agent_loader

    declared: dict[str, dict[str, str]] = {}
    for ep in metadata.distribution(DIST).entry_points:
        if ep.group != "console_scripts":
            declared.setdefault(ep.group, {})[ep.name] = ep.value
    assert declared == OTHER_ENTRY_POINTS
    import agents

    assert agent_loader() is agents.load_agent


def _declared_packages() -> list[str]:
    tomllib = pytest.importorskip("tomllib")
    with open(ROOT / "pyproject.toml", "rb") as fh:
        return tomllib.load(fh)["tool"]["setuptools"]["packages"]


def test_every_package_folder_is_listed():
    """``[tool.setuptools] packages`` lists every folder of kardinal_env/ and agents/ that holds
    Python modules or package data, and nothing that does not exist."""
    folders = set()
    for top in ("kardinal_env", "agents"):
        for path in (ROOT / top).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix not in {".pyc", ".pyo"}:
                folders.add(".".join(path.parent.relative_to(ROOT).parts))
    declared = set(_declared_packages()) - {"kardinal_configs"}
    assert sorted(folders - declared) == [], "package folders missing from pyproject.toml"
    assert sorted(declared - folders) == [], "packages in pyproject.toml without a folder"


@pytest.mark.extras
@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_entry_point_resolves_to_a_callable(name):
    (ep,) = [e for e in metadata.distribution(DIST).entry_points if e.group == "console_scripts" and e.name == name]
    assert callable(ep.load()), f"{name} -> {ep.value} is not callable"


def _console_script(name: str, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    """The installed console script ``name`` in a process of its own: the one smoke test of each
    (the tests call their ``main(argv)`` in-process, the ``cli`` fixture of tests/conftest.py)."""
    script = Path(sys.executable).parent / name
    assert script.exists(), f"{script} was not installed"
    env = {**os.environ, "MPLBACKEND": "Agg"}
    return subprocess.run([str(script), *args], input=stdin, capture_output=True, text=True, timeout=180, env=env)


def test_replay_console_script_verifies_a_record():
    result = _console_script("kardinal-replay", str(GOLDEN_RECORD))
    assert result.returncode == 0, result.stderr
    assert "record OK" in result.stdout


@pytest.mark.extras
def test_evaluate_console_script_plays_a_tournament():
    result = _console_script("kardinal-evaluate", "--agents", "greedy", "random", "--games", "2", "--quiet")
    assert result.returncode == 0, result.stderr
    assert "greedy" in result.stdout and "random" in result.stdout


@pytest.mark.extras
def test_play_console_script_plays_in_the_terminal():
    result = _console_script("kardinal-play", "--agents", "random", stdin="H0@2,0\nquit\n")
    assert result.returncode == 0, result.stderr
    assert "phase: chip  seat on turn: 0" in result.stdout and "bye" in result.stdout


@pytest.mark.extras
def test_train_console_script_answers_help():
    result = _console_script("kardinal-train", "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: ")


# ---------------------------------------------------------------- package data


def test_presets_are_readable_as_package_data():
    """configs/*.yaml as installed (``kardinal_configs``), byte for byte the checkout's files."""
    presets = importlib.resources.files("kardinal_configs")
    names = sorted(p.name for p in (ROOT / "configs").glob("*.yaml"))
    assert "default.yaml" in names
    for name in names:
        assert presets.joinpath(name).read_text() == (ROOT / "configs" / name).read_text(), name


def test_py_typed_is_installed():
    assert importlib.resources.files("kardinal_env").joinpath("py.typed").is_file()


def _package_files(folder: str) -> set[str]:
    """Files of a package folder that an installed wheel must hold (no caches)."""
    base = ROOT / folder
    return {
        f"{folder}/{p.relative_to(base).as_posix()}"
        for p in base.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix not in {".pyc", ".pyo"}
    }


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    """A wheel built from a copy of the checkout (so no build/ or egg-info is left in the tree and
    no stale build/ output can slip in), offline: --no-deps --no-build-isolation."""
    # Asked of the installed metadata, not by importing setuptools here: an import in this process
    # fails when an earlier test has already imported the standard library's distutils (setuptools'
    # distutils shim asserts on it), and the build below runs in its own process anyway.
    try:
        setuptools_version = metadata.version("setuptools")
    except metadata.PackageNotFoundError:
        pytest.skip("setuptools is not installed (the dev extra has it)")
    if int(setuptools_version.split(".")[0]) < 77:
        pytest.skip(f"setuptools {setuptools_version} is older than 77, which builds this pyproject.toml")
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, src / name)
    for folder in ("kardinal_env", "agents", "configs"):
        shutil.copytree(ROOT / folder, src / folder, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    out = tmp_path_factory.mktemp("wheel")
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", "--no-build-isolation", "-q", "-w", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    (path,) = out.glob("kardinal_env-*.whl")
    with zipfile.ZipFile(path) as zf:
        yield zf


@pytest.mark.extras
def test_wheel_holds_packages_presets_and_data(wheel):
    names = set(wheel.namelist())
    expected = _package_files("kardinal_env") | _package_files("agents")
    expected |= {f"kardinal_configs/{p.name}" for p in (ROOT / "configs").glob("*.yaml")}
    expected |= {"kardinal_configs/__init__.py", "kardinal_env/py.typed"}
    missing = sorted(expected - names)
    assert not missing, f"not in the wheel: {missing}"
    assert not [n for n in names if n.startswith(("tests/", "scripts/", "configs/", "docs/"))]


@pytest.mark.extras
def test_wheel_metadata(wheel):
    version = _project_version()
    dist_info = f"kardinal_env-{version}.dist-info"
    names = set(wheel.namelist())
    assert f"{dist_info}/licenses/LICENSE" in names
    meta = wheel.read(f"{dist_info}/METADATA").decode()
    assert f"\nVersion: {version}\n" in meta
    assert "\nLicense-Expression: MIT\n" in meta
    entry_points = wheel.read(f"{dist_info}/entry_points.txt").decode()
    for name, target in ENTRY_POINTS.items():
        assert f"{name} = {target}" in entry_points
