"""Board files of Kardinal & König, format ``kardinal-koenig-board/1``: loading, validation, compilation.

A board is data, never code. It is a JSON object::

    {"format": "kardinal-koenig-board/1",
     "name": "default",                        # a short name (records name packaged boards by it)
     "source": "...",                          # optional: where the data comes from, what is reconstructed
     "countries": [{"id": "FR", "name": "France", "sites": ["FR1", "FR2", ...]}, ...],
     "cards": [{"type": 0, "countries": ["FN", "AR"], "count": 13}, ...],
     "roads": [["FR1", "FR2"], ...],           # unordered pairs of sites
     "alliances": [["AR", "IT"], ...],         # unordered pairs of countries, in their numeric order 1, 2, ...
     "layout": {"FR1": [x, y], "FR": [x, y], ...}}   # optional: drawing positions of sites and seals

Checked, with a :class:`BoardError` naming the problem and where it is:

* ``format`` is exactly ``kardinal-koenig-board/1``; no unknown keys anywhere;
* ids (countries and sites) are non-empty strings without ``/``, ``@``, ``:`` or whitespace, unique across countries and
  sites together; every country has a name and at least one site;
* card types are distinct single digits ``0``-``9``; counts are positive integers; every country is named by exactly one
  card type (a type may name none: its cards then pay only as pairs);
* roads join two different known sites, alliances two different known countries; neither repeats (in either order);
* ``layout``, when present, gives ``[x, y]`` finite numbers (not NaN or infinity) for every site and every country (the
  seal) and names nothing else;
* a board file is UTF-8 JSON (anything else is a :class:`BoardError` naming the file).

(That no road crosses the sea is a property of the board file, not something the loader can check.)

:func:`load_board` takes ``None`` (the packaged ``default`` board), a packaged board's name
(``kardinal_env/koenig/boards/NAME.json``), a path or a dict, and returns a validated deep copy; :func:`compile_board`
makes a :class:`Board` of it (indices, adjacency, the move table).
"""

from __future__ import annotations

import copy
import json
import math
import os
import re
from pathlib import Path

from kardinal_env.core.checks import is_int, is_number
from kardinal_env.core.errors import IllegalMoveError

__all__ = [
    "BOARD_FORMAT",
    "BOARDS_DIR",
    "Board",
    "BoardError",
    "board_names",
    "compile_board",
    "load_board",
    "validate_board",
]

BOARD_FORMAT = "kardinal-koenig-board/1"
BOARDS_DIR = Path(__file__).with_name("boards")
_ID_RE = re.compile(r"[^/@:\s]+")
_TOP_KEYS = {"format", "name", "source", "countries", "cards", "roads", "alliances", "layout"}
_REQUIRED = ("format", "name", "countries", "cards", "roads", "alliances")


class BoardError(ValueError):
    """A malformed board (file); the message names the problem and where it is."""


def board_names() -> list[str]:
    """Names of the packaged boards (files in ``kardinal_env/koenig/boards``)."""
    return sorted(p.stem for p in BOARDS_DIR.glob("*.json"))


def _check_id(value: object, where: str) -> str:
    if not isinstance(value, str) or not _ID_RE.fullmatch(value):
        raise BoardError(
            f"{where}: an id must be a non-empty string without '/', '@', ':' or whitespace, got {value!r}"
        )
    return value


def _fields(value: object, keys: tuple[str, ...], where: str) -> dict:
    """``value`` if it is an object with exactly ``keys``; :class:`BoardError` naming the problem."""
    if not isinstance(value, dict):
        names = ", ".join(repr(k) for k in keys[:-1])
        raise BoardError(f"{where}: expected an object with {names} and {keys[-1]!r}")
    extra = sorted(set(value) - set(keys))
    if extra:
        raise BoardError(f"{where}: unknown key(s) {extra}")
    for key in keys:
        if key not in value:
            raise BoardError(f"{where}: missing key {key!r}")
    return value


def _check_pairs(data: dict, key: str, noun: str, known: list[str], what: str, where: str) -> None:
    """``data[key]`` must list pairs of two different ``known`` ids (``what``), none twice in either order."""
    pairs = data[key]
    if not isinstance(pairs, list):
        raise BoardError(f"{where}: {key!r} must be a list of {what} pairs")
    seen: set[frozenset] = set()
    for i, value in enumerate(pairs):
        at = f"{where}: {key}[{i}]"
        if not isinstance(value, list) or len(value) != 2:
            raise BoardError(f"{at}: expected a pair [{what}, {what}], got {value!r}")
        a, b = value
        for x in (a, b):
            if not isinstance(x, str) or x not in known:
                raise BoardError(f"{at}: unknown {what} {x!r}")
        if a == b:
            raise BoardError(f"{at}: joins {what} {a!r} with itself")
        if frozenset(value) in seen:
            raise BoardError(f"{at}: {noun} {a}-{b} is listed twice")
        seen.add(frozenset(value))


def validate_board(data: object, where: str = "board") -> dict:
    """Check a board dict against the schema; returns it unchanged or raises :class:`BoardError`."""
    if not isinstance(data, dict):
        raise BoardError(f"{where}: expected a JSON object, got {type(data).__name__}")
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise BoardError(f"{where}: unknown key(s) {unknown}; known: {sorted(_TOP_KEYS)}")
    for key in _REQUIRED:
        if key not in data:
            raise BoardError(f"{where}: missing key {key!r}")
    if data["format"] != BOARD_FORMAT:
        raise BoardError(f"{where}: 'format' must be {BOARD_FORMAT!r}, got {data['format']!r}")
    if not isinstance(data["name"], str) or not data["name"]:
        raise BoardError(f"{where}: 'name' must be a non-empty string, got {data['name']!r}")
    if "source" in data and not isinstance(data["source"], str):
        raise BoardError(f"{where}: 'source' must be a string, got {type(data['source']).__name__}")

    countries = data["countries"]
    if not isinstance(countries, list) or not countries:
        raise BoardError(f"{where}: 'countries' must be a non-empty list")
    ids: dict[str, str] = {}  # id -> "country" | "site", in file order
    for i, country in enumerate(countries):
        cw = f"{where}: countries[{i}]"
        _fields(country, ("id", "name", "sites"), cw)
        cid = _check_id(country["id"], f"{cw}.id")
        if cid in ids:
            raise BoardError(f"{cw}: id {cid!r} is used twice")
        ids[cid] = "country"
        if not isinstance(country["name"], str) or not country["name"]:
            raise BoardError(f"{cw}: 'name' must be a non-empty string")
        sites = country["sites"]
        if not isinstance(sites, list) or not sites:
            raise BoardError(f"{cw}: country {cid!r} has no sites (needs a non-empty list)")
        for j, site in enumerate(sites):
            sid = _check_id(site, f"{cw}.sites[{j}]")
            if sid in ids:
                raise BoardError(f"{cw}.sites[{j}]: id {sid!r} is used twice")
            ids[sid] = "site"
    country_ids = [key for key, kind in ids.items() if kind == "country"]

    cards = data["cards"]
    if not isinstance(cards, list) or not cards:
        raise BoardError(f"{where}: 'cards' must be a non-empty list of card types")
    named_by: dict[str, int] = {}
    types = set()
    for i, card in enumerate(cards):
        kw = f"{where}: cards[{i}]"
        _fields(card, ("type", "countries", "count"), kw)
        t = card["type"]
        if not is_int(t) or not 0 <= t <= 9:
            raise BoardError(f"{kw}: 'type' must be a digit 0-9, got {t!r}")
        if t in types:
            raise BoardError(f"{kw}: card type {t} is listed twice")
        types.add(t)
        if not is_int(card["count"]) or card["count"] < 1:
            raise BoardError(f"{kw}: 'count' must be a positive integer, got {card['count']!r}")
        if not isinstance(card["countries"], list):
            raise BoardError(f"{kw}: 'countries' must be a list of country ids")
        for cid in card["countries"]:
            if not isinstance(cid, str) or cid not in country_ids:
                raise BoardError(f"{kw}: unknown country {cid!r}")
            if cid in named_by:
                raise BoardError(f"{kw}: country {cid!r} is already named by card type {named_by[cid]}")
            named_by[cid] = t
    missing = [cid for cid in country_ids if cid not in named_by]
    if missing:
        raise BoardError(f"{where}: 'cards': no card type names country(ies) {missing}")

    _check_pairs(data, "roads", "road", [key for key, kind in ids.items() if kind == "site"], "site", where)
    _check_pairs(data, "alliances", "alliance", country_ids, "country", where)

    if "layout" in data:
        layout = data["layout"]
        if not isinstance(layout, dict):
            raise BoardError(f"{where}: 'layout' must be an object mapping ids to [x, y]")
        for key, pos in layout.items():
            if key not in ids:
                raise BoardError(f"{where}: layout: unknown id {key!r}")
            if not isinstance(pos, list) or len(pos) != 2 or not all(is_number(v) for v in pos):
                raise BoardError(f"{where}: layout[{key!r}]: expected [x, y] numbers, got {pos!r}")
            if not all(math.isfinite(v) for v in pos):
                raise BoardError(f"{where}: layout[{key!r}]: coordinates must be finite numbers, got {pos!r}")
        absent = [key for key in ids if key not in layout]
        if absent:
            raise BoardError(f"{where}: layout: no position for {absent[:5]}{' ...' if len(absent) > 5 else ''}")
    return data


def load_board(spec: object = None) -> dict:
    """A validated deep copy of a board: ``None`` (default), a packaged board name, a path, or a dict."""
    spec = "default" if spec is None else spec
    if isinstance(spec, dict):
        return copy.deepcopy(validate_board(spec))
    if isinstance(spec, (str, os.PathLike)):
        text = os.fspath(spec)
        packaged = BOARDS_DIR / f"{text}.json"
        is_name = isinstance(spec, str) and _ID_RE.fullmatch(text) and "." not in text and "\\" not in text
        path = packaged if is_name and packaged.is_file() else Path(text)
        if is_name and not packaged.is_file() and not path.is_file():
            raise BoardError(
                f"board {text!r}: no packaged board of that name (known: {board_names()}) and no such file"
            )
        try:
            with open(path, encoding="utf-8") as fh:
                data = json.load(fh)
        except json.JSONDecodeError as exc:
            raise BoardError(f"{path}: not valid JSON: {exc}") from None
        except UnicodeDecodeError as exc:
            raise BoardError(f"board file {text!r}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
        except OSError as exc:
            raise BoardError(f"board file {text!r}: {exc.strerror or exc}") from None
        return validate_board(data, where=str(path))
    raise BoardError(f"board must be None, a board name, a path or a dict, got {type(spec).__name__}")


class Board:
    """A validated board compiled for the engine (read-only; shared by every game on that board).

    Countries ``0..C-1`` and sites ``0..S-1`` in file order, card types ``0..T-1`` in digit order
    (``types[i]`` is the digit). The move table (:attr:`moves`, inverse :attr:`move_index`) lists every
    move string the engine can ever offer, in slices (``P = T + 1`` payments per target: the single type
    naming the target's country, then the pair of each type):

    ==================  =======================================  ==========================
    slice               moves                                    id
    ==================  =======================================  ==========================
    cloisters           ``K@{site}/{pay}``                       ``site * P + j``
    advisors            ``A@{country}/{pay}``                    ``advisor_base + c * P + j``
    end                 ``end``                                  ``end_id``
    discards            ``discard:{t}``                          ``discard_base + i``
    display draws       ``draw:{t}``                             ``draw_base + i``
    deck draw           ``draw:deck``                            ``deck_id`` (the last id)
    ==================  =======================================  ==========================

    ``j = 0`` is the single card, ``j = 1 + i`` the pair of type index ``i``; :attr:`move_spends`: per
    move id the type indices of the cards it spends (empty for ``end`` and the draws).
    """

    def __init__(self, data: dict):
        self.data = data
        self.name = data["name"]
        self.country_ids = tuple(c["id"] for c in data["countries"])
        self.country_names = tuple(c["name"] for c in data["countries"])
        self.country_index = {cid: i for i, cid in enumerate(self.country_ids)}
        countries = range(len(self.country_ids))
        self.site_ids = site_ids = tuple(s for c in data["countries"] for s in c["sites"])
        self.site_index = {sid: i for i, sid in enumerate(site_ids)}
        self.site_country = site_country = tuple(ci for ci, c in enumerate(data["countries"]) for _ in c["sites"])
        self.country_sites = tuple(tuple(s for s, ci in enumerate(site_country) if ci == c) for c in countries)
        cards = sorted(data["cards"], key=lambda c: c["type"])
        self.types = tuple(c["type"] for c in cards)
        self.type_index = {t: i for i, t in enumerate(self.types)}
        self.type_countries = tuple(tuple(self.country_index[cid] for cid in c["countries"]) for c in cards)
        named_by = {c: i for i, cs in enumerate(self.type_countries) for c in cs}  # every country, once (validated)
        self.country_type = country_type = tuple(named_by[c] for c in countries)
        self.counts = tuple(c["count"] for c in cards)
        self.roads = tuple((self.site_index[a], self.site_index[b]) for a, b in data["roads"])
        self.adjacency = tuple(
            tuple(sorted(b if a == s else a for a, b in self.roads if s in (a, b))) for s in range(len(site_ids))
        )
        self.alliances = tuple((self.country_index[a], self.country_index[b]) for a, b in data["alliances"])
        self.num_countries = len(self.country_ids)
        self.num_sites = len(site_ids)
        self.num_types = len(self.types)
        # The move table.
        T = len(self.types)
        P = self.pay_stride = T + 1
        moves = []
        targets = [("K", sid, site_country[s]) for s, sid in enumerate(site_ids)]  # (kind, id, country)
        targets += [("A", cid, c) for c, cid in enumerate(self.country_ids)]
        for kind, target, c in targets:
            moves.append(f"{kind}@{target}/{self.types[country_type[c]]}")
            moves += [f"{kind}@{target}/{t}{t}" for t in self.types]
        self.advisor_base = P * len(site_ids)
        self.site_moves = tuple(tuple(range(s * P, s * P + P)) for s in range(len(site_ids)))
        self.end_id = len(moves)
        self.discard_base = self.end_id + 1
        self.draw_base = self.discard_base + T
        self.deck_id = self.draw_base + T
        moves += ["end"] + [f"discard:{t}" for t in self.types] + [f"draw:{t}" for t in self.types] + ["draw:deck"]
        self.num_moves = len(moves)
        self.moves = tuple(moves)
        pays = [(country_type[c],) if j == 0 else (j - 1, j - 1) for _, _, c in targets for j in range(P)]
        self.move_spends: tuple[tuple[int, ...], ...] = tuple(pays + [()] + [(i,) for i in range(T)] + [()] * (T + 1))
        self.move_index = {m: i for i, m in enumerate(moves)}
        assert len(self.move_index) == len(moves) == len(self.move_spends)

    def move_id(self, move: object) -> int:
        """The id of a move string of the table; ``IllegalMoveError`` (``"malformed move"``) otherwise."""
        action = self.move_index.get(move) if isinstance(move, str) else None
        if action is None:
            raise IllegalMoveError(
                f"malformed move: {move!r} is no move on board {self.name!r}", "malformed move", move
            )
        return action

    def __repr__(self) -> str:
        return (
            f"Board({self.name!r}: {len(self.country_ids)} countries, {len(self.site_ids)} sites, "
            f"{len(self.roads)} roads, {len(self.alliances)} alliances, {sum(self.counts)} cards)"
        )


_COMPILED: dict[str, Board] = {}


def compile_board(data: dict) -> Board:
    """The :class:`Board` of a validated board dict (cached by content: equal dicts share one)."""
    key = json.dumps(data, sort_keys=True)
    board = _COMPILED.get(key)
    if board is None:
        board = _COMPILED[key] = Board(copy.deepcopy(data))
    return board
