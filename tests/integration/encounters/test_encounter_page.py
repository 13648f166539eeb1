"""The encounter page and its costs: live updates and pages without JavaScript, access, the
page's queries, the stunned and the dying, autofire."""

import re

import pytest
from django.urls import reverse

import rules
from characters.core import dice as server_dice
from characters.encounters import services
from characters.encounters.forms import AttackForm
from characters.encounters.selectors import board
from characters.models import Combatant, EncounterEntry, PlayState
from characters.play import services as play_services
from characters.play.selectors import condition_of
from tests.dice import Scripted
from tests.encounter_people import start, take_up_two_rifles
from tests.factories import UserFactory
from tests.integration.encounters.encounter_actions import (
    MAGAZINE,
    PISTOL,
    as_user,
    attack_post,
    load,
    magazines,
    rounds_loaded,
)

from .conftest import INITIATIVE_DICE, combatant

pytestmark = pytest.mark.django_db


def test_a_poll_costs_204_and_no_body_until_the_encounter_changes(client, fight, player1, referee):
    as_user(client, player1)
    url = reverse("encounter_live", args=[fight.pk])
    unchanged = client.get(url, {"v": fight.version, "t": "x"})
    assert unchanged.status_code == 204
    assert unchanged.content == b""

    services.take_turn(encounter=fight, by=referee, action="pass")
    changed = client.get(url, {"v": fight.version, "t": f"1-{combatant(fight, 'Kira Valen').pk}"})
    html = changed.content.decode()
    assert changed.status_code == 200
    assert "<html" not in html
    assert html.lstrip().startswith('<section id="order"')
    assert (
        'id="log" class="box encounter__log" aria-labelledby="log-heading" hx-swap-oob="true"'
        in html
    )
    # The turn moved on, so the action panel comes too.
    assert 'id="act"' in html


@pytest.mark.parametrize("who", ["referee", "player1"])
def test_a_poll_in_the_same_turn_brings_the_order_and_the_log_but_not_the_action_panel(
    client, fight, corsair, who, request, monkeypatch, django_assert_num_queries
):
    kira_turn = board(fight, entries=0).turn_key
    shown = fight.version
    # Reinforcements join while Kira acts: the encounter changes, the turn does not.
    services.add_combatants(
        encounter=fight,
        by=fight.campaign.referee,
        groups=[services.Group(1, Combatant.Side.OPPOSITION, character=corsair)],
    )
    fight.refresh_from_db()
    assert board(fight, entries=0).turn_key == kira_turn
    planned = []
    plan = services.plan
    monkeypatch.setattr(services, "plan", lambda *args: planned.append(args) or plan(*args))
    as_user(client, request.getfixturevalue(who))
    url = reverse("encounter_live", args=[fight.pk])

    # session, user, the encounter, its campaign, its combatants, their credits ledgers (what
    # the party carries now), their play sheets, the log: nothing only the action panel needs
    # (the referee's morale tests so far)
    with django_assert_num_queries(8):
        changed = client.get(url, {"v": shown, "t": kira_turn})

    html = changed.content.decode()
    assert changed.status_code == 200
    assert html.lstrip().startswith('<section id="order"')
    assert html.count("data-combatant=") == 7
    assert 'id="log"' in html
    # The attack form half filled on the page stays as it is, and its odds are not worked out.
    assert 'id="act"' not in html
    assert planned == []
    # A page that shows another turn gets the action panel, with the odds of the attack form.
    assert 'id="act"' in client.get(url, {"v": shown, "t": "0-none"}).content.decode()
    assert planned


def test_without_javascript_an_action_redirects_back_with_its_outcome(client, fight, player1):
    as_user(client, player1)
    response = client.post(
        reverse("encounter_turn", args=[fight.pk]),
        {"version": fight.version, "action": "pass"},
        follow=True,
    )
    assert response.redirect_chain[-1][0].endswith(f"/encounters/{fight.pk}/#outcome")
    html = response.content.decode()
    assert re.search(r'id="outcome"[^>]*>\s*Kira Valen ends its turn\.', html)
    assert '<li class="message' not in html  # not at the top of the page as well


def test_without_javascript_an_attack_shows_its_dice_where_the_button_was(
    client, fight, player1, monkeypatch
):
    monkeypatch.setattr(server_dice, "dice_source", lambda: Scripted([6, 6, 6, 2]))
    as_user(client, player1)
    target = combatant(fight, "Vargr corsair 1")
    response = client.post(
        reverse("encounter_attack", args=[fight.pk]), attack_post(fight, target), follow=True
    )
    html = response.content.decode()
    assert 'data-hit="yes"' in html
    assert '<span class="die">6</span>' in html


def test_a_player_sees_their_own_state_but_not_the_corsairs_figures(client, fight, player1):
    as_user(client, player1)
    html = client.get(reverse("encounter_detail", args=[fight.pk])).content.decode()
    kira = combatant(fight, "Kira Valen")
    assert f'data-mine="{kira.character_id}"' in html
    assert html.count("data-lif>") == 1  # only Kira's LIF in the turn order


@pytest.mark.parametrize(
    ("who", "status"), [("referee", 200), ("player1", 200), ("player2", 200), ("outsider", 404)]
)
def test_who_sees_an_encounter(client, fight, who, status):
    as_user(client, UserFactory(username=who))
    for name in ("encounter_detail", "encounter_live", "encounter_odds"):
        assert client.get(reverse(name, args=[fight.pk])).status_code == status, name


@pytest.mark.parametrize(
    "name",
    [
        "encounter_initiative",
        "encounter_attack",
        "encounter_turn",
        "encounter_morale",
        "encounter_undo",
    ],
)
def test_an_outsider_gets_404_for_every_action(client, fight, name):
    as_user(client, UserFactory(username="outsider"))
    version = fight.version
    assert client.post(reverse(name, args=[fight.pk]), {"version": version}).status_code == 404
    fight.refresh_from_db()
    assert fight.version == version


def test_only_the_referee_starts_an_encounter(client, campaign, player1):
    as_user(client, player1)
    assert client.get(reverse("encounter_new", args=[campaign.pk])).status_code == 404


def test_only_the_referee_throws_initiative(encounter, player1):
    with pytest.raises(services.Refused, match="Only the referee can throw initiative"):
        services.throw_initiative(encounter=encounter, by=player1)


@pytest.mark.parametrize("corsairs", [1, 10])
def test_the_encounter_page_takes_a_fixed_number_of_queries(
    client, django_assert_num_queries, campaign, kira, dorn, corsair, referee, corsairs
):
    encounter = start(campaign, kira, dorn, corsair, corsairs=corsairs)
    services.throw_initiative(encounter=encounter, by=referee)
    # Kira's turn, the dearest: her pistol counts its rounds from the magazines she carries.
    encounter.refresh_from_db()
    while board(encounter).current.combatant.name != "Kira Valen":
        services.take_turn(encounter=encounter, by=referee, action="pass")
        encounter.refresh_from_db()
    PlayState.objects.create(
        character=kira, condition=rules.condition_as_dict(condition_of(kira)[0])
    )
    as_user(client, referee)
    url = reverse("encounter_detail", args=[encounter.pk])
    # session, user, the encounter, its campaign, its combatants with their characters, their
    # play sheets, the log, the morale tests so far, and what the fighter acting carries (its
    # credits ledger: whether its weapon has the rounds the attack fires)
    with django_assert_num_queries(9):
        response = client.get(url)
    assert response.status_code == 200
    assert response.content.decode().count("data-combatant=") == 2 + corsairs


def test_a_stunned_fighter_spends_its_turn_recovering_and_undo_stuns_it_again(
    client, fight, kira, player1
):
    from characters.play import services as play_services

    # More than half her LIF in one stunning blow stuns her.
    blow = condition_of(kira)[0].maximum // 2 + 1
    play_services.take_damage(character=kira, by=player1, amount=blow, form="S")
    assert condition_of(kira)[0].stunned
    as_user(client, player1)
    page = client.get(reverse("encounter_detail", args=[fight.pk])).content.decode()
    assert 'data-action="recover"' in page
    assert 'data-action="attack"' not in page

    services.take_turn(encounter=fight, by=player1, action="recover")

    assert not condition_of(kira)[0].stunned
    fight.refresh_from_db()
    assert board(fight).current.combatant.name == "Dorn Hask"
    services.undo_last(encounter=fight, by=player1)
    assert condition_of(kira)[0].stunned


def test_only_a_stunned_fighter_recovers(fight, player1):
    with pytest.raises(services.Refused, match="Kira Valen is not stunned"):
        services.take_turn(encounter=fight, by=player1, action="recover")


def test_a_dying_corsair_loses_lif_when_the_next_round_begins(fight, referee):
    corsair = combatant(fight, "Vargr corsair 4")
    hurt = rules.condition_from_dict(corsair.condition)
    hurt, _ = rules.take_damage(hurt, amount=hurt.maximum + 1, form="L")
    assert hurt.dying
    Combatant.objects.filter(pk=corsair.pk).update(condition=rules.condition_as_dict(hurt))

    entry = services.take_turn(encounter=fight, by=referee, action="next_round")

    after = rules.condition_from_dict(combatant(fight, "Vargr corsair 4").condition)
    assert after.lif < hurt.lif
    assert "Vargr corsair 4:" in entry.summary
    fight.refresh_from_db()
    services.undo_last(encounter=fight, by=referee)
    assert combatant(fight, "Vargr corsair 4").condition == rules.condition_as_dict(hurt)


def test_a_gun_without_rounds_or_magazines_is_refused_before_any_die(fight, kira, player1):
    from characters.play import services as play_services

    play_services.give_up_gear(character=kira, by=player1, item=MAGAZINE, tl=6, quantity=2)
    load(kira, 0)
    target = combatant(fight, "Vargr corsair 1")
    order = services.AttackOrder(target.pk, PISTOL, "short", rules.combat.Situation())

    with pytest.raises(services.Refused, match="Kira Valen is out of Automatic pistol ammunition"):
        services.attack(encounter=fight, by=player1, order=order, rng=Scripted([]))

    assert not EncounterEntry.objects.filter(kind="attack").exists()


def test_the_odds_of_a_gun_without_rounds_or_magazines_say_so_instead_of_a_chance(
    client, fight, kira, player1
):
    from characters.play import services as play_services

    play_services.give_up_gear(character=kira, by=player1, item=MAGAZINE, tl=6, quantity=2)
    load(kira, 0)
    target = combatant(fight, "Vargr corsair 1")
    as_user(client, player1)

    odds = client.get(reverse("encounter_odds", args=[fight.pk]), attack_post(fight, target))
    page = client.get(reverse("encounter_detail", args=[fight.pk])).content.decode()

    for html in (odds.content.decode(), page):
        assert "Kira Valen is out of Automatic pistol ammunition: 0 rounds left." in html
        assert "data-odds-error" in html
        assert "Chance to hit" not in html


@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "without-javascript"])
def test_an_attack_refused_for_want_of_rounds_says_why_once_in_the_outcome(
    client, fight, kira, player1, htmx
):
    from characters.play import services as play_services

    play_services.give_up_gear(character=kira, by=player1, item=MAGAZINE, tl=6, quantity=2)
    load(kira, 0)
    target = combatant(fight, "Vargr corsair 1")
    as_user(client, player1)
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}

    page = client.post(
        reverse("encounter_attack", args=[fight.pk]),
        attack_post(fight, target),
        follow=True,
        **headers,
    ).content.decode()

    problem = "Kira Valen is out of Automatic pistol ammunition: 0 rounds left."
    assert page.count(problem) == 1
    assert re.search(rf'id="outcome"[^>]*>\s*{re.escape(problem)}', page)
    assert "data-odds-error" not in page


@pytest.mark.parametrize(("loaded", "left"), [(2, "1 round left"), (3, "2 rounds left")])
def test_the_log_counts_the_rounds_left_in_words_that_agree(fight, kira, player1, loaded, left):
    load(kira, loaded)
    target = combatant(fight, "Vargr corsair 1")
    order = services.AttackOrder(target.pk, PISTOL, "short", rules.combat.Situation())

    entry = services.attack(encounter=fight, by=player1, order=order, rng=Scripted([1, 1, 1]))

    assert f"{left} in the Automatic pistol." in entry.summary
    assert "(s)" not in entry.summary


def test_the_log_says_a_fresh_magazine_was_loaded_in_words_that_read_naturally(
    fight, kira, player1
):
    load(kira, 0)
    spares = magazines(kira)
    target = combatant(fight, "Vargr corsair 1")
    order = services.AttackOrder(target.pk, PISTOL, "short", rules.combat.Situation())

    entry = services.attack(encounter=fight, by=player1, order=order, rng=Scripted([1, 1, 1]))

    assert (
        f"Loaded a fresh magazine into the Automatic pistol ({spares - 1} more carried)."
        in entry.summary
    )
    assert "a new" not in entry.summary


def test_a_party_character_fights_with_the_gear_its_play_sheet_carries_now(fight, kira, player1):
    # Kira sold her pistol and, paid, bought a cutlass and a jack after the fight began.
    play_services.give_up_gear(character=kira, by=player1, item="Automatic pistol", price=100)
    play_services.record_credits(character=kira, by=player1, amount=1000, note="Pay")
    play_services.buy_gear(character=kira, by=player1, item="Cutlass")
    play_services.buy_gear(character=kira, by=player1, item="Jack")

    fighter = board(fight).row(combatant(fight, "Kira Valen").pk).fighter

    weapons = [weapon.name for weapon in fighter.weapons]
    assert "Cutlass" in weapons
    assert "Automatic pistol" not in weapons
    assert fighter.armor is not None
    assert fighter.armor.name == "Jack (TL 1)"


def test_a_sheet_that_carries_no_ammunition_keeps_no_count(fight, kira, player1):
    from characters.play import services as play_services

    play_services.give_up_gear(character=kira, by=player1, item=MAGAZINE, tl=6, quantity=2)
    target = combatant(fight, "Vargr corsair 1")
    order = services.AttackOrder(target.pk, PISTOL, "short", rules.combat.Situation())

    services.attack(encounter=fight, by=player1, order=order, rng=Scripted([1, 1, 1]))

    assert rounds_loaded(kira) == {}


def test_a_burst_is_offered_for_an_autofire_weapon_and_fires_its_rounds(
    client, campaign, kira, dorn, corsair, referee, player1
):
    from characters.core.services import store_document

    smg = {"item": "SMG", "quantity": 1}
    magazines_of_smg = {"item": "SMG ammunition", "quantity": 1}
    document = kira.document | {"equipment": [smg, magazines_of_smg]}
    document["skills"] = [{"skill": "SMG", "level": 2}]
    store_document(kira, document, by=player1, action="Traded the pistol for an SMG")
    encounter = start(campaign, kira, dorn, corsair)
    services.throw_initiative(encounter=encounter, by=referee, rng=Scripted(INITIATIVE_DICE))
    encounter.refresh_from_db()
    as_user(client, player1)
    page = client.get(reverse("encounter_detail", args=[encounter.pk])).content.decode()
    assert 'name="autofire_rounds" value="4"' in page
    target = combatant(encounter, "Vargr corsair 1")

    client.post(
        reverse("encounter_attack", args=[encounter.pk]),
        attack_post(encounter, target, weapon="SMG|6", autofire_rounds="4"),
    )

    entry = EncounterEntry.objects.get(kind="attack")
    assert any(dm["label"] == "autofire, 4 rounds" for dm in entry.detail["dms"])
    rounds = rules.catalog().equipment_item("SMG ammunition", 6).row["rounds"]
    assert rounds_loaded(kira) == {"SMG|6": rounds - 4}


ACCELERATOR = "Accelerator rifle|9"
GAUSS = "Gauss rifle|12"


@pytest.fixture
def two_guns(campaign, kira, dorn, corsair, referee, player1):
    """Kira with an accelerator rifle (RoF 1:3) and a Gauss rifle (RoF 1:4:10), both with
    autofire, in round 1: her turn."""
    take_up_two_rifles(kira)
    encounter = start(campaign, kira, dorn, corsair)
    services.throw_initiative(encounter=encounter, by=referee, rng=Scripted(INITIATIVE_DICE))
    encounter.refresh_from_db()
    return encounter


def test_each_weapon_offers_its_own_bursts_named_by_the_weapon(client, two_guns, player1):
    as_user(client, player1)
    response = client.get(reverse("encounter_detail", args=[two_guns.pk]))

    assert response.context["attack_form"].bursts == [
        (0, "Single shot"),
        (3, "3 rounds (Accelerator rifle)"),
        (4, "4 rounds (Gauss rifle)"),
        (8, "8 rounds (Gauss rifle)"),
        (10, "10 rounds (Gauss rifle)"),
    ]
    # Each weapon chip tells a page with JavaScript which bursts to offer with it.
    page = response.content.decode()
    assert re.search(r'value="Accelerator rifle\|9"[^>]*data-bursts="3"', page)
    assert re.search(r'value="Gauss rifle\|12"[^>]*data-bursts="4 8 10"', page)
    assert re.search(r'value="Hands"[^>]*data-bursts=""', page)


def test_the_accelerator_rifle_fires_its_3_round_burst(client, two_guns, player1):
    as_user(client, player1)
    target = combatant(two_guns, "Vargr corsair 1")

    client.post(
        reverse("encounter_attack", args=[two_guns.pk]),
        attack_post(two_guns, target, weapon=ACCELERATOR, autofire_rounds="3"),
    )

    entry = EncounterEntry.objects.get(kind="attack")
    assert entry.detail["weapon"] == "Accelerator rifle"
    assert {"label": "autofire, 3 rounds", "dm": 1} in entry.detail["dms"]


@pytest.mark.parametrize(
    ("weapon", "rounds", "problem"),
    [
        (ACCELERATOR, "4", "the Accelerator rifle fires bursts of 3 rounds, not 4"),
        (GAUSS, "3", "the Gauss rifle fires bursts of 4, 8 or 10 rounds, not 3"),
        ("Hands", "4", "the Hands has no autofire: choose a single shot."),
    ],
)
def test_a_burst_the_chosen_weapon_does_not_fire_is_refused_naming_its_bursts(
    client, two_guns, player1, weapon, rounds, problem
):
    as_user(client, player1)
    target = combatant(two_guns, "Vargr corsair 1")
    data = attack_post(two_guns, target, weapon=weapon, autofire_rounds=rounds)

    odds = client.get(reverse("encounter_odds", args=[two_guns.pk]), data).content.decode()
    response = client.post(
        reverse("encounter_attack", args=[two_guns.pk]), data, HTTP_HX_REQUEST="true"
    )

    assert f"Autofire: {problem}" in odds
    assert f"Autofire: {problem}" in response.content.decode()
    assert not EncounterEntry.objects.filter(kind="attack").exists()


def test_a_refused_burst_says_why_once_in_the_outcome_and_not_again_in_the_odds(
    client, two_guns, player1
):
    as_user(client, player1)
    target = combatant(two_guns, "Vargr corsair 1")
    data = attack_post(two_guns, target, weapon=GAUSS, autofire_rounds="3")

    page = client.post(
        reverse("encounter_attack", args=[two_guns.pk]), data, HTTP_HX_REQUEST="true"
    ).content.decode()

    problem = "Autofire: the Gauss rifle fires bursts of 4, 8 or 10 rounds, not 3: choose one"
    assert page.count(problem) == 1
    assert re.search(rf'id="outcome"[^>]*>\s*{re.escape(problem)}', page)
    assert re.search(r'<p id="odds" class="odds" aria-live="polite"></p>', page)


def test_the_pistol_offers_no_burst(client, fight, player1):
    as_user(client, player1)
    page = client.get(reverse("encounter_detail", args=[fight.pk])).content.decode()
    assert 'name="autofire_rounds"' not in page


def test_initiative_is_thrown_once(fight, referee):
    with pytest.raises(services.Refused, match="Initiative was thrown for Ambush at the docks"):
        services.throw_initiative(encounter=fight, by=referee)


def test_a_wounded_character_throws_initiative_on_its_ini_as_the_wounds_leave_it(
    encounter, kira, referee, player1
):
    from characters.play import services as play_services

    whole = board(encounter).row(combatant(encounter, "Kira Valen").pk)
    play_services.take_damage(character=kira, by=player1, amount=whole.condition.wnd * 2, form="L")
    hurt = board(encounter).row(whole.pk)
    assert hurt.ini_now < whole.ini_now == whole.fighter.INI


def test_a_delay_past_an_unconscious_fighter_gives_the_turn_to_the_next_who_can_act(
    fight, dorn, referee, player1
):
    from characters.play import services as play_services

    out = condition_of(dorn)[0].maximum
    play_services.take_damage(character=dorn, by=referee, amount=out, form="S")
    assert board(fight).row(combatant(fight, "Dorn Hask").pk).out_of_action

    services.take_turn(encounter=fight, by=player1, action="delay")

    fight.refresh_from_db()
    state = board(fight)
    names = [row.combatant.name for row in state.rows]
    assert names[:3] == ["Dorn Hask", "Vargr corsair 1", "Kira Valen"]
    assert state.current.combatant.name == "Vargr corsair 1"


def test_a_player_is_offered_the_undo_of_their_own_action_only(client, fight, player1, player2):
    services.take_turn(encounter=fight, by=player1, action="pass")
    as_user(client, player1)
    mine = client.get(reverse("encounter_detail", args=[fight.pk])).content.decode()
    as_user(client, player2)
    theirs = client.get(reverse("encounter_detail", args=[fight.pk])).content.decode()
    assert re.search(r"Undo: <span[^>]*>Kira Valen ends its turn\.</span>", mine)
    assert 'data-action="undo"' not in theirs


def test_a_conflict_in_the_same_turn_keeps_the_choices_at_the_new_version(
    client, fight, player1, referee
):
    target = combatant(fight, "Vargr corsair 2")
    as_user(client, player1)
    stale = attack_post(fight, target, cover="good", range_band="medium")
    # Meanwhile the referee does something that leaves it Kira's turn: a morale test is due.
    corsair = combatant(fight, "Vargr corsair 4")
    dead = rules.condition_from_dict(corsair.condition)
    dead, _ = rules.take_damage(dead, amount=dead.maximum * 2, form="L")
    Combatant.objects.filter(pk=corsair.pk).update(condition=rules.condition_as_dict(dead))
    services.throw_morale(encounter=fight, by=referee, side="opposition", rng=Scripted([6, 6]))
    fight.refresh_from_db()

    response = client.post(
        reverse("encounter_attack", args=[fight.pk]), stale, HTTP_HX_REQUEST="true"
    )

    html = response.content.decode()
    assert "changed since this page was loaded" in html
    assert re.search(r'name="cover" value="good" checked', html)
    assert re.search(r'name="range_band" value="medium" checked', html)
    assert re.search(rf'name="target" value="{target.pk}" checked', html)
    assert f'name="version" value="{fight.version}"' in html
    assert not EncounterEntry.objects.filter(kind="attack").exists()


def test_the_range_starts_at_the_first_weapons_usual_band_and_each_weapon_names_its_own(
    client, fight, referee
):
    as_user(client, referee)
    kiras = client.get(reverse("encounter_detail", args=[fight.pk])).content.decode()
    for _ in range(2):
        services.take_turn(encounter=fight, by=referee, action="pass")
    corsairs = client.get(reverse("encounter_detail", args=[fight.pk])).content.decode()

    # Kira's automatic pistol at pistol range, a corsair's cutlass (M) at its optimal distance.
    assert re.search(r'name="range_band" value="medium" checked', kiras)
    assert re.search(r'value="Automatic pistol\|6"[^>]*data-band="medium"', kiras)
    assert re.search(r'name="range_band" value="close" checked', corsairs)
    assert re.search(r'value="Cutlass\|3"[^>]*data-band="close"', corsairs)


def test_the_attack_form_offers_the_other_side_first_and_names_a_friend_as_one(fight):
    state = board(fight)
    attacker = state.current
    form = AttackForm(state, attacker)
    labels = [label for _pk, label in form.fields["target"].choices]
    sides = {row.combatant.name: row.combatant.side for row in state.rows}
    friends = [label for label in labels if label.endswith(" (own side)")]
    enemies = [label for label in labels if not label.endswith(" (own side)")]

    assert friends
    assert enemies
    assert labels == enemies + friends
    assert all(sides[name] != attacker.combatant.side for name in enemies)
    assert all(
        sides[name.removesuffix(" (own side)")] == attacker.combatant.side for name in friends
    )


@pytest.mark.parametrize(("changes", "unfolded"), [({}, False), ({"lighting": "dim"}, True)])
def test_a_refused_attack_unfolds_the_situations_rarer_parts_only_when_one_was_changed(
    client, two_guns, player1, changes, unfolded
):
    as_user(client, player1)
    target = combatant(two_guns, "Vargr corsair 1")
    data = attack_post(two_guns, target, weapon=GAUSS, autofire_rounds="3", **changes)
    del data["dm"]  # only the referee's page has the field

    page = client.post(
        reverse("encounter_attack", args=[two_guns.pk]), data, HTTP_HX_REQUEST="true"
    ).content.decode()

    assert "not 3: choose one" in page
    opening = (
        '<details class="attack__more" open>' if unfolded else '<details class="attack__more">'
    )
    assert re.search(rf"{opening}\s*<summary>Lighting", page)
