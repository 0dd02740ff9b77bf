"""Hypothesis properties over random legal and illegal action streams, every
registered variant: the four of the service and the toy Baker's Game's two
(``tests/support/toy_bakers.py``, registered for this package by its conftest).

After every step: cards are conserved, no face-down card lies above a face-up
one, the score is never negative, won ⇔ every card on the foundations, the
player's view hides exactly the face-down and stock cards, refused actions
change nothing, undo restores the exact previous position and score, and the
JSON form round-trips. At the end, replaying the recorded actions equals the
game played step by step.
"""

import json
import re
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import (
    ALL_VARIANTS,
    MAX_DEAL,
    MAX_KEY,
    DoubleTap,
    EngineError,
    Game,
    Move,
    Stock,
    Tap,
    Undo,
    encode_deal,
    encode_key,
    load_game,
    new_game,
    replay,
)
from tests.support.toy_bakers import TOY_VARIANTS

VARIANTS = st.sampled_from(ALL_VARIANTS + TOY_VARIANTS)
NUMBERED = st.builds(lambda v, n: f"{v}-{encode_deal(n)}", VARIANTS, st.integers(1, MAX_DEAL))
LONG = st.builds(lambda v, k: f"{v}-{encode_key(k)}", VARIANTS, st.integers(1, MAX_KEY))
CODES = st.one_of(NUMBERED, LONG)
"""Numbered deals (C2) and long codes (C2b), half and half."""


def position_key(game: Game) -> tuple[object, ...]:
    """Everything undo must restore (the move counter and history excepted, C5)."""
    return (
        tuple((p, tuple(c.id for c in pile)) for p, pile in game.piles.items()),
        tuple(game.down.items()),
        game.score,
        frozenset(game.scored),
        game.won,
        game.depth,
    )


CARD_TEXT = re.compile(r"\b[A2-9TJQK][SHDC]\b")


def visible_cards(game: Game) -> set[str]:
    return {c for pile in game.view()["piles"].values() for c in pile if c is not None}


def check_invariants(game: Game) -> None:
    ids = [c.id for pile in game.piles.values() for c in pile]
    assert sorted(ids) == list(range(game.n_cards))  # every physical card exactly once
    texts = Counter(c.text for pile in game.piles.values() for c in pile)
    assert set(texts.values()) == {game.n_cards // 52}  # each card twice in Easy Harp
    for column in game.columns:
        size, down = len(game.piles[column]), game.down[column]
        assert 0 <= down <= size
        assert size == 0 or down < size  # the top card of a column is face up
    assert game.score >= 0
    on_foundations = sum(len(game.piles[f]) for f in game.foundations)
    assert game.won == (on_foundations == game.n_cards)
    view = game.view()
    for pid, pile in game.piles.items():
        hidden = len(pile) if pid == "s" else game.down.get(pid, 0)
        shown = view["piles"][pid]
        assert shown[:hidden] == [None] * hidden
        assert shown[hidden:] == [c.text for c in pile[hidden:]]
    assert view["down"] == game.down
    assert (view["score"], view["moves"], view["won"]) == (game.score, game.moves, game.won)


def random_action(game: Game, data: st.DataObject) -> object:
    """Mostly legal moves, plus undo, taps and arbitrary (often illegal) moves."""
    kind = data.draw(st.sampled_from(["legal"] * 6 + ["undo", "tap", "double", "any"]))
    piles = list(game.pile_ids)
    if kind == "legal":
        moves = list(game.legal_moves)
        return data.draw(st.sampled_from(moves)) if moves else Undo()
    if kind == "undo":
        return Undo()
    count = data.draw(st.integers(1, 3))
    if kind in ("tap", "double"):
        cls = Tap if kind == "tap" else DoubleTap
        return cls(data.draw(st.sampled_from(piles)), count)
    return Move(data.draw(st.sampled_from(piles)), data.draw(st.sampled_from([*piles, "f"])), count)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(code=CODES, data=st.data())
def test_random_action_streams_keep_every_invariant(code, data):
    game = new_game(code)
    check_invariants(game)
    log = []
    for _ in range(data.draw(st.integers(10, 60))):
        action = random_action(game, data)
        before = game.to_json()
        before_key = position_key(game)
        try:
            resolved = game.apply(action)
        except EngineError as refusal:
            assert game.to_json() == before  # a refusal changes nothing
            # ... and never names a card the player cannot see.
            assert set(CARD_TEXT.findall(refusal.message)) <= visible_cards(game), refusal
            continue
        log.append(resolved.to_json())
        check_invariants(game)
        if isinstance(resolved, Move | Stock):
            # Undo restores the exact previous position and score (C6).
            trial = game.copy()
            trial.apply(Undo())
            assert position_key(trial) == before_key
            assert trial.moves == game.moves  # undo adds nothing, removes nothing (C5)
            if len(before["history"]) < 100:
                assert trial.to_json() | {"moves": 0} == before | {"moves": 0}
        else:
            assert game.moves == before["moves"]
        restored = load_game(json.loads(json.dumps(game.to_json())))
        assert restored == game
    assert replay(code, log) == game


@settings(max_examples=25, deadline=None)
@given(code=CODES)
def test_a_fresh_deal_keeps_every_invariant_and_round_trips(code):
    game = new_game(code)
    check_invariants(game)
    assert load_game(game.to_json()) == game
    assert game.copy() == game


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(code=CODES, data=st.data())
def test_each_targets_tap_is_where_a_double_tap_plays_those_cards(code, data):
    """``targets_json``'s ``tap`` (issue 24: a client draws a tap at once from it)
    is exactly the pile a double tap of those cards is resolved to (C14), and is
    absent when a double tap would be refused."""
    game = new_game(code)
    for _ in range(data.draw(st.integers(0, 40))):
        moves = list(game.generate_moves())
        if not moves:
            break
        game.apply(data.draw(st.sampled_from(moves)))
    for target in game.targets_json():
        assert "tap" not in target or target["tap"] in target["to"], target
        try:
            resolved = game.resolve(DoubleTap(target["from"], target["count"]))
        except EngineError:
            assert "tap" not in target, target
            continue
        assert target.get("tap") == resolved.target, target
