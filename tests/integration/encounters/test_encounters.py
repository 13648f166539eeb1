"""Encounters through the web: starting one, initiative, attacks whose damage lands on the play
sheet or on a group member's own record, ammunition, undo, conflicts, morale, polling, access,
and the page's fixed number of queries."""

import re

import pytest
from django.urls import reverse

import rules
from characters.core import dice as server_dice
from characters.core.wording import percent
from characters.encounters import services
from characters.encounters.selectors import board
from characters.models import (
    CharacterEvent,
    Combatant,
    ConditionChange,
    CreditEntry,
    Encounter,
    EncounterEntry,
)
from characters.play import services as play_services
from characters.play.selectors import condition_of
from rules.combat import Modifier
from tests.dice import Scripted
from tests.integration.encounters.encounter_actions import (
    MAGAZINE,
    PISTOL,
    as_user,
    attack_post,
    magazines,
    rounds_loaded,
)

from .conftest import INITIATIVE_DICE, combatant

pytestmark = pytest.mark.django_db


def chance(response) -> float:
    """The chance to hit an odds region shows, in percent."""
    return float(re.search(r"<strong data-odds>([\d.]+)%", response.content.decode())[1])


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
    rounds = rules.catalog().equipment_item(MAGAZINE, 6).row["rounds"]
    assert rounds_loaded(kira) == {PISTOL: rounds - 1}
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
    assert rounds_loaded(kira) == {}
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


def test_the_morale_form_shows_the_chance_of_holding_and_every_dm_before_the_throw(
    client, fight, referee
):
    # Corsair 1, the leader, killed: the corsairs' EXP DM, -2 for the leader, at TN 4.
    kill(fight, "Vargr corsair 1")
    odds = rules.combat.morale_odds(
        [(str(row.pk), row.fighter, row.condition) for row in board(fight).fielded("opposition")]
    )
    client.force_login(referee)

    html = client.get(reverse("encounter_detail", args=[fight.pk])).content.decode()

    shown = re.search(r'data-morale-odds="opposition">(.*?)</p>', html, re.S).group(1)
    assert f"Holds <strong data-odds>{percent(odds.chance)}</strong>" in shown
    assert f"Vargr corsair 2's EXP DM {odds.dms[0].dm:+d}" in shown
    assert "the leader is killed -2" in shown
    assert "4 or more holds" in shown
    # The referee's word on combat experience and a DM change the odds before the throw.
    changed = client.get(
        reverse("encounter_morale_odds", args=[fight.pk]),
        {"version": fight.version, "side": "opposition", "combat_experience": "yes", "dm": "-1"},
        HTTP_HX_REQUEST="true",
    ).content.decode()
    assert "combat experience (trait) +2" in changed
    assert "referee&#x27;s DM -1" in changed or "referee's DM -1" in changed
    with_them = rules.combat.morale_chance([*odds.dms, Modifier("", 2), Modifier("", -1)])
    assert f"Holds <strong data-odds>{percent(with_them)}</strong>" in changed


def test_the_morale_odds_are_the_referees_alone(client, fight, player1):
    kill(fight, "Vargr corsair 1")
    client.force_login(player1)
    response = client.get(
        reverse("encounter_morale_odds", args=[fight.pk]),
        {"version": fight.version, "side": "opposition"},
    )
    assert response.status_code == 404


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
