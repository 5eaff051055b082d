"""One install for users (issue 54): the ``core`` extra, the versions of both distributions, and what a
program sees without the compiled core (the Python engines and exactly one warning).

Runs in every lane. The core lane of ``.ci/run`` also runs it twice on installed wheels built by
``scripts/wheels.sh``: first with the main wheel alone (no ``kardinal_core`` in the venv at all), then
after ``pip install "kardinal_env-….whl[core]"`` has added the core wheel through the extra.
"""

from __future__ import annotations

import importlib.metadata as metadata
import importlib.util
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import kardinal_env

# run in the core lane of .ci/run on the installed wheels (pytest --core-lane, tests/conftest.py)
pytestmark = pytest.mark.core_lane

ROOT = Path(__file__).resolve().parents[1]
DIST, CORE_DIST = "kardinal-env", "kardinal-env-core"


def _pyproject(path: Path) -> dict:
    tomllib = pytest.importorskip("tomllib")
    with open(path, "rb") as fh:
        return tomllib.load(fh)


def test_the_core_extra_pins_the_core_of_this_version():
    """``kardinal-env[core]`` installs ``kardinal-env-core`` of exactly this version, and the two
    pyproject.toml files give both distributions one version."""
    main = _pyproject(ROOT / "pyproject.toml")["project"]
    core = _pyproject(ROOT / "cpp" / "pyproject.toml")["project"]
    assert core["name"] == CORE_DIST
    assert core["version"] == main["version"], "pyproject.toml and cpp/pyproject.toml disagree on the version"
    assert main["optional-dependencies"]["core"] == [f"{CORE_DIST}=={main['version']}"]


def test_the_installed_metadata_offers_the_core_extra():
    version = metadata.version(DIST)
    assert version == kardinal_env.__version__
    assert f'{CORE_DIST}=={version}; extra == "core"' in (metadata.requires(DIST) or [])


def test_an_installed_core_is_of_this_version():
    if importlib.util.find_spec("kardinal_core") is None:
        if os.environ.get("KARDINAL_REQUIRE_CORE") == "1":
            pytest.fail("KARDINAL_REQUIRE_CORE=1 but kardinal_core is not installed")
        pytest.skip("kardinal_core is not installed")
    assert metadata.version(CORE_DIST) == kardinal_env.__version__


# A user's program. kardinal_core is made unimportable first (a no-op where it is not installed), so
# the check runs in every venv; the line numbers below count from the top of this text.
_PROGRAM = textwrap.dedent(
    """\
    import sys; sys.modules["kardinal_core"] = None
    import numpy as np
    from kardinal_env import kardinal_koenig_v1, kardinal_v0
    from kardinal_env.kardinal import Game, Rules
    from kardinal_env.vector import VectorEnv
    env = kardinal_v0.env(players=2)
    env.reset(seed=0)  # line 7: the first game of the process
    for _ in range(5):
        obs, *_ = env.last()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    koenig = kardinal_koenig_v1.env(players=3)
    koenig.reset(seed=0)
    assert not Game(Rules(players=3)).compiled and not koenig.unwrapped.game.compiled
    for game in ("kardinal", "kardinal_koenig"):
        vec = VectorEnv(game=game, num_envs=2, seed=0)
        vec.reset()
        vec.step(vec.random_actions(np.random.default_rng(0)))
        assert vec.backend == "python", vec.backend
    print("python engines")
    """
)


def _run_program(tmp_path: Path, **env_vars: str) -> subprocess.CompletedProcess:
    program = tmp_path / "user_program.py"
    program.write_text(_PROGRAM)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONWARNINGS", "KARDINAL_ENV_BACKEND")}
    env.update(env_vars)
    result = subprocess.run(
        [sys.executable, str(program)], capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "python engines"
    return result


def test_without_the_core_one_warning_at_the_first_game(tmp_path):
    """Default warning filters, as a user runs a program: both games, both AEC environments and both
    ``VectorEnv`` run on the Python engines, and stderr holds exactly one warning — the
    ``CoreMissingWarning`` at the program's line that made the first environment (which starts a game to
    learn its action space), naming the ``core`` extra."""
    result = _run_program(tmp_path)
    warnings_shown = re.findall(r"^(.*?):(\d+): (\w+Warning): (.*)$", result.stderr, re.MULTILINE)
    assert len(warnings_shown) == 1, result.stderr
    ((path, line, category, message),) = warnings_shown
    assert (Path(path).name, int(line), category) == ("user_program.py", 6, "CoreMissingWarning"), result.stderr
    assert 'pip install "kardinal-env[core]"' in message and "KARDINAL_ENV_BACKEND=python" in message


def test_without_the_core_the_python_backend_is_silent(tmp_path):
    result = _run_program(tmp_path, KARDINAL_ENV_BACKEND="python")
    assert "Warning" not in result.stderr, result.stderr


def test_the_install_docs_name_wheels_of_this_version():
    """docs/getting-started.md names the wheels scripts/wheels.sh makes by their file names."""
    version = _pyproject(ROOT / "pyproject.toml")["project"]["version"]
    text = (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")
    named = set(re.findall(r"kardinal_env(?:_core)?-(\d[\w.]*?)-(?:py3|cp3)", text))
    assert named == {version}, named
