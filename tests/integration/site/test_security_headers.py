"""Response headers and markup that keep a page safe to show: a Content-Security-Policy that
allows the site's own scripts and styles only, pages with nothing inline for it to refuse, and
`Cache-Control: private` on whatever a logged-in user is sent."""

import re
from html.parser import HTMLParser
from types import SimpleNamespace

import pytest
from django.test import Client
from django.urls import reverse

from characters.builder import services as builder_services
from characters.campaigns import services as campaigns_services
from characters.encounters import services as encounters_services
from characters.history import services as history_services
from characters.review import services as review_services
from tests.factories import UserFactory, medic_document

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    """A referee's campaign; a player with an approved character in it (its play page), a
    draft that spends points on several things (the builder's bar), and a share link."""
    referee = UserFactory(username="referee")
    player = UserFactory(username="player1")
    campaign = campaigns_services.create_campaign(referee=referee, name="Spinward Marches")
    campaigns_services.join_campaign(user=player, code=campaign.invite_code)
    approved = builder_services.create_character(
        owner=player, document=medic_document(), campaign=campaign
    )
    review_services.submit_character(character=approved, by=player)
    review_services.approve_character(character=approved, by=referee)
    nines = dict.fromkeys(("STR", "DEX", "END", "INT", "PRE", "AWA", "EDU", "SOC", "EXP"), 9)
    draft = builder_services.create_character(
        owner=player, document=medic_document(name="Draft Dana", attributes=nines)
    )
    link = history_services.create_share_link(character=approved, by=player)
    return SimpleNamespace(
        referee=referee, player=player, campaign=campaign, approved=approved, draft=draft, link=link
    )


def pages(world) -> list[tuple[str, str]]:
    """(who, URL) of every kind of page the site draws."""
    player, referee = "player1", "referee"  # "outsider" is made when asked for
    a, d, c = world.approved.pk, world.draft.pk, world.campaign.pk
    return [
        (None, "/"),
        (None, reverse("login")),
        (None, reverse("signup")),
        (None, reverse("rules_notes")),
        (None, reverse("shared_sheet", args=[world.link.token])),
        (None, "/no/such/page/"),
        (player, "/"),
        (player, reverse("character_list")),
        (player, reverse("character_new")),
        (player, reverse("character_import")),
        (player, reverse("character_trash")),
        (player, reverse("character_edit", args=[d])),
        (player, reverse("character_detail", args=[d])),
        (player, reverse("character_detail", args=[a])),
        (player, reverse("character_play", args=[a])),
        (player, reverse("character_history", args=[a])),
        (player, reverse("character_revision", args=[a, 1])),
        (player, reverse("character_delete", args=[d])),
        (player, reverse("campaign_list")),
        (player, reverse("campaign_detail", args=[c])),
        (player, reverse("campaign_leave", args=[c])),
        (player, reverse("password_change")),
        (referee, reverse("campaign_detail", args=[c])),
        (referee, reverse("campaign_settings", args=[c])),
        (referee, reverse("campaign_npc_new", args=[c])),
        ("outsider", reverse("campaign_join", args=[world.campaign.invite_code])),
        (referee, reverse("character_detail", args=[a])),
    ]


class InlineFinder(HTMLParser):
    """What a Content-Security-Policy without 'unsafe-inline' refuses: <style> elements, style
    attributes, <script> without src (a JSON data block is never run, so it is not refused),
    event-handler attributes and javascript: URLs."""

    def __init__(self):
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        names = dict(attrs)
        if tag == "style":
            self.found.append("<style>")
        if tag == "script" and not names.get("src") and names.get("type") != "application/json":
            self.found.append("<script> without src")
        for name, value in attrs:
            if name == "style":
                self.found.append(f'<{tag} style="{value}">')
            if name.startswith("on"):
                self.found.append(f"<{tag} {name}=...>")
            url = (value or "").strip().lower()
            if name in {"href", "src", "action"} and url.startswith("javascript:"):
                self.found.append(f"<{tag} {name}={value}>")


def inline_parts(html: str) -> list[str]:
    finder = InlineFinder()
    finder.feed(html)
    return finder.found


def directives(response) -> dict[str, list[str]]:
    policy = response["Content-Security-Policy"]
    parsed = {}
    for part in policy.split(";"):
        name, *values = part.split()
        parsed[name] = values
    return parsed


def get_as(who, url):
    client = Client()
    if who:
        client.force_login(UserFactory(username=who))
    return client.get(url)


def test_every_page_sends_a_policy_of_the_sites_own_scripts_and_styles_only(world):
    for who, url in pages(world):
        response = get_as(who, url)
        expected = 404 if url == "/no/such/page/" else 200
        assert response.status_code == expected, (who, url, response.status_code)

        policy = directives(response)
        assert policy["script-src"] == ["'self'"], url
        assert policy["style-src"] == ["'self'"], url
        assert policy["default-src"] == ["'self'"], url
        assert policy["object-src"] == ["'none'"], url
        assert policy["frame-ancestors"] == ["'none'"], url
        assert "'unsafe-inline'" not in response["Content-Security-Policy"]
        assert "'unsafe-eval'" not in response["Content-Security-Policy"]


def test_no_page_has_anything_inline_that_the_policy_would_refuse(world):
    for who, url in pages(world):
        response = get_as(who, url)

        assert inline_parts(response.content.decode()) == [], (who, url)


def test_the_inline_finder_finds_what_the_policy_refuses():
    html = (
        '<p style="color: red">x</p><style>p{}</style><script>alert(1)</script>'
        '<script src="/static/js/builder.js"></script><a href="javascript:go()" onclick="go()">'
        '<script type="application/json">{"data": 1}</script>'
    )
    assert inline_parts(html) == [
        '<p style="color: red">',
        "<style>",
        "<script> without src",
        "<a href=javascript:go()>",
        "<a onclick=...>",
    ]


def test_htmx_is_told_not_to_inject_its_indicator_style_nor_to_eval(world):
    html = get_as("player1", reverse("character_edit", args=[world.draft.pk])).content.decode()

    config = re.search(r"<meta name=\"htmx-config\" content='([^']*)'>", html)
    assert config, "base.html must configure htmx before htmx loads"
    assert html.index("htmx-config") < html.index("htmx-2.min.js")
    assert '"includeIndicatorStyles": false' in config.group(1)
    assert '"allowEval": false' in config.group(1)
    # A trigger filter (event[expression]) is compiled with eval: none may be left.
    assert not re.search(r'hx-trigger="[^"]*\w\[', html)


def test_the_builders_points_bar_draws_its_parts_without_a_style_attribute(world):
    client = Client()
    client.force_login(world.player)
    html = client.get(reverse("character_edit", args=[world.draft.pk])).content.decode()

    bar = re.search(r'<div class="points__bar".*?</div>', html, re.S).group(0)
    widths = re.findall(r'<svg class="points__part points__part--(\w+)" width="([\d.]+)%"', bar)
    assert {key for key, _ in widths} >= {"attributes", "skills"}
    assert all(float(width) > 0 for _, width in widths)
    assert sum(float(width) for _, width in widths) <= 100.5
    assert "style=" not in bar
    # The figures keep their hooks beside the bar.
    for hook in ("total", "budget", "remaining", "attributes", "skills"):
        assert f'data-points="{hook}"' in html


def test_the_builders_answer_to_its_own_save_has_nothing_inline(world):
    client = Client()
    client.force_login(world.player)
    data = {"version": world.draft.version, "name": "Draft Dana", "STR": "10"}
    response = client.post(
        reverse("character_edit", args=[world.draft.pk]), data, HTTP_HX_REQUEST="true"
    )

    assert response.status_code == 200
    assert "points__part" in response.content.decode()
    assert inline_parts(response.content.decode()) == []


# -- Cache-Control ---------------------------------------------------------------------------


def cache_control(response) -> set[str]:
    return {d.strip() for d in response.get("Cache-Control", "").split(",") if d.strip()}


def test_every_page_for_a_logged_in_user_is_private_and_never_stored(world):
    for who, url in pages(world):
        if who is None:
            continue
        response = get_as(who, url)

        assert {"private", "no-store"} <= cache_control(response), (who, url)
        assert "public" not in cache_control(response), (who, url)


def test_the_dashboard_exports_history_and_encounter_poll_are_never_stored(world):
    # The pages the attack found kept in the browser's cache, and the answers scripts get.
    corsair = builder_services.create_character(
        owner=world.referee, document=medic_document(name="Corsair"), campaign=world.campaign
    )
    encounter = encounters_services.start_encounter(
        campaign=world.campaign,
        by=world.referee,
        name="Ambush",
        groups=[
            encounters_services.Group(1, "party", character=world.approved),
            encounters_services.Group(1, "opposition", character=corsair),
        ],
    )
    client = Client()
    client.force_login(world.referee)
    urls = [
        reverse("home"),
        reverse("campaign_detail", args=[world.campaign.pk]),
        reverse("character_history", args=[world.approved.pk]),
        reverse("character_export", args=[world.approved.pk]),
        reverse("character_export_foundry", args=[world.approved.pk]),
        reverse("encounter_live", args=[encounter.pk]),
    ]
    for url in urls:
        response = client.get(url)

        assert response.status_code == 200, url
        assert {"private", "no-store"} <= cache_control(response), url


def test_the_builder_stays_no_store_as_well_as_private(world):
    response = get_as("player1", reverse("character_edit", args=[world.draft.pk]))

    assert {"private", "no-store", "no-cache"} <= cache_control(response)


def test_downloads_and_answers_to_scripts_are_private_too(world):
    client = Client()
    client.force_login(world.player)
    export = client.get(reverse("character_export", args=[world.draft.pk]))
    autosave = client.post(
        reverse("character_edit", args=[world.draft.pk]),
        {"version": world.draft.version, "name": "Draft Dana"},
        HTTP_HX_REQUEST="true",
    )

    assert export.status_code == 200
    assert autosave.status_code == 200, autosave.content
    assert "private" in cache_control(export)
    assert "private" in cache_control(autosave)


def test_the_builders_own_saves_are_private_but_not_no_store_so_back_can_keep_the_page(world):
    """A browser keeps no page for Back whose own requests were answered no-store; no cache
    keeps the answer to a post anyway."""
    client = Client()
    client.force_login(world.player)
    saved = client.post(
        reverse("character_edit", args=[world.draft.pk]),
        {"version": world.draft.version, "name": "Draft Dana"},
        HTTP_HX_REQUEST="true",
    )

    assert cache_control(saved) == {"private"}


def test_the_answer_to_a_login_is_private_since_it_sets_the_users_session(world):
    response = Client().post(reverse("login"), {"username": "player1", "password": "traveller"})

    assert response.status_code == 302
    assert "private" in cache_control(response)


def test_anonymous_pages_are_not_marked_private(world):
    # The login, signup and shared pages are never_cache (the views' own choice, kept).
    for url in ["/", reverse("rules_notes"), "/no/such/page/"]:
        response = get_as(None, url)

        assert "private" not in cache_control(response), url


def test_static_files_are_not_marked_private_for_a_logged_in_user(world, settings, tmp_path):
    # As production serves them: WhiteNoise, before the session and user are known.
    settings.MIDDLEWARE = [
        settings.MIDDLEWARE[0],
        "whitenoise.middleware.WhiteNoiseMiddleware",
        *settings.MIDDLEWARE[1:],
    ]
    settings.WHITENOISE_USE_FINDERS = True
    settings.STATIC_ROOT = tmp_path  # nothing collected: the finders serve static/ itself
    client = Client()
    client.force_login(world.player)

    response = client.get("/static/css/site.css")

    assert response.status_code == 200
    assert "private" not in cache_control(response)
    assert b"".join(response.streaming_content).startswith(b"/*")


# -- Permissions-Policy ----------------------------------------------------------------------


def permissions(response) -> dict[str, str]:
    policy = response.get("Permissions-Policy", "")
    return dict(part.strip().split("=", 1) for part in policy.split(",") if part.strip())


def test_every_page_refuses_the_browser_features_the_site_never_uses(world, client):
    answers = [get_as(who, url) for who, url in pages(world)]
    answers.append(client.post("/accounts/login/", {"username": "x", "password": "y"}))

    for response in answers:
        granted = permissions(response)
        for feature in ("camera", "microphone", "geolocation", "payment", "usb"):
            assert granted.get(feature) == "()", (response.wsgi_request.path, feature)
