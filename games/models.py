"""Deals, daily deals, attempts and their action log.

An attempt keeps the engine's full saved game (``state``) on the server only;
players only ever receive the engine's redacted view of it.
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class Deal(models.Model):
    """A deal of one variant; its code recreates it exactly: a numbered deal
    (RULES.md C2, public) or a daily's 26-character key (C2b, secret until the
    day is over)."""

    # A variant id ("SH1-C4"), without ``choices``: the engine's registry knows the
    # variants and ``parse_variant`` checks them where they enter (the services),
    # so a new game needs no migration. Likewise DailyDeal.variant, ProvenDeal.variant.
    variant = models.CharField(max_length=8)
    number = models.PositiveIntegerField(
        null=True, blank=True, help_text="the deal number; empty for a long-code (daily key) deal"
    )
    code = models.CharField(max_length=40, unique=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["variant", "number"], name="deal_variant_number")
        ]

    def __str__(self) -> str:
        return self.code


class DailyDeal(models.Model):
    """The deal everyone plays on one UTC day in one variant."""

    date = models.DateField()
    variant = models.CharField(max_length=8)
    deal = models.ForeignKey(Deal, on_delete=models.PROTECT, related_name="dailies")
    par = models.PositiveIntegerField(
        null=True, blank=True, help_text="length of the solver's winning line: best known"
    )
    proven = models.BooleanField(default=False, help_text="a solver line wins it")
    proof = models.JSONField(
        null=True, blank=True, help_text="the solver's winning line: never sent to a player"
    )
    tried = models.PositiveIntegerField(default=1, help_text="candidate deals tried")
    predicted = models.JSONField(
        null=True,
        blank=True,
        help_text="predicted difficulty, counts only (games/difficulty.py): published",
    )
    measured = models.JSONField(
        null=True,
        blank=True,
        help_text="measured difficulty and the outcome histogram, once the day is over",
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["date", "variant"], name="daily_per_day")]
        ordering = ["-date", "variant"]

    def __str__(self) -> str:
        # Not the code: a string of a model ends up in log lines and error
        # reports, and a running daily's code must never (PRODUCT.md).
        return f"{self.date} {self.variant}"


class ProvenDeal(models.Model):
    """A numbered deal a solver proved winnable, in the practice pool "New deal"
    draws from (``games/practice.py``, issue 24). Numbered deals are public, so
    nothing here is secret; the winning line itself is not kept (only its length)."""

    deal = models.OneToOneField(Deal, on_delete=models.CASCADE, related_name="proven")
    variant = models.CharField(max_length=8, db_index=True)
    par = models.PositiveIntegerField(help_text="length of the solver's winning line")
    proven_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.deal.code} (par {self.par})"


class Attempt(models.Model):
    """One player's game of one deal: ranked (the daily) or practice."""

    class Status(models.TextChoices):
        PLAYING = "playing"
        WON = "won"
        RESIGNED = "resigned"
        ABANDONED = "abandoned"

    # PROTECT: deleting a player must never take results off past boards (issue 28).
    # Accounts are anonymised (accounts/privacy.py); the guest purge deletes the
    # guests' games first (``guests_purging``, games/services.py ``attempts_of_guests_delete``).
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="attempts"
    )
    deal = models.ForeignKey(Deal, on_delete=models.PROTECT, related_name="attempts")
    daily = models.ForeignKey(
        DailyDeal, null=True, blank=True, on_delete=models.PROTECT, related_name="attempts"
    )
    ranked = models.BooleanField(default=False)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PLAYING)
    state = models.JSONField(help_text="the engine's saved game: never sent to a player")
    seq = models.PositiveIntegerField(default=0, help_text="actions accepted so far")
    score = models.PositiveIntegerField(default=0)
    moves = models.PositiveIntegerField(default=0)
    won = models.BooleanField(default=False)
    started_at = models.DateTimeField(default=timezone.now)
    # Written by every action, so in no index: an UPDATE that changes no indexed
    # column is HOT (no index entry written). Its readers all ask for games going
    # on, which the partial index ``attempt_playing`` lists.
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    elapsed_ms = models.PositiveBigIntegerField(null=True, blank=True)
    verified = models.BooleanField(
        null=True, blank=True, help_text="replay check: empty = pending, false = failed"
    )
    lost_seq = models.PositiveIntegerField(
        null=True, blank=True, help_text="the solver proved the position after this seq lost"
    )
    proven = models.BooleanField(
        null=True,
        blank=True,
        help_text="a New deal: true = drawn proven winnable, false = any deal; empty otherwise",
    )
    sealed = models.BooleanField(
        default=False,
        help_text="only its player may see its moves (a race running: races/services.py)",
    )
    # Fair-play review (games/fairplay.py): staff's decision, and the address the
    # ranked attempt was started from (several accounts from one address).
    disqualified = models.BooleanField(default=False, help_text="staff took it off the board")
    address = models.GenericIPAddressField(
        null=True, blank=True, help_text="client address that started a ranked attempt"
    )
    device = models.CharField(
        max_length=32,
        blank=True,
        default="",
        help_text="device id cookie (games/device.py) that started a ranked attempt",
    )

    class Meta:
        constraints = [
            # One ranked attempt per player per daily deal (PRODUCT.md, anti-cheat).
            models.UniqueConstraint(
                fields=["player", "daily"], condition=Q(ranked=True), name="one_ranked_per_daily"
            ),
            models.CheckConstraint(
                condition=Q(ranked=False) | Q(daily__isnull=False), name="ranked_needs_daily"
            ),
        ]
        indexes = [
            models.Index(fields=["daily", "status"]),
            models.Index(fields=["player", "status"]),
            # Cross-account signals: other accounts from one device or address (issue 25).
            models.Index(fields=["device", "started_at"], name="attempt_device_started"),
            models.Index(fields=["address", "started_at"], name="attempt_address_started"),
            # The games going on (the live list, the stale-game job, the scout check),
            # filtered on updated_at from here.
            models.Index(fields=["id"], condition=Q(status="playing"), name="attempt_playing"),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.deal.variant} by {self.player}"  # no code: see DailyDeal

    def ms_since_start(self, now: dt.datetime) -> int:
        """Server time since the clock started (RULES.md C11), in ms."""
        return max(0, int((now - self.started_at).total_seconds() * 1000))

    @property
    def finished(self) -> bool:
        return self.status != self.Status.PLAYING


def log_month(started_at: dt.datetime) -> dt.date:
    """The first day of the UTC month ``started_at`` falls in: the month of an
    attempt's start, which every row of its action log carries as the log's
    partition key (``games/partitions.py``, docs/operations.md, "The action log")."""
    return started_at.astimezone(dt.UTC).date().replace(day=1)


class Action(models.Model):
    """One accepted action, in the order accepted; ``seq`` counts from 0.

    The key is (attempt, seq, month). ``month`` is a function of the attempt
    (``log_month`` of its start, which nothing changes), so the key is exactly
    as strong as (attempt, seq) — no ``seq`` is ever stored twice — while on
    PostgreSQL it also names the monthly partition the row lives in, as a
    partitioned table's key must (docs/operations.md, "The action log")."""

    pk = models.CompositePrimaryKey("attempt_id", "seq", "month")
    # No index of its own: the key's index starts with it.
    attempt = models.ForeignKey(
        Attempt, on_delete=models.CASCADE, related_name="actions", db_index=False
    )
    seq = models.PositiveIntegerField()
    month = models.DateField(help_text="the UTC month the attempt started: the partition key")
    sent = models.JSONField(help_text="the action as the player sent it (normalised)")
    action = models.JSONField(help_text="the resolved action the engine recorded")
    ms = models.PositiveBigIntegerField(help_text="server time since the attempt started")
    score = models.PositiveIntegerField()
    moves = models.PositiveIntegerField()

    class Meta:
        ordering = ["attempt", "seq"]

    def __str__(self) -> str:
        return f"#{self.attempt_id}.{self.seq} {self.action}"


class Review(models.Model):
    """The fair-play review of one finished ranked attempt (PRODUCT.md, "Fair-play
    review"): signals computed from its server-timed action log, whether they
    flag it and why, and staff's current decision. Nothing here removes a
    result by itself: only a staff decision does (``games/fairplay.py``)."""

    class Decision(models.TextChoices):
        UNDECIDED = "", "undecided"
        CLEARED = "cleared", "cleared"
        DISQUALIFIED = "disqualified", "disqualified"

    attempt = models.OneToOneField(Attempt, on_delete=models.CASCADE, related_name="review")
    signals = models.JSONField(default=dict)
    flagged = models.BooleanField(default=False, db_index=True)
    reasons = models.JSONField(default=list, help_text='[{"code": …, "text": …}, …]')
    score = models.PositiveIntegerField(
        default=0, db_index=True, help_text="sum of the reasons' weights: the queue's order"
    )
    computed_at = models.DateTimeField()
    decision = models.CharField(
        max_length=12, choices=Decision.choices, default=Decision.UNDECIDED, blank=True
    )
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["-score", "-computed_at"]

    def __str__(self) -> str:
        return f"review of #{self.attempt_id}"


class ReviewDecision(models.Model):
    """One staff decision on a review, as taken: the log of who did what, when
    and why. Rows are only ever added."""

    review = models.ForeignKey(Review, on_delete=models.CASCADE, related_name="decisions")
    decision = models.CharField(max_length=12, choices=Review.Decision.choices)
    reason = models.TextField(blank=True)
    staff = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    staff_username = models.CharField(max_length=150, help_text="kept if the account goes")
    decided_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["decided_at", "pk"]

    def __str__(self) -> str:
        return f"{self.decision} #{self.review.attempt_id} by {self.staff_username}"


class Analysis(models.Model):
    """What the post-mortem found for one finished game (issue 27, "Where it went
    wrong"; ``games/analysis.py``). Computed once its deal no longer matters —
    a daily's after its day, a public numbered deal when the game ends — and
    never changed after: the same line gets the same answer.

    A game not won: the line is the actions that still stand at its end (an
    undone action is off it); ``index`` is the last position of it the solver
    proved winnable, ``seq`` the log's seq of the action played from there (the
    losing one, as the replay viewer numbers it), ``continuation`` the solver's
    winning line from ``index``. A won game: ``over_par`` and, for a daily (its
    ``proof`` is the par line), ``seq`` where the line parted from it."""

    attempt = models.OneToOneField(Attempt, on_delete=models.CASCADE, related_name="analysis")
    index = models.PositiveIntegerField(
        null=True, blank=True, help_text="last position proven winnable: actions on the line"
    )
    seq = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="log seq of the losing action (lost) or of the first off the par line (won)",
    )
    losing = models.JSONField(null=True, blank=True, help_text="the action that lost the deal")
    continuation = models.JSONField(
        default=list, blank=True, help_text="the solver's winning line from position index"
    )
    settled = models.BooleanField(default=True, help_text="false: the search ran out of time")
    probes = models.PositiveIntegerField(default=0, help_text="solver calls made")
    length = models.PositiveIntegerField(default=0, help_text="actions on the standing line")
    par = models.PositiveIntegerField(null=True, blank=True, help_text="the par line's length")
    over_par = models.IntegerField(null=True, blank=True, help_text="a win's moves minus par")
    seconds = models.FloatField(default=0.0, help_text="time the search took")
    computed_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"analysis of #{self.attempt_id}"


class DayResults(models.Model):
    """A closed day's results file (issue 27, "a day anyone can re-check",
    ``games/dayfile.py``): every counted ranked result of one daily deal with its
    actions, as the JSON lines of ``games/engine/dayfile.py``. Stored gzipped;
    ``sha256`` is that of the plain bytes (what is downloaded and published).
    Built again when the day's board changes (a staff decision) or a player on
    it deletes their account, so the hash published for a day can change;
    ``built_at`` says when, ``earlier`` which hashes it replaced."""

    daily = models.OneToOneField(DailyDeal, on_delete=models.CASCADE, related_name="results_file")
    data = models.BinaryField(help_text="the file, gzipped")
    sha256 = models.CharField(max_length=64, help_text="SHA-256 (hex) of the plain file")
    count = models.PositiveIntegerField(help_text="results in the file")
    built_at = models.DateTimeField()
    # The files it replaced, oldest first (issue 37): each {"sha256", "built_at",
    # "replaced_at", "reason"} — ``reason`` "deleted" (a player deleted their
    # account: the file re-issued with their placeholder name) or "changed" (a
    # result on the board changed). The day page lists them.
    earlier = models.JSONField(default=list, blank=True)
    # Due to be built again: "<why>:<when, ns>" ("deleted", "changed"; "" not
    # due), set with the change that asks for it, so a build lost with a broker is
    # caught up by the hourly after-the-day job (games/tasks.py); the time tells
    # a mark set again during a build from the one it answered.
    reissue = models.CharField(max_length=40, blank=True, default="")

    def __str__(self) -> str:
        return f"results of {self.daily}"

    @property
    def filename(self) -> str:
        """The name it is downloaded under, and the commands on the day page use."""
        return f"patience-daily-{self.daily.date.isoformat()}-{self.daily.variant}.jsonl"
