"""PNG pictures of positions (kardinal_env.core.picture, scripts/docs_pictures.py): the file decodes
to the array it was given, positions are reproducible, bad arguments are refused, and the pictures
of the documentation's game pages are what ``bash scripts/docs.sh pictures`` makes."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
from helpers import script_main

from kardinal_env.core.picture import position_after, write_png, write_position_png
from kardinal_env.core.registry import UnknownGameError, get_game

ROOT = Path(__file__).resolve().parent.parent
#: The game pages' pictures and the arguments scripts/docs.sh gives scripts/docs_pictures.py.
DOCS_PICTURES = {
    "kardinal-frame.png": ("kardinal", 4, 40, 3),
    "koenig-frame.png": ("kardinal_koenig", 4, 60, 3),
}


def _decode_png(data: bytes) -> np.ndarray:
    """An 8-bit RGB PNG with filter 0 on every row (what write_png writes) back to an array."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, {}
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF, kind
        chunks[kind] = chunks.get(kind, b"") + body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    assert (depth, colour, interlace) == (8, 2, 0) and b"IEND" in chunks
    rows = np.frombuffer(zlib.decompress(chunks[b"IDAT"]), np.uint8).reshape(height, 1 + 3 * width)
    assert not rows[:, 0].any()  # filter type 0
    return rows[:, 1:].reshape(height, width, 3)


def test_write_png_decodes_to_the_array(tmp_path):
    image = np.random.default_rng(0).integers(0, 256, size=(7, 13, 3), dtype=np.uint8)
    path = write_png(image, tmp_path / "x.png")
    assert path == tmp_path / "x.png"
    assert np.array_equal(_decode_png(path.read_bytes()), image)


@pytest.mark.parametrize(
    "bad",
    [
        np.zeros((4, 4, 3), np.float32),
        np.zeros((4, 4), np.uint8),
        np.zeros((4, 4, 4), np.uint8),
        np.zeros((0, 4, 3), np.uint8),
    ],
    ids=["float", "2d", "rgba", "empty"],
)
def test_write_png_refuses_other_arrays(tmp_path, bad):
    with pytest.raises(ValueError, match=r"uint8 array of shape \(height, width, 3\)"):
        write_png(bad, tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()


@pytest.mark.parametrize("game", ["kardinal", "kardinal_koenig"])
def test_positions_are_reproducible_and_stop_at_the_end(game):
    one, two = position_after(game, moves=25, seed=5), position_after(game, moves=25, seed=5)
    assert one.move_count == 25 and one.history == two.history
    assert position_after(game, moves=25, seed=6).history != one.history
    assert position_after(game, moves=0).move_count == 0
    finished = position_after(game, moves=100_000, seed=1)
    assert finished.is_over and finished.move_count < 100_000


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="moves must be an integer >= 0"):
        position_after("kardinal", moves=-1)
    with pytest.raises(UnknownGameError):
        position_after("no_such_game")
    with pytest.raises(ValueError, match=r"kardinal plays .*got 7"):
        position_after("kardinal", players=7)


def test_a_game_without_an_image_renderer_is_refused(tmp_path, monkeypatch):
    import dataclasses

    from kardinal_env.core import picture

    kardinal = get_game("kardinal")
    spec = dataclasses.replace(kardinal, renderers=dataclasses.replace(kardinal.renderers, image=None))
    monkeypatch.setattr(picture, "get_game", lambda name: spec)
    with pytest.raises(ValueError, match="game 'kardinal' has no image renderer"):
        write_position_png("kardinal", tmp_path / "x.png")


@pytest.mark.parametrize("name", sorted(DOCS_PICTURES))
def test_the_docs_pictures_are_what_the_script_makes(name, tmp_path, cli):
    game, players, moves, seed = DOCS_PICTURES[name]
    out = tmp_path / name
    argv = ["--game", game, "--players", str(players), "--moves", str(moves), "--seed", str(seed), "--out", str(out)]
    proc = cli(script_main("docs_pictures"), argv)
    assert proc.returncode == 0, proc.stderr
    committed = ROOT / "docs" / "images" / name
    assert committed.read_bytes() == out.read_bytes(), f"{committed} is stale: bash scripts/docs.sh pictures"
    assert committed.stat().st_size <= 200_000
    image = _decode_png(committed.read_bytes())
    spec = get_game(game)
    assert np.array_equal(image, spec.renderer("image")(position_after(game, players, moves, seed)))
    script = (ROOT / "scripts" / "docs.sh").read_text()
    assert f"--game {game} --players {players} --moves {moves} --seed {seed}" in script
    assert f"docs/images/{name}" in script


def test_script_refuses_bad_arguments(tmp_path, cli):
    proc = cli(script_main("docs_pictures"), ["--game", "kardinal", "--moves", "-3", "--out", str(tmp_path / "x.png")])
    assert proc.returncode == 2 and "moves must be an integer >= 0" in proc.stderr
    assert not (tmp_path / "x.png").exists()
