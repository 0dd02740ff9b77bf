"""What the race services announce, for the apps above them (leaderboard's race rating)."""

from django.dispatch import Signal

race_finished = Signal()
"""After commit of a race's end: ``race_id`` (int, the Race pk), ``standings``
(list of (player id, place) — places from 1, equal places for ties; the racers
who made a move, those who left after moving included: one who never played is no
opponent beaten), ``variant`` (str). Sent once per race, when at least two moved."""
