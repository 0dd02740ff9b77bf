"""The review of a finished ranked attempt: its signals from the log, the
database and the other accounts of the day, stored with the attempt
(``attempt_review``; ``games.fairplay``)."""

from __future__ import annotations

import datetime as dt
import ipaddress
import logging
from collections.abc import Sequence
from typing import Any

from django.db.models import Q
from django.utils import timezone

from ..models import Action, Attempt, Review
from .cross import CrossThresholds, cross_reasons, explore, is_scout, line_shared, review_score
from .lines import Thresholds, flag_reasons, log_signals

log = logging.getLogger("games.fairplay")  # the name staff alerts and the docs know


# --- the review: signals stored with the attempt ------------------------------------------------


def attempt_signals(attempt: Attempt, cross: CrossThresholds | None = None) -> dict[str, Any]:
    """Every signal of a finished ranked attempt: its log's, the database's, and
    those across accounts (``cross_signals``)."""
    daily = attempt.daily
    assert daily is not None  # ranked attempts always have one
    logged = list(attempt.actions.order_by("seq").values_list("action", "ms"))
    actions = [action for action, _ in logged]
    signals = log_signals(
        code=attempt.deal.code,
        actions=actions,
        ms=[ms for _, ms in logged],
        proof=daily.proof,
    )
    joined = attempt.player.date_joined.astimezone(dt.UTC).date()
    accounts = 0
    if attempt.address:
        accounts = (
            Attempt.objects.filter(daily=daily, ranked=True, address=attempt.address)
            .values("player_id")
            .distinct()
            .count()
        )
    signals = {
        **signals,
        "won": attempt.won,
        "status": attempt.status,
        "moves": attempt.moves,
        "par": daily.par,
        "elapsed_ms": attempt.elapsed_ms,
        "joined": joined.isoformat(),
        "joined_same_day": joined == daily.date,
        "address": attempt.address,
        "same_address_accounts": accounts,
    }
    cross = cross or CrossThresholds.from_settings()
    return {**signals, **cross_signals(attempt, actions, signals, cross)}


def _other_accounts(attempt: Attempt, days: int, **same: Any) -> list[str]:
    """Names of the other accounts whose ranked games started with ``same`` (a
    device or address) within ``days`` days of this attempt's start."""
    window = dt.timedelta(days=days)
    names = (
        Attempt.objects.filter(
            ranked=True,
            started_at__gte=attempt.started_at - window,
            started_at__lte=attempt.started_at + window,
            **same,
        )
        .exclude(player_id=attempt.player_id)
        .values_list("player__username", flat=True)
        .distinct()
    )
    return sorted(names)


def _logged_actions(attempt_id: int, until_ms: int | None = None) -> list[dict[str, Any]]:
    """An attempt's logged actions in order; with ``until_ms``, those played at
    most that long after its start."""
    actions = Action.objects.filter(attempt_id=attempt_id)
    if until_ms is not None:
        actions = actions.filter(ms__lte=until_ms)
    return list(actions.order_by("seq").values_list("action", flat=True))


IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


def address_group(address: str, thresholds: CrossThresholds) -> IPNetwork | None:
    """The network an address belongs to for pooling (``pooled_scouting``): its
    /24 (IPv4) or /64 (IPv6) by default — one household's or one phone's
    addresses change within it (an IPv6 host picks a new address inside its /64
    every day). None when ``address`` is no IP address."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return None
    prefix = thresholds.group_v4 if ip.version == 4 else thresholds.group_v6
    return ipaddress.ip_network(f"{ip}/{prefix}", strict=False)


def _group_filter(network: IPNetwork) -> Q:
    """A filter narrowing attempts to ``network``'s addresses, exactly for IPv4
    (its text starts with the network's first octets when the prefix is a whole
    number of octets), loosely for IPv6 (its first group, whose text no
    compression shortens): the caller checks each address with ``ipaddress``."""
    if network.version == 4:
        octets = network.prefixlen // 8
        if octets == 0:
            return Q(address__isnull=False)
        head = ".".join(str(network.network_address).split(".")[:octets])
        return Q(address__startswith=head + ("." if octets < 4 else ""))
    first = int(network.network_address) >> 112
    if network.prefixlen < 16 or first == 0:
        return Q(address__contains=":")
    return Q(address__startswith=f"{first:x}:")


def _linked_players(attempt: Attempt, thresholds: CrossThresholds) -> set[int]:
    """The players (this attempt's own included) whose ranked games started from
    this attempt's device id or address group within ``link_days`` days of it."""
    network = address_group(attempt.address, thresholds) if attempt.address else None
    same = Q(device=attempt.device) if attempt.device else Q()
    if network is not None:
        same |= _group_filter(network)
    if not same:
        return set()
    window = dt.timedelta(days=thresholds.link_days)
    rows = Attempt.objects.filter(
        same,
        ranked=True,
        started_at__gte=attempt.started_at - window,
        started_at__lte=attempt.started_at + window,
    ).values_list("player_id", "device", "address")
    return {
        player
        for player, device, address in rows
        if (attempt.device and device == attempt.device)
        or (network is not None and address and ipaddress.ip_address(address) in network)
    }


def pooled_scouting(
    attempt: Attempt, thresholds: CrossThresholds
) -> tuple[list[dict[str, Any]], frozenset[int]]:
    """What every other game of this attempt's daily saw of its hidden cards before
    this attempt ended, from the players linked to it (``_linked_players``: the
    same device id or address group): ranked games, guests' (claimed or not), and
    practice games of the daily (dealt before running dailies were closed to
    practice, issue 36), each cut at this attempt's end. Split over accounts,
    scouting adds up here. A ranked win of an account is left out: it is a result
    of its own, reviewed itself (two people of one household who both win are no
    scouting); a guest's win is on no board, so it counts. Returns each game that
    saw a hidden card (``attempt``, ``player``, ``ranked``, ``seen``) and the
    cards they saw together."""
    assert attempt.daily is not None
    linked = _linked_players(attempt, thresholds)
    until = attempt.finished_at or timezone.now()
    others = (
        Attempt.objects.filter(daily=attempt.daily, player_id__in=linked, started_at__lte=until)
        .exclude(pk=attempt.pk)
        .exclude(ranked=True, won=True, player__is_guest=False)
        .select_related("player")
        .order_by("pk")
    )
    games: list[dict[str, Any]] = []
    together: frozenset[int] = frozenset()
    for other in others:
        cut = int((until - other.started_at).total_seconds() * 1000)
        found = explore(attempt.deal.code, _logged_actions(other.pk, until_ms=cut))
        if found is None or not found.seen:
            continue
        together |= found.seen_cards
        games.append(
            {
                "attempt": other.pk,
                "player": other.player.get_username(),
                "ranked": other.ranked,
                "seen": found.seen,
            }
        )
    return games, together


def cross_signals(
    attempt: Attempt,
    actions: Sequence[dict[str, Any]],
    signals: dict[str, Any],
    thresholds: CrossThresholds,
) -> dict[str, Any]:
    """The signals across accounts: the other accounts on this attempt's device
    and address, whether the account is dormant, and on a hidden-card daily the
    scout pattern (not won), or the scouts whose exploration the win meets and
    what the linked games of the daily saw together (``pooled_scouting``)."""
    daily = attempt.daily
    assert daily is not None
    devices = (
        _other_accounts(attempt, thresholds.link_days, device=attempt.device)
        if attempt.device
        else []
    )
    addresses = (
        _other_accounts(attempt, thresholds.link_days, address=attempt.address)
        if attempt.address
        else []
    )
    links = [f"same browser as {name}" for name in devices] + [
        f"same address as {name} within {thresholds.link_days} days"
        for name in addresses
        if name not in devices
    ]
    account_days = (daily.date - attempt.player.date_joined.astimezone(dt.UTC).date()).days
    earlier = Attempt.objects.filter(
        player_id=attempt.player_id, started_at__lt=attempt.started_at
    ).count()
    out: dict[str, Any] = {
        "device_accounts": devices,
        "address_accounts": addresses,
        "links": links,
        "account_days": account_days,
        "earlier_games": earlier,
        "dormant": account_days >= thresholds.dormant_days and earlier <= thresholds.dormant_games,
        "scout": False,
        "scouts": [],
    }
    if not signals.get("hidden_cards"):
        return out  # every card shows: nothing to scout
    found = explore(attempt.deal.code, actions)
    if found is None:
        return out  # a log the engine refuses: the replay check deals with it
    out.update(found.numbers())
    if not attempt.won:
        out["scout"] = attempt.finished and is_scout(found, won=False, thresholds=thresholds)
        return out
    pooled, together = pooled_scouting(attempt, thresholds)
    out.update(pooled=pooled, pooled_seen=len(together))
    idle = timezone.now() - dt.timedelta(minutes=thresholds.scout_idle_min)
    candidates = (
        Attempt.objects.filter(daily=daily, ranked=True, won=False)
        .exclude(player_id=attempt.player_id)
        .filter(started_at__lte=attempt.finished_at or timezone.now())
        .filter(
            Q(review__signals__scout=True)
            | Q(
                status=Attempt.Status.PLAYING, updated_at__lte=idle, seq__gte=thresholds.scout_undos
            )
        )
        .select_related("player")
        .order_by("pk")
    )
    for other in candidates:
        scout = explore(attempt.deal.code, _logged_actions(other.pk))
        if scout is None or not is_scout(scout, won=False, thresholds=thresholds):
            continue
        out["scouts"].append(
            {
                "attempt": other.pk,
                "player": other.player.get_username(),
                "seen": scout.seen,
                "undos": scout.undos,
                "look_undos": scout.look_undos,
                "shared": line_shared(found, scout),
            }
        )
    return out


def knowledge_reasons(signals: dict[str, Any]) -> list[dict[str, str]]:
    """The ``hidden_knowledge`` reason of a review's signals: the verdict of what the
    player knew (``signals["knew"]``, games/knowledge.py), when it flags the result."""
    verdict = signals.get("knew") or {}
    if not verdict.get("flagged"):
        return []
    return [{"code": "hidden_knowledge", "text": f"what the player knew: {verdict['reason']}"}]


def _store_review(attempt: Attempt, thresholds: Thresholds) -> Review:
    cross = CrossThresholds.from_settings()
    signals = attempt_signals(attempt, cross)
    # What the player knew is judged on a queue of its own (games/knowledge.py): a
    # review computed again keeps its verdict.
    earlier = Review.objects.filter(attempt=attempt).only("signals").first()
    if earlier is not None and "knew" in earlier.signals:
        signals["knew"] = earlier.signals["knew"]
    reasons = (
        flag_reasons(signals, thresholds)
        + cross_reasons(signals, cross)
        + knowledge_reasons(signals)
    )
    # Only the computed part is written: a staff decision already taken stays.
    review, _ = Review.objects.update_or_create(
        attempt=attempt,
        defaults={
            "signals": signals,
            "reasons": reasons,
            "flagged": bool(reasons),
            "score": review_score(reasons),
            "computed_at": timezone.now(),
        },
    )
    if reasons:
        log_flagged(attempt_id=attempt.pk, username=attempt.player.get_username(), reasons=reasons)
    return review


def log_flagged(*, attempt_id: int, username: str, reasons: list[dict[str, str]]) -> None:
    """The line a flagged result is logged with. Its reasons may quote the client
    address (``shared_address``): the review keeps it for staff until
    ``ADDRESS_RETENTION_DAYS`` (games/privacy.py), the log line only its network —
    every line's addresses are masked by the logging setup (kit/logs.py
    ``mask_addresses``), as logs are kept elsewhere and longer (issue 28)."""
    log.info(
        "attempt %s (%s) flagged for review: %s",
        attempt_id,
        username,
        "; ".join(r["text"] for r in reasons),
    )


def reviewable(attempt_id: int) -> Attempt | None:
    return (
        Attempt.objects.select_related("player", "daily", "deal")
        .filter(pk=attempt_id, ranked=True)
        .exclude(status=Attempt.Status.PLAYING)
        .first()
    )


def attempt_review(*, attempt_id: int) -> Review | None:
    """Compute and store the review of a finished ranked attempt (None: no such
    attempt). Safe to run twice: the signals are recomputed, a decision stays.
    When this attempt makes an address reach the threshold, the other finished
    attempts of that daily from the address are reviewed again too, so every
    one of them carries the reason. Likewise a scout reviewed after a win on
    its daily (the scout resigned or was closed later) has that win reviewed
    again, so the order of events does not hide the pair."""
    attempt = reviewable(attempt_id)
    if attempt is None:
        return None
    thresholds = Thresholds.from_settings()
    review = _store_review(attempt, thresholds)
    if any(r["code"] == "shared_address" for r in review.reasons):
        others = (
            Attempt.objects.select_related("player", "daily", "deal")
            .filter(daily=attempt.daily, ranked=True, address=attempt.address)
            .exclude(status=Attempt.Status.PLAYING)
            .exclude(pk=attempt.pk)
        )
        for other in others:
            _store_review(other, thresholds)
    if review.signals.get("scout"):
        wins = (
            Attempt.objects.select_related("player", "daily", "deal")
            .filter(daily=attempt.daily, ranked=True, won=True)
            .filter(finished_at__gte=attempt.started_at)  # knowledge flows after the scout starts
            .exclude(player_id=attempt.player_id)
        )
        for win in wins:
            _store_review(win, thresholds)
    return review
