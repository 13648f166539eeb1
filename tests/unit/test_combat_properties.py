"""Invariants of the attack, over any weapon, range, situation, skill and dice."""

from contextlib import suppress
from dataclasses import replace
from fractions import Fraction
from itertools import product

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from rules import (
    COVER,
    LIGHTING,
    RANGE_BANDS,
    TARGET_SIZES,
    VISIBILITY,
    CombatRefused,
    Situation,
    catalog,
    plan_attack,
    resolve_attack,
)
from rules.combat import dice_needed, throw_dice, weapon_from_item
from tests.ci import examples

from .combat_builders import fighter, skilled

WEAPONS = tuple(
    weapon_from_item(item)
    for item in (*catalog().natural_weapons[:2], *catalog().equipment)
    if item.is_weapon or item.table == "melee"
)
ATTACKERS = (
    fighter(),
    skilled("Rifleman", 0),
    skilled("Rifleman", 3, attributes={"DEX": 11}),
    skilled("Brawling", 2, attributes={"STR": 12}),
    skilled("Blade Combat", 1, "swords"),
)
TARGETS = (
    fighter(),
    fighter(armor="Mesh"),
    fighter(armor="Reflec", attributes={"DEX": 12}),
    fighter(armor={"item": "Combat armor", "tl": 12, "quantity": 1}, attributes={"STR": 9}),
)
situations = st.builds(
    Situation,
    movement=st.sampled_from(["stationary", "stepping", "moving"]),
    aim_turns=st.integers(0, 4),
    cover=st.none() | st.sampled_from(COVER),
    lighting=st.none() | st.sampled_from(LIGHTING),
    visibility=st.none() | st.sampled_from(VISIBILITY),
    target_size=st.none() | st.sampled_from(TARGET_SIZES),
    facing=st.sampled_from(["front", "side", "rear"]),
    target_surprised=st.booleans(),
    extra_actions=st.integers(0, 2),
    dm=st.integers(-6, 6),
    autofire_rounds=st.sampled_from([0, 0, 4, 10]),
    attacker_in_target_rear=st.booleans(),
)


@st.composite
def plans(draw):
    attack = None
    with suppress(CombatRefused):  # a draw the rules refuse (out of reach...) is skipped
        attack = plan_attack(
            draw(st.sampled_from(ATTACKERS)),
            draw(st.sampled_from(WEAPONS)),
            draw(st.sampled_from(TARGETS)),
            draw(st.sampled_from(RANGE_BANDS)),
            draw(situations),
        )
    assume(attack is not None)
    return attack


@settings(max_examples=examples(300), deadline=None)
@given(plans(), st.randoms(use_true_random=False))
def test_every_attack_resolves_consistently(attack, rng):
    assert Fraction(0) <= attack.chance <= Fraction(1)
    assert attack.tn >= 1
    result = resolve_attack(attack, throw_dice(attack, rng))
    assert result.total == result.result + attack.dm
    assert result.hit == (result.total >= attack.tn and not result.fumble)
    assert result.fumble == (result.result == 1)
    if not result.hit:
        assert result.damage is None
        assert result.condition_after == result.condition_before
        return
    assert result.effect == result.total - attack.tn
    damage = result.damage
    multiplier = 4 if "SH" in attack.notes else 1
    assert 0 <= damage.lif <= damage.raw * multiplier
    assert damage.armor <= (attack.target.armor.av if attack.target.armor else 0)
    if damage.type.endswith("/S"):
        assert result.wound is None
        assert result.condition_after.lethal == 0


@settings(max_examples=examples(200), deadline=None)
@given(plans(), st.integers(-3, 3))
def test_the_chance_rises_with_the_dm_and_falls_with_the_def(attack, change):
    situation = attack.situation
    more = replace(situation, dm=situation.dm + abs(change))
    harder = replace(situation, def_dm=abs(change))
    again = plan_attack(attack.attacker, attack.weapon, attack.target, attack.range_band, more)
    tougher = plan_attack(attack.attacker, attack.weapon, attack.target, attack.range_band, harder)
    assert again.chance >= attack.chance
    assert tougher.chance <= attack.chance


@settings(max_examples=examples(100), deadline=None)
@given(plans())
def test_the_chance_is_the_share_of_dice_that_hit(attack):
    # Every outcome of the dice, weighted equally, hits in the plan's share of them.
    count = dice_needed(attack)
    assume(count <= 4)
    hits = sum(
        resolve_attack(attack, list(faces)).hit for faces in product(range(1, 7), repeat=count)
    )
    assert Fraction(hits, 6**count) == attack.chance
