"""Logins are throttled per account and address, per address (django-axes) and, slowed rather than
locked, per account over every address; the admin's as well. Signups per address. A lockout
says so on the login page, and an admin can lift it."""

import itertools
from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.core.cache import caches
from django.core.management import call_command
from django.db.models import F
from django.test import RequestFactory
from django.utils import timezone

from ffa_site.throttling import client_address, signup_counter
from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"
ADMIN_LOGIN = "/admin/login/"
SIGNUP = "/accounts/signup/"


def log_in(client, username, password, *, address="198.51.100.7", url=LOGIN):
    return client.post(url, {"username": username, "password": password}, REMOTE_ADDR=address)


def is_logged_in(client) -> bool:
    return "_auth_user_id" in client.session


def test_four_wrong_passwords_still_let_the_right_one_in(client):
    UserFactory(username="player1")
    for _ in range(4):
        assert log_in(client, "player1", "wrong").status_code == 200

    response = log_in(client, "player1", PASSWORD)

    assert response.status_code == 302
    assert is_logged_in(client)


def test_five_wrong_passwords_lock_the_account_and_the_login_page_says_why(client):
    UserFactory(username="player1")
    for _ in range(4):
        log_in(client, "player1", "wrong")

    fifth = log_in(client, "player1", "wrong")
    right = log_in(client, "player1", PASSWORD)

    for response in (fifth, right):
        assert response.status_code == 429
        html = response.content.decode()
        assert "Too many failed logins for this account or from this address" in html
        assert "15 minutes" in html
        assert 'name="password"' in html  # still the login page, with its form
        assert 'value="player1"' in html
    assert not is_logged_in(client)


def test_a_strangers_guesses_from_one_address_never_lock_the_owner_out_at_another(client):
    UserFactory(username="player1")
    refused = [log_in(client, "player1", "wrong", address="203.0.113.9") for _ in range(12)]
    # The stranger's own address is locked out at the fifth...
    assert [r.status_code for r in refused] == [200] * 4 + [429] * 8

    # ...and the owner, at home, logs in as usual, at once.
    response = log_in(client, "player1", PASSWORD, address="192.0.2.200")

    assert response.status_code == 302
    assert is_logged_in(client)


def test_guesses_at_one_account_from_many_addresses_never_lock_its_owner_out(client):
    UserFactory(username="player1")
    for n in range(5):
        log_in(client, "player1", "wrong", address=f"203.0.113.{n + 1}")

    response = log_in(client, "player1", PASSWORD, address="192.0.2.200")

    assert response.status_code == 302
    assert is_logged_in(client)


def time_passes(seconds: float) -> None:
    """Every recorded failure moves ``seconds`` into the past, as if the clock had run on."""
    AccessAttempt.objects.update(attempt_time=F("attempt_time") - timedelta(seconds=seconds))


def test_guesses_from_many_addresses_are_slowed_past_ten_each_wait_twice_the_last(client):
    UserFactory(username="player1")
    botnet = (f"203.0.{n // 250}.{n % 250 + 1}" for n in itertools.count())
    checked = [log_in(client, "player1", "wrong", address=next(botnet)) for _ in range(10)]
    assert {r.status_code for r in checked} == {200}

    slowed = log_in(client, "player1", PASSWORD, address=next(botnet))

    # Not checked, right password or not, and not counted: the page says how long to wait.
    assert slowed.status_code == 429
    assert slowed["Retry-After"] == "2"
    assert "try again in 2 seconds" in slowed.content.decode()
    assert not is_logged_in(client)
    time_passes(2)
    assert log_in(client, "player1", "wrong", address=next(botnet)).status_code == 200
    assert log_in(client, "player1", "wrong", address=next(botnet))["Retry-After"] == "4"
    time_passes(4)
    assert log_in(client, "player1", "wrong", address=next(botnet)).status_code == 200
    assert log_in(client, "player1", "wrong", address=next(botnet))["Retry-After"] == "8"


def test_guessing_from_any_number_of_addresses_stays_capped_under_a_hundred_an_hour(client):
    UserFactory(username="player1")
    botnet = (f"203.0.{n // 250}.{n % 250 + 1}" for n in itertools.count())
    checked, elapsed = 0, 0
    # A guess from a fresh address every second for an hour (the clock moved by hand).
    while elapsed < 3600:
        response = log_in(client, "player1", "wrong", address=next(botnet))
        checked += response.status_code == 200
        step = int(response.get("Retry-After", 1)) if response.status_code == 429 else 1
        time_passes(step)
        elapsed += step

    assert checked < 100  # ASVS 2.2.1: at most 100 failed attempts an hour on one account


def test_the_owner_logs_in_from_a_known_address_while_many_addresses_guess(client):
    UserFactory(username="player1")
    assert log_in(client, "player1", PASSWORD, address="192.0.2.200").status_code == 302
    client.logout()
    for n in range(30):
        log_in(client, "player1", "wrong", address=f"203.0.113.{n + 1}")
    assert log_in(client, "player1", PASSWORD, address="198.51.100.1").status_code == 429

    response = log_in(client, "player1", PASSWORD, address="192.0.2.200")

    assert response.status_code == 302
    assert is_logged_in(client)


def test_an_address_is_locked_however_many_accounts_it_guesses_at(client):
    for n in range(5):
        log_in(client, f"guess{n}", "wrong", address="203.0.113.9")
    UserFactory(username="player1")

    from_there = log_in(client, "player1", PASSWORD, address="203.0.113.9")
    assert from_there.status_code == 429
    assert not is_logged_in(client)

    # The lockout is the address's and the guessed accounts': anyone else logs in as usual.
    elsewhere = log_in(client, "player1", PASSWORD, address="192.0.2.1")
    assert elsewhere.status_code == 302
    assert is_logged_in(client)


def test_a_lockout_ends_fifteen_minutes_after_the_last_failure(client):
    UserFactory(username="player1")
    for _ in range(5):
        log_in(client, "player1", "wrong")
    assert log_in(client, "player1", PASSWORD).status_code == 429

    AccessAttempt.objects.update(attempt_time=timezone.now() - timezone.timedelta(minutes=16))

    assert log_in(client, "player1", PASSWORD).status_code == 302
    assert is_logged_in(client)


def test_an_admin_lifts_a_lockout_with_the_command_the_readme_names(client):
    UserFactory(username="player1")
    for _ in range(5):
        log_in(client, "player1", "wrong")

    call_command("axes_reset_username", "player1", verbosity=0)
    call_command("axes_reset_ip", "198.51.100.7", verbosity=0)

    assert log_in(client, "player1", PASSWORD).status_code == 302
    assert is_logged_in(client)


def test_the_admin_login_is_throttled_like_the_sites(client):
    UserFactory(username="boss", is_staff=True, is_superuser=True)
    for _ in range(5):
        log_in(client, "boss", "wrong", url=ADMIN_LOGIN)

    response = log_in(client, "boss", PASSWORD, url=ADMIN_LOGIN)

    assert response.status_code == 429
    assert "Too many failed logins" in response.content.decode()
    assert not is_logged_in(client)
    # And the failures count for the site's login page too: one account, one count.
    assert log_in(client, "boss", PASSWORD).status_code == 429


def test_a_login_without_a_request_is_left_to_the_password_check(client):
    # Django's test client and scripts call authenticate() with no request: there is no
    # address to count, so the throttle stands aside instead of failing.
    UserFactory(username="player1")

    assert client.login(username="player1", password=PASSWORD)
    assert not client.login(username="player1", password="wrong")


def signup(client, username, *, address="198.51.100.7"):
    data = {"username": username, "password1": "jump-2-to-regina", "password2": "jump-2-to-regina"}
    return client.post(SIGNUP, data, REMOTE_ADDR=address)


def test_signups_from_one_address_are_refused_past_the_hourly_limit(client, settings):
    settings.SIGNUP_LIMIT_PER_HOUR = 3
    for n in range(3):
        assert signup(client, f"newcomer{n}").status_code == 302
        client.logout()

    refused = signup(client, "one-too-many")

    assert refused.status_code == 429
    assert "Too many signups from this address" in refused.content.decode()
    assert int(refused["Retry-After"]) > 0
    assert not get_user_model().objects.filter(username="one-too-many").exists()
    # Another address is not held back by this one.
    assert signup(client, "next-door", address="192.0.2.44").status_code == 302


def test_failed_signups_count_too_since_each_costs_a_password_check(client, settings):
    settings.SIGNUP_LIMIT_PER_HOUR = 2
    mismatched = {"username": "x", "password1": "jump-2-to-regina", "password2": "other-one"}
    for _ in range(2):
        assert client.post(SIGNUP, mismatched, REMOTE_ADDR="198.51.100.7").status_code == 200

    assert signup(client, "newcomer").status_code == 429


def test_the_signup_page_itself_is_never_throttled(client, settings):
    settings.SIGNUP_LIMIT_PER_HOUR = 1
    signup(client, "newcomer")
    client.logout()
    signup(client, "second")

    assert client.get(SIGNUP, REMOTE_ADDR="198.51.100.7").status_code == 200


def test_the_address_is_the_connections_unless_proxies_are_trusted(settings):
    request = RequestFactory().get(
        "/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="1.2.3.4, 203.0.113.5"
    )

    settings.TRUSTED_PROXY_COUNT = 0
    assert client_address(request) == "10.0.0.2"
    # Behind one balancer, the entry it appended: not the one the client made up before it.
    settings.TRUSTED_PROXY_COUNT = 1
    assert client_address(request) == "203.0.113.5"
    settings.TRUSTED_PROXY_COUNT = 3  # fewer entries than proxies: the header is not believed
    assert client_address(request) == "10.0.0.2"


def test_a_forwarded_entry_that_is_no_address_is_not_believed(settings):
    settings.TRUSTED_PROXY_COUNT = 1
    request = RequestFactory().get("/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="evil")

    assert client_address(request) == "10.0.0.2"


def test_a_login_failure_behind_a_proxy_is_counted_against_the_forwarded_address(client, settings):
    settings.TRUSTED_PROXY_COUNT = 1
    for _ in range(5):
        client.post(
            LOGIN,
            {"username": "nobody", "password": "wrong"},
            REMOTE_ADDR="10.0.0.2",
            HTTP_X_FORWARDED_FOR="203.0.113.5",
        )

    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"203.0.113.5"}


def test_every_worker_process_counts_the_same_signups(client, settings):
    # The counters are files shared by the server's workers (Redis when configured): a count
    # made through another worker's cache connection is the same count.
    settings.SIGNUP_LIMIT_PER_HOUR = 2
    assert signup(client, "newcomer1").status_code == 302
    other_worker = caches.create_connection("throttle")
    other_worker.incr(signup_counter("198.51.100.7"))

    assert signup(client, "newcomer2").status_code == 429
