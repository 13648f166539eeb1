"""Hostile URL paths, on whichever database the suite runs on (CI runs it on SQLite and on
PostgreSQL, which refuses a NUL in a query where SQLite does not): every URL that takes an id,
a token or a code, with anything at all in that place, is a 404 (or the login page), never a
500. A value outside its converter's alphabet never reaches a view; a well-formed one that names
nothing is the view's 404.

Every such URL of the resolver is probed, so a URL added later is covered without a new row.
"""

import re
from urllib.parse import quote

import pytest
from django.test import Client
from django.urls import Resolver404, get_resolver, resolve

from tests.integration.site.test_access_matrix import MATRIX, World, _routes

pytestmark = pytest.mark.django_db

PLACEHOLDER = re.compile(r"<(?:(\w+):)?(\w+)>")
# What a script can put in a path segment: NUL (PostgreSQL refuses it), other control and
# invalid characters, path tricks, spaces, Unicode; and for each converter what looks like its
# values but is not (signs, exponents, numbers past 64 bits, overlong tokens).
ANYWHERE = ["\x00", "a\x00", "\x00\x00\x00", "\n", "\x7f", "\ufffd", "..", " 1", "Ω", "\u202e", "%"]
OUTSIDE_THE_ALPHABET = {
    "id": [*ANYWHERE, "-1", "1e3", "1.0", "0x10", "99999999999999999999"],
    "token": [*ANYWHERE, "A" * 65, "a.b", "a+b", "a/b"],
}
# Well-formed for their converter, but naming nothing that exists.
WELL_FORMED_BUT_UNKNOWN = {"id": ["0", "999999999999999999"], "token": ["A" * 64, "-_-"]}


def parameterised_routes() -> list[tuple[str, str]]:
    """(route, URL name) of every URL outside the admin that takes a value in its path."""
    return [
        (route, name)
        for route, name in _routes(get_resolver().url_patterns)
        if "<" in route and not route.startswith("admin/")
    ]


def probes(world: World, values: dict[str, list[str]]) -> list[tuple[str, str]]:
    """(URL name, path) for every URL, with each of its values in turn replaced by each of
    ``values`` of its converter and the others left as they name things of ``world``."""
    found = []
    for route, name in parameterised_routes():
        known = {key: str(value) for key, value in resolve(world.url(name)).kwargs.items()}
        for converter, slot in PLACEHOLDER.findall(route):
            found += [(name, url_with(route, known | {slot: value})) for value in values[converter]]
    return found


def url_with(route: str, values: dict[str, str]) -> str:
    return "/" + PLACEHOLDER.sub(lambda match: quote(values[match.group(2)], safe=""), route)


def test_the_probes_cover_every_url_that_takes_a_value():
    assert {name for _, name in parameterised_routes()} == {name for name, _ in MATRIX}


def test_no_url_takes_a_value_outside_its_converters_alphabet():
    world = World()
    for name, url in probes(world, OUTSIDE_THE_ALPHABET):
        # As the server reads the path: percent-decoded.
        decoded = Client().get(url).wsgi_request.path_info
        try:
            resolve(decoded)
        except Resolver404:
            continue
        pytest.fail(f"{name}: {url!r} reached a view")


@pytest.mark.parametrize(
    "path",
    ["/s/%00/", "/s/%00/sheet.pdf", "/campaigns/join/%00/", "/s/a%00b/", "/campaigns/join/%C0%80/"],
)
@pytest.mark.parametrize("who", ["owner", "anonymous"])
def test_a_nul_or_a_stray_byte_in_a_share_token_or_invite_code_is_a_404(client, path, who):
    if who == "owner":
        client.force_login(World().users["owner"])

    get, post = client.get(path), client.post(path)

    assert get.status_code == 404
    assert post.status_code in (403, 404)  # no CSRF token: refused before any view, or 404


def test_every_url_with_a_hostile_or_unknown_value_answers_without_a_500():
    world = World()
    clients = {}
    for role in ("owner", "referee"):
        clients[role] = Client()
        clients[role].force_login(world.users[role])
    for name, url in probes(
        world, {c: v[:3] + WELL_FORMED_BUT_UNKNOWN[c] for c, v in OUTSIDE_THE_ALPHABET.items()}
    ):
        for role, client in clients.items():
            for method in (client.get, client.post):
                # The test client raises what a view raises: a 500 fails here, named.
                response = method(url, world.post_data(name))
                assert response.status_code in (200, 302, 400, 404, 405, 409), (role, url)
