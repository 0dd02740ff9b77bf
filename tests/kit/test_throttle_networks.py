"""Throttles by network (issue 38): the budgets that guard what every visitor
shares — guests made, sign-ups, guests' new games — count an IPv4 address's
/24 and an IPv6 address's /64 (one host's whole allocation) as one client, so
addresses drawn from one allocation cannot each get a budget of their own.
Sign-in and the per-player budgets keep their keys (docs/operations.md, "Edges
and abuse bounds")."""

from __future__ import annotations

import pytest
from django.test import RequestFactory

from accounts.models import User
from games.models import Attempt
from kit.api import client_network
from tests.support.api import Client, assert_error, throttle_rates

# Per-request X-Forwarded-For: the one proxy in front names the client (NUM_PROXIES=1).
pytestmark = pytest.mark.django_db


def visitor(address: str) -> Client:
    """A browser whose requests reach the server from ``address`` (through one proxy)."""
    return Client(HTTP_X_FORWARDED_FOR=address)


def made_guest(address: str) -> int:
    """``POST /api/auth/guest/`` from a new browser at ``address``: the status."""
    return int(visitor(address).send("/api/auth/guest/", None).status_code)


@pytest.mark.parametrize(
    ("address", "network"),
    [
        ("203.0.113.77", "203.0.113.0/24"),
        ("2001:db8:1:2:a:b:c:d", "2001:db8:1:2::/64"),
        ("::ffff:203.0.113.77", "203.0.113.0/24"),  # an IPv4 client on a dual-stack socket
        ("not an address", "not an address"),  # as DRF read it: its own key, never a shared one
    ],
)
def test_the_network_of_an_address(settings, address, network):
    throttle_rates(settings, num_proxies=1)
    request = RequestFactory().get("/", HTTP_X_FORWARDED_FOR=address)
    assert client_network(request) == network


def test_addresses_of_one_ipv6_64_share_the_guests_budget(settings):
    throttle_rates(settings, num_proxies=1, guests="3/hour")
    # Each a different address, all in 2001:db8:5:7::/64 (one host's allocation).
    made = [made_guest(f"2001:db8:5:7::{host:x}") for host in range(1, 6)]
    assert made == [201, 201, 201, 429, 429], made
    refused = visitor("2001:db8:5:7:ffff:ffff:ffff:ffff").send("/api/auth/guest/", None)
    assert_error(refused, 429, "throttled")
    assert made_guest("2001:db8:5:8::1") == 201  # the next /64 is someone else
    assert User.objects.filter(is_guest=True).count() == 4


def test_addresses_of_one_ipv4_24_share_the_guests_budget_and_two_24s_do_not(settings):
    throttle_rates(settings, num_proxies=1, guests="2/hour")
    assert [made_guest(f"198.51.100.{host}") for host in (1, 200, 254)] == [201, 201, 429]
    # 198.51.101.0/24 is another network: a budget of its own.
    assert [made_guest(f"198.51.101.{host}") for host in (1, 2, 3)] == [201, 201, 429]


def test_sign_ups_of_one_network_share_their_budget(settings):
    throttle_rates(settings, num_proxies=1, register="2/hour")

    def sign_up(address: str, name: str) -> int:
        body = {"username": name, "password": "correct horse battery"}
        return int(visitor(address).send("/api/auth/register/", body).status_code)

    assert sign_up("192.0.2.10", "ada") == 201
    assert sign_up("2001:db8:9:9::1", "bob") == 201
    assert sign_up("192.0.2.11", "cyd") == 201
    assert sign_up("2001:db8:9:9::2", "dot") == 201
    assert sign_up("192.0.2.250", "eve") == 429  # 192.0.2.0/24's third
    assert sign_up("2001:db8:9:9:1::3", "fay") == 429  # 2001:db8:9:9::/64's third
    assert sign_up("192.0.3.1", "gus") == 201


def test_guests_of_one_network_share_a_budget_of_new_games(settings):
    throttle_rates(settings, num_proxies=1, **{"guest-games": "4/hour"})
    farm = [visitor(f"203.0.113.{host}") for host in (5, 6, 7)]
    for browser in farm:
        assert browser.send("/api/auth/guest/", None).status_code == 201
    started = [
        browser.send("/api/games/", {"random": "EH1-N"}).status_code
        for browser in farm
        for _ in range(2)
    ]
    # Every guest's own budget (GAME_RATE) is far from spent: the network's is.
    assert started == [201, 201, 201, 201, 429, 429], started
    refused = farm[2].send("/api/games/", {"random": "EH1-N"})
    assert_error(refused, 429, "throttled")
    # An account on the same network, and a guest on another, are not counted in it.
    account = visitor("203.0.113.8")
    body = {"username": "neighbour", "password": "correct horse battery"}
    assert account.send("/api/auth/register/", body).status_code == 201
    assert account.send("/api/games/", {"random": "EH1-N"}).status_code == 201
    elsewhere = visitor("203.0.114.5")
    assert elsewhere.send("/api/auth/guest/", None).status_code == 201
    assert elsewhere.send("/api/games/", {"random": "EH1-N"}).status_code == 201
    assert Attempt.objects.filter(player__is_guest=True).count() == 5


def test_sign_in_keeps_its_budget_per_address(settings):
    """A guard of the choice (docs/operations.md): wrong passwords are counted per
    address, so a neighbour on the same /24 still signs in."""
    throttle_rates(settings, num_proxies=1, login="2/min")
    body = {"username": "nobody", "password": "wrong"}
    guesser = visitor("192.0.2.10")
    assert [guesser.send("/api/auth/login/", body).status_code for _ in range(3)] == [
        400,
        400,
        429,
    ]
    assert visitor("192.0.2.11").send("/api/auth/login/", body).status_code == 400
