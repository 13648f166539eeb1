import pytest

from characters.builder import services as builder_services
from tests.factories import (
    CampaignFactory,
    CampaignMembershipFactory,
    CharacterFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


def test_anonymous_home_is_a_landing_page_with_login_and_sign_up(client):
    response = client.get("/")

    assert response.status_code == 200
    assert b'href="/accounts/login/"' in response.content
    assert b'href="/accounts/signup/"' in response.content


def test_home_of_a_logged_in_user_links_to_characters_and_campaigns(client):
    client.force_login(UserFactory())

    response = client.get("/")

    assert b'href="/characters/"' in response.content
    assert b'href="/campaigns/"' in response.content


def test_the_dashboard_lists_the_characters_last_edited_and_links_to_the_rest(
    client, django_assert_max_num_queries
):
    player = UserFactory()
    mine = [CharacterFactory(owner=player, name=f"Mine {n}") for n in range(7)]
    CharacterFactory(name="Someone else's")
    builder_services.delete_character(
        character=CharacterFactory(owner=player, name="Gone"), by=player
    )
    client.force_login(player)

    with django_assert_max_num_queries(8):
        html = client.get("/").content.decode()

    recent = html.split('data-dashboard="characters"')[1].split('data-dashboard="campaigns"')[0]
    newest_first = [c.name for c in reversed(mine)]
    positions = [recent.find(f">{name}</a>") for name in newest_first]
    assert all(position > 0 for position in positions[:5]), positions
    assert positions[:5] == sorted(positions[:5])
    assert positions[5:] == [-1, -1]
    assert "Someone else's" not in html
    assert "Gone" not in html
    assert 'href="/characters/">All 7 characters</a>' in recent


def test_the_dashboard_tells_a_referee_how_many_characters_wait_for_review(client):
    referee = UserFactory()
    campaign = CampaignFactory(referee=referee, name="Spinward Marches")
    quiet = CampaignFactory(referee=referee, name="Quiet campaign")
    joined = CampaignMembershipFactory(user=referee).campaign
    for status in ("submitted", "submitted", "draft", "approved"):
        CharacterFactory(campaign=campaign, status=status)
    CharacterFactory(campaign=joined, status="submitted")
    client.force_login(referee)

    html = client.get("/").content.decode()

    assert 'data-awaiting-review="2">2 to review</strong>' in html
    assert html.count("to review</strong>") == 1  # not the quiet one, not the one it plays in
    assert f">{quiet.name}</a>" in html
    assert f"refereed by {joined.referee.username}" in html


def test_base_page_loads_vendored_htmx_and_sends_the_csrf_token_from_the_body(client):
    response = client.get("/accounts/login/")
    html = response.content.decode()

    assert '<script src="/static/django_htmx/htmx-2.min.js"' in html
    token = response.context["csrf_token"]
    assert f'<body hx-headers=\'{{"X-CSRFToken": "{token}"}}\' ' in html


def test_pages_reference_no_remote_assets(client):
    client.force_login(UserFactory())

    for url in ("/", "/characters/", "/campaigns/"):
        html = client.get(url).content.decode()
        assert 'src="http' not in html, url
        assert 'href="http' not in html, url


def test_character_list_shows_only_the_users_own_characters(client):
    me, other = UserFactory(), UserFactory()
    CharacterFactory(owner=me, name="Mine")
    CharacterFactory(owner=other, name="Not mine")
    client.force_login(me)

    response = client.get("/characters/")

    assert [c.name for c in response.context["characters"]] == ["Mine"]
    assert b"Not mine" not in response.content


def test_campaign_list_shows_refereed_and_joined_campaigns_once_each(client):
    me = UserFactory()
    CampaignFactory(referee=me, name="Mine to run")
    CampaignMembershipFactory(user=me, campaign=CampaignFactory(name="Mine to play"))
    CampaignFactory(name="Someone else's")
    client.force_login(me)

    response = client.get("/campaigns/")

    names = sorted(c.name for c in response.context["campaigns"])
    assert names == ["Mine to play", "Mine to run"]


def test_write_only_methods_are_refused_on_read_only_pages(client):
    client.force_login(UserFactory())

    assert client.post("/").status_code == 405
    assert client.post("/characters/").status_code == 405
