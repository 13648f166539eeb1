"""An encounter under T4 basic combat (docs/combat-t4.md, "The round"): initiative every round,
the movement phase lowest first, attacks highest first with ties acting together, held actions,
surprise until lost, the end of the round's bleeding, stun and fatigue, undo. Each figure is
worked by hand from the seed and the spec: Kira Valen (DEX 10, Handgun-3, an automatic pistol:
2D), Dorn Hask (Blade Combat (swords)-1, a cutlass: 2D) and Vargr corsairs (STR 9, Blade Combat
(swords)-2, a cutlass and a jack: T4 AV 1 against a bullet, 0 against a blade... of blunt)."""

import re

import pytest
from django.urls import reverse

from characters.encounters import services
from characters.encounters.selectors import board, weapon_key
from characters.encounters.t4 import T4Order
from characters.models import Combatant, CombatSystem, EncounterEntry
from characters.play import selectors as play_selectors
from rules.combat.t4.plan import T4Situation
from tests.dice import Scripted
from tests.encounter_people import start

pytestmark = pytest.mark.django_db

T4 = CombatSystem.T4
Kind = EncounterEntry.Kind


@pytest.fixture
def fight(campaign, kira, dorn, corsair):
    """Kira and Dorn against two corsairs under T4, before the first initiative."""
    return start(campaign, kira, dorn, corsair, corsairs=2, system=T4)


def combatant(encounter, name):
    return encounter.combatants.get(name=name)


def now(encounter):
    encounter.refresh_from_db()
    return board(encounter, entries=0)


def stats(row):
    return {entry["code"]: entry["now"] for entry in row.record_shown["rows"][:3]}


def initiative(fight, referee, dice=(6, 4, 3, 1), **choices):
    return services.throw_initiative(encounter=fight, by=referee, rng=Scripted(dice), **choices)


def to_combat(fight, referee):
    """Initiative (Kira 8, Dorn 5, corsair 1 4, corsair 2 2), then straight to the attacks."""
    initiative(fight, referee)
    services.take_turn(encounter=fight, by=referee, action="done_moving")
    return now(fight)


def weapon(row, name):
    return weapon_key(next(w for w in row.fighter.weapons if w.name == name))


def pistol_at(state, target, **situation):
    return T4Order(
        target=target.pk,
        weapon=weapon(state.current, "Automatic pistol"),
        range_band="short",
        routine="snap",
        situation=T4Situation(**situation),
    )


def kiras_snapshot_at_corsair_1(fight, referee, player1):
    """Kira's pistol at corsair 1 in the first attacks: a hit through its jack (the snapshot
    worked by hand below). Returns its log entry and the target."""
    state = to_combat(fight, referee)
    target = combatant(fight, "Vargr corsair 1")
    entry = services.attack(
        encounter=fight,
        by=player1,
        order=pistol_at(state, target),
        rng=Scripted([4, 5, 6, 3, 4, 5]),
    )
    return entry, target


def test_initiative_is_1d_plus_the_dex_dm_highest_first_and_the_movement_phase_begins(
    fight, referee
):
    entry = initiative(fight, referee)

    state = now(fight)
    # DEX 10: +2 (Kira); DEX 7: +1 (the rest). 6 + 2, 4 + 1, 3 + 1, 1 + 1.
    assert [(r.combatant.name, r.combatant.initiative) for r in state.rows] == [
        ("Kira Valen", 8),
        ("Dorn Hask", 5),
        ("Vargr corsair 1", 4),
        ("Vargr corsair 2", 2),
    ]
    assert state.phase == "movement"
    assert state.current is None  # nobody attacks while the fighters move
    assert entry.summary.startswith("Initiative, round 1: Kira Valen 8; Dorn Hask 5;")
    assert entry.detail["rolls"][0]["dms"] == [{"label": "DEX 10", "dm": 2}]


def test_tied_fighters_are_one_group_that_acts_together(fight, referee):
    entry = initiative(fight, referee, dice=(4, 5, 5, 1))

    # Kira 4 + 2 = 6, Dorn 5 + 1 = 6, corsair 1 6: one group of three.
    assert "Kira Valen 6 = Dorn Hask 6 = Vargr corsair 1 6 (together)" in entry.summary


def test_the_statuses_set_in_the_movement_phase_set_the_attacks_dms(fight, referee, player1):
    initiative(fight, referee)
    state = now(fight)
    target = combatant(fight, "Vargr corsair 1")
    services.set_status(
        encounter=fight,
        by=player1,
        combatant=combatant(fight, "Kira Valen").pk,
        movement="walking",
        action="ranged attack",
    )
    services.set_status(
        encounter=fight, by=referee, combatant=target.pk, movement="running", action="evade"
    )
    services.take_turn(encounter=fight, by=referee, action="done_moving")
    state = now(fight)

    planned = services.t4.plan(state, state.current, pistol_at(state, target))

    # 2 x Handgun 3 + DEX 10 / 2 = 11; walking snapshot -4, target running -3, evading at
    # short range (range number 2) -2: 11 - 9 = 2, on 2.5D.
    assert planned.plan.to_hit_base == 11
    assert [(m.label, m.dm) for m in planned.plan.dms] == [
        ("attacker walking (III.3)", -4),
        ("target running (III.3)", -3),
        ("target evading (III.4)", -2),
    ]
    assert planned.plan.to_hit == 2
    assert planned.plan.difficulty.rule == "2.5D"


def test_a_player_sets_only_their_own_status(fight, referee, player2):
    initiative(fight, referee)
    with pytest.raises(services.Refused, match="Only Kira Valen's player or the referee"):
        services.set_status(
            encounter=fight,
            by=player2,
            combatant=combatant(fight, "Kira Valen").pk,
            movement="walking",
            action="hold",
        )


def test_a_snapshot_through_a_jack_worked_by_hand(fight, referee, player1):
    state = to_combat(fight, referee)
    target = combatant(fight, "Vargr corsair 1")
    # Attack 2.5D: 4 + 5 + half of 6 (3) = 12 <= 14 (11 + 3 stationary target): a hit. d66 34:
    # Mid Torso, under the jack (1 die against a bullet): 2D - 1 = 1 die (5), and the die the
    # jack absorbs is 1 point of blunt trauma. The 5 goes to STR 9 (the most left), the 1 to
    # END (7, tied with DEX: END first).
    entry = services.attack(
        encounter=fight,
        by=player1,
        order=pistol_at(state, target),
        rng=Scripted([4, 5, 6, 3, 4, 5]),
    )

    state = now(fight)
    hit = entry.detail["hits"][0]
    assert (entry.detail["to_hit"], entry.detail["chance_percent"]) == (14, 99.1)
    assert (hit["location"], hit["roll"], hit["armor"]["av"]) == ("Mid Torso", 34, 1)
    assert (hit["damage_dice"], hit["blunt_trauma"], hit["damage"]) == ([5], 1, 6)
    assert stats(state.row(target.pk)) == {"STR": 4, "DEX": 7, "END": 6}
    assert state.row(target.pk).record.wound == "superficial"
    assert "4+5 + half die 6 (3) reads 12" in entry.summary
    assert "Mid Torso (34): 6 damage (5 + 1 blunt trauma) to STR 5, END 1" in entry.summary
    # Kira's turn is over; Dorn acts, and a round was fired from her pistol.
    assert state.current.combatant.name == "Dorn Hask"
    assert state.row(combatant(fight, "Kira Valen").pk).loaded


def test_a_strike_costs_fatigue_and_the_round_ends_with_it(fight, referee, player2):
    state = to_combat(fight, referee)
    services.take_turn(encounter=fight, by=referee, action="pass")  # Kira
    state = now(fight)
    target = combatant(fight, "Vargr corsair 1")
    order = T4Order(target.pk, weapon(state.current, "Cutlass"), "contact", "strike", T4Situation())

    # 2 x Blade Combat 1 + STR 7 / 2 = 6, target stationary +3, the corsair parries with its
    # cutlass (Blade Combat (swords) 2) -2: 7 on 2D. 6 + 5 = 11: a miss. Fatigue 0 + 1.
    entry = services.attack(encounter=fight, by=player2, order=order, rng=Scripted([6, 5]))

    assert entry.detail["to_hit"] == 7
    assert entry.detail["attacker_fatigue_after"] == 1
    dorn = combatant(fight, "Dorn Hask")
    assert play_selectors.record_in(dorn.character.play_state, T4).fatigue == 1
    state = now(fight)
    assert state.row(dorn.pk).state["struck"] is True


def test_the_end_of_the_round_recovers_a_fighters_fatigue_and_asks_for_initiative_again(
    fight, referee, player2
):
    to_combat(fight, referee)
    services.take_turn(encounter=fight, by=referee, action="pass")  # Kira
    state = now(fight)
    target = combatant(fight, "Vargr corsair 1")
    order = T4Order(target.pk, weapon(state.current, "Cutlass"), "contact", "strike", T4Situation())
    services.attack(encounter=fight, by=player2, order=order, rng=Scripted([6, 5]))
    for _ in range(2):
        services.take_turn(encounter=fight, by=referee, action="pass")

    entry = services.take_turn(encounter=fight, by=referee, action="next_round")

    state = now(fight)
    assert (fight.round, state.phase) == (2, "initiative")
    assert entry.summary.startswith("Round 2: throw initiative.")
    # Dorn struck at full strength this round: his fatigue stays at 1 (reading T4-8).
    dorn = combatant(fight, "Dorn Hask")
    assert play_selectors.record_in(dorn.character.play_state, T4).fatigue == 1
    assert state.row(dorn.pk).state["struck"] is False


def test_a_held_action_is_taken_later_in_the_round(fight, referee, player1):
    to_combat(fight, referee)
    services.take_turn(encounter=fight, by=player1, action="hold")
    state = now(fight)
    assert state.current.combatant.name == "Dorn Hask"
    kira = combatant(fight, "Kira Valen")
    assert [row.pk for row in services.t4.held(state)] == [kira.pk]

    services.take_turn(encounter=fight, by=player1, action="act_now", after=kira.pk)

    state = now(fight)
    assert state.current.pk == kira.pk
    services.take_turn(encounter=fight, by=player1, action="pass")
    state = now(fight)
    assert state.current.combatant.name == "Dorn Hask"  # the turn goes back to Dorn
    assert not state.row(kira.pk).state["holding"]


def test_undo_takes_back_the_attack_the_record_and_the_turn(fight, referee, player1):
    target = kiras_snapshot_at_corsair_1(fight, referee, player1)[1]

    services.undo_last(encounter=fight, by=player1)

    state = now(fight)
    assert stats(state.row(target.pk)) == {"STR": 9, "DEX": 7, "END": 7}
    assert state.current.combatant.name == "Kira Valen"
    assert state.row(state.current.pk).state.get("targets", []) == []


def test_surprise_is_1d_each_and_a_side_3_ahead_has_it(fight, referee):
    # Party 1D 6 + 0, the corsairs 1D 2 + 0: 4 ahead, the party has surprise.
    entry = services.throw_surprise(encounter=fight, by=referee, rng=Scripted([6, 2]))

    fight.refresh_from_db()
    assert fight.surprised_side == "opposition"
    assert entry.summary == (
        "Surprise (T4): the party 6 (1D 6) against the opposition 2 (1D 2): the party has surprise."
    )


def test_a_surprised_side_neither_moves_nor_attacks_until_surprise_is_lost(fight, referee, player1):
    services.throw_surprise(encounter=fight, by=referee, rng=Scripted([6, 2]))
    state = to_combat(fight, referee)
    assert [row.combatant.name for row in state.rows if row.takes_turn] == [
        "Kira Valen",
        "Dorn Hask",
    ]
    target = combatant(fight, "Vargr corsair 1")

    # A pistol shot is not silenced: surprise is lost (II.3), whatever the throw did.
    entry = services.attack(
        encounter=fight, by=player1, order=pistol_at(state, target), rng=Scripted([6, 6, 6])
    )

    fight.refresh_from_db()
    assert fight.surprised_side == ""
    assert "Surprise is lost." in entry.summary


def test_animals_fight_under_ffa_only(campaign, kira, referee):
    with pytest.raises(services.Refused, match="Animals: they fight under FFA only"):
        services.start_encounter(
            campaign=campaign,
            by=referee,
            name="Beasts",
            combat_system=T4,
            groups=[
                services.Group(1, Combatant.Side.PARTY, character=kira),
                services.Group(1, Combatant.Side.OPPOSITION, animal_type="hunter", weight_kg=40),
            ],
        )


def test_an_encounter_keeps_its_system_when_the_campaign_changes(fight, campaign, referee):
    from characters.campaigns import services as campaigns_services

    campaigns_services.update_campaign_rules(
        campaign=campaign, combat_system=CombatSystem.TWOD6, by=referee
    )
    fight.refresh_from_db()
    assert fight.combat_system == T4


def test_the_end_keeps_each_fighters_record_as_the_turn_order_showed_it(fight, referee, player1):
    state = to_combat(fight, referee)
    target = combatant(fight, "Vargr corsair 1")
    # A hit on the Upper Arm (36), its minor wound's fracture kept as an injury.
    services.attack(
        encounter=fight,
        by=player1,
        order=pistol_at(state, target),
        rng=Scripted([4, 5, 6, 3, 6, 5]),
    )

    entry = services.end_encounter(encounter=fight, by=referee)

    corsair = next(f for f in entry.detail["fighters"] if f["name"] == "Vargr corsair 1")
    assert corsair["record"]["system"] == "t4"
    assert corsair["record"]["rows"][0] == {
        "code": "STR",
        "level": 9,
        "damage": 5,
        "stun": 0,
        "now": 4,
    }


def test_the_ended_pages_summary_shows_each_fighters_t4_wounds_not_a_dash(
    client, fight, referee, player1
):
    # The hit of the snapshot through a jack: STR -5 and END -1, a superficial wound.
    kiras_snapshot_at_corsair_1(fight, referee, player1)
    services.end_encounter(encounter=fight, by=referee)
    client.force_login(referee)

    html = client.get(reverse("encounter_detail", args=[fight.pk])).content.decode()

    rows = dict(
        re.findall(r'<th scope="row">([^<]+)</th>.*?<td data-wounds>(.*?)</td>', html, re.S)
    )
    wounds = re.sub(r"<[^>]+>", "", rows["Vargr corsair 1"])
    assert wounds == "STR \u22125, END \u22121, superficial wound"
    assert re.sub(r"<[^>]+>", "", rows["Vargr corsair 2"]) == "\u2013"


def test_reinforcements_throw_this_rounds_initiative_as_they_join(fight, referee, corsair):
    to_combat(fight, referee)

    # A third corsair: 1D 5 + DEX 7's +1 = 6, placed after Kira (8) and before Dorn (5).
    entry = services.add_combatants(
        encounter=fight,
        by=referee,
        groups=[services.Group(1, Combatant.Side.OPPOSITION, character=corsair)],
        rng=Scripted([5]),
    )

    state = now(fight)
    assert entry.summary == "Joining the fight: Vargr corsair 3. Initiative: Vargr corsair 3 6."
    assert [row.combatant.name for row in state.rows][:3] == [
        "Kira Valen",
        "Vargr corsair 3",
        "Dorn Hask",
    ]
    assert state.current.combatant.name == "Kira Valen"  # her turn goes on
    assert state.row(combatant(fight, "Vargr corsair 3").pk).record_state == "conscious"


def test_morale_counts_the_fighters_t4_puts_out_of_action(fight, referee, player1):
    state = to_combat(fight, referee)
    target = combatant(fight, "Vargr corsair 1")
    # A double 1 on 2.5D, a spectacular success: a critical hit (reading T4-6) on d66 11, the
    # Cranium/Ear (no helmet), 2D 6 + 6 = 12 to random characteristics: 1D 1 picks STR (9, to
    # 0), then of DEX and END 1D 6 picks END (the other 3: 7 to 4). STR at 0: out.
    services.attack(
        encounter=fight,
        by=player1,
        order=pistol_at(state, target),
        rng=Scripted([1, 1, 1, 1, 1, 6, 6, 1, 6]),
    )

    state = now(fight)
    assert state.row(target.pk).out_of_action
    assert stats(state.row(target.pk)) == {"STR": 0, "DEX": 7, "END": 4}
    # One of the two corsairs out of action: the engine's check asks the side's morale.
    assert services.morale_due(state) == ["opposition"]
