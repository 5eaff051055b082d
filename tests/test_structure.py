"""The suite's structure, checked on the source: no import circles, the env package independent of
``agents``, the shared machinery independent of every game, and no tool that decides by a game's name.

* **Import graph** — every module of ``kardinal_env`` and ``agents`` is parsed with :mod:`ast`; an
  edge is every ``import`` / ``from ... import`` of one of those modules, at module level *and*
  inside functions or classes (relative imports resolved; ``importlib.import_module("...")`` with
  a constant name counts too). Only imports under ``if TYPE_CHECKING:`` are left out (they never
  run). ``from package import name`` is an edge to ``package.name`` when that is a module, else to
  the package. A circle fails the test, printed with the file and line of each import.
* **Layers** — no module of ``kardinal_env`` imports ``agents`` (statically, under any condition)
  or names it in a string other than a docstring (no ``"agents.x:Y"`` target to import lazily, no
  ``"agents:..."`` entry: the agents' registry, ``agents/registry.py``, holds what plays a game);
  no module of ``kardinal_env/core`` imports a game's modules. A game's modules are its *room*:
  the package of the engine its registry entry names (``kardinal_env.kardinal``,
  ``kardinal_env.koenig``), its environment module's package, its public versioned module
  (``kardinal_env.kardinal_v0`` ...) and the registry entries (``kardinal_env.games``) — derived
  from the registry, not listed here.
* **At run time** — ``import kardinal_env`` and every module of ``kardinal_env.core`` (in a fresh
  interpreter) load no game room (but the registry entries of ``kardinal_env.games``, which name
  code as strings), no ``agents``, no torch and no pygame; the versioned modules load
  no ``agents``, torch or pygame.
* **No decisions by name** — outside the games' rooms and files named for one game (a file whose
  name starts with a room's or game's name and ``_``, e.g. ``agents/baselines/koenig_greedy.py``,
  ``agents/networks/kardinal_net.py``; and classes named for a game, e.g. ``KoenigAdapter``), no
  code of ``kardinal_env``, ``agents`` or ``scripts`` compares a value with a registered game's
  name (``==``, ``!=``, ``in``, ``is``, ``match``/``case``), keys a dict literal by game names,
  compares with a ``"kardinal_env."`` module path or calls ``startswith``/``endswith`` with one,
  or calls ``isinstance`` with a class imported from a game's room. Ask the registry instead.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from kardinal_env.core.registry import games

# run in the core lane of .ci/run on the installed wheels (pytest --core-lane, tests/conftest.py)
pytestmark = pytest.mark.core_lane

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("kardinal_env", "agents")
PACKAGE_NAME = "kardinal_env"
MODULE_PATH_PREFIX = PACKAGE_NAME + "."


# ---------------------------------------------------------------- the modules and their imports


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources(*folders: str) -> dict[str, Path]:
    found = {}
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "__pycache__" not in path.parts:
                found[_module_name(path)] = path
    return found


MODULES = _sources(*PACKAGES)


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # the imported module (resolved to a module of MODULES where one matches)
    line: int
    type_checking: bool

    def where(self) -> str:
        return f"{MODULES[self.source].relative_to(ROOT)}:{self.line}"


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _resolve(module: str, is_package: bool, level: int, name: str | None) -> str:
    if not level:
        return name or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def _target(name: str) -> str:
    """``name`` or, for an attribute path such as ``pkg.mod.func``, its longest known module prefix."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in MODULES:
            return candidate
    return name


def imports_of(module: str) -> list[Import]:
    path = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    found: list[Import] = []

    def visit(node: ast.AST, type_checking: bool) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                visit(child, True)
            for child in node.orelse:
                visit(child, type_checking)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.append(Import(module, _target(alias.name), node.lineno, type_checking))
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, is_package, node.level, node.module)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.append(Import(module, full if full in MODULES else _target(base), node.lineno, type_checking))
        elif (
            isinstance(node, ast.Call)
            and (
                (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
                or (isinstance(node.func, ast.Name) and node.func.id == "import_module")
            )
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append(Import(module, _target(node.args[0].value), node.lineno, type_checking))
        for child in ast.iter_child_nodes(node):
            visit(child, type_checking)

    visit(tree, False)
    return found


IMPORTS = {module: imports_of(module) for module in MODULES}


def _is_within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


# ---------------------------------------------------------------- the games' rooms (from the registry)


def _module_of(value: object) -> str | None:
    if isinstance(value, str):
        return value.partition(":")[0]
    module = getattr(value, "__module__", None) if not hasattr(value, "__path__") else None
    return module or getattr(value, "__name__", None)


def game_rooms() -> dict[str, set[str]]:
    """Per registered game of this package: the modules and packages of its room."""
    rooms: dict[str, set[str]] = {}
    for spec in games().values():
        engine = _module_of(spec.game_class)
        if not engine or not engine.startswith(MODULE_PATH_PREFIX):
            continue  # a game from elsewhere (a test's): no room inside the package
        room = {engine.rpartition(".")[0], f"{PACKAGE_NAME}.games", f"{PACKAGE_NAME}.{spec.env_name}"}
        env_module = _module_of(spec.env_module)
        if env_module:
            room.add(env_module.rpartition(".")[0] if env_module.count(".") > 1 else env_module)
        rooms[spec.name] = room
    return rooms


ROOMS = game_rooms()
ROOM_MODULES = set().union(*ROOMS.values())


def in_a_room(module: str) -> bool:
    return any(_is_within(module, room) for room in ROOM_MODULES)


def test_the_rooms_are_found():
    """The derivation above finds both built-in games' rooms (so the checks below check something)."""
    assert len(ROOMS) >= 2, ROOMS
    for name, room in ROOMS.items():
        assert any(module in MODULES for module in room), f"{name}: no module of its room {room} exists"
        assert f"{PACKAGE_NAME}.core" not in room


# ---------------------------------------------------------------- (a) no import circles


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One circle per strongly connected component with more than one module (or a self-import)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    counter = [0]

    def strongconnect(v: str) -> None:  # Tarjan (recursion depth: the longest import chain)
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                strongconnect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph.get(v, ()):
                components.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            strongconnect(v)
    circles = []
    for component in components:
        members = set(component)
        start = component[0]
        # shortest path from start back to start inside the component (BFS)
        previous: dict[str, str] = {}
        queue = [start]
        found = None
        while queue and found is None:
            v = queue.pop(0)
            for w in sorted(graph[v] & members):
                if w == start:
                    found = v
                    break
                if w not in previous:
                    previous[w] = v
                    queue.append(w)
        path = [start]
        v = found
        while v is not None and v != start:
            path.append(v)
            v = previous.get(v)
        circles.append([start, *reversed(path[1:]), start])
    return circles


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for module, imports in IMPORTS.items():
        for imp in imports:
            if imp.target in MODULES and not imp.type_checking and imp.target != module:
                graph[module].add(imp.target)
    return graph


def _edge_where(source: str, target: str) -> str:
    lines = [imp.where() for imp in IMPORTS[source] if imp.target == target and not imp.type_checking]
    return ", ".join(lines)


def test_cycle_finder_finds_a_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert _cycles(graph) == [["a", "b", "c", "a"], ["e", "e"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_circles():
    graph = import_graph()
    assert sum(len(targets) for targets in graph.values()) > 50  # the parser found the imports
    circles = _cycles(graph)
    report = []
    for circle in circles:
        steps = [f"  {a} -> {b}  ({_edge_where(a, b)})" for a, b in zip(circle, circle[1:])]
        report.append(" -> ".join(circle) + "\n" + "\n".join(steps))
    assert not circles, "import circles (imports inside functions included):\n" + "\n".join(report)


def test_function_level_imports_are_edges():
    """The graph holds imports made inside functions (the circles the issue found were hidden there)."""
    graph = import_graph()
    inner = [
        (m, imp.target)
        for m in MODULES
        for imp in IMPORTS[m]
        if imp.target in MODULES and not imp.type_checking and imp.line not in _module_level_lines(m)
    ]
    assert inner, "no import inside a function was found: the parser misses them"
    assert all(target in graph[source] for source, target in inner)


def _module_level_lines(module: str) -> set[int]:
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    lines = set()
    for node in tree.body:
        for sub in ast.walk(node) if isinstance(node, (ast.If, ast.Try)) else [node]:
            if isinstance(sub, (ast.Import, ast.ImportFrom)):
                lines.add(sub.lineno)
    return lines


# ---------------------------------------------------------------- (b) layers


def test_kardinal_env_never_imports_agents():
    bad = [
        f"{imp.where()}: imports {imp.target}"
        for module, imports in IMPORTS.items()
        if _is_within(module, PACKAGE_NAME)
        for imp in imports
        if _is_within(imp.target, "agents")
    ]
    assert not bad, "kardinal_env imports agents:\n" + "\n".join(bad)


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes of a module, its classes and functions."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _agents_targets(source: str) -> list[tuple[int, str]]:
    """``(line, text)`` of every string constant, docstrings left out, that names ``agents`` code as
    an import target would: a word that starts with ``agents.`` or ``agents:``
    (``"agents.search.mcts:MCTSAgent"``, ``"agents:load_agent"``; a bare ``"agents"`` is PettingZoo's
    attribute)."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            if any(w.startswith(("agents.", "agents:")) for w in re.findall(r"[\w.:]+", node.value)):
                found.append((node.lineno, node.value))
    return found


def test_the_agents_target_check_finds_what_it_should():
    source = '''"""Docstrings may say agents.search.mcts in prose."""
x = "agents.search.mcts:MCTSAgent"
y = {"random": "agents:load_agent"}
z = f"see {1} agents.registry"
w = "agents"
ok = "the agents of a game; agents' entries"
'''
    assert [line for line, _ in _agents_targets(source)] == [2, 3, 4]


def test_no_string_of_kardinal_env_names_agents_code():
    """``kardinal_env`` names nothing of ``agents``, not even as a lazily imported string."""
    bad = [
        f"{path.relative_to(ROOT)}:{line}: {text!r}"
        for module, path in MODULES.items()
        if _is_within(module, PACKAGE_NAME)
        for line, text in _agents_targets(path.read_text(encoding="utf-8"))
    ]
    assert not bad, "kardinal_env names agents code in strings:\n" + "\n".join(bad)


def test_core_imports_no_game():
    core = f"{PACKAGE_NAME}.core"
    assert any(_is_within(m, core) for m in MODULES)
    bad = [
        f"{imp.where()}: imports {imp.target}"
        for module, imports in IMPORTS.items()
        if _is_within(module, core)
        for imp in imports
        if in_a_room(imp.target)
    ]
    assert not bad, "kardinal_env.core imports a game's modules:\n" + "\n".join(bad)


# ---------------------------------------------------------------- (c) at run time

_LOADED = """
import importlib, json, sys
for name in sys.argv[1].split(","):
    importlib.import_module(name)
print(json.dumps(sorted(sys.modules)))
"""


def _loaded_by(*modules: str) -> list[str]:
    result = subprocess.run(
        [sys.executable, "-c", _LOADED, ",".join(modules)], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_importing_the_package_and_core_loads_no_game_agents_torch_or_pygame():
    core = sorted(m for m in MODULES if _is_within(m, f"{PACKAGE_NAME}.core"))
    loaded = _loaded_by(PACKAGE_NAME, *core)
    assert set(core) <= set(loaded)
    heavy = [m for m in loaded if m.split(".")[0] in ("agents", "torch", "pygame")]
    assert not heavy, f"import kardinal_env (+ core) loaded {heavy}"
    entries = f"{PACKAGE_NAME}.games"  # the built-in registry entries: loaded, but they hold only names
    rooms = [m for m in loaded if in_a_room(m) and m != entries]
    assert not rooms, f"import kardinal_env (+ core) loaded game modules {rooms}"


def test_importing_the_environments_loads_no_agents_torch_or_pygame():
    versioned = sorted(f"{PACKAGE_NAME}.{spec.env_name}" for spec in games().values() if spec.name in ROOMS)
    assert versioned and all(m in MODULES for m in versioned), versioned
    loaded = _loaded_by(*versioned)
    heavy = [m for m in loaded if m.split(".")[0] in ("agents", "torch", "pygame")]
    assert not heavy, f"importing {versioned} loaded {heavy}"


# ---------------------------------------------------------------- (d) no decisions by a game's name


def _game_words() -> tuple[set[str], set[str]]:
    """Registered game names, and the prefixes of files and classes named for one game."""
    names = set(ROOMS)
    prefixes = set(names)
    for room in ROOM_MODULES:
        last = room.rpartition(".")[2]
        if last not in ("games",) and not last.endswith("_v0"):
            prefixes.add(last)
    return names, prefixes


GAME_NAMES, GAME_PREFIXES = _game_words()


def _exempt_file(path: Path) -> bool:
    module = _module_name(path)
    if in_a_room(module):
        return True
    stem = path.stem
    return any(stem.startswith(prefix + "_") for prefix in GAME_PREFIXES)


def _exempt_class(name: str) -> bool:
    lowered = name.lower()
    return any(lowered.startswith(prefix.replace("_", "")) for prefix in GAME_PREFIXES)


def _strings(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [s for elt in node.elts for s in _strings(elt)]
    return []


def _room_names(tree: ast.AST) -> set[str]:
    """Names a file binds to things imported from a game's room."""
    bound = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and in_a_room(node.module):
            bound |= {alias.asname or alias.name for alias in node.names}
    return bound


def name_decisions(path: Path) -> list[str]:
    """Where a file outside the rooms decides by a game's name or module path (see the module docstring)."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source, filename=str(path))
    from_rooms = _room_names(tree)
    found: list[str] = []

    def is_name(value: str) -> bool:
        return value in GAME_NAMES

    def is_module_path(value: str) -> bool:
        return value.startswith(MODULE_PATH_PREFIX)

    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path

    def report(node: ast.AST, why: str) -> None:
        found.append(f"{shown}:{node.lineno}: {why}: {ast.get_source_segment(source, node)}")

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.ClassDef) and _exempt_class(node.name):
            return
        if isinstance(node, ast.Compare):
            values = [s for side in [node.left, *node.comparators] for s in _strings(side)]
            if any(is_name(v) for v in values):
                report(node, "compares with a game's name")
            elif any(is_module_path(v) for v in values):
                report(node, "compares with a module path")
        elif isinstance(node, ast.match_case) and any(
            is_name(s) for sub in ast.walk(node.pattern) if isinstance(sub, ast.MatchValue) for s in _strings(sub.value)
        ):
            report(node.pattern, "matches a game's name")
        elif isinstance(node, ast.Dict) and any(
            k is not None and any(is_name(s) for s in _strings(k)) for k in node.keys
        ):
            report(node, "a dict keyed by game names")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("startswith", "endswith") and any(
                is_module_path(s) or is_name(s) for arg in node.args for s in _strings(arg)
            ):
                report(node, f"{node.func.attr} with a game's name or module path")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("isinstance", "issubclass")
            and len(node.args) == 2
        ):
            classes = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
            if any(isinstance(c, ast.Name) and c.id in from_rooms for c in classes):
                report(node, f"{node.func.id} with a game's class")
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _scanned_files() -> list[Path]:
    files = [p for p in _sources(*PACKAGES, "scripts").values()]
    return [p for p in files if not _exempt_file(p)]


def test_the_name_check_finds_what_it_should(tmp_path):
    name = sorted(GAME_NAMES)[0]
    room = sorted(m for m in ROOM_MODULES if m in MODULES)[0]
    sample = tmp_path / "sample.py"
    code = (
        f"from {room} import Thing\n"
        f"def f(game, spec, kind, mod):\n"
        f"    if game == {name!r}:\n"
        f"        pass\n"
        f"    x = kind in ('a', {name!r})\n"
        f"    y = mod.startswith('kardinal_env.x')\n"
        f"    z = {{{name!r}: 1}}\n"
        f"    ok = spec.name == other and isinstance(game, Thing)\n"
        f"class {sorted(GAME_PREFIXES)[0].replace('_', '').title()}Adapter:\n"
        f"    def g(self, game):\n"
        f"        return game == {name!r}\n"
    )
    sample.write_text(code, encoding="utf-8")
    found = name_decisions(sample)
    assert [line.split(":")[1] for line in found] == ["3", "5", "6", "7", "8"], found


def test_no_tool_decides_by_a_games_name():
    files = _scanned_files()
    assert len(files) > 20
    assert not any(_is_within(_module_name(p), f"{PACKAGE_NAME}.core") and _exempt_file(p) for p in files)
    found = [line for path in files for line in name_decisions(path)]
    assert not found, "decisions by a game's name or module path outside the games' rooms:\n" + "\n".join(found)


@pytest.mark.parametrize(
    "path,exempt",
    [
        ("agents/baselines/koenig_greedy.py", True),
        ("agents/networks/kardinal_net.py", True),
        ("kardinal_env/games.py", True),
        ("kardinal_env/kardinal/engine.py", True),
        ("kardinal_env/core/replay.py", False),
        ("agents/evaluation/tournament.py", False),
    ],
)
def test_which_files_are_named_for_a_game(path, exempt):
    assert _exempt_file(ROOT / path) is exempt
