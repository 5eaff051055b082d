"""The documentation runs: every ```python block of README.md and of every Markdown file under docs/
(docs/**/*.md, the pages of the site), and the commands the bash blocks name.

* Each ```python block runs as it is, in a fresh interpreter (cwd = repository root, ``PYTHONPATH``
  = repository root, ``KARDINAL_DOCS_TEST=1`` in the environment), with a timeout. Blocks are kept
  short enough to run as they are.
* A block that imports an optional RL library (SB3, sb3-contrib, TorchRL, TensorDict, Tianshou, Ray)
  is marked ``integration``; any block whose optional imports are missing is skipped, as
  ``pytest.importorskip`` would.
* A fragment that is deliberately not runnable says so with ```python no-run, or with an
  ``<!-- not run -->`` comment on the line before the fence. Keep those rare.
* Bash blocks are examples and are not executed. Every script, config, test file and module they
  name must exist, each Python script and ``python -m`` module they name must answer ``--help``, and
  every ``kardinal-*`` console command must be declared in ``pyproject.toml`` with an importable
  entry point.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import os
import re
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
#: Top-level modules that make a block an ``integration`` block.
RL_LIBRARIES = {"stable_baselines3", "sb3_contrib", "torchrl", "tensordict", "tianshou", "ray"}
#: Modules a block may need that are not installed everywhere (the block is skipped without them).
OPTIONAL = RL_LIBRARIES | {"torch", "yaml", "matplotlib", "openskill", "pygame"}
NOT_RUN = "<!-- not run -->"
BLOCK_TIMEOUT = 420

_FENCE = re.compile(r"^```(\S*)[ \t]*(.*)$")


def _blocks(path: Path) -> list[dict]:
    """Fenced blocks of a markdown file: language, info words, first line number, code, preceding line."""
    out = []
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m or not m.group(1):
            i += 1
            continue
        start = i
        end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("```")), None)
        if end is None:
            raise AssertionError(f"{path.name}:{start + 1}: unterminated code block")
        previous = next((lines[j].strip() for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        out.append(
            {
                "lang": m.group(1),
                "info": m.group(2).split(),
                "line": start + 1,
                "code": "\n".join(lines[start + 1 : end]) + "\n",
                "not_run": previous == NOT_RUN or "no-run" in m.group(2).split(),
            }
        )
        i = end + 1
    return out


def _imports(code: str) -> set[str]:
    """Top-level names of every module a block imports."""
    names = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def _python_blocks():
    params = []
    for path in DOCS:
        for block in _blocks(path):
            if block["lang"] != "python" or block["not_run"]:
                continue
            ident = f"{path.relative_to(ROOT)}:{block['line']}"
            marks = [pytest.mark.integration] if _imports(block["code"]) & RL_LIBRARIES else []
            params.append(pytest.param(ident, block["code"], id=ident, marks=marks))
    return params


def _bash_blocks() -> list[tuple[str, str]]:
    out = []
    for path in DOCS:
        for block in _blocks(path):
            if block["lang"] in ("bash", "sh", "shell") and not block["not_run"]:
                out.append((f"{path.relative_to(ROOT)}:{block['line']}", block["code"]))
    return out


def _run(args: list[str], timeout: int) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "KARDINAL_DOCS_TEST": "1", "MPLBACKEND": "Agg"}
    env.setdefault("OMP_NUM_THREADS", "1")  # torch in a block: no thread oversubscription on small machines
    return subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)


def test_the_docs_have_python_blocks_and_few_fragments():
    """The extraction finds the blocks (a renamed fence would otherwise pass silently)."""

    def python_blocks(*paths: Path) -> list[dict]:
        return [b for path in paths for b in _blocks(path) if b["lang"] == "python"]

    assert [b["lang"] for b in _blocks(ROOT / "README.md")].count("bash") >= 1  # the quick start
    assert ROOT / "docs" / "games" / "kardinal.md" in DOCS  # docs/ is read recursively
    for page in ("kardinal.md", "kardinal-koenig.md"):  # the engine and the environment
        assert len(python_blocks(ROOT / "docs" / "games" / page)) >= 2, page
    libraries = python_blocks(*sorted((ROOT / "docs" / "libraries").glob("*.md")))
    assert len(libraries) >= 7  # SB3 x3, TorchRL x2, Tianshou, RLlib
    fragments = [b for p in DOCS for b in _blocks(p) if b["lang"] == "python" and b["not_run"]]
    runnable = [b for p in DOCS for b in _blocks(p) if b["lang"] == "python" and not b["not_run"]]
    assert len(fragments) <= len(runnable) // 4, "keep not-run fragments rare"


def test_block_parser_reads_markers(tmp_path):
    doc = tmp_path / "x.md"
    doc.write_text(
        "text\n```python\nimport torch\n```\n<!-- not run -->\n\n```python\nbroken(\n```\n"
        "```python no-run\nalso broken(\n```\n```bash\nls\n```\n"
    )
    blocks = _blocks(doc)
    assert [(b["lang"], b["not_run"], b["line"]) for b in blocks] == [
        ("python", False, 2),
        ("python", True, 7),
        ("python", True, 10),
        ("bash", False, 13),
    ]
    assert _imports(blocks[0]["code"]) == {"torch"}
    assert _imports("from sb3_contrib.common import x\nimport ray.rllib as r\nfrom . import y\n") == {
        "sb3_contrib",
        "ray",
    }


@pytest.mark.timeout(BLOCK_TIMEOUT + 30)
@pytest.mark.parametrize(("where", "code"), _python_blocks())
def test_python_block_runs(where, code, tmp_path):
    missing = sorted(m for m in _imports(code) & OPTIONAL if importlib.util.find_spec(m) is None)
    if missing:
        pytest.skip(f"{where} needs {', '.join(missing)} (not installed)")
    script = tmp_path / "block.py"
    script.write_text(code, encoding="utf-8")
    proc = _run([sys.executable, str(script)], BLOCK_TIMEOUT)
    assert proc.returncode == 0, f"{where} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-6000:]}"


# ---------------------------------------------------------------------- bash blocks
def _joined_commands(code: str) -> list[str]:
    """Lines of a bash block with continuations joined and comments dropped."""
    text = code.replace("\\\n", " ")
    out = []
    for line in text.splitlines():
        line = re.sub(r"(^|\s)#.*$", "", line).strip()
        if line:
            out.append(line)
    return out


_PATH = re.compile(r"(?<![\w./-])((?:scripts|configs|tests|kardinal_env|agents|docs)/[\w./-]+\.(?:py|sh|yaml|md))")
_MODULE = re.compile(r"python3?\s+-m\s+([\w.]+)")
#: A console command at the start of a command (not the package name in ``pip install "kardinal-env[...]"``).
_CONSOLE = re.compile(r"(?:^|[;&|(]\s*|\b(?:do|then)\s+)(kardinal-[a-z]+)(?![\w\[-])")


def _named_in_bash():
    paths, modules, consoles, scripts = {}, {}, {}, {}
    for where, code in _bash_blocks():
        for line in _joined_commands(code):
            for p in _PATH.findall(line):
                paths.setdefault(p, where)
                if p.startswith("scripts/") and p.endswith(".py"):
                    scripts.setdefault(p, where)
            for m in _MODULE.findall(line):
                modules.setdefault(m, where)
            for c in _CONSOLE.findall(line):
                consoles.setdefault(c, where)
    return paths, modules, consoles, scripts


def test_bash_blocks_name_existing_files():
    paths, _, _, _ = _named_in_bash()
    assert "scripts/main.sh" in paths and "scripts/test.sh" in paths  # the quick start
    missing = {p: where for p, where in paths.items() if not (ROOT / p).exists()}
    assert not missing, f"bash blocks name files that do not exist: {missing}"


def _run_script_in_process(path: Path, args: list[str], monkeypatch, capsys) -> subprocess.CompletedProcess:
    """``python PATH ARGS`` in this process (``runpy``, as ``__main__``): its exit status and output."""
    monkeypatch.setattr(sys, "argv", [str(path), *args])
    monkeypatch.setenv("MPLBACKEND", "Agg")
    capsys.readouterr()
    code = 0
    try:
        runpy.run_path(str(path), run_name="__main__")
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except ModuleNotFoundError as exc:
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess([str(path), *args], 1, out, f"{err}No module named '{exc.name}'")
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess([str(path), *args], code, out, err)


def _help_targets():
    _, modules, _, scripts = _named_in_bash()
    targets = [pytest.param(["scripts/" + Path(p).name], where, id=p) for p, where in sorted(scripts.items())]
    targets += [pytest.param(["-m", m], where, id=f"-m {m}") for m, where in sorted(modules.items()) if m != "pytest"]
    return targets


@pytest.mark.timeout(200)
@pytest.mark.parametrize(("target", "where"), _help_targets())
def test_bash_python_commands_answer_help(target, where, monkeypatch, capsys):
    if target[0] == "-m":
        top = target[1].split(".")[0]
        if top in OPTIONAL and importlib.util.find_spec(top) is None:
            pytest.skip(f"{top} not installed")
        assert importlib.util.find_spec(target[1]) is not None, f"{where}: no module {target[1]}"
        proc = _run([sys.executable, *target, "--help"], 180)
    elif not (ROOT / target[0]).exists():
        pytest.fail(f"{where}: {target[0]} does not exist")
    else:  # a script of ours: run as __main__ in-process (the scripts only parse arguments)
        proc = _run_script_in_process(ROOT / target[0], ["--help"], monkeypatch, capsys)
    if proc.returncode != 0:
        m = re.search(r"No module named '([\w]+)", proc.stderr)
        if m and m.group(1) in OPTIONAL:
            pytest.skip(f"{' '.join(target)} needs {m.group(1)} (not installed)")
    assert proc.returncode == 0, f"{where}: python {' '.join(target)} --help failed:\n{proc.stderr[-3000:]}"
    assert "usage" in proc.stdout.lower()


def test_bash_console_commands_are_declared_entry_points():
    tomllib = pytest.importorskip("tomllib")
    _, _, consoles, _ = _named_in_bash()
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"].get("scripts", {})
    undeclared = {c: where for c, where in consoles.items() if c not in declared}
    assert not undeclared, f"bash blocks name console commands pyproject.toml does not declare: {undeclared}"
    for name in consoles:
        module, _, func = declared[name].partition(":")
        try:
            target = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.split(".")[0] in OPTIONAL:
                continue
            raise
        assert callable(getattr(target, func, None)), f"{name} = {declared[name]!r}: {module} has no {func}()"


# ---------------------------------------------------------------------- the README's links
def test_readme_links_name_existing_files():
    """The README is read outside the site (mkdocs' strict build does not check it): every relative
    link and picture it has names a file of the repository."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    local = [t.split("#")[0] for t in targets if not re.match(r"[a-z]+:", t) and not t.startswith("#")]
    assert len(local) >= 10, local  # the landing page links into the site
    missing = sorted(t for t in local if not (ROOT / t).is_file())
    assert not missing, f"README.md links to files that do not exist: {missing}"


# ---------------------------------------------------------------------- docs/rules.md against the code
def _rules_doc() -> str:
    return (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")


def test_rules_doc_presets_table_matches_the_code():
    from kardinal_env.kardinal.rules import PRESETS, Rules

    rows = re.findall(r'^\| `(\w+)` \| (.+?) \| `"(\w+)"` \| `"(\w+)"` \|$', _rules_doc(), flags=re.M)
    assert {name for name, *_ in rows} == set(PRESETS["english"]) == set(PRESETS["german"])
    for name, allowed, english, german in rows:
        assert PRESETS["english"][name] == english and PRESETS["german"][name] == german, name
        for value in re.findall(r'`"(\w+)"`', allowed):  # every value the table allows is accepted
            assert getattr(Rules(players=3, **{name: value}), name) == value


def test_rules_doc_notation_examples_are_canonical():
    from kardinal_env.kardinal import format_move, parse_move

    line = next(line for line in _rules_doc().splitlines() if line.startswith("Examples: "))
    examples = re.findall(r"`([^`]+)`", line)
    assert len(examples) >= 6
    for move in examples:
        assert format_move(parse_move(move)) == move
