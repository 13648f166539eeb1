"""Several app servers behind one load balancer, for real: two gunicorn servers on loopback, each
with its own folder (no file shared), against one PostgreSQL database and one Redis server.

A sheet rendered by one is served from Redis by the other, signups and failed logins are counted
together, a save on one is seen on the other, and a server that loses Redis carries on rendering
and answering, without a 500.

Needs DATABASE_URL on PostgreSQL and FFA_TEST_REDIS_URL (a Redis the test may empty): CI's
PostgreSQL run starts both (.ci/run). Without them the tests are skipped, or fail under CI.
"""

import http.client
import os
import re
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass
from urllib.parse import quote, urlencode

import pytest
import redis
from django.conf import global_settings
from django.core.cache.backends.redis import RedisCache
from django.db import connection

from bench.server import free_port, gunicorn
from characters.builder import services as builder_services
from ffa_site.cache import RETRY_SECONDS
from ffa_site.throttling import signup_counter
from tests.ci import running_in_ci
from tests.factories import UserFactory, builder_post, character_document

pytestmark = [pytest.mark.scale_out, pytest.mark.django_db(transaction=True)]

REDIS_URL = os.environ.get("FFA_TEST_REDIS_URL", "")
PASSWORD = "jump-2-to-regina"


@pytest.fixture(scope="module")
def database_url(django_db_setup) -> str:
    """The test database's URL, for servers in other processes."""
    missing = []
    if connection.vendor != "postgresql":
        missing.append("DATABASE_URL on PostgreSQL")
    if not REDIS_URL:
        missing.append("FFA_TEST_REDIS_URL")
    if missing:
        why = f"two app servers need {' and '.join(missing)}"
        if running_in_ci():
            pytest.fail(f"{why}: CI's PostgreSQL run must start both (.ci/run)")
        pytest.skip(why)
    db = connection.settings_dict
    password = f":{quote(db['PASSWORD'], safe='')}" if db["PASSWORD"] else ""
    return (
        f"postgres://{quote(db['USER'], safe='')}{password}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    )


@contextmanager
def app_server(database_url: str, redis_url: str, tmp_path_factory) -> Iterator[int]:
    """One app server: gunicorn with two workers and a folder of its own."""
    environment = {
        "DATABASE_URL": database_url,
        "FFA_REDIS_URL": redis_url,
        "DJANGO_CONN_MAX_AGE": "0",  # no connection outlives a request to hold the test database
    }
    with gunicorn(
        str(tmp_path_factory.mktemp("server")),
        workers=2,
        settings_module="ffa_site.settings",
        environment=environment,
    ) as port:
        yield port


@pytest.fixture(scope="module")
def servers(database_url, tmp_path_factory) -> Iterator[tuple[int, int]]:
    with ExitStack() as stack:
        yield tuple(
            stack.enter_context(app_server(database_url, REDIS_URL, tmp_path_factory))
            for _ in range(2)
        )


@pytest.fixture(autouse=True)
def empty_redis(database_url):
    redis.Redis.from_url(REDIS_URL).flushdb()


@pytest.fixture(autouse=True)
def _passwords_the_servers_can_check(settings):
    """The servers check passwords with the site's own hashers, not the tests' fast one."""
    settings.PASSWORD_HASHERS = global_settings.PASSWORD_HASHERS


def shared_cache(name: str) -> RedisCache:
    """The Redis cache the servers call ``name``, as ffa_site.settings configures it."""
    return RedisCache(REDIS_URL, {"KEY_PREFIX": f"ffa-{name}"})


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode(errors="replace")


class Browser:
    """One person's browser: its cookies, sent to whichever server the balancer picks."""

    def __init__(self) -> None:
        self.cookies: dict[str, str] = {}

    def get(self, port: int, path: str) -> Answer:
        return self._send(port, "GET", path)

    def post(self, port: int, path: str, data: dict) -> Answer:
        if "csrftoken" not in self.cookies:
            self.get(port, "/accounts/login/")  # any page with a form sets the CSRF cookie
        body = urlencode(data, doseq=True)
        headers = {
            "Content-Type": "application/x-www-form-urlencoded",
            "X-CSRFToken": self.cookies["csrftoken"],
        }
        return self._send(port, "POST", path, body, headers)

    def log_in(self, port: int, username: str, password: str = PASSWORD) -> Answer:
        return self.post(port, "/accounts/login/", {"username": username, "password": password})

    def _send(self, port, method, path, body=None, headers=None) -> Answer:
        cookie = "; ".join(f"{name}={value}" for name, value in self.cookies.items())
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        try:
            connection.request(method, path, body, {"Cookie": cookie, **(headers or {})})
            response = connection.getresponse()
            answer = Answer(response.status, dict(response.getheaders()), response.read())
            for header, value in response.getheaders():
                if header.lower() == "set-cookie":
                    name, _, rest = value.partition("=")
                    self.cookies[name] = rest.split(";", 1)[0]
        finally:
            connection.close()
        assert answer.status < 500, f"{method} {path} on :{port}: {answer.status}"
        return answer


def a_player_with_a_character(username: str = "player1"):
    user = UserFactory(username=username)
    user.set_password(PASSWORD)
    user.save()
    character = builder_services.create_character(
        owner=user, document=character_document(name="Mara Tolven", homeworld="Regina")
    )
    return user, character


def test_a_sheet_rendered_by_one_server_is_served_from_redis_by_the_other(servers):
    a, b = servers
    user, character = a_player_with_a_character()
    browser = Browser()
    assert browser.log_in(a, user.username).status == 302
    url = f"/characters/{character.pk}/sheet.pdf"

    rendered = browser.get(a, url)

    assert rendered.status == 200
    assert rendered.body.startswith(b"%PDF-")
    key = rendered.headers["ETag"].strip('"')
    pdf_cache = shared_cache("pdf")
    assert pdf_cache.get(key) == rendered.body  # server A put it in Redis
    # Marked, so that only a copy from Redis can be what server B sends.
    pdf_cache.set(key, b"%PDF-1.7 from Redis")
    served = browser.get(b, url)
    assert served.status == 200
    assert served.body == b"%PDF-1.7 from Redis"
    assert served.headers["ETag"] == rendered.headers["ETag"]


def _signup(browser: Browser, port: int, username: str) -> Answer:
    data = {"username": username, "password1": PASSWORD, "password2": PASSWORD}
    answer = browser.post(port, "/accounts/signup/", data)
    browser.cookies.pop("sessionid", None)  # logged in: the next signup is someone new
    return answer


def test_signups_from_one_address_are_counted_together_by_every_server(servers, settings):
    a, b = servers
    # Not across the turn of the hour, when the count starts again.
    time.sleep(max(0, 30 - (3600 - time.time() % 3600)))
    limit = settings.SIGNUP_LIMIT_PER_HOUR
    shared_cache("throttle").set(signup_counter("127.0.0.1"), limit - 2, timeout=3600)
    browser = Browser()

    answers = [_signup(browser, port, f"newcomer{n}") for n, port in enumerate((a, b, a, b))]

    assert [answer.status for answer in answers] == [302, 302, 429, 429]


def test_failed_logins_are_counted_together_by_every_server(servers):
    a, b = servers
    user, _ = a_player_with_a_character()
    browser = Browser()
    for port in (a, b, a, b):
        assert browser.log_in(port, user.username, "wrong").status == 200

    fifth = browser.log_in(a, user.username, "wrong")

    assert fifth.status == 429
    assert browser.log_in(b, user.username).status == 429
    assert "Too many failed logins" in browser.log_in(a, user.username).text


def test_a_save_on_one_server_is_seen_on_the_other(servers):
    a, b = servers
    user, character = a_player_with_a_character()
    browser = Browser()
    browser.log_in(a, user.username)

    saved = browser.post(
        a,
        f"/characters/{character.pk}/edit/",
        builder_post(character, action="save", name="Mara Saved-on-A", notes="Jumped."),
    )

    assert saved.status == 302
    sheet = browser.get(b, f"/characters/{character.pk}/")
    assert sheet.status == 200
    assert "Mara Saved-on-A" in sheet.text


class Cuttable:
    """A TCP relay on loopback to the Redis server, which the test can cut and restore."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.port = free_port()
        self.sockets: list[socket.socket] = []
        self.listener: socket.socket | None = None
        self.restore()

    def restore(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", self.port))
        threading.Thread(target=self._accept, args=(self.listener,), daemon=True).start()

    def cut(self) -> None:
        for open_socket in [self.listener, *self.sockets]:
            _hang_up(open_socket)
            open_socket.close()
        self.sockets.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.upstream)
            self.sockets += [client, server]
            for source, target in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(source, target), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, target: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                target.sendall(data)
        except OSError:
            pass
        finally:
            _hang_up(source)
            _hang_up(target)


def _hang_up(end: socket.socket) -> None:
    with suppress(OSError):
        end.shutdown(socket.SHUT_RDWR)


def test_a_server_that_loses_redis_keeps_rendering_and_answering(database_url, tmp_path_factory):
    match = re.match(r"redis://(?:[^@/]*@)?([^:/]+):(\d+)(/.*)?$", REDIS_URL)
    assert match, f"FFA_TEST_REDIS_URL must be redis://host:port/db, not {REDIS_URL!r}"
    relay = Cuttable((match[1], int(match[2])))
    relayed_url = f"redis://127.0.0.1:{relay.port}{match[3] or ''}"
    user, character = a_player_with_a_character()
    other = builder_services.create_character(owner=user, document=character_document())
    with app_server(database_url, relayed_url, tmp_path_factory) as port:
        browser = Browser()
        browser.log_in(port, user.username)
        sheet = f"/characters/{character.pk}/sheet.pdf"
        assert browser.get(port, sheet).status == 200  # into Redis

        relay.cut()

        # The test's Browser fails on any 500; each of these needs the caches.
        assert browser.get(port, sheet).body.startswith(b"%PDF-")  # rendered again
        other_sheet = browser.get(port, f"/characters/{other.pk}/sheet.pdf")
        assert other_sheet.status == 200
        assert browser.get(port, f"/characters/{character.pk}/").status == 200
        assert browser.get(port, "/healthz").status == 200
        assert _signup(Browser(), port, "newcomer").status == 302
        again = Browser()
        assert again.log_in(port, user.username, "wrong").status == 200
        assert again.log_in(port, user.username).status == 302
        key = other_sheet.headers["ETag"].strip('"')
        assert shared_cache("pdf").get(key) is None  # rendered without Redis, kept nowhere

        relay.restore()
        time.sleep(RETRY_SECONDS + 1)  # each worker leaves Redis alone that long after a failure
        for _ in range(2):  # whichever worker answers
            browser.get(port, f"/characters/{other.pk}/sheet.pdf")
        assert shared_cache("pdf").get(key) == other_sheet.body  # Redis is used again
