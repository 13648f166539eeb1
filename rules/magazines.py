"""A weapon's magazines in a fight: which ammunition it loads and counts, and what an attack
leaves loaded (reading 33 of ``docs/combat.md``). The ammunition is the catalog's
"<weapon> ammunition" item (creation ruling 25e): one item is one magazine of the weapon's AMM
rounds."""

from __future__ import annotations

from dataclasses import dataclass

from .catalog import AMMUNITION, Catalog, EquipmentItem, catalog
from .fighters import CombatRefused, Weapon
from .wording import plural


def ammunition_for(weapon: Weapon, *, cat: Catalog | None = None) -> EquipmentItem | None:
    """The ammunition ``weapon`` loads, when it counts rounds: bought apart from the weapon and
    holding some. None for a weapon with no such ammunition: a melee or thrown weapon, one
    whose AMM is unlimited."""
    item = (cat or catalog()).equipment_item(AMMUNITION.format(weapon=weapon.name), weapon.tl)
    if item is None or item.row.get("unlimited") or not item.row.get("rounds"):
        return None
    return item


@dataclass(frozen=True, slots=True)
class Fired:
    """A weapon's ammunition after an attack: the rounds ``loaded`` in it, the ``spares`` it
    has besides, and whether the attack ``reloaded`` it with one of them."""

    loaded: int
    spares: int
    reloaded: bool


def fire_rounds(ammunition: EquipmentItem, rounds: int, *, loaded: int, spares: int) -> Fired:
    """Fire ``rounds`` from a weapon with ``loaded`` rounds in it and ``spares`` magazines of
    its ``ammunition`` besides. An attack fires from one magazine: when the loaded one holds
    fewer rounds, a spare is loaded first and what the old one held is not fired.
    CombatRefused ("ammunition") when there is no spare to load; ValueError for figures no
    weapon can have (more rounds than a magazine holds)."""
    capacity = int(ammunition.row["rounds"])
    if not 1 <= rounds <= capacity:
        raise ValueError(f"A {ammunition.name} fires 1 to {capacity} rounds, not {rounds}.")
    if not 0 <= loaded <= capacity or spares < 0:
        raise ValueError(f"{loaded} rounds loaded and {spares} spares of {ammunition.name}.")
    if rounds <= loaded:
        return Fired(loaded - rounds, spares, reloaded=False)
    if not spares:
        raise CombatRefused(
            "ammunition", f"out of {ammunition.name}: {plural(loaded, 'round')} left"
        )
    return Fired(capacity - rounds, spares - 1, reloaded=True)
