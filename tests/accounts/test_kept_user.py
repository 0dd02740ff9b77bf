"""The signed-in user's row kept per process while its mark holds (issue 38,
``accounts/backends.py``): a request reads no user row when nothing changed,
and any change of the row — a save, a queryset update, "sign out everywhere",
a deletion — is seen by the very next request in every process."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth import BACKEND_SESSION_KEY
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts import marks
from accounts.backends import KeptUserBackend
from accounts.models import User
from tests.support.api import Client, assert_error

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct horse battery"


def user_reads(client: Client, path: str = "/api/auth/me/") -> tuple[int, dict]:
    """How many times ``GET path`` read the accounts_user table, and its answer."""
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path)
    assert response.status_code == 200, response.content
    table = User._meta.db_table
    return sum(table in q["sql"] for q in queries.captured_queries), response.json()


def signed_in(client: Client) -> bool:
    return client.get("/api/auth/me/").json()["authenticated"] is True


def other_process_keeps(user_id: int, kept: tuple[str, float, User]) -> None:
    """As another process would still hold it: the row read before the change,
    under the mark it was read with."""
    marks.KEPT[user_id] = kept


def changed_elsewhere(player: Client, change: Callable[[User], object]) -> None:
    """``player``'s row kept (read once), then ``change`` made to it, then the row
    from before put back as another process would still hold it."""
    user_reads(player)
    user = User.objects.get(username=player.username)
    kept = marks.KEPT[user.pk]
    change(user)
    other_process_keeps(user.pk, kept)


def test_a_second_request_reads_no_user_row(make_player):
    player = make_player()
    user_reads(player)  # the first may read it: now it is kept
    reads, me = user_reads(player)
    assert reads == 0
    assert me["username"] == player.username


def test_sign_out_everywhere_ends_a_session_another_process_kept(make_player):
    player = make_player()
    other = Client()
    assert other.send(
        "/api/auth/login/", {"username": player.username, "password": PASSWORD}
    ).status_code in (200, 201)
    user_reads(other)
    user = User.objects.get(username=player.username)
    kept = marks.KEPT[user.pk]
    assert player.send("/api/auth/logout/everywhere/").status_code in (200, 204)
    other_process_keeps(user.pk, kept)
    assert not signed_in(other)


def test_a_queryset_update_is_seen_at_once(make_player):
    player = make_player()
    changed_elsewhere(player, lambda user: User.objects.filter(pk=user.pk).update(is_active=False))
    assert not signed_in(player)


def test_a_saved_change_is_served_at_once(make_player):
    player = make_player()

    def new_password(user: User) -> None:
        user.set_password("a brand new passphrase")
        user.save()

    changed_elsewhere(player, new_password)
    assert not signed_in(player)  # the session's hash is the old password's


def test_each_request_gets_its_own_copy(make_player):
    """A view may change and save ``request.user``: never the row another request holds."""
    player = make_player()
    user_reads(player)
    user_id = User.objects.get(username=player.username).pk
    served = KeptUserBackend().get_user(user_id)
    served.email = "changed-in-place@example.org"
    again = KeptUserBackend().get_user(user_id)
    assert again is not served and again.email != served.email


def test_a_session_signed_in_under_djangos_backend_stays_signed_in(make_player):
    player = make_player()
    session = player.session
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session.save()
    assert signed_in(player)
    assert player.session[BACKEND_SESSION_KEY] == "accounts.backends.KeptUserBackend"


def test_a_deleted_account_is_signed_out(make_player):
    player = make_player()
    user_reads(player)
    user = User.objects.get(username=player.username)
    kept = marks.KEPT[user.pk]
    refused = player.delete("/api/auth/account/", {"password": "wrong"}, format="json")
    assert_error(refused, 400)
    assert player.delete(
        "/api/auth/account/", {"password": PASSWORD}, format="json"
    ).status_code in (
        200,
        204,
    )
    other_process_keeps(user.pk, kept)
    assert not signed_in(player)
