"""A character's T4 and 2D6 records on its play sheet: the campaign's combat system decides which
record the play sheet, the sheet and the party table show; damage marked by hand, points
restored, waking from shock, rest and medical attention change it, each undone like a blow;
and a campaign that changes its system starts the new record unhurt."""

import pytest
from django.urls import reverse

from characters.builder import services as builder_services
from characters.campaigns import services as campaigns_services
from characters.core.services import Refused
from characters.models import Character, CombatSystem, ConditionChange, PlayState
from characters.play import record_services
from characters.play import selectors as play_selectors
from characters.play import services as play_services
from tests.dice import Scripted
from tests.factories import character_document

pytestmark = pytest.mark.django_db

T4, TWOD6 = CombatSystem.T4, CombatSystem.TWOD6


@pytest.fixture
def vera(campaign, player):
    """An average human (every attribute 7) in a flak jacket, in the player's campaign."""
    document = character_document(
        name="Vera Oslo", equipment=[{"item": "Flak jacket", "quantity": 1}]
    )
    return builder_services.create_character(owner=player, document=document, campaign=campaign)


def fights_under(campaign, system, referee):
    return campaigns_services.update_campaign_rules(
        campaign=campaign, combat_system=system, by=referee
    )


def record(character, system):
    state = PlayState.objects.filter(character=character).first()
    return play_selectors.record_in(state, system)


def points(taken):
    """The characteristics that took points, and how many."""
    return {code: n for code, n in taken.items() if n}


def play_page(client, user, character):
    client.force_login(user)
    return client.get(reverse("character_play", args=[character.pk])).content.decode()


def test_the_play_sheet_shows_the_record_of_the_campaigns_system(client, campaign, vera, player):
    assert 'data-record="t4"' not in play_page(client, player, vera)  # FFA: the LIF track
    fights_under(campaign, T4, campaign.referee)

    html = play_page(client, player, vera)

    assert 'data-record="t4"' in html
    assert "Condition under T4 basic combat" in html
    assert 'data-now="STR">7<' in html
    assert 'data-now="INT">7<' in html  # head hits reach INT and EDU
    assert "data-lif>" not in html


def test_t4_damage_marked_by_hand_comes_off_one_characteristic_and_undo_takes_it_back(
    client, campaign, vera, player, referee
):
    fights_under(campaign, T4, referee)
    client.force_login(player)
    url = reverse("character_record", args=[vera.pk])
    version = play_selectors.condition_of(vera)[1]

    response = client.post(
        url, {"action": "take", "points": "7", "stat": "END", "play_version": version}
    )

    assert response.status_code == 302
    taken = record(vera, T4)
    assert points(taken.damage) == {"END": 7}
    # One physical characteristic at 0: a minor wound, and shock knocks her out (VI.10-11).
    assert (taken.wound, taken.unconscious) == ("minor", True)
    change = ConditionChange.objects.get(character=vera, undone_at=None)
    assert (change.system, change.what) == ("t4", "T4: took 7 lethal off END")
    html = play_page(client, player, vera)
    assert 'data-record-state="unconscious"' in html
    assert 'data-action="record-wake"' in html

    play_services.undo_last_condition_change(character=vera, by=player)

    assert record(vera, T4).damage.get("END", 0) == 0
    assert record(vera, T4).wound is None


def test_waking_from_shock_brings_the_characteristic_at_0_to_1_and_the_others_halfway(
    campaign, vera, player, referee
):
    fights_under(campaign, T4, referee)
    record_services.take_points(character=vera, by=player, system=T4, points=7, stat="END")
    record_services.take_points(character=vera, by=player, system=T4, points=3, stat="STR")

    woke = record_services.wake_from_shock(character=vera, by=player)

    # STR 4 of 7: halfway back is 4 + (7 - 4) // 2 = 5; END 0 to 1 (VI.11, minor wound).
    sheet = play_selectors.fighting_sheet(vera, play_selectors.character_report(vera))
    assert [rules_current(sheet, woke.record, c) for c in ("STR", "DEX", "END")] == [5, 7, 1]
    assert not woke.record.unconscious
    assert "Awake again: STR 5, DEX 7, END 1." in woke.message


def rules_current(sheet, condition, code):
    from rules.combat.t4.condition import current

    return current(sheet, condition, code)


def test_an_hours_rest_throws_the_stun_points_and_the_characteristic(
    campaign, vera, player, referee
):
    fights_under(campaign, T4, referee)
    record_services.take_points(
        character=vera, by=player, system=T4, points=4, stat="STR", stun=True
    )
    record_services.take_points(
        character=vera, by=player, system=T4, points=2, stat="DEX", stun=True
    )

    # 1D 3 points; of two characteristics with stun, 5 picks the second (4-6): DEX.
    rested = record_services.recover_stun(character=vera, by=player, rng=Scripted([3, 5]))

    assert points(rested.record.stun) == {"STR": 4}
    assert "1D 3, 1D 5 picks DEX" in rested.message


def test_medical_attention_stops_the_bleeding_and_is_refused_when_none_bleeds(
    campaign, vera, player, referee
):
    fights_under(campaign, T4, referee)
    with pytest.raises(Refused, match="not bleeding"):
        record_services.medical_attention(character=vera, by=player)


def test_2d6_damage_comes_off_end_then_the_higher_of_str_and_dex(
    client, campaign, vera, player, referee
):
    fights_under(campaign, TWOD6, referee)
    client.force_login(player)
    version = play_selectors.condition_of(vera)[1]
    client.post(
        reverse("character_record", args=[vera.pk]),
        {"action": "take", "points": "10", "overflow": "DEX", "play_version": version},
    )

    assert points(record(vera, TWOD6).damage) == {"END": 7, "DEX": 3}
    html = play_page(client, player, vera)
    assert 'data-record="2d6"' in html
    assert 'data-now="END">0<' in html
    assert 'data-now="DEX">4<' in html


def test_a_stale_play_sheet_changes_no_record(client, campaign, vera, player, referee):
    fights_under(campaign, TWOD6, referee)
    client.force_login(player)
    version = play_selectors.condition_of(vera)[1]
    record_services.take_points(character=vera, by=referee, system=TWOD6, points=2)

    response = client.post(
        reverse("character_record", args=[vera.pk]),
        {"action": "take", "points": "5", "play_version": version},
        follow=True,
    )

    assert "changed since this page was loaded" in response.content.decode()
    assert points(record(vera, TWOD6).damage) == {"END": 2}


def test_a_campaign_that_switches_system_starts_the_new_record_unhurt_and_undo_brings_it_back(
    campaign, vera, player, referee
):
    fights_under(campaign, T4, referee)
    record_services.take_points(character=vera, by=player, system=T4, points=3, stat="DEX")
    fights_under(campaign, TWOD6, referee)
    record_services.take_points(character=vera, by=player, system=TWOD6, points=2)

    fights_under(campaign, T4, referee)

    # Nothing converted: the T4 record starts again unhurt, the 2D6 one keeps its 2 points.
    assert record(vera, T4).damage.get("DEX", 0) == 0
    assert dict(record(vera, TWOD6).damage)["END"] == 2
    reset = ConditionChange.objects.filter(character=vera, undone_at=None).last()
    assert reset.what == "T4 basic combat: starts unhurt (the campaign now fights under it)"

    play_services.undo_last_condition_change(character=vera, by=referee)

    assert record(vera, T4).damage["DEX"] == 3


def test_the_campaign_settings_choose_the_combat_system(client, campaign, referee):
    client.force_login(referee)
    url = reverse("campaign_settings", args=[campaign.pk])
    assert 'name="combat_system" value="2d6"' in client.get(url).content.decode()
    data = {
        "name": campaign.name,
        "pc_budget": campaign.pc_budget,
        "max_former_rank": campaign.max_former_rank,
        "page_size": campaign.page_size,
        "combat_system": "2d6",
    }

    response = client.post(url, data, follow=True)

    campaign.refresh_from_db()
    assert campaign.combat_system == "2d6"
    html = response.content.decode()
    assert "Fights now run under 2D6 combat" in html
    assert "<dt>Combat system</dt><dd>2D6 combat</dd>" in html
    refused = client.post(url, data | {"combat_system": "gurps"})
    assert "Combat system: choose one of those offered." in refused.content.decode()


def test_the_party_table_shows_the_record_of_the_campaigns_system(
    client, campaign, vera, player, referee
):
    fights_under(campaign, T4, referee)
    record_services.take_points(character=vera, by=player, system=T4, points=2, stat="STR")
    client.force_login(referee)

    html = client.get(reverse("campaign_detail", args=[campaign.pk])).content.decode()

    assert ">T4 now" in html
    assert 'data-record="t4"' in html
    assert 'data-now="STR">5</span>/7' in html
    assert "data-lif-now" not in html


def test_the_sheet_shows_the_record_in_play(client, campaign, vera, player, referee):
    fights_under(campaign, TWOD6, referee)
    client.force_login(player)
    html = client.get(reverse("character_detail", args=[vera.pk])).content.decode()
    assert "Under 2D6 combat, the campaign's combat system." in html
    assert 'data-record="2d6"' in html


def test_an_ffa_campaigns_play_sheet_refuses_a_record_change(client, campaign, vera, player):
    client.force_login(player)
    response = client.post(
        reverse("character_record", args=[vera.pk]),
        {"action": "take", "points": "3", "stat": "STR", "play_version": "1"},
        follow=True,
    )
    assert "fights under FFA" in response.content.decode()
    assert not Character.objects.get(pk=vera.pk).condition_changes.exists()


@pytest.mark.parametrize("size", [1, 6])
def test_the_party_review_under_t4_takes_the_queries_it_takes_under_ffa(
    client, django_assert_num_queries, referee, size
):
    campaign = campaigns_services.create_campaign(
        referee=referee, name="Big party", combat_system=T4
    )
    for n in range(size):
        owner = builder_services.create_character(
            owner=referee,
            document=character_document(
                name=f"Hero {n}", equipment=[{"item": "Flak jacket", "quantity": 1}]
            ),
            campaign=campaign,
        )
        # Armor chosen on the play sheet: each sheet reads its play state for what it wears.
        play_services.wear_armor(character=owner, by=referee, worn=[("Flak jacket", 6)])
    client.force_login(referee)

    # As under FFA (the party review's own test): session, user, campaign, characters,
    # ledgers, returns, conditions in play, members, spare characters, rolls, encounters.
    with django_assert_num_queries(13):
        response = client.get(reverse("campaign_detail", args=[campaign.pk]))

    assert response.content.decode().count('data-record="t4"') == size
