"""Fair-play review (PRODUCT.md "Fair daily deals", issue 13).

Seahaven Towers shows every card, so a second account (or a program) can solve
the daily offline and play the line back; Easy Harp hides its cards, but a
player who somehow knows them plays without ever looking. The engine cannot
refuse such play — every move is legal — so after each ranked finish a
background job (``tasks.review_attempt``) computes signals from the attempt's
action log, timed by the server (``Action.ms``), and flags outliers with
readable reasons. Staff look at flagged results in the admin and may
disqualify one (it leaves the board, the standings are pushed live, the
player's record shows it) or clear it. **Nothing is removed automatically**,
and every decision is stored with who took it.

The signals (``log_signals``, pure: an action log in, numbers out) read one
replay of the log (``replayed``) and its *standing line* (``standing_line``:
what stays after the undos, the resolved actions not undone, in order — the
line the result rests on, whatever was tried and taken back on the way):

- ``median_gap_ms``, ``min_gap_ms``: time between consecutive actions. People
  take seconds to find a move; a script takes milliseconds.
- ``look_undos``, ``take_backs``: exploration. A player who looks takes back a
  *look* — an action that showed a hidden card for the first time (a face-down
  card turned up, a stock card drawn never seen before) — or takes a card back
  from a foundation and keeps it so (a take-back in the standing line). A
  solver's line replayed does neither, and an undone detour (a card moved and
  moved back, which uncovers nothing) is no exploration: it costs nothing, so a
  cheat adds dozens. ``undos`` (every undo) is shown to staff, and read only by
  the scout pattern, where detours can only make a game look more like a scout.
- ``solver_line``: the logged actions are exactly the daily's ``proof``.
  ``proof_line``: the standing line is the proof — ``"exact"``, every action, or
  ``"card_moves"``, the same card moves in the same order with other stock taps
  (a look through the stock first: passes are free) — though the log is not:
  the proof played with undone detours (5 of 6 cheating wins measured in issue
  36). ``proof_share``: the share of the standing line's card moves that the
  proof's play in the same order from the start (longest common prefix; a
  foundation spot read as any spot of the suit). ``standing_moves``: the
  standing line's length, against ``par`` in the reasons.
- Easy Harp, ``passes`` (turns of the waste back into the stock) and
  ``progress_share`` (of the standing line's card moves, the share that sends a
  card to a foundation or turns up a face-down card): someone who never needs
  to look at a card before using it wins with no look taken back, few passes
  and little shuffling between columns. The solver itself (which knows every
  card) needs 4 to 7 passes and 76–90 % progress moves on the deals measured; a
  player who looks and explores usually needs more passes and more column
  moves. The thresholds are the game's own, in its declaration
  (``GameSpec.never_looked``): a game that hides no card declares none.

Then, from the database (``attempt_signals``): the win against ``par``, the
account's age (created on the daily's own UTC day) and how many accounts played
the same daily from the client address that started this attempt.

**Across accounts** (issue 25: the second-account cheat). A scout account
opens the Easy Harp daily, draws every stock card and uncovers the columns
with undo, then resigns; a main account wins with what it learned, at a
person's pace, from elsewhere. One game alone shows nothing, so
``cross_signals`` looks at the other accounts of the day:

- the *scout pattern* (``explore``, pure): a ranked daily not won, resigned or
  abandoned (closed when its day ends, or idle ``FAIRPLAY_SCOUT_IDLE_MIN``
  minutes while a win is reviewed), whose player saw most of the hidden cards
  with many undos;
- a win after it whose standing line runs through the positions the scout
  visited (``line_shared``, pure), or which needed no exploration (few looks
  taken back, its standing line near ``par``) from an account linked to the
  scout or dormant;
- *pooled scouting* (``pooled_scouting``, issue 36): scouting split over
  accounts keeps each under the scout line (three guests saw 90, 90 and 76 of
  95 hidden cards, 93 together). So the hidden cards seen by every other game
  of the daily — ranked, guests' (claimed or not), practice dealt before
  running dailies were closed to it — from the players linked to the winner by
  its device id or its address group (its /24, or /64 for IPv6:
  ``FAIRPLAY_GROUP_V4``/``_V6``, within ``FAIRPLAY_LINK_DAYS``), up to the
  win's end, are counted together; a win after a pool that saw the scout share
  (``FAIRPLAY_SCOUT_SEEN``) is flagged, naming each game and what it saw. An
  account's own ranked win is no part of a pool (a household of two winners);
- the *device id* cookie (``games/device.py``) and the address shared by two
  accounts within ``FAIRPLAY_LINK_DAYS`` days: links, named in the reasons;
  a device shared is a reason of its own, an address shared by two is not (a
  household);
- a win far better than ``par`` by a dormant account (made days before, few games).

Each reason has a weight (``WEIGHTS``); the review's ``score`` is their sum and
orders the staff queue. A reason of hidden knowledge (``HIDDEN_KNOWLEDGE``: the
solver's line or the proof standing, a scout's positions or a scout and a win
that needed no looking, pooled scouts, and what the player knew) weighs 15 or
more, above all the timing, account and address reasons together (14), so a
caught cheat sorts above every result flagged for its pace or its links. Both
orders of events are handled: a scout reviewed after the win reviews the win
again.
"""

from __future__ import annotations

from .cross import (
    CrossThresholds,
    Exploration,
    Layout,
    cross_reasons,
    explore,
    is_scout,
    line_shared,
    review_score,
)
from .lines import (
    HIDDEN_KNOWLEDGE,
    MIN_TIMED_GAPS,
    REASON_MAX,
    TIMING_ONLY,
    WEIGHTS,
    Played,
    Thresholds,
    Token,
    flag_reasons,
    log_signals,
    replayed,
    standing_line,
)
from .review import (
    IPNetwork,
    address_group,
    attempt_review,
    attempt_signals,
    cross_signals,
    knowledge_reasons,
    log_flagged,
    pooled_scouting,
    reviewable,
)
from .staff import (
    attempt_disqualify,
    review_clear,
)

__all__ = [
    "HIDDEN_KNOWLEDGE",
    "MIN_TIMED_GAPS",
    "REASON_MAX",
    "TIMING_ONLY",
    "WEIGHTS",
    "CrossThresholds",
    "Exploration",
    "IPNetwork",
    "Layout",
    "Played",
    "Thresholds",
    "Token",
    "address_group",
    "attempt_disqualify",
    "attempt_review",
    "attempt_signals",
    "cross_reasons",
    "cross_signals",
    "explore",
    "flag_reasons",
    "is_scout",
    "knowledge_reasons",
    "line_shared",
    "log_flagged",
    "log_signals",
    "pooled_scouting",
    "replayed",
    "review_clear",
    "review_score",
    "reviewable",
    "standing_line",
]
