"""Small helpers shared by the engine tests (not a test module)."""

from __future__ import annotations

from kardinal_env.kardinal import Game, Rules


def play(game: Game, moves) -> Game:
    """Play ``moves`` (notation strings) in order; an illegal one fails with the position shown."""
    for i, move in enumerate(moves):
        try:
            game.play(move)
        except Exception as exc:  # pragma: no cover - a broken fixture, report it readably
            raise AssertionError(
                f"fixture move {i} {move!r} failed: {exc}\nlegal now: {game.legal_moves()[:40]}"
            ) from exc
    return game


def new_game(players: int = 4, moves=(), **options) -> Game:
    """A game with ``Rules(players=players, **options)`` after ``moves``."""
    return play(Game(Rules(players=players, **options)), moves)


def bounding_box(game: Game) -> tuple[int, int, int, int]:
    """(min x, max x, min y, max y) over every building square."""
    squares = [sq for b in game.buildings() for sq in b.squares]
    xs = [x for x, _ in squares]
    ys = [y for _, y in squares]
    return min(xs), max(xs), min(ys), max(ys)
