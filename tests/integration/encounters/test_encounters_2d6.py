"""An encounter under 2D6 combat (docs/combat-2d6.md, "The round"): initiative thrown once,
Tactics, hastening, the dynamic order (reactions and recoil move it), the target's reaction
asked before the dice, aiming, delays, Leadership, undo. Kira Valen (DEX 10: DM +1, Handgun-3,
an automatic pistol: 2D, Pistol) and Dorn Hask (Blade Combat (swords)-1, a cutlass) against
Vargr corsairs (STR 9, Blade Combat (swords)-2, a cutlass, a jack: armour 1)."""

import pytest

from characters.encounters import services
from characters.encounters.selectors import board, weapon_key
from characters.encounters.twod6 import TwoD6Order, initiative_of
from characters.models import CombatSystem
from rules.combat.twod6.attack import TwoD6Situation
from tests.dice import Scripted
from tests.encounter_people import start, take_up_two_rifles

pytestmark = pytest.mark.django_db

TWOD6 = CombatSystem.TWOD6


@pytest.fixture
def fight(campaign, kira, dorn, corsair):
    return start(campaign, kira, dorn, corsair, corsairs=2, system=TWOD6)


def now(encounter):
    encounter.refresh_from_db()
    return board(encounter, entries=0)


def named(state, name):
    return next(row for row in state.rows if row.combatant.name == name)


def stats(row):
    return {entry["code"]: entry["now"] for entry in row.record_shown["rows"]}


def weapon(row, name):
    return weapon_key(next(w for w in row.fighter.weapons if w.name == name))


def begin(fight, referee, dice=(5, 4, 3, 3, 2, 2, 1, 1), **choices):
    """Kira 9 + 1 = 10, Dorn 6, corsair 1 4, corsair 2 2."""
    services.throw_initiative(encounter=fight, by=referee, rng=Scripted(dice), **choices)
    return now(fight)


def shot(state, target, reaction="none", **situation):
    return TwoD6Order(
        target.pk,
        weapon(state.current, "Automatic pistol"),
        "short",
        TwoD6Situation(**situation),
        reaction,
    )


def test_initiative_is_2d6_plus_the_dex_dm_once_and_a_prepared_fighter_counts_12(fight, referee):
    dorn = fight.combatants.get(name="Dorn Hask")
    entry = services.throw_initiative(
        encounter=fight, by=referee, prepared=[dorn.pk], rng=Scripted([5, 4, 2, 2, 1, 1])
    )

    state = now(fight)
    assert [(r.combatant.name, r.combatant.initiative) for r in state.rows] == [
        ("Dorn Hask", 12),
        ("Kira Valen", 10),
        ("Vargr corsair 1", 4),
        ("Vargr corsair 2", 2),
    ]
    assert "Dorn Hask 12 (prepared 12, DEX 7 +0)" in entry.summary
    assert "Kira Valen 10 (2D 5+4, DEX 10 +1)" in entry.summary
    assert state.current.combatant.name == "Dorn Hask"
    with pytest.raises(services.Refused, match="Initiative was thrown"):
        services.throw_initiative(encounter=fight, by=referee)


def test_the_referees_shot_at_a_corsair_worked_by_hand(fight, referee):
    state = begin(fight, referee)
    target = named(state, "Vargr corsair 1")

    # 2D 5 + 4 + Handgun 3 + DEX DM 1 (short range, Pistol: 0) = 13: a hit, Effect 5. Damage
    # 2D 3 + 4 + 5 = 12, less the jack's 1 = 11: END 7 takes 7, the other 4 go to the higher of
    # STR 9 and DEX 7: STR 5.
    entry = services.attack(
        encounter=fight, by=referee, order=shot(state, target), rng=Scripted([5, 4, 3, 4])
    )

    state = now(fight)
    assert entry.detail["attacks"] == [{"dice": [5, 4], "total": 13, "hit": True, "effect": 5}]
    assert entry.detail["hits"][0]["after_armour"] == 11
    assert stats(named(state, "Vargr corsair 1")) == {"END": 0, "STR": 5, "DEX": 7}
    assert "2D 5+4 +4 = 13 vs 8, a hit, Effect 5: 7 (3+4) + Effect 5 - armour 1 = 11" in (
        entry.summary
    )
    assert state.current.combatant.name == "Dorn Hask"
    assert "  " not in entry.summary  # one space between its sentences, whatever is left out


def test_a_players_attack_waits_for_the_referee_to_choose_the_targets_reaction(
    fight, referee, player1
):
    state = begin(fight, referee)
    target = named(state, "Vargr corsair 1")
    declared = services.attack(
        encounter=fight, by=player1, order=shot(state, target, reaction="ask"), rng=Scripted([])
    )
    state = now(fight)
    assert declared.kind == "declare"
    assert "the referee chooses Vargr corsair 1's reaction" in declared.summary
    assert state.current.combatant.name == "Kira Valen"  # nothing thrown yet
    with pytest.raises(services.Refused, match="Only Vargr corsair 1's player or the referee"):
        services.react(encounter=fight, by=player1, reaction="none")

    # The corsair dodges: -1 to the attack (13 - 1 = 12, Effect 4), and it pays 2 initiative
    # this round (it has not acted yet: 4 - 2 = 2).
    entry = services.react(
        encounter=fight, by=referee, reaction="dodge", rng=Scripted([5, 4, 3, 4])
    )

    state = now(fight)
    assert entry.by == player1  # the attack is the player's to undo
    assert entry.detail["attacks"][0]["total"] == 12
    corsair = named(state, "Vargr corsair 1")
    assert initiative_of(corsair).current == 2
    assert corsair.state["reactions"] == 1
    assert "Vargr corsair 1 dodges: initiative -2" in entry.summary


def test_aiming_is_a_minor_action_kept_for_the_attack(fight, referee, player1):
    state = begin(fight, referee)
    services.take_turn(encounter=fight, by=player1, action="aim")
    state = now(fight)
    assert state.current.combatant.name == "Kira Valen"  # the turn goes on

    planned = services.twod6.plan(
        state, state.current, shot(state, named(state, "Vargr corsair 1"))
    )

    assert ("aiming 1 minor action(s)", 1) in [(m.label, m.dm) for m in planned.plan.dms]


def test_two_minor_actions_leave_no_room_for_an_attack(fight, referee, player1):
    state = begin(fight, referee)
    for _ in range(2):
        services.take_turn(encounter=fight, by=player1, action="aim")
    state = now(fight)
    with pytest.raises(services.Refused, match="spent 2 minor actions"):
        services.attack(
            encounter=fight, by=player1, order=shot(state, named(state, "Vargr corsair 1"))
        )


def test_hastening_is_declared_before_anyone_acts_and_moves_the_fighter_up(fight, referee):
    state = begin(fight, referee)
    corsair = named(state, "Vargr corsair 1")

    services.hasten(encounter=fight, by=referee, combatant=corsair.pk)

    state = now(fight)
    assert initiative_of(named(state, "Vargr corsair 1")).current == 6  # 4 + 2
    assert [row.combatant.name for row in state.rows][:2] == ["Kira Valen", "Dorn Hask"]
    with pytest.raises(services.Refused, match="hastens this round already"):
        services.hasten(encounter=fight, by=referee, combatant=corsair.pk)


def test_a_delaying_fighter_acts_later_at_the_count_it_acts_on(fight, referee, player1):
    begin(fight, referee)
    services.take_turn(encounter=fight, by=player1, action="delay")
    state = now(fight)
    assert state.current.combatant.name == "Dorn Hask"
    kira = named(state, "Kira Valen")

    services.take_turn(encounter=fight, by=player1, action="act_now", after=kira.pk)
    services.take_turn(encounter=fight, by=player1, action="pass")

    state = now(fight)
    # She acted on Dorn's count, 6 (reading 2D-17), and Dorn still has his turn.
    assert initiative_of(named(state, "Kira Valen")).current == 6
    assert state.current.combatant.name == "Dorn Hask"


def test_a_fighter_still_delaying_at_the_end_of_the_round_acts_first_next(fight, referee, player1):
    begin(fight, referee)
    services.take_turn(encounter=fight, by=player1, action="delay")
    for _ in range(3):
        services.take_turn(encounter=fight, by=referee, action="pass")

    services.take_turn(encounter=fight, by=referee, action="next_round")

    state = now(fight)
    assert state.current.combatant.name == "Kira Valen"
    assert initiative_of(state.current).current == 7  # one above Dorn's 6


def test_the_tactics_check_adds_its_effect_to_the_side(fight, referee):
    begin(fight, referee)
    # Nobody of the party has Tactics: -3, INT 7 DM 0. 2D 6 + 6 - 3 = 9 vs 8: Effect 1.
    entry = services.tactics(encounter=fight, by=referee, side="party", rng=Scripted([6, 6]))

    state = now(fight)
    assert initiative_of(named(state, "Kira Valen")).current == 11
    assert initiative_of(named(state, "Dorn Hask")).current == 7
    assert "= 9 vs 8: Effect 1" in entry.summary
    with pytest.raises(services.Refused, match="each side's is thrown once"):
        services.tactics(encounter=fight, by=referee, side="party", rng=Scripted([6, 6]))


def test_undo_takes_back_the_reaction_and_the_damage(fight, referee, player1):
    state = begin(fight, referee)
    services.attack(
        encounter=fight,
        by=player1,
        order=shot(state, named(state, "Vargr corsair 1"), reaction="ask"),
    )
    services.react(encounter=fight, by=referee, reaction="dodge", rng=Scripted([5, 4, 3, 4]))

    services.undo_last(encounter=fight, by=player1)

    state = now(fight)
    corsair = named(state, "Vargr corsair 1")
    assert stats(corsair) == {"END": 7, "STR": 9, "DEX": 7}
    assert initiative_of(corsair).current == 4
    assert state.encounter.system_state.get("pending")  # the attack waits again


def test_the_referees_attack_on_a_player_character_asks_its_player_for_the_reaction(
    fight, referee, player1
):
    state = begin(fight, referee, dice=(1, 1, 3, 3, 6, 6, 1, 1))  # corsair 1 first
    corsair = state.current
    cutlass = weapon(corsair, "Cutlass")
    order = TwoD6Order(named(state, "Kira Valen").pk, cutlass, "personal", TwoD6Situation(), "ask")

    declared = services.attack(encounter=fight, by=referee, order=order)

    assert declared.kind == "declare"
    assert "Kira Valen's player chooses Kira Valen's reaction" in declared.summary
    # Kira dodges; her -2 comes off this round, before she acts: 3 - 2 = 1.
    services.react(encounter=fight, by=player1, reaction="dodge", rng=Scripted([6, 6, 1, 1]))
    assert initiative_of(named(now(fight), "Kira Valen")).current == 1


def test_reinforcements_throw_initiative_with_their_sides_tactics(fight, referee, corsair):
    from characters.models import Combatant

    begin(fight, referee)
    services.tactics(encounter=fight, by=referee, side="opposition", rng=Scripted([6, 6]))

    # 2D 4 + 4 + DEX 7's 0 = 8, and the opposition's Tactics Effect 1: 9.
    services.add_combatants(
        encounter=fight,
        by=referee,
        groups=[services.Group(1, Combatant.Side.OPPOSITION, character=corsair)],
        rng=Scripted([4, 4]),
    )

    state = now(fight)
    assert initiative_of(named(state, "Vargr corsair 3")).current == 9
    assert state.current.combatant.name == "Kira Valen"


def test_a_bursts_recoil_comes_off_the_shooters_initiative_next_round(
    campaign, kira, dorn, corsair, referee
):
    take_up_two_rifles(kira)  # a Gauss rifle: Auto 4, Recoil 0
    fight = start(campaign, kira, dorn, corsair, corsairs=2, system=TWOD6)
    state = begin(fight, referee)
    target = named(state, "Vargr corsair 1")
    burst = TwoD6Order(
        target.pk,
        weapon(state.current, "Gauss rifle"),
        "short",
        TwoD6Situation(fire="burst"),
        "none",
    )

    # Recoil 0, +1 for a burst, above Kira's STR 7 DM +0: -1, next round (she has acted).
    entry = services.attack(encounter=fight, by=referee, order=burst, rng=Scripted([3] * 12))
    assert "Kira Valen: recoil -1 initiative next round." in entry.summary
    assert initiative_of(named(now(fight), "Kira Valen")).current == 10  # this round's stands

    while now(fight).current is not None:
        services.take_turn(encounter=fight, by=referee, action="pass")
    services.take_turn(encounter=fight, by=referee, action="next_round")

    state = now(fight)
    assert initiative_of(named(state, "Kira Valen")).current == 9
    assert state.current.combatant.name == "Kira Valen"  # 9 still beats Dorn's 6
