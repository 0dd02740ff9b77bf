"""What the account services announce, for the apps above them to act on
(imports run one way: accounts knows nothing of games).

``guest_claimed`` is sent with ``sender=User``, ``guest`` and ``account`` once a
guest's session signed up or signed in (issue 24): the guest's games become the
account's. On sign-up the guest *is* the account (the same row, renamed); on
sign-in the account is another. The games app's receiver moves the games and
answers what it did, so the request that signed in can say it (``claim_json``).
"""

from __future__ import annotations

from typing import Any

from django.dispatch import Signal

from .models import User

guest_claimed = Signal()

guests_purging = Signal()
"""Sent with ``sender=User`` and ``guest_ids`` inside the guest purge's
transaction, the guests' rows locked, before they are deleted: the games app
deletes their games (``Attempt.player`` is PROTECT, so a player with games is
never deleted by a slip — issue 28). A guest's games are on no board."""


guest_games_expiring = Signal()
"""Sent by ``accounts.services.guest_games_purge`` with ``sender=User``,
``ended_before`` and ``batch``: the games app deletes at most ``batch`` of the
guests' finished practice games that ended before then and answers how many
(games/services.py ``attempts_of_guests_expire``; issue 38)."""


def claim_guest(*, guest: User, account: User) -> dict[str, Any]:
    """Announce that ``account`` claims ``guest``'s games; returns what the
    receivers say they did, merged (``{"claimed": [...], "kept": [...]}``)."""
    answer: dict[str, Any] = {"claimed": [], "kept": []}
    for _receiver, said in guest_claimed.send(sender=User, guest=guest, account=account):
        for key in answer:
            answer[key] += (said or {}).get(key, [])
    return answer
