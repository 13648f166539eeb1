"""Animals in a fight, by the conversion notes: the animal's type gives INI, DEF, the DEX and
AWA DMs and the dice of its attacks; its weight gives STR DV, the DM to hit it and the reach of
its natural weapons; its speed (S#) adds to INI and the DEX DM and gives MOV 6 x S#.

The notes give no LIF, WND or TGH; :func:`animal` derives them from the STR DV as for an average
human unless the referee gives them (docs/combat.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from .catalog import catalog, match_key
from .fighters import Armor, CombatRefused, Fighter, armor_from_item, combat_tables, weapon_named


def _animal_tables() -> Mapping[str, Any]:
    tables: Mapping[str, Any] = combat_tables()["animals"]
    return tables


ANIMAL_TYPES: tuple[str, ...] = tuple(row["name"] for row in _animal_tables()["types"])
NATURAL_WEAPONS: tuple[str, ...] = tuple(item.name for item in catalog().natural_weapons)


@dataclass(frozen=True, slots=True)
class Animal:
    """An animal as the referee describes it: its type (one of :data:`ANIMAL_TYPES`), weight in
    kg, speed (the S# of classic Traveller), natural weapons, armor and body figures."""

    name: str
    type: str
    weight_kg: float
    speed: int
    weapons: tuple[str, ...]
    armor: Armor | None
    lif: int
    wnd: int
    tgh: int
    damage: int | None = None


def _type_row(animal_type: str) -> Mapping[str, Any]:
    key = match_key(animal_type)
    for row in _animal_tables()["types"]:
        if key in (row["name"], row["name"] + "s"):
            return row  # type: ignore[no-any-return]
    raise CombatRefused(
        "type", f"unknown animal type {animal_type!r}; use one of {', '.join(ANIMAL_TYPES)}"
    )


def _size_row(weight_kg: float) -> Mapping[str, Any]:
    if not weight_kg > 0:
        raise CombatRefused("weight_kg", f"an animal weighs more than 0 kg, not {weight_kg}")
    for row in _animal_tables()["sizes"]:
        if row["up_to_kg"] is None or weight_kg <= row["up_to_kg"]:
            return row  # type: ignore[no-any-return]
    raise AssertionError("the last size row has no upper bound")


def _animal_armor(
    armor: str | None, armor_tl: int | None, modifier: int, av: int | None
) -> Armor | None:
    """The armor the animal's description names (its AV, changed by 3 x its modifier), or an
    AV given outright."""
    multiple = _animal_tables()["armor_modifier_multiple"]
    if av is not None:
        if av < 0:
            raise CombatRefused("av", f"an AV cannot be negative, not {av}")
        return Armor(name="natural armor", av=av)
    if armor is None:
        return None
    found = catalog().equipment_item(armor, armor_tl)
    if found is None or not found.is_worn_armor:
        at = f" at TL {armor_tl}" if armor_tl is not None else ""
        raise CombatRefused(
            "armor", f"no armor {armor!r}{at} in the armor table (give the TL where several exist)"
        )
    worn = armor_from_item(found)
    return Armor(
        name=worn.name,
        av=max(worn.av + modifier * multiple, 0),
        half_against=worn.half_against,
        full_against_notes=worn.full_against_notes,
    )


def animal(
    type: str,
    weight_kg: float,
    *,
    speed: int = 1,
    weapons: Sequence[str] = ("Teeth",),
    name: str | None = None,
    armor: str | None = None,
    armor_tl: int | None = None,
    armor_modifier: int = 0,
    av: int | None = None,
    damage: int | None = None,
    lif: int | None = None,
    wnd: int | None = None,
    tgh: int | None = None,
) -> Animal:
    """Describe an animal; CombatRefused names a field the tables cannot read.

    ``weapons``: natural weapons by name (Teeth, Claws, Horns, Hooves, Stinger, Thrasher...).
    ``armor`` (with ``armor_tl``, ``armor_modifier``) or ``av``: what protects it. ``damage``:
    the damage per EN its description lists, instead of DMG + STR DV. ``lif``, ``wnd``,
    ``tgh``: its body, derived from its STR DV when not given.
    """
    row = _type_row(type)
    size = _size_row(weight_kg)
    if speed < 0:
        raise CombatRefused("speed", f"the speed S# cannot be negative, not {speed}")
    known = {match_key(n): n for n in NATURAL_WEAPONS}
    names = []
    for weapon in weapons:
        if match_key(weapon) not in known:
            raise CombatRefused(
                "weapons", f"no natural weapon {weapon!r}; use {', '.join(NATURAL_WEAPONS)}"
            )
        names.append(known[match_key(weapon)])
    body = _animal_tables()["body_per_str_dv"]
    str_dv = size["str_dv"]
    # The least each figure given may be: LIF and WND of 1 (a LIF track starts above 0, and a
    # WND of 0 would make every wound fatal), no negative TGH or damage.
    for key, given, least, named in (
        ("lif", lif, 1, "LIF"),
        ("wnd", wnd, 1, "WND"),
        ("tgh", tgh, 0, "TGH"),
        ("damage", damage, 0, "listed damage"),
    ):
        if given is not None and given < least:
            raise CombatRefused(key, f"an animal's {named} is at least {least}, not {given}")
    return Animal(
        name=name or f"{row['name']} ({weight_kg:g} kg)",
        type=row["name"],
        weight_kg=weight_kg,
        speed=speed,
        weapons=tuple(names),
        armor=_animal_armor(armor, armor_tl, armor_modifier, av),
        lif=lif if lif is not None else body["LIF"] * str_dv,
        wnd=wnd if wnd is not None else body["WND"] * str_dv,
        tgh=tgh if tgh is not None else body["TGH"] * str_dv,
        damage=damage,
    )


def skill_level_of(notation: str) -> int | None:
    """The skill level that throws an animal's dice: "3DH" (and "1D") is level 3 (1); "2DL" is
    an unskilled throw (None)."""
    count, read = notation.split("D", 1)
    return None if read == "L" else int(count)


def fighter_from_animal(beast: Animal) -> Fighter:
    """The combat view of an animal: it attacks and is attacked like a character."""
    row = _type_row(beast.type)
    size = _size_row(beast.weight_kg)
    weapons = tuple(weapon_named(name) for name in beast.weapons)
    level = skill_level_of(row["skill"])
    skills = {weapon.skill: level for weapon in weapons} if level is not None else {}
    return Fighter(
        name=beast.name,
        kind="animal",
        DEF=row["ini_def"],
        INI=row["ini_def"] + beast.speed,
        MOV=_animal_tables()["mov_per_speed"] * beast.speed,
        TGH=beast.tgh,
        WND=beast.wnd,
        LIF=beast.lif,
        dex_dm=row["dex_dm"] + beast.speed,
        str_dv=size["str_dv"],
        awa_dm=row["awa_dm"],
        exp_dm=None,
        skills=MappingProxyType(skills),
        weapons=weapons,
        armor=beast.armor,
        size_dm=size["size_dm"],
        reach=size["reach"],
        damage=beast.damage,
    )
