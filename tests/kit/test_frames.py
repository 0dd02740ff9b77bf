"""The kit's one envelope (``kit.sockets.frame``) and its splice (``spliced``):
a text encoded once is wrapped without being decoded, and the bytes are those
of the whole message encoded at once (issue 40: three modules built envelopes
by hand, one by cutting a brace off)."""

from __future__ import annotations

import json

import pytest

from games import events
from kit.sockets import encode, frame, spliced
from races.events import progress_frame, race_frame

GAME = {"id": 7, "view": {"piles": {"t1": ["AS", None]}, "targets": []}, "seq": 3}


def test_a_frame_is_the_whole_message_encoded_at_once():
    text = encode(GAME)
    assert frame("state", v=3, texts={"game": text}) == encode(
        {"type": "state", "v": 3, "game": GAME}
    )
    assert events.ack(3, text, seq=2) == encode(
        {"type": "ack", "seq": 2, "v": 3, "duplicate": False, "game": GAME}
    )
    assert events.ack(3, text, duplicate=True) == encode(
        {"type": "ack", "v": 3, "duplicate": True, "game": GAME}
    )
    assert json.loads(events.snapshot(3, text)) == {"type": "snapshot", "v": 3, "game": GAME}


def test_spliced_adds_fields_to_an_encoded_object_without_decoding_it():
    assert spliced(encode({"a": 1}), you={"racer": True}) == encode(
        {"a": 1, "you": {"racer": True}}
    )
    assert spliced("{}", b=[1]) == encode({"b": [1]})
    assert spliced(encode({"a": 1})) == encode({"a": 1})
    with pytest.raises(ValueError):
        spliced("[1]", b=2)


def test_the_race_frames_are_the_rooms_race_with_each_sockets_own_you():
    race = {"id": "abc", "racers": [{"player": "p"}]}
    event = {"v": 4, "race": encode(race), "host": 1, "attempts": {"1": 11, "2": 12}}
    assert json.loads(race_frame(event, 2)) == {
        "type": "race",
        "v": 4,
        "race": {**race, "you": {"racer": True, "host": False, "attempt": 12}},
    }
    assert json.loads(race_frame(event, None))["race"]["you"] == {
        "racer": False,
        "host": False,
        "attempt": None,
    }
    entries = [
        encode({"v": 5, "racer": {"player": "p"}}),
        encode({"v": 6, "racer": {"player": "q"}}),
    ]
    assert json.loads(progress_frame(entries, 4, {"q": 1, "p": 2, "r": 3})) == {
        "type": "progress",
        "v": 6,
        "racers": [{"player": "p"}, {"player": "q"}],
        "places": {"q": 1, "p": 2, "r": 3},
    }
    # Places read at a newer version of the race than the entries were noted at.
    assert json.loads(progress_frame(entries, 9, {"q": 1}))["v"] == 9
