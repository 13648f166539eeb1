"""The encounter page under T4 and 2D6: an encounter started under the campaign's system or
another, each step's form and its odds before any die, the statuses players set on their
phones, the reaction asked of the target's player, the polls that bring a phone its panel, the
page's cost, and every action without JavaScript."""

import re

import pytest
from django.urls import reverse

from characters.core import dice as server_dice
from characters.core.services import store_document
from characters.encounters import services
from characters.encounters.selectors import board, weapon_key
from characters.models import Campaign, CombatSystem, Encounter, PlayState
from tests.dice import Scripted
from tests.encounter_people import start, take_up_two_rifles

pytestmark = pytest.mark.django_db

T4, TWOD6 = CombatSystem.T4, CombatSystem.TWOD6


def page(client, user, encounter) -> str:
    client.force_login(user)
    return client.get(reverse("encounter_detail", args=[encounter.pk])).content.decode()


def to_turns(encounter, referee, dice=None):
    """Initiative thrown (and T4's movement done): the first fighter's turn."""
    services.throw_initiative(encounter=encounter, by=referee, rng=Scripted(dice) if dice else None)
    if encounter.combat_system == T4:
        services.take_turn(encounter=encounter, by=referee, action="done_moving")
    encounter.refresh_from_db()
    return board(encounter, entries=0)


def attack_data(encounter, target, weapon="Automatic pistol", **changes):
    state = board(encounter, entries=0)
    pistol = next(w for w in state.current.fighter.weapons if w.name == weapon)
    return {
        "version": str(encounter.version),
        "turn": state.turn_key,
        "target": str(target.pk),
        "weapon": weapon_key(pistol),
        "range_band": "short",
        "dm": "0",
        **changes,
    }


# -- starting one ------------------------------------------------------------------------------


def test_a_new_encounter_offers_the_campaigns_system_first_and_keeps_the_one_chosen(
    client, campaign, kira, dorn, corsair, referee
):
    Campaign.objects.filter(pk=campaign.pk).update(combat_system=T4)
    client.force_login(referee)
    url = reverse("encounter_new", args=[campaign.pk])
    html = client.get(url).content.decode()
    assert re.search(r'value="t4"[^>]*checked', html)
    assert "(the campaign's)" in html

    client.post(
        url,
        {
            "name": "Docks",
            "combat_system": "2d6",
            "party": [kira.pk, dorn.pk],
            f"npc-{corsair.pk}": "2",
        },
    )

    assert Encounter.objects.get(name="Docks").combat_system == TWOD6


def test_animals_are_refused_under_t4_with_the_reason(client, campaign, kira, referee):
    client.force_login(referee)
    response = client.post(
        reverse("encounter_new", args=[campaign.pk]),
        {
            "name": "Beasts",
            "combat_system": "t4",
            "party": [kira.pk],
            "animal-0-type": "hunter",
            "animal-0-weight": "40",
        },
    )
    assert response.status_code == 400
    assert "Animals: they fight under FFA only in this version" in response.content.decode()


# -- T4 ---------------------------------------------------------------------------------------


def test_before_the_first_round_the_t4_page_shows_the_surprise_odds_and_the_initiative_dms(
    client, campaign, kira, dorn, corsair, referee
):
    fight = start(campaign, kira, dorn, corsair, corsairs=2, system=T4)
    html = page(client, referee, fight)
    # No DM on either side: the party has surprise on 4-6 against 1-3 and so on, 6 of 36.
    assert "The party: 1D, no DM · has surprise <strong>16.7%</strong>" in html
    assert "Kira Valen: 1D, DEX 10 +2" in html
    assert 'data-action="initiative"' in html


def test_in_the_movement_phase_a_player_sets_only_their_own_status_lowest_first(
    client, campaign, kira, dorn, corsair, referee, player1
):
    fight = start(campaign, kira, dorn, corsair, corsairs=2, system=T4)
    services.throw_initiative(encounter=fight, by=referee, rng=Scripted([6, 4, 3, 1]))
    html = page(client, player1, fight)
    kira_pk = fight.combatants.get(name="Kira Valen").pk
    assert re.findall(r'data-status-form="(\d+)"', html) == [str(kira_pk)]
    assert 'data-action="done-moving"' not in html

    # Without JavaScript: back to the page, the status in the turn order.
    response = client.post(
        reverse("encounter_status", args=[fight.pk]),
        {"version": "1", "combatant": kira_pk, "movement": "walking", "action": "evade"},
        follow=True,
    )

    assert "Kira Valen: walking, evade." in response.content.decode()
    referee_html = page(client, referee, fight)
    assert re.findall(r'data-status-form="(\d+)"', referee_html)[0] != str(kira_pk)  # lowest first


def test_the_t4_odds_name_every_dm_of_the_fights_statuses(
    client, campaign, kira, dorn, corsair, referee, player1
):
    fight = start(campaign, kira, dorn, corsair, corsairs=2, system=T4)
    services.throw_initiative(encounter=fight, by=referee, rng=Scripted([6, 4, 3, 1]))
    kira_pk = fight.combatants.get(name="Kira Valen").pk
    services.set_status(
        encounter=fight, by=player1, combatant=kira_pk, movement="walking", action="ranged attack"
    )
    services.take_turn(encounter=fight, by=referee, action="done_moving")
    fight.refresh_from_db()
    target = fight.combatants.get(name="Vargr corsair 1")
    client.force_login(player1)

    odds = client.get(
        reverse("encounter_odds", args=[fight.pk]), attack_data(fight, target)
    ).content.decode()

    assert "Difficult (2.5D) at or under <strong data-to-hit>10</strong>" in odds
    assert (
        "2 \u00d7 Handgun 3 + \u2308DEX 10 \u00f7 2\u2309 = 11, attacker walking (III.3) -4" in odds
    )


def kiras_t4_snapshot(client, campaign, kira, dorn, corsair, player1, monkeypatch) -> str:
    """Kira's pistol at corsair 1 under T4, posted without JavaScript: 4+5 and a half die of 6
    read 12, a hit on the Mid Torso (d66 34), a 5 for damage. The page that shows it."""
    fight = start(campaign, kira, dorn, corsair, corsairs=2, system=T4)
    to_turns(fight, campaign.referee, [6, 4, 3, 1])
    target = fight.combatants.get(name="Vargr corsair 1")
    monkeypatch.setattr(server_dice, "dice_source", lambda: Scripted([4, 5, 6, 3, 4, 5]))
    client.force_login(player1)
    response = client.post(
        reverse("encounter_attack", args=[fight.pk]), attack_data(fight, target), follow=True
    )
    return response.content.decode()


def test_a_t4_attack_without_javascript_shows_its_throw_worked_out(
    client, campaign, kira, dorn, corsair, referee, player1, monkeypatch
):
    html = kiras_t4_snapshot(client, campaign, kira, dorn, corsair, player1, monkeypatch)
    assert 'data-hit="yes"' in html
    # 2.5D: the whole dice 4 and 5, and the 6 marked as the half die, which reads 3.
    dice = re.search(r'<span class="throw__dice"[^>]*>(.*?)</span> reads', html).group(1)
    assert re.findall(r'<span class="die">(\d)</span>', dice) == ["4", "5"]
    assert re.search(
        r'class="die die--half" data-half-die[^>]*>6<span class="die__half"> ½D→3', dice
    )
    assert (
        "Mid Torso (d66 34): 2D \u2212 Jack (TL 1) 1D = 1D: 5 + 1 blunt trauma = 6: "
        "STR \u22125, END \u22121." in html
    )


def test_a_t4_burst_shows_the_chance_of_each_throw_and_of_at_least_one_hit(
    client, campaign, kira, dorn, corsair, referee, player1
):
    take_up_two_rifles(kira)
    fight = start(campaign, kira, dorn, corsair, corsairs=2, system=T4)
    to_turns(fight, referee, [6, 4, 3, 1])
    target = fight.combatants.get(name="Vargr corsair 1")
    client.force_login(player1)
    burst = attack_data(fight, target, weapon="Gauss rifle", autofire_rounds="10")

    odds = client.get(reverse("encounter_odds", args=[fight.pk]), burst).content.decode()

    each = re.search(r"Each of the (\d) throws hits <strong data-odds>([\d.]+%)</strong>", odds)
    assert each, odds
    at_least = re.search(r"at least one hits <strong data-odds-any>([\d.]+%)</strong>", odds)
    assert at_least
    assert float(at_least.group(1)[:-1]) > float(each.group(2)[:-1])
    assert "Chance to hit" not in odds, "a burst's one chance would be ambiguous"


def test_a_t4_rating_equal_to_the_av_is_said_not_to_penetrate(
    client, campaign, kira, dorn, corsair, referee, player1, monkeypatch
):
    # VI.8: only a rating greater than the AV penetrates. The pistol's 2D meets a flak
    # jacket's 2D: no die gets through, and the 2 dice absorbed are 2 points of blunt trauma.
    document = corsair.document | {
        "equipment": [{"item": "Cutlass", "quantity": 1}, {"item": "Flak jacket", "quantity": 1}]
    }
    store_document(corsair, document, by=referee, action="Flak jackets for the crew")

    html = kiras_t4_snapshot(client, campaign, kira, dorn, corsair, player1, monkeypatch)

    assert (
        "Mid Torso (d66 34): 2D against Flak jacket (TL 6) 2D: not penetrated (only more dice "
        "than the AV penetrate); 2 blunt trauma:" in html
    )
    assert "= 0D" not in html
    entry = Encounter.objects.get().entries.get(kind="attack")
    assert "Mid Torso (34): 2 damage (armor not penetrated, 2 blunt trauma)" in entry.summary


# -- 2D6 --------------------------------------------------------------------------------------


def test_the_target_player_sees_the_reaction_with_the_odds_of_each_and_answers_it(
    client, campaign, kira, dorn, corsair, referee, player1
):
    fight = start(campaign, kira, dorn, corsair, corsairs=2, system=TWOD6)
    state = to_turns(fight, referee, [1, 1, 3, 3, 6, 6, 1, 1])  # corsair 1 acts first
    shown = state.turn_key
    corsair_1 = state.current
    client.force_login(referee)
    client.post(
        reverse("encounter_attack", args=[fight.pk]),
        {
            "version": str(fight.version),
            "turn": shown,
            "target": str(fight.combatants.get(name="Kira Valen").pk),
            "weapon": weapon_key(next(w for w in corsair_1.fighter.weapons if w.name == "Cutlass")),
            "range_band": "personal",
            "reaction": "ask",
            "dm": "0",
        },
    )
    fight.refresh_from_db()

    # Kira's phone polls: the turn's key changed, so the action panel comes with the log.
    client.force_login(player1)
    polled = client.get(reverse("encounter_live", args=[fight.pk]), {"v": 1, "t": shown})
    html = polled.content.decode()
    assert 'id="act"' in html
    # Blade Combat (swords) 2 + STR 9 DM +1 (the better of STR and DEX) at personal range
    # (Close Quarters 0): 8+ on 2D6 + 3, 30 of 36; a dodge takes 1 off (26 of 36).
    assert 'data-reaction-odds="none">(hit 83.3%)' in html
    assert 'data-reaction-odds="dodge">(hit 72.2%)' in html

    response = client.post(
        reverse("encounter_react", args=[fight.pk]),
        {"version": str(fight.version), "reaction": "dodge"},
        follow=True,
    )
    assert "Kira Valen dodges: initiative -2" in response.content.decode()


def test_the_2d6_page_before_the_first_round_marks_the_prepared(
    client, campaign, kira, dorn, corsair, referee
):
    fight = start(campaign, kira, dorn, corsair, corsairs=2, system=TWOD6)
    dorn_pk = fight.combatants.get(name="Dorn Hask").pk
    assert 'data-chips="prepared"' in page(client, referee, fight)

    client.post(
        reverse("encounter_initiative", args=[fight.pk]),
        {"version": str(fight.version), "prepared": [dorn_pk]},
    )

    fight.refresh_from_db()
    assert fight.combatants.get(pk=dorn_pk).initiative == 12


# -- the cost ---------------------------------------------------------------------------------


@pytest.mark.parametrize("system", [T4, TWOD6])
@pytest.mark.parametrize("corsairs", [1, 10])
def test_the_page_takes_the_queries_the_ffa_page_takes(
    client, django_assert_num_queries, campaign, kira, dorn, corsair, referee, system, corsairs
):
    fight = start(campaign, kira, dorn, corsair, corsairs=corsairs, system=system)
    state = to_turns(fight, referee)
    while state.current.combatant.name != "Kira Valen":
        services.take_turn(encounter=fight, by=referee, action="pass")
        fight.refresh_from_db()
        state = board(fight, entries=0)
    PlayState.objects.create(character=kira, condition={"maximum": 1, "wnd": 1})
    client.force_login(referee)

    # As under FFA (test_the_encounter_page_takes_a_fixed_number_of_queries): session, user,
    # the encounter, its campaign, its combatants, their credits ledgers, their play sheets, the
    # log, the morale tests so far.
    with django_assert_num_queries(9):
        response = client.get(reverse("encounter_detail", args=[fight.pk]))

    assert response.content.decode().count("data-combatant=") == 2 + corsairs
