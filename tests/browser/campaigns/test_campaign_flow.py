"""A referee runs a campaign and reviews a player's character, each in their own browser."""

import re

import pytest
from playwright.sync_api import expect

from characters.builder import services as builder_services
from characters.campaigns import services as campaigns_services
from characters.models import Character
from tests.browser.pages import log_in
from tests.factories import UserFactory, character_document

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def player_page(second_page):
    """The player's browser: their cookies are not the other's."""
    return second_page


def test_a_referee_returns_then_approves_a_players_character_and_prints_the_party(
    page, player_page
):
    UserFactory(username="referee")
    player = UserFactory(username="player1")
    character = builder_services.create_character(
        owner=player, document=character_document(name="Mara Tolven")
    )
    referee_page = page

    # The referee creates the campaign and copies its invite link.
    log_in(referee_page, "referee")
    referee_page.goto("/campaigns/")
    referee_page.get_by_role("link", name="New campaign").click()
    referee_page.fill("input[name=name]", "Spinward Marches")
    referee_page.get_by_label("Psionics allowed").uncheck()
    referee_page.get_by_role("button", name="Create campaign").click()
    expect(referee_page.get_by_role("heading", level=1)).to_have_text("Spinward Marches")
    invite = referee_page.locator("[data-invite-url]").inner_text().strip()
    assert re.search(r"/campaigns/join/[\w-]+/$", invite)

    # The player opens the link, joins and brings the character, then submits it.
    log_in(player_page, "player1")
    player_page.goto(invite)
    player_page.get_by_label("Mara Tolven").check()
    player_page.locator('[data-action="join"]').click()
    expect(player_page.locator(".message--success").first).to_contain_text(
        "You joined Spinward Marches"
    )
    expect(player_page.locator(f'tr[data-character="{character.pk}"] [data-status]')).to_have_text(
        "Draft"
    )
    player_page.get_by_role("link", name="Mara Tolven").click()
    player_page.locator('[data-action="submit"]').click()
    expect(player_page.locator(".message--success")).to_contain_text("submitted to the referee")
    expect(player_page.locator("#review [data-status]")).to_have_text("Submitted")

    # The referee sees it in the party review and returns it with a comment from the sheet.
    referee_page.reload()
    row = referee_page.locator(f'tr[data-character="{character.pk}"]')
    expect(row.locator("[data-status]")).to_have_text("Submitted")
    expect(row.locator('[data-label="UPP"]')).to_have_text("777-777-777")
    row.get_by_role("link", name="Sheet", exact=True).click()
    referee_page.fill("#return-comment", "Give Mara a homeworld, please.")
    referee_page.locator('#review [data-action="return"]').click()
    expect(referee_page.locator(".message--success")).to_contain_text("went back to player1")
    expect(referee_page.locator("#review [data-status]")).to_have_text("Returned")

    # The player reads the comment in the builder, fixes the character, saves and resubmits.
    player_page.goto(f"/characters/{character.pk}/edit/")
    expect(player_page.locator("[data-return-comment]")).to_contain_text(
        "Give Mara a homeworld, please."
    )
    player_page.fill("input[name=homeworld]", "Regina")
    player_page.locator('[data-action="save"]').click()
    expect(player_page.locator(".message--success")).to_contain_text("Mara Tolven saved")
    player_page.locator('[data-action="submit"]').click()
    expect(player_page.locator(".message--success")).to_contain_text("submitted to the referee")

    # The referee approves it from the party table and downloads the party PDF.
    referee_page.goto("/campaigns/")
    referee_page.get_by_role("link", name="Spinward Marches").click()
    row = referee_page.locator(f'tr[data-character="{character.pk}"]')
    expect(row.locator("[data-status]")).to_have_text("Submitted")
    row.locator('[data-action="approve"]').click()
    expect(referee_page.locator(".message--success")).to_contain_text("approved and locked")
    expect(row.locator("[data-status]")).to_have_text("Approved")

    href = referee_page.locator('[data-action="party-pdf"]').get_attribute("href")
    pdf = referee_page.context.request.get(href)
    assert pdf.status == 200
    assert pdf.headers["content-type"] == "application/pdf"
    assert pdf.body().startswith(b"%PDF-")

    # Both read the same log: submitted, returned with the comment, submitted, approved.
    player_page.goto(f"/characters/{character.pk}/")
    log = player_page.locator("[data-log]")
    expect(log.locator('[data-event="status"]')).to_have_count(4)
    expect(log).to_contain_text("Give Mara a homeworld, please.")
    character.refresh_from_db()
    assert (character.status, character.document["homeworld"]) == (
        Character.Status.APPROVED,
        "Regina",
    )


def test_a_referee_removes_a_player_without_javascript(browser, live_server):
    referee = UserFactory(username="referee")
    player = UserFactory(username="player1")
    campaign = campaigns_services.create_campaign(referee=referee, name="Spinward Marches")
    campaigns_services.join_campaign(user=player, code=campaign.invite_code)
    character = builder_services.create_character(
        owner=player, document=character_document(name="Mara Tolven"), campaign=campaign
    )
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    context.set_default_timeout(10_000)
    page = context.new_page()

    # From the party review's list of players to the confirmation, which names what leaves.
    log_in(page, "referee")
    page.goto(f"/campaigns/{campaign.pk}/")
    page.locator(f'[data-member="{player.pk}"]').get_by_role("link", name="Remove…").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(
        "Remove player1 from Spinward Marches?"
    )
    expect(page.locator("[data-leaving]")).to_contain_text("Mara Tolven")
    page.get_by_role("button", name="Remove player1").click()

    expect(page.locator(".message--success")).to_contain_text(
        "player1 was removed from Spinward Marches; 1 character left the campaign."
    )
    expect(page.locator(f'tr[data-character="{character.pk}"]')).to_have_count(0)
    expect(page.locator(f'[data-member="{player.pk}"]')).to_have_count(0)
    context.close()
