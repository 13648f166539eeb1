"""A weapon's magazines: which ammunition it counts, and what an attack leaves loaded."""

import pytest

from rules import catalog
from rules.combat import (
    CombatRefused,
    Fired,
    Situation,
    ammunition_for,
    fire_rounds,
    weapon_from_item,
    weapon_named,
)

PISTOL = ammunition_for(weapon_named("Automatic pistol"))  # a magazine of 15 rounds


def test_a_gun_counts_the_magazines_the_catalog_sells_for_it():
    assert (PISTOL.name, PISTOL.tl) == ("Automatic pistol ammunition", 6)
    laser = ammunition_for(weapon_named("Laser rifle", 9))
    assert (laser.name, laser.tl, laser.row["rounds"]) == ("Laser rifle ammunition", 9, 100)


def test_an_arrow_is_a_magazine_of_one_round():
    assert ammunition_for(weapon_named("Longbow")).row["rounds"] == 1


@pytest.mark.parametrize(
    ("weapon", "why"),
    [
        ("FGMP-14", "its AMM is unlimited"),
        ("Sword", "a melee weapon"),
        ("Hands", "a natural weapon"),
    ],
)
def test_a_weapon_without_ammunition_bought_apart_counts_nothing(weapon, why):
    assert ammunition_for(weapon_named(weapon)) is None, why


def test_a_thrown_spear_is_its_own_ammunition():
    spear = next(item for item in catalog().equipment if item.name == "Spear (thrown)")
    assert ammunition_for(weapon_from_item(spear)) is None


def test_an_attack_fires_its_rounds_from_the_loaded_magazine():
    assert fire_rounds(PISTOL, 1, loaded=15, spares=2) == Fired(14, 2, reloaded=False)
    assert fire_rounds(PISTOL, 4, loaded=4, spares=0) == Fired(0, 0, reloaded=False)


def test_a_spare_is_loaded_when_the_loaded_magazine_holds_fewer_rounds_than_the_attack_fires():
    # Nothing loaded yet: the first shot loads a magazine.
    assert fire_rounds(PISTOL, 1, loaded=0, spares=3) == Fired(14, 2, reloaded=True)
    # Three rounds left for a burst of four: a full magazine fires it, the three are not fired.
    assert fire_rounds(PISTOL, 4, loaded=3, spares=1) == Fired(11, 0, reloaded=True)


def test_an_attack_with_too_few_rounds_and_no_spare_is_refused():
    with pytest.raises(CombatRefused) as refused:
        fire_rounds(PISTOL, 4, loaded=3, spares=0)
    assert refused.value.field == "ammunition"
    assert refused.value.message == "out of Automatic pistol ammunition: 3 rounds left"


def test_the_refusal_counts_one_round_in_the_singular():
    with pytest.raises(CombatRefused) as refused:
        fire_rounds(PISTOL, 4, loaded=1, spares=0)
    assert refused.value.message == "out of Automatic pistol ammunition: 1 round left"


@pytest.mark.parametrize(
    ("rounds", "loaded", "spares"),
    [(0, 15, 1), (16, 15, 1), (1, 16, 1), (1, -1, 1), (1, 15, -1)],
)
def test_figures_no_magazine_can_have_are_a_mistake(rounds, loaded, spares):
    with pytest.raises(ValueError, match="Automatic pistol ammunition"):
        fire_rounds(PISTOL, rounds, loaded=loaded, spares=spares)


def test_an_attack_fires_its_burst_or_else_one_round():
    assert Situation().rounds_fired == 1
    assert Situation(autofire_rounds=10).rounds_fired == 10
