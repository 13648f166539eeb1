"""Encounters through the web: starting one, initiative, attacks whose damage lands on the play
sheet or on a group member's own record, ammunition, undo, conflicts, morale, polling, access,
and the page's fixed number of queries."""

import re

import pytest
from django.urls import reverse

import rules
from characters.core import dice as server_dice
from characters.encounters import services
from characters.encounters.forms import AttackForm
from characters.encounters.selectors import board
from characters.models import (
    CharacterEvent,
    Combatant,
    ConditionChange,
    CreditEntry,
    Encounter,
    EncounterEntry,
    PlayState,
)
from characters.play import services as play_services
from characters.play.selectors import carried_equipment, condition_of
from tests.dice import Scripted
from tests.encounter_people import start, take_up_two_rifles
from tests.factories import UserFactory

from .conftest import INITIATIVE_DICE, combatant

pytestmark = pytest.mark.django_db

PISTOL = "Automatic pistol|6"
MAGAZINE = "Automatic pistol ammunition"


def attack_post(encounter: Encounter, target: Combatant, **changes) -> dict[str, str]:
    """The attack form as a browser posts it, the ordinary case chosen."""
    return {
        "version": str(encounter.version),
        "turn": board(encounter, entries=0).turn_key,
        "target": str(target.pk),
        "weapon": PISTOL,
        "range_band": "short",
        "cover": "",
        "lighting": "",
        "visibility": "",
        "movement": "stationary",
        "facing": "front",
        "aim_turns": "0",
        "extra_actions": "0",
        "dm": "0",
        **changes,
    }


def as_user(client, user):
    client.force_login(user)
    return client


def chance(response) -> float:
    """The chance to hit an odds region shows, in percent."""
    return float(re.search(r"<strong data-odds>([\d.]+)%", response.content.decode())[1])


def magazines(character) -> int:
    return sum(e.quantity for e in carried_equipment(character) if e.item == MAGAZINE)


# -- starting -----------------------------------------------------------------------------------


def test_the_referee_starts_an_encounter_with_the_party_and_a_group_of_corsairs(
    client, campaign, kira, dorn, corsair, referee
):
    as_user(client, referee)
    page = client.get(reverse("campaign_detail", args=[campaign.pk]))
    assert reverse("encounter_new", args=[campaign.pk]) in page.content.decode()

    response = client.post(
        reverse("encounter_new", args=[campaign.pk]),
        {
            "name": "Ambush",
            "party": [kira.pk, dorn.pk],
            f"npc-{corsair.pk}": "4",
            f"npc-{corsair.pk}-side": "opposition",
            "animal-0-type": "hunter",
            "animal-0-weight": "100",
            "animal-0-count": "2",
            "animal-0-side": "opposition",
        },
    )

    encounter = Encounter.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("encounter_detail", args=[encounter.pk])
    fighters = {c.name: c for c in encounter.combatants.all()}
    assert sorted(fighters) == sorted(
        ["Kira Valen", "Dorn Hask"]
        + [f"Vargr corsair {n}" for n in range(1, 5)]
        + ["hunter (100 kg) 1", "hunter (100 kg) 2"]
    )
    # The party's conditions stay on their play sheets; each corsair and animal has its own.
    assert fighters["Kira Valen"].condition is None
    assert fighters["Vargr corsair 3"].condition["lethal"] == 0
    assert fighters["hunter (100 kg) 1"].animal == {"type": "hunter", "weight_kg": 100.0}
    assert fighters["Kira Valen"].side == "party"
    assert fighters["Vargr corsair 1"].side == "opposition"


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"name": ""}, "Name"),
        ({"animal-0-type": "hunter"}, "Animal 1's weight (kg): give the animal's weight."),
        ({"animal-0-type": "dragon"}, "Animal 1"),
        ({"animal-0-type": "hunter", "animal-0-weight": "heavy"}, "Animal 1's weight (kg): enter"),
    ],
)
def test_a_mistyped_start_names_its_field_and_starts_nothing(
    client, campaign, kira, referee, changes, problem
):
    as_user(client, referee)
    data = {"name": "Ambush", "party": [kira.pk], **changes}
    response = client.post(reverse("encounter_new", args=[campaign.pk]), data)
    assert response.status_code == 400
    assert problem in response.context["problem"]
    assert not Encounter.objects.exists()


def test_an_encounter_of_one_is_refused(client, campaign, kira, referee):
    as_user(client, referee)
    data = {"name": "Alone", "party": [kira.pk]}
    response = client.post(reverse("encounter_new", args=[campaign.pk]), data)
    assert response.status_code == 400
    assert "Combatants: an encounter needs at least two" in response.context["problem"]


# -- initiative and turns -------------------------------------------------------------------------


def test_initiative_orders_the_fight_and_the_highest_acts_first(encounter, referee):
    services.throw_initiative(encounter=encounter, by=referee, rng=Scripted(INITIATIVE_DICE))
    encounter.refresh_from_db()
    state = board(encounter)
    assert [row.combatant.name for row in state.rows] == [
        "Kira Valen",
        "Dorn Hask",
        "Vargr corsair 1",
        "Vargr corsair 2",
        "Vargr corsair 3",
        "Vargr corsair 4",
    ]
    inis = [row.combatant.initiative for row in state.rows]
    assert inis == sorted(inis, reverse=True)
    assert encounter.round == 1
    assert state.current.combatant.name == "Kira Valen"


def test_delay_lets_the_next_fighter_go_first(fight, player1):
    services.take_turn(encounter=fight, by=player1, action="delay")
    fight.refresh_from_db()
    state = board(fight)
    assert [row.combatant.name for row in state.rows][:2] == ["Dorn Hask", "Kira Valen"]
    assert state.current.combatant.name == "Dorn Hask"


def test_the_round_ends_after_the_last_fighter_and_the_referee_starts_the_next(fight, referee):
    for _ in range(6):
        services.take_turn(encounter=fight, by=referee, action="pass")
    with pytest.raises(services.Refused, match="The round is over: start the next round"):
        services.take_turn(encounter=fight, by=referee, action="pass")
    services.take_turn(encounter=fight, by=referee, action="next_round")
    fight.refresh_from_db()
    assert fight.round == 2
    assert board(fight).current.combatant.name == "Kira Valen"


# -- attacks ------------------------------------------------------------------------------------


def test_kiras_hit_on_a_corsair_marks_the_corsairs_own_condition_and_counts_a_round(
    client, fight, kira, player1
):
    target = combatant(fight, "Vargr corsair 1")
    as_user(client, player1)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(server_dice, "dice_source", lambda: Scripted([6, 6, 6, 6]))
        response = client.post(
            reverse("encounter_attack", args=[fight.pk]), attack_post(fight, target)
        )
    assert response.status_code == 302
    entry = EncounterEntry.objects.get(kind="attack")
    assert entry.detail["hit"] is True
    assert entry.detail["dms"], "every DM is kept with its label"
    assert all({"label", "dm"} <= set(dm) for dm in entry.detail["dms"])
    target.refresh_from_db()
    assert target.condition["lethal"] == entry.detail["damage"]["lif"] > 0
    assert combatant(fight, "Vargr corsair 2").condition["lethal"] == 0
    # One magazine loaded from what Kira carries (through her credits ledger), one round fired.
    assert magazines(kira) == 1
    kira_row = combatant(fight, "Kira Valen")
    rounds = rules.catalog().equipment_item(MAGAZINE, 6).row["rounds"]
    assert kira_row.ammunition == {PISTOL: rounds - 1}
    fight.refresh_from_db()
    assert board(fight).current.combatant.name == "Dorn Hask"


def test_a_corsairs_hit_on_kira_goes_on_her_play_sheet_through_the_play_services(
    fight, kira, referee, player1, player2
):
    for user in (player1, player2):
        services.take_turn(encounter=fight, by=user, action="pass")
    fight.refresh_from_db()
    order = services.AttackOrder(
        combatant(fight, "Kira Valen").pk,
        "Cutlass|3",
        "close",
        rules.combat.Situation(),
    )
    entry = services.attack(encounter=fight, by=referee, order=order, rng=Scripted([6] * 8))
    assert entry.detail["hit"] is True
    condition, version = condition_of(kira)
    assert condition.lethal == entry.detail["damage"]["lif"] > 0
    assert version == 2
    assert ConditionChange.objects.filter(character=kira).count() == 1
    assert CharacterEvent.objects.filter(character=kira, kind="play").exists()
    assert entry.before["changes"] == [ConditionChange.objects.get(character=kira).pk]


def test_a_player_acts_only_for_their_own_character_on_its_turn(client, fight, player2):
    target = combatant(fight, "Vargr corsair 1")
    as_user(client, player2)
    response = client.post(
        reverse("encounter_attack", args=[fight.pk]),
        attack_post(fight, target, weapon="Cutlass|3"),
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    assert "It is Kira Valen&#x27;s turn: only its player or the referee" in (
        response.content.decode()
    )
    assert not EncounterEntry.objects.filter(kind="attack").exists()


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"range_band": "orbit"}, "Range: choose one of those offered"),
        ({"weapon": "Fusion gun|15"}, "Weapon: choose one of those offered"),
        ({"cover": "a wall"}, "Cover: choose one of those offered"),
        ({"dm": "lots"}, "Referee&#x27;s DM: enter a whole number"),
    ],
)
@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "without JavaScript"])
def test_a_mistyped_attack_names_its_field_keeps_the_choices_and_throws_nothing(
    client, fight, referee, changes, problem, htmx
):
    target = combatant(fight, "Vargr corsair 2")
    as_user(client, referee)
    response = client.post(
        reverse("encounter_attack", args=[fight.pk]),
        attack_post(fight, target, **changes),
        **({"HTTP_HX_REQUEST": "true"} if htmx else {"follow": True}),
    )
    html = response.content.decode()
    assert problem in html
    # The target chosen is still chosen.
    assert re.search(rf'name="target" value="{target.pk}"[^>]*checked', html)
    assert not EncounterEntry.objects.filter(kind="attack").exists()


def test_a_range_chosen_by_hand_stays_chosen_when_a_refused_attack_comes_back(
    client, fight, referee
):
    as_user(client, referee)
    page = client.get(reverse("encounter_detail", args=[fight.pk])).content.decode()
    assert "data-range-chosen" not in page  # a fresh form: the range follows the weapon

    refused = client.post(
        reverse("encounter_attack", args=[fight.pk]),
        attack_post(fight, combatant(fight, "Vargr corsair 2"), range_band="long", dm="lots"),
        HTTP_HX_REQUEST="true",
    ).content.decode()

    assert re.search(r'<form [^>]*class="attack" data-range-chosen', refused)
    assert re.search(r'name="range_band" value="long"[^>]*checked', refused)


def test_the_encounter_page_is_never_served_from_the_browser_cache(client, fight, player1):
    # Its actions swap the page in place: after Back a cached copy would show the turn as it
    # was first loaded, and offer that fighter's actions until the next poll.
    as_user(client, player1)
    response = client.get(reverse("encounter_detail", args=[fight.pk]))
    assert "no-store" in response["Cache-Control"]


def test_the_odds_are_shown_before_the_throw(client, fight, player1):
    target = combatant(fight, "Vargr corsair 1")
    as_user(client, player1)
    page = client.get(reverse("encounter_detail", args=[fight.pk]))
    assert "data-odds" in page.content.decode()
    near = client.get(reverse("encounter_odds", args=[fight.pk]), attack_post(fight, target))
    far = client.get(
        reverse("encounter_odds", args=[fight.pk]),
        attack_post(fight, target, range_band="long", cover="good"),
    )
    assert chance(far) < chance(near)
    assert "cover: good -3" in far.content.decode()


def test_a_panel_kept_from_a_turn_that_is_over_gets_no_odds_for_the_next_fighter(
    client, fight, player1, player2
):
    target = combatant(fight, "Vargr corsair 1")
    as_user(client, player2)
    chosen_for_kira = attack_post(fight, target)
    services.take_turn(encounter=fight, by=player1, action="pass")  # Kira's player, elsewhere

    odds = client.get(reverse("encounter_odds", args=[fight.pk]), chosen_for_kira)

    html = odds.content.decode()
    assert "The turn has moved on" in html
    assert "Chance to hit" not in html


# -- undo and conflicts -------------------------------------------------------------------------


def corsairs_blow_on_kira(fight, referee, player1, player2):
    """The two players pass and corsair 1 hits Kira with its cutlass: a blow on her sheet."""
    for user in (player1, player2):
        services.take_turn(encounter=fight, by=user, action="pass")
    fight.refresh_from_db()
    order = services.AttackOrder(
        combatant(fight, "Kira Valen").pk, "Cutlass|3", "close", rules.combat.Situation()
    )
    services.attack(encounter=fight, by=referee, order=order, rng=Scripted([6] * 8))
    fight.refresh_from_db()


def test_undo_puts_back_kiras_condition_the_turn_and_the_log(
    fight, kira, referee, player1, player2
):
    corsairs_blow_on_kira(fight, referee, player1, player2)

    services.undo_last(encounter=fight, by=referee)

    fight.refresh_from_db()
    condition, _ = condition_of(kira)
    assert condition.lethal == 0
    assert board(fight).current.combatant.name == "Vargr corsair 1"
    attack = EncounterEntry.objects.get(kind="attack")
    assert attack.undone_at is not None
    assert EncounterEntry.objects.filter(kind="undo").count() == 1


def test_undo_never_takes_back_what_kiras_player_recorded_on_her_sheet_after_the_blow(
    fight, kira, referee, player1, player2
):
    corsairs_blow_on_kira(fight, referee, player1, player2)
    play_services.take_damage(character=kira, by=player1, amount=2, form="S")
    stunned_by_her_player, _ = condition_of(kira)

    with pytest.raises(services.Refused, match="Took 2 stunning damage"):
        services.undo_last(encounter=fight, by=referee)

    assert condition_of(kira)[0] == stunned_by_her_player
    assert EncounterEntry.objects.get(kind="attack").undone_at is None


def test_undo_of_a_blow_already_undone_on_the_sheet_leaves_the_earlier_blow_alone(
    fight, kira, referee, player1, player2
):
    play_services.take_damage(character=kira, by=player1, amount=3, form="L")
    corsairs_blow_on_kira(fight, referee, player1, player2)
    # The referee took it back on Kira's play sheet (her player may not: the blow is not hers).
    play_services.undo_last_condition_change(character=kira, by=referee)

    services.undo_last(encounter=fight, by=referee)

    condition, _ = condition_of(kira)
    assert condition.lethal == 3, "the blow before the fight is still marked"
    assert EncounterEntry.objects.get(kind="attack").undone_at is not None
    assert ConditionChange.objects.filter(character=kira, undone_at__isnull=True).count() == 1


def test_undo_gives_back_the_magazine_and_the_corsairs_condition(fight, kira, player1):
    target = combatant(fight, "Vargr corsair 1")
    order = services.AttackOrder(target.pk, PISTOL, "short", rules.combat.Situation())
    services.attack(encounter=fight, by=player1, order=order, rng=Scripted([6] * 4))
    fight.refresh_from_db()
    assert magazines(kira) == 1

    services.undo_last(encounter=fight, by=player1)

    target.refresh_from_db()
    assert target.condition["lethal"] == 0
    assert magazines(kira) == 2
    assert combatant(fight, "Kira Valen").ammunition == {}
    assert CreditEntry.objects.filter(character=kira).count() == 2  # taken, then given back


def test_kiras_ledger_names_the_magazine_loaded_and_the_one_given_back(fight, kira, player1):
    # The ledger's line is all the player reads of it: the item is in no other column.
    target = combatant(fight, "Vargr corsair 1")
    order = services.AttackOrder(target.pk, PISTOL, "short", rules.combat.Situation())
    services.attack(encounter=fight, by=player1, order=order, rng=Scripted([6] * 4))
    fight.refresh_from_db()
    services.undo_last(encounter=fight, by=player1)

    notes = list(CreditEntry.objects.filter(character=kira).values_list("note", flat=True))
    assert notes == [
        f"{MAGAZINE} loaded into the Automatic pistol in Ambush at the docks",
        f"{MAGAZINE} back from an undone attack in Ambush at the docks",
    ]


def test_a_player_cannot_undo_the_referees_action(fight, referee, player1):
    services.take_turn(encounter=fight, by=referee, action="pass")
    fight.refresh_from_db()
    with pytest.raises(services.Refused, match="Only the referee can undo"):
        services.undo_last(encounter=fight, by=player1)


def test_nothing_to_undo_says_so(encounter, referee):
    with pytest.raises(services.Refused, match="Nothing to undo"):
        services.undo_last(encounter=encounter, by=referee)


def test_a_second_tab_on_an_old_version_gets_a_conflict_and_changes_nothing(client, fight, player1):
    target = combatant(fight, "Vargr corsair 1")
    as_user(client, player1)
    stale = attack_post(fight, target)
    client.post(
        reverse("encounter_turn", args=[fight.pk]), {"version": stale["version"], "action": "delay"}
    )
    fight.refresh_from_db()
    before = fight.version

    response = client.post(
        reverse("encounter_attack", args=[fight.pk]), stale, HTTP_HX_REQUEST="true"
    )

    assert "changed since this page was loaded" in response.content.decode()
    fight.refresh_from_db()
    assert fight.version == before
    assert not EncounterEntry.objects.filter(kind="attack").exists()


# -- morale -------------------------------------------------------------------------------------


def kill(encounter, name: str) -> None:
    """A group member killed: twice its LIF in lethal damage on its own record."""
    fallen = combatant(encounter, name)
    dead = rules.condition_from_dict(fallen.condition)
    dead, _ = rules.take_damage(dead, amount=dead.maximum * 2, form="L")
    Combatant.objects.filter(pk=fallen.pk).update(condition=rules.condition_as_dict(dead))


def test_a_morale_test_is_due_once_a_fifth_of_a_side_is_out_and_then_thrown(fight, referee):
    kill(fight, "Vargr corsair 4")
    assert services.morale_due(board(fight)) == ["opposition"]

    entry = services.throw_morale(
        encounter=fight, by=referee, side="opposition", rng=Scripted([6, 6])
    )

    assert entry.detail["passed"] is True
    assert entry.detail["side"] == "opposition"
    assert services.morale_due(board(fight)) == []
    with pytest.raises(services.Refused, match="Side: no morale test is due"):
        services.throw_morale(encounter=fight, by=referee, side="party")


def corsairs_morale(encounter, referee) -> EncounterEntry:
    """The corsairs' morale test, its dice a 4 and a 3: 2DH reads 4 before the DMs."""
    return services.throw_morale(
        encounter=encounter, by=referee, side="opposition", rng=Scripted([4, 3])
    )


def test_a_side_whose_leader_was_killed_tests_its_morale_at_minus_2(fight, referee):
    # The corsairs are alike, so the first fielded leads them: corsair 1.
    kill(fight, "Vargr corsair 1")

    entry = corsairs_morale(fight, referee)

    assert entry.summary.startswith(
        "Morale of the opposition (its leader Vargr corsair 1 is dead; Vargr corsair 2 throws): "
    )
    assert "the leader is killed -2" in entry.summary
    # The +1 of a leader present lapses with the leader.
    assert [dm["dm"] for dm in entry.detail["dms"][1:]] == [-2]
    assert entry.detail["total"] == 4 + entry.detail["dms"][0]["dm"] - 2


def test_the_side_s_leader_is_the_first_fielded_of_those_alike_whatever_the_turn_order(
    encounter, referee
):
    # Corsair 2 throws higher than corsair 1 and acts before it.
    services.throw_initiative(encounter=encounter, by=referee, rng=Scripted([6, 5, 3, 4, 2, 1]))
    assert [row.combatant.name for row in board(encounter).side("opposition")][:2] == [
        "Vargr corsair 2",
        "Vargr corsair 1",
    ]
    kill(encounter, "Vargr corsair 1")

    entry = corsairs_morale(encounter, referee)

    assert "the leader is killed -2" in entry.summary


def corsairs_learn(corsair, referee, skill: dict) -> None:
    """Every corsair of the stat block now has ``skill``."""
    from characters.core.services import store_document

    document = corsair.document | {"skills": [*corsair.document["skills"], skill]}
    store_document(corsair, document, by=referee, action=f"The corsairs learn {skill['skill']}")


def test_a_side_with_no_one_of_leader_skill_has_no_leader_present(fight, referee):
    kill(fight, "Vargr corsair 4")

    entry = corsairs_morale(fight, referee)

    assert entry.summary.startswith("Morale of the opposition (Vargr corsair 1 leads): ")
    assert "a leader is present" not in entry.summary
    assert "killed" not in entry.summary


def test_a_side_with_leadership_standing_tests_its_morale_with_a_leader_present(
    fight, corsair, referee
):
    corsairs_learn(corsair, referee, {"skill": "Leadership", "level": 1})
    kill(fight, "Vargr corsair 4")

    entry = corsairs_morale(fight, referee)

    assert "a leader is present +1" in entry.summary
    assert "killed" not in entry.summary


def test_a_leader_with_tactics_adds_1_to_its_side_s_morale(fight, corsair, referee):
    corsairs_learn(corsair, referee, {"skill": "Tactics", "cascade": "ground", "level": 1})
    kill(fight, "Vargr corsair 4")

    entry = corsairs_morale(fight, referee)

    assert "the leader has a tactical skill +1" in entry.summary
    assert "a leader is present" not in entry.summary
    assert entry.detail["total"] == 4 + entry.detail["dms"][0]["dm"] + 1


# -- live updates and pages without JavaScript ---------------------------------------------------


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


# -- access -------------------------------------------------------------------------------------


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


# -- the page's cost ----------------------------------------------------------------------------


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


# -- the stunned and the dying ------------------------------------------------------------------


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
    Combatant.objects.filter(pk=combatant(fight, "Kira Valen").pk).update(ammunition={PISTOL: 0})
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
    Combatant.objects.filter(pk=combatant(fight, "Kira Valen").pk).update(ammunition={PISTOL: 0})
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
    Combatant.objects.filter(pk=combatant(fight, "Kira Valen").pk).update(ammunition={PISTOL: 0})
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
    Combatant.objects.filter(pk=combatant(fight, "Kira Valen").pk).update(
        ammunition={PISTOL: loaded}
    )
    target = combatant(fight, "Vargr corsair 1")
    order = services.AttackOrder(target.pk, PISTOL, "short", rules.combat.Situation())

    entry = services.attack(encounter=fight, by=player1, order=order, rng=Scripted([1, 1, 1]))

    assert f"{left} in the Automatic pistol." in entry.summary
    assert "(s)" not in entry.summary


def test_the_log_says_a_fresh_magazine_was_loaded_in_words_that_read_naturally(
    fight, kira, player1
):
    Combatant.objects.filter(pk=combatant(fight, "Kira Valen").pk).update(ammunition={PISTOL: 0})
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

    assert combatant(fight, "Kira Valen").ammunition == {}


# -- autofire -----------------------------------------------------------------------------------


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
    assert combatant(encounter, "Kira Valen").ammunition == {"SMG|6": rounds - 4}


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
    assert "Undo: Kira Valen ends its turn." in mine
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
