"""A plain-text view of a Kardinal & König game (the record command line, the env's ``"ansi"``).

``game_text(game)`` shows every hand; ``game_text(game, seat=s)`` only what seat ``s`` may know: its own
hand, the others' hand sizes, and the phase only when ``s`` decides (as in the observation).
"""

from __future__ import annotations

from kardinal_env.koenig.engine import Game

__all__ = ["game_text"]


def game_text(game: Game, seat: int | None = None) -> str:
    b = game.board
    n = game.num_players
    if game.is_over:
        status = f"game over; winners {game.winners()}"
    else:
        status = f"seat {game.current_player} to decide"
        if seat is None or seat == game.current_player:
            status += f" ({game.phase})"
        if game.turn_country is not None:
            status += f", this turn in {game.turn_country}"
    lines = [
        f"Kardinal & König: {n} players, discard={game.rules.discard!r}, board {b.name!r}; "
        f"move {game.move_count}, {status}"
    ]
    runout = ("deck not yet run out", "interim scoring done", "last round")[game.runouts]
    lines.append(
        f"deck {game.deck_size()} cards ({runout}); display {game.display()}; "
        f"discard pile {len(game.discard_pile())} cards"
    )
    owners = game.owners()
    cl = game.cloister_counts()
    ad = game.advisor_counts()
    width = max(len(name) for name in b.country_names)
    for c, cid in enumerate(b.country_ids):
        sites = " ".join(f"{b.site_ids[s]}:{'.' if owners[s] is None else owners[s]}" for s in b.country_sites[c])
        seal = " ".join(f"{s}x{k}" for s, k in enumerate(ad[c]) if k) or "-"
        named = b.types[b.country_type[c]]
        lines.append(
            f"  {cid:>3} {b.country_names[c]:<{width}} card {named} | {sites} | advisors {seal} | cloisters {cl[c]}"
        )
    lines.append(
        "alliances: "
        + ", ".join(f"{i}:{b.country_ids[a]}-{b.country_ids[c]}" for i, (a, c) in enumerate(b.alliances, 1))
    )
    for s in range(n):
        k, a = game.pieces_left(s)
        hand = f"hand {game.hand(s)}" if seat is None or seat == s else f"{game.hand_size(s)} cards"
        lines.append(f"  seat {s}: score {game.scores()[s]:>3}  cloisters left {k:>2}, advisors left {a}  {hand}")
    breakdown = game.final_breakdown()
    if breakdown is not None:
        lines.append(
            "final scoring: "
            + "; ".join(f"{k} {v}" for k, v in breakdown.items())
            + f"; interim {game.interim_scores()}"
        )
    return "\n".join(lines)
