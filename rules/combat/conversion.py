"""FFA weapons and armor in T4 and 2D6: the formulas that turn each row of the FFA catalog into
the other systems' figures, and the generator of ``data/systems.json`` from them.

The engines read the generated file (:mod:`rules.combat.figures`), so every figure a referee
checks by hand is written down once; a test regenerates it and compares. After a change to the
catalog, to ``data/t4.json`` or ``data/twod6.json`` or to a formula here, rewrite it with::

    python -m rules.combat.conversion

The formulas are docs/combat-t4.md and docs/combat-2d6.md, "Weapons" and "Armor".
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..catalog import Catalog, EquipmentItem, catalog
from ..fighters import Armor, Weapon, armor_from_item, combat_tables, weapon_from_item
from .tables import FIGURES_FILE, t4_tables, twod6_tables

# An FFA ranged weapon's DMG is three times the dice it throws in the other systems, rounded up
# (a 6 is 2D, a 7 is 3D); the shotgun's note SH doubles the dice.
DMG_PER_DIE = 3
SCATTER_NOTE = "SH"
SCATTER_DICE_MULTIPLIER = 2
# A melee or natural weapon other than bare hands and feet throws 2D and a die for each 3 of its
# FFA damage bonus.
MELEE_BASE_DICE = 2
MELEE_BONUS_PER_DIE = 3
# FFA AV is Striker armor x 3 (the FFA conversion notes): 2D6 armour is AV / 3, T4's armor dice
# AV / 6 with halves rounded up.
AV_PER_ARMOUR_POINT = 3
AV_PER_T4_DIE = 6
# The notes that are loads a shooter chooses, and autofire; BD weapons are fired from battle
# dress only.
AUTOFIRE_NOTE = "AF"
MILLIMETRES_PER_BULK = 1000
# The attacks armor is rated against, each with what it does to AV (FFA reading 13).
ARMOR_CLASSES: Mapping[str, tuple[bool, frozenset[str]]] = {
    "blunt": (True, frozenset()),
    "plain": (False, frozenset()),
    "AP": (False, frozenset({"AP"})),
    "LZ": (False, frozenset({"LZ"})),
    "XR": (False, frozenset({"XR"})),
}
_STR_TIMES = re.compile(r"STR\s*x\s*(\d+)", re.IGNORECASE)


def armor_class(weapon: Weapon) -> str:
    """Which of :data:`ARMOR_CLASSES` a weapon's attacks are: its armor-piercing note, else
    blunt for B/x damage, else plain."""
    for code in ("XR", "LZ", "AP"):
        if code in weapon.notes:
            return code
    return "blunt" if weapon.damage_type.startswith("B") else "plain"


def effective_av(armor: Armor, blunt: bool, notes: frozenset[str]) -> int:
    """The FFA AV an attack meets, as FFA reading 13 takes it: halved against blunt damage or
    against all but lasers where the armor says so, divided by the notes' divisors (AP, LZ ½,
    XR ¼) except the notes the armor meets at full AV, rounded down once."""
    divisors = combat_tables()["weapon_notes"]
    divisor = 1
    if armor.half_against == "blunt" and blunt:
        divisor *= 2
    if armor.half_against == "all" and not notes & armor.full_against_notes:
        divisor *= 2
    for code in sorted(notes - armor.full_against_notes):
        divisor *= divisors.get(code, {}).get("armor_divisor", 1)
    return armor.av // divisor


def t4_armor_dice(av: int) -> int:
    """T4 AV, in dice absorbed: the FFA AV ÷ 6, halves rounded up."""
    return (av + AV_PER_T4_DIE // 2) // AV_PER_T4_DIE


def twod6_armour(av: int) -> int:
    """2D6 armour, in points: the FFA AV ÷ 3 (the Striker value), rounded down."""
    return av // AV_PER_ARMOUR_POINT


def characteristic_dm(level: int) -> int:
    """The 2D6 characteristic DM of a level (reading 2D-1): level ÷ 3 - 2 rounded down, -3 at 0."""
    rule = twod6_tables()["characteristic_dm"]
    if level <= 0:
        return int(rule["at_zero"])
    return level // int(rule["divisor"]) + int(rule["offset"])


def weapon_dice(weapon: Weapon) -> int:
    """The damage dice of a weapon in both systems: ranged ⌈DMG ÷ 3⌉ (doubled by SH); bare hands
    and feet 1D (T4 IV.10); any other melee or natural weapon 2 + ⌊bonus ÷ 3⌋."""
    conversion = t4_tables()["conversion"]
    if weapon.ranged:
        dice = -(-weapon.dmg // DMG_PER_DIE)
        return dice * SCATTER_DICE_MULTIPLIER if SCATTER_NOTE in weapon.notes else dice
    if weapon.name in conversion["unarmed_weapons"]:
        return int(conversion["unarmed_dice"])
    return MELEE_BASE_DICE + weapon.dmg // MELEE_BONUS_PER_DIE


def autofire_bursts(weapon: Weapon) -> tuple[int, ...]:
    """The bursts an autofire weapon fires: the figures of its RoF after the first (1:4 → 4;
    1:4:10 → 4 or 10); none without the note AF."""
    if AUTOFIRE_NOTE not in weapon.notes or not weapon.rof:
        return ()
    return tuple(int(figure) for figure in weapon.rof.split(":")[1:] if figure.isdigit())


def t4_autofire_throws(rounds: int) -> int:
    """The attack throws of a burst (T4 V.6): 4-5 rounds two, 6 or more three, fewer one."""
    return int(
        max(
            (row for row in t4_tables()["autofire_throws"] if rounds >= row["from_rounds"]),
            key=lambda row: row["from_rounds"],
        )["throws"]
    )


def t4_weak_blow(weapon: Weapon) -> int | None:
    """The weakened-blow DM of a melee weapon (T4 IV.5 by name; reading T4-11 for the rest)."""
    if weapon.ranged:
        return None
    tables = t4_tables()
    conversion = tables["conversion"]
    if weapon.name in conversion["weakened_blow_unlisted"]:
        return int(conversion["weakened_blow_unlisted"][weapon.name])
    row = conversion["weakened_blow_row"].get(weapon.name, weapon.name)
    return int(tables["weakened_blow_chart"][row])


def t4_reach(weapon: Weapon) -> str | None:
    """T4 reach (IV.3): short or long for a melee weapon of FFA size S or L (natural weapons
    short), None for the rest."""
    if weapon.ranged:
        return None
    reach: str | None = t4_tables()["conversion"]["reach_by_size"].get(weapon.size)
    return reach


def thrown_m_per_str(item: EquipmentItem) -> int | None:
    """A thrown weapon's FFA range in metres a STR level ("STR x 5"); None for the rest: a
    sling is shot, not thrown (reading T4-20)."""
    found = _STR_TIMES.search(item.row.get("max_range_text") or "")
    return int(found.group(1)) if found else None


def twod6_profile(weapon: Weapon) -> str:
    """The 2D6 range profile of a weapon: melee by FFA size, ranged by the spec's lists."""
    conversion = twod6_tables()["conversion"]
    if weapon.melee:
        return str(conversion["profile_by_size"][weapon.size])
    for profile, names in conversion["ranged_profiles"].items():
        if weapon.name in names:
            return str(profile)
    raise LookupError(f"no 2D6 range profile names the {weapon.label}")


def strength_dm_needed(str_min: int | None, cat: Catalog) -> int:
    """2D6 Recoil (ranged) or Heft (melee): the 2D6 DM of the lowest STR level whose FFA DV
    meets the weapon's STRmin; 0 without a STRmin (battle dress weapons)."""
    if str_min is None:
        return 0
    level = next(level for level in range(len(cat.hex_digits)) if cat.dm_dv(level)[1] >= str_min)
    return characteristic_dm(level)


def specialty_of(weapon: Weapon, cat: Catalog) -> str | None:
    """The specialty of the weapon's skill that names the weapon (+1 DM, FFA "Specialties")."""
    skill = cat.find_skill(weapon.skill.split(" (")[0])
    if skill is None or not skill.is_spec:
        return None
    return skill.find_specialty(weapon.name)


def _bands_within(bands: Iterable[Mapping[str, Any]], most_m: float | None) -> list[str]:
    """The bands whose nearest distance is not beyond a weapon's MAX (None: no MAX)."""
    return [b["name"] for b in bands if most_m is None or b["from_m"] <= most_m]


def _t4_figures(weapon: Weapon, item: EquipmentItem | None) -> dict[str, Any]:
    tables = t4_tables()
    thrown = item is not None and thrown_m_per_str(item) is not None
    if weapon.melee:
        bands: list[str] | None = [tables["range_bands"][0]["name"]]
    elif thrown:
        bands = None  # the thrower's STR decides (T4 V.10)
    else:
        bands = _bands_within(tables["range_bands"], weapon.max_range_m)
    length = item.row.get("length_mm") if item is not None else None
    return {
        "aimed_dm": None if weapon.melee else weapon.rmod,
        "bulk": max(length or 0, 0) // MILLIMETRES_PER_BULK,
        "length_mm": length or 0,
        "reach": t4_reach(weapon),
        "weak_blow": t4_weak_blow(weapon),
        "autofire": [
            {"rounds": rounds, "throws": t4_autofire_throws(rounds)}
            for rounds in autofire_bursts(weapon)
        ],
        "bands": bands,
        "thrown_kg": item.weight_kg if thrown and item is not None else None,
        "uncapped": SCATTER_NOTE in weapon.notes,
    }


def _twod6_figures(weapon: Weapon, item: EquipmentItem | None, cat: Catalog) -> dict[str, Any]:
    tables = twod6_tables()
    profile = twod6_profile(weapon)
    dms = tables["range_profiles"][profile]
    per_str = thrown_m_per_str(item) if item is not None else None
    most = None if per_str is not None or weapon.melee else weapon.max_range_m
    reached = _bands_within(tables["range_bands"], most)
    bursts = autofire_bursts(weapon)
    return {
        "profile": profile,
        "ranges": {band: dms[band] for band in reached if band in dms},
        "auto": bursts[0] if bursts else None,
        "recoil": strength_dm_needed(weapon.str_min, cat),
        "thrown_m_per_str": per_str,
    }


def weapon_row(weapon: Weapon, item: EquipmentItem | None, cat: Catalog) -> dict[str, Any]:
    """Every T4 and 2D6 figure of one catalog weapon (``item``: its row, None for a natural
    weapon)."""
    return {
        "name": weapon.name,
        "tl": weapon.tl,
        "skill": weapon.skill,
        "specialty": specialty_of(weapon, cat),
        "melee": weapon.melee,
        "armor_class": armor_class(weapon),
        "dice": weapon_dice(weapon),
        "acc_dm": min(weapon.acc, 0) if weapon.melee else 0,
        "t4": _t4_figures(weapon, item),
        "twod6": _twod6_figures(weapon, item, cat),
    }


def armor_row(item: EquipmentItem) -> dict[str, Any]:
    """Every T4 and 2D6 figure of one catalog armor, against each class of attack."""
    armor = armor_from_item(item)
    effective = {
        name: effective_av(armor, blunt, notes) for name, (blunt, notes) in ARMOR_CLASSES.items()
    }
    t4 = t4_tables()["conversion"]
    twod6 = twod6_tables()["conversion"]
    return {
        "name": item.name,
        "tl": item.tl,
        "ffa_av": armor.av,
        "effective_av": effective,
        "t4": {
            "av": {name: t4_armor_dice(av) for name, av in effective.items()},
            "rigid": item.name in t4["rigid_armor"],
            "covers": list(t4["armor_covers"][item.name]),
            "worn_under": item.name in t4["worn_under"],
        },
        "twod6": {
            "armour": {name: twod6_armour(av) for name, av in effective.items()},
            "worn": item.name not in twod6["not_worn"],
        },
    }


def build_figures(cat: Catalog | None = None) -> dict[str, Any]:
    """The contents of ``data/systems.json``, computed afresh from the catalog and the
    formulas."""
    cat = cat or catalog()
    weapons: dict[str, Any] = {}
    for natural in cat.natural_weapons:
        weapon = weapon_from_item(natural)
        weapons[weapon.label] = weapon_row(weapon, None, cat)
    for item in cat.equipment:
        if item.is_weapon:
            weapon = weapon_from_item(item)
            weapons[weapon.label] = weapon_row(weapon, item, cat)
    armor = {
        item.label: armor_row(item)
        for item in cat.equipment
        if item.table == "armor" and item.is_worn_armor
    }
    return {
        "note": (
            "GENERATED by python -m rules.combat.conversion from the FFA catalog, data/t4.json "
            "and data/twod6.json: do not edit by hand. docs/combat-t4.md and docs/combat-2d6.md "
            "give the formulas."
        ),
        "armor_classes": list(ARMOR_CLASSES),
        "characteristic_dms": [characteristic_dm(level) for level in range(len(cat.hex_digits))],
        "weapons": weapons,
        "armor": armor,
    }


def figures_text(figures: Mapping[str, Any]) -> str:
    """The file's text: one weapon or armor a line, so a diff shows which figure changed."""
    lines = ["{"]
    for index, (key, value) in enumerate(figures.items()):
        comma = "," if index < len(figures) - 1 else ""
        if isinstance(value, dict):
            lines.append(f"  {json.dumps(key)}: {{")
            rows = list(value.items())
            for row_index, (name, row) in enumerate(rows):
                row_comma = "," if row_index < len(rows) - 1 else ""
                lines.append(
                    f"    {json.dumps(name, ensure_ascii=False)}: "
                    f"{json.dumps(row, ensure_ascii=False)}{row_comma}"
                )
            lines.append(f"  }}{comma}")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_figures(path: Path = FIGURES_FILE) -> None:
    path.write_text(figures_text(build_figures()), encoding="utf-8")


if __name__ == "__main__":
    write_figures()
    sys.stdout.write(f"wrote {FIGURES_FILE}\n")
