"""Usernames that look like an existing one are refused (issue 17: Latin ``adam``
and Cyrillic ``аdam`` were both accepted, so anyone could pass for a leader):
400 ``username_confusable`` naming the player the name looks like. The same name
in another case stays 409 ``username_taken`` (PRODUCT.md's registration)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client as DjangoClient

from accounts.models import User
from accounts.names import username_skeleton
from deploy.processes import server_env
from tests.support.api import Client, assert_error, requires_postgres, sign_up_at_once

ROOT = Path(__file__).resolve().parents[2]
REGISTER = "/api/auth/register/"
ADMIN = f"/{settings.ADMIN_PATH}"
PASSWORD = "correct horse battery"


def register(name: str) -> Any:
    return Client().send(REGISTER, {"username": name, "password": PASSWORD})


@pytest.mark.parametrize(
    ("existing", "newcomer"),
    [
        pytest.param("adam", "\u0430dam", id="cyrillic-a"),
        pytest.param("adam", "\u0430d\u0430m", id="cyrillic-a-twice"),
        pytest.param("adam", "\uff41\uff44\uff41\uff4d", id="fullwidth"),
        pytest.param("adam", "\uff21\uff24\uff21\uff2d", id="fullwidth-capitals"),
        pytest.param("adam", "adarn", id="rn-for-m"),
        pytest.param("lars", "Iars", id="capital-I-for-l"),
        pytest.param("lars", "1ars", id="one-for-l"),
        pytest.param("Iars", "1ars", id="one-for-capital-I"),
        pytest.param("b0b", "bob", id="zero-for-o"),
        pytest.param("paypal", "p\u0430yp\u0430l", id="mixed-latin-cyrillic"),
        pytest.param("abe", "\u0391\u0392\u0395", id="greek-capitals"),
        pytest.param("\u0430dam", "adam", id="latin-after-cyrillic"),
    ],
)
@pytest.mark.django_db
def test_a_name_that_looks_like_an_existing_one_is_refused_naming_it(existing, newcomer):
    assert register(existing).status_code == 201
    stored = User.objects.get().username
    error = assert_error(register(newcomer), 400, "username_confusable")
    assert f"\u201c{stored}\u201d" in error["message"], error
    assert error["params"] == {"existing": stored}
    assert User.objects.count() == 1


@pytest.mark.django_db
def test_the_same_name_in_capitals_is_taken():
    assert register("adam").status_code == 201
    assert_error(register("ADAM"), 409, "username_taken")


@pytest.mark.parametrize(
    "names",
    [
        ["adam", "adams", "ada", "madam", "damn"],
        ["lars", "lara", "ivan", "ian", "nick_99"],
        ["rob", "bob", "b_ob", "bob.b"],
    ],
)
@pytest.mark.django_db
def test_names_that_differ_to_the_eye_pass(names):
    for name in names:
        assert register(name).status_code == 201, name
    assert User.objects.count() == len(names)


def test_the_skeleton_follows_uts39_and_folds_case():
    latin = username_skeleton("adam")
    assert latin == username_skeleton("\u0430dam") == username_skeleton("ADAM")
    assert username_skeleton("rn") == username_skeleton("m")
    assert username_skeleton("l") == username_skeleton("I") == username_skeleton("1")
    # NFD around the mapping: a precomposed letter and its decomposed form agree.
    assert username_skeleton("Jos\u00e9") == username_skeleton("jose\u0301")
    assert username_skeleton("adam") != username_skeleton("adams")


@pytest.mark.django_db
def test_accounts_made_outside_sign_up_are_guarded_too(django_user_model):
    django_user_model.objects.create_superuser("root", password="root-password-1")
    assert_error(register("r\u043e\u043et"), 400, "username_confusable")  # Cyrillic o


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_two_confusable_sign_ups_at_once_make_one_account():
    for _ in range(3):
        results = sign_up_at_once(["adam", "\u0430dam"], PASSWORD)
        statuses = sorted(r.status_code for r in results.values())
        assert statuses == [201, 400], results
        loser = next(r for r in results.values() if r.status_code == 400)
        winner = User.objects.get().username
        error = assert_error(loser, 400, "username_confusable")
        assert error["params"] == {"existing": winner}
        User.objects.all().delete()


def test_the_migration_keeps_existing_lookalike_accounts(tmp_path):
    """Accounts made before the column whose names already look alike: the
    migration does not fail; the oldest holds the skeleton, the others none."""
    env = server_env(f"sqlite:///{tmp_path / 'db.sqlite3'}", None)

    def manage(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        )
        return done.stdout

    manage("migrate", "-v", "0", "accounts", "0003")
    with sqlite3.connect(tmp_path / "db.sqlite3") as db:
        for name in ("adam", "\u0430dam", "eve", "\uff41d\uff41m"):
            db.execute(
                "INSERT INTO accounts_user (password, is_superuser, username, first_name,"
                " last_name, email, is_staff, is_active, date_joined, language,"
                " double_click, interactive_rules, theme, deck, sounds, motion)"
                " VALUES ('!', 0, ?, '', '', '', 0, 1, '2026-12-01', '', 1, 1, '', 'two', 0, '')",
                (name,),
            )
    out = manage("migrate", "-v", "1", "accounts")
    assert "looks like the older 'adam'" in out, out
    with sqlite3.connect(tmp_path / "db.sqlite3") as db:
        rows = dict(db.execute("SELECT username, username_skeleton FROM accounts_user"))
    assert rows == {
        "adam": username_skeleton("adam"),
        "\u0430dam": None,
        "eve": username_skeleton("eve"),
        "\uff41d\uff41m": None,
    }


@pytest.fixture
def admin_browser(django_user_model):
    """A signed-in superuser's browser on the admin's user pages."""
    boss = django_user_model.objects.create_superuser("boss", password="boss-password-1")
    browser = DjangoClient()
    browser.force_login(boss)
    return browser


def admin_add(browser: DjangoClient, name: str) -> Any:
    password = "a long admin-chosen password"
    return browser.post(
        f"{ADMIN}accounts/user/add/",
        {"username": name, "usable_password": "true", "password1": password, "password2": password},
    )


def admin_rename(browser: DjangoClient, user: User, name: str) -> Any:
    return browser.post(
        f"{ADMIN}accounts/user/{user.pk}/change/",
        {
            "username": name,
            "is_active": "on",
            "date_joined_0": "2026-12-01",
            "date_joined_1": "10:00:00",
        },
    )


@pytest.mark.django_db
def test_the_admin_adds_no_lookalike_and_stores_the_skeleton_of_what_it_adds(admin_browser):
    assert register("adam").status_code == 201
    refused = admin_add(admin_browser, "\u0430dam")
    assert refused.status_code == 200, refused.status_code  # the form again, with the error
    assert "looks like the existing player \u201cadam\u201d" in refused.content.decode()
    assert not User.objects.filter(username="\u0430dam").exists()

    assert admin_add(admin_browser, "lars").status_code == 302
    assert User.objects.get(username="lars").username_skeleton == username_skeleton("lars")
    assert_error(register("Iars"), 400, "username_confusable")


@pytest.mark.django_db
def test_a_rename_in_the_admin_is_guarded_and_moves_the_skeleton(admin_browser):
    assert register("adam").status_code == 201
    assert register("lars").status_code == 201
    lars = User.objects.get(username="lars")
    refused = admin_rename(admin_browser, lars, "\u0430d\u0430m")
    assert refused.status_code == 200, refused.status_code
    assert "looks like the existing player \u201cadam\u201d" in refused.content.decode()
    lars.refresh_from_db()
    assert (lars.username, lars.username_skeleton) == ("lars", username_skeleton("lars"))

    assert admin_rename(admin_browser, lars, "nick").status_code == 302
    lars.refresh_from_db()
    assert (lars.username, lars.username_skeleton) == ("nick", username_skeleton("nick"))
    assert_error(register("n\u0456ck"), 400, "username_confusable")  # Cyrillic i
    assert register("Iars").status_code == 201  # the old name's look is free again
    # Its own name in other letters of the same look is no clash with itself.
    assert admin_rename(admin_browser, lars, "NICK").status_code == 302
