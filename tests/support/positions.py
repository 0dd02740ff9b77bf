"""Build any position by hand for rule tests: ``position("SH1-C4-AAAAAAB", t1="KH QH")``.

Each keyword names a pile and gives its cards bottom to top as text; every pile
not named is empty. Twins (Easy Harp) get distinct physical cards: the first
``TH`` named is deck 0, the second deck 1. ``down`` sets face-down counts.
Cards not named anywhere are simply absent — the rules do not need them — so
such a position is never won by accident.
"""

from __future__ import annotations

from games.engine import CARDS, Game, new_game, parse_card


def position(code: str, down: dict[str, int] | None = None, **piles: str) -> Game:
    game = new_game(code)
    used: set[int] = set()
    for pid in game.piles:
        game.piles[pid] = []
    for pid in game.down:
        game.down[pid] = 0
    for pid, text in piles.items():
        if pid not in game.piles:
            raise KeyError(f"{code} has no pile {pid}")
        cards = []
        for word in text.split():
            rank, suit = parse_card(word)
            card = next(
                c
                for c in CARDS[: game.n_cards]
                if c.rank == rank and c.suit is suit and c.id not in used
            )
            used.add(card.id)
            cards.append(card)
        game.piles[pid] = cards
    for pid, n in (down or {}).items():
        game.down[pid] = n
    return game


def texts(game: Game, pile: str) -> list[str]:
    """The cards of ``pile`` as text, bottom to top."""
    return [c.text for c in game.piles[pile]]
