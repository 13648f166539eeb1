"""An id in a URL too large for a 64-bit key is a 404 from the URL resolver, never a 500 from the
database driver: the `id` converter matches at most 18 digits."""

import pytest
from django.urls import Resolver404, resolve
from django.urls.resolvers import RoutePattern

from characters.builder import services as builder_services
from characters.campaigns import services as campaigns_services
from tests.factories import UserFactory, character_document

pytestmark = pytest.mark.django_db

HUGE = "99999999999999999999"  # 20 digits, over 2^63


@pytest.mark.parametrize(
    ("path", "matches"),
    [
        ("1/", True),
        ("999999999999999999/", True),  # 18 digits: under 2^63 - 1
        ("9223372036854775807/", False),  # 2^63 - 1 itself has 19 digits
        (f"{HUGE}/", False),
        ("-1/", False),
        ("1e3/", False),
    ],
)
def test_the_id_converter_matches_only_numbers_a_64_bit_key_can_hold(path, matches):
    match = RoutePattern("<id:pk>/").match(path)

    assert bool(match) is matches
    if matches:
        assert match[2] == {"pk": int(path[:-1])}


@pytest.fixture
def referee_client(client):
    referee = UserFactory(username="referee")
    player = UserFactory(username="player1")
    campaign = campaigns_services.create_campaign(referee=referee, name="Spinward Marches")
    campaigns_services.join_campaign(user=player, code=campaign.invite_code)
    character = builder_services.create_character(
        owner=referee, document=character_document(name="Mara"), campaign=campaign
    )
    client.force_login(referee)
    client.campaign, client.character = campaign, character
    return client


@pytest.mark.parametrize(
    "url",
    [
        "/campaigns/{campaign}/members/{huge}/remove/",
        "/characters/{huge}/",
        "/characters/{huge}/edit/",
        "/characters/{character}/history/{huge}/",
        "/characters/{character}/play/ip/{huge}/decide/",
        "/characters/{character}/share/{huge}/revoke/",
    ],
)
@pytest.mark.parametrize("method", ["get", "post"])
def test_an_id_too_large_for_the_database_is_not_found(referee_client, url, method):
    url = url.format(
        campaign=referee_client.campaign.pk, character=referee_client.character.pk, huge=HUGE
    )
    # SQLite overflows on some of these today (a 500); PostgreSQL answers 404 by luck. The URL
    # itself must not match, so that no view ever sees such a number.
    with pytest.raises(Resolver404):
        resolve(url)
    response = getattr(referee_client, method)(url)
    assert response.status_code == 404
