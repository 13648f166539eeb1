"""A character as a Foundry VTT actor of the Twodsix system, for Foundry's "Import Data".

The shape follows Twodsix 7.5.2 (github.com/xdy/twodsix-foundryvtt at
bddb68eac389f199027f41f5ca77af0c1631b907): the ``traveller`` actor of
``src/module/data/actors/character-base.js`` and ``travellerData.js``, and the ``skills``,
``weapon``, ``armor``, ``equipment`` and ``trait`` items of ``src/module/data/items/`` (item type
names as registered in ``src/twodsix.js``). Every persisted field of those schemas is written, so
the file means the same whether or not Foundry fills in defaults; fields Twodsix derives itself
(a characteristic's ``mod``, hits, encumbrance, armor totals) are left for it to derive.

Figures come from the engine's report and the catalog's rows, never recomputed here. What Twodsix
has no field for (FFA's DM and DV, the derived attributes, traits' notation, the UPP, points…)
is listed in the actor's notes, so nothing is dropped without a word.
"""

from __future__ import annotations

import hashlib
import string
from collections import Counter
from html import escape
from typing import Any

from rules import Report, catalog, governing_attribute
from rules.catalog import EquipmentItem, match_key
from rules.fighters import weapon_from_item
from rules.report import EquipmentLine, SkillLine, TraitLine

TWODSIX_VERSION = "7.5.2"
ACTOR_IMAGE = "icons/svg/mystery-man.svg"

# FFA's attributes by Twodsix characteristic key. Twodsix has no Presence, Awareness or
# Experience, but it has three "alternative" characteristics: they carry the three. Twodsix finds
# a characteristic by its short label (its CHARACTERISTICS table in src/module/config.js: ALT1
# for alternative1...), so the short label stays Twodsix's own and FFA's code is the label the
# sheet displays.
CHARACTERISTICS: tuple[tuple[str, str, str, str], ...] = (
    # (Twodsix key, Twodsix short label, FFA attribute, label)
    ("strength", "STR", "STR", "Strength"),
    ("dexterity", "DEX", "DEX", "Dexterity"),
    ("endurance", "END", "END", "Endurance"),
    ("intelligence", "INT", "INT", "Intelligence"),
    ("education", "EDU", "EDU", "Education"),
    ("socialStanding", "SOC", "SOC", "Social Standing"),
    ("alternative1", "ALT1", "PRE", "Presence"),
    ("alternative2", "ALT2", "AWA", "Awareness"),
    ("alternative3", "ALT3", "EXP", "Experience"),
)
# What a skill item names as its characteristic: Twodsix's short label of the FFA attribute.
SHORT_LABELS = {code: short for _key, short, code, _label in CHARACTERISTICS}
# Twodsix characteristics FFA has no attribute for: psionic strength is filled in for a psionic
# character, and lifeblood holds FFA's LIF, so that under Twodsix's "Show Lifeblood and Stamina"
# setting its hits (stamina + lifeblood) are the character's LIF. Stamina stays 0: no invented
# figure reaches the table.
OTHER_CHARACTERISTICS: tuple[tuple[str, str, str, str], ...] = (
    # (Twodsix key, Twodsix short label, label displayed, label)
    ("psionicStrength", "PSI", "PSI", "Psionic Strength"),
    ("stamina", "STA", "STA", "Stamina"),
    ("lifeblood", "LFB", "LIF", "Life"),
)

# The skill Twodsix rolls with when a character has none fitting: Twodsix makes one (flagged
# twodsix.untrainedSkill) for a new actor, but "Import Data" replaces the actor's items, so the
# export brings its own. Its level is the skill schema's initial value, -3, which is also the
# unskilled DM this app's 2D6 reading uses.
UNTRAINED_SKILL = "Untrained"
UNTRAINED_LEVEL = -3

# Foundry's document ids: 16 letters and digits (foundry.utils.randomID).
ID_ALPHABET = string.ascii_letters + string.digits
ID_LENGTH = 16

DERIVED_NAMES = {
    "DEF": "Defense",
    "INI": "Initiative",
    "MOV": "Movement",
    "TGH": "Toughness",
    "LIF": "Life",
    "WND": "Wound threshold",
}


def actor_for(report: Report, document: dict[str, Any], *, seed: str = "") -> dict[str, Any]:
    """The Twodsix ``traveller`` actor of a character: ``report`` is the engine's report on
    ``document`` (with the equipment and credits the character has now, if it is in play).

    Every item has an ``_id`` made from ``seed`` (the character's own key; its name when none is
    given) and the item, so a character exported again keeps its items' ids. Each weapon's
    ``skill`` is the ``_id`` of its skill item, or of the Untrained skill when the character
    lacks the weapon's skill."""
    ids = _Ids(seed or report.name)
    untrained = _untrained_item(ids)
    skills = [_skill_item(line, ids) for line in report.skills.lines]
    skill_ids = {match_key(item["name"]): item["_id"] for item in skills}
    str_dv = report.attribute("STR").dv
    items = [
        untrained,
        *skills,
        *(
            _gear_item(line, ids, skill_ids, untrained["_id"], str_dv)
            for line in report.equipment.lines
        ),
        *(_trait_item(trait, ids) for trait in report.traits),
    ]
    return {
        "name": report.name,
        "type": "traveller",
        "img": ACTOR_IMAGE,
        "system": _actor_system(report, document, untrained["_id"]),
        "items": items,
        "effects": [],
        "prototypeToken": {
            "name": report.name,
            # A player character's token is the actor itself, not a copy per scene.
            "actorLink": True,
            "disposition": 1,
            "texture": {"src": ACTOR_IMAGE},
        },
        "flags": {"ffa": {"format": document.get("format"), "document": document}},
        "_stats": {"systemId": "twodsix", "systemVersion": TWODSIX_VERSION},
    }


class _Ids:
    """Foundry ids for a character's items, the same every time the character is exported."""

    def __init__(self, seed: str) -> None:
        self.seed = seed
        self.seen: Counter[tuple[str, str]] = Counter()

    def __call__(self, item_type: str, name: str) -> str:
        # The same name twice (two lines of one item at different TLs) gets two ids.
        self.seen[item_type, name] += 1
        key = f"{self.seed}\0{item_type}\0{name}\0{self.seen[item_type, name]}"
        number = int.from_bytes(hashlib.sha256(key.encode()).digest(), "big")
        letters = []
        for _ in range(ID_LENGTH):
            number, index = divmod(number, len(ID_ALPHABET))
            letters.append(ID_ALPHABET[index])
        return "".join(letters)


def _characteristic(
    key: str, short_label: str, display: str, label: str, value: int
) -> dict[str, Any]:
    return {
        "key": key,
        "value": value,
        "damage": 0,
        "label": label,
        "shortLabel": short_label,
        "displayShortLabel": display,
    }


def _characteristics(report: Report) -> dict[str, dict[str, Any]]:
    found = {
        key: _characteristic(key, short, code, label, report.attribute(code).level)
        for key, short, code, label in CHARACTERISTICS
    }
    values = {
        "psionicStrength": report.psionics.strength if report.psionics else 0,
        "stamina": 0,
        "lifeblood": report.derived.LIF,
    }
    for key, short, display, label in OTHER_CHARACTERISTICS:
        found[key] = _characteristic(key, short, display, label, values[key])
    return found


def _actor_system(report: Report, document: dict[str, Any], untrained_id: str) -> dict[str, Any]:
    credits = report.equipment.credits_remaining
    return {
        "name": report.name,
        "characteristics": _characteristics(report),
        "characteristicEdit": False,
        "primaryArmor": {"value": 0},
        "secondaryArmor": {"value": 0},
        "radiationProtection": {"value": 0},
        "armorType": "nothing",
        "armorDM": 0,
        "conditions": {"woundedEffect": 0, "encumberedEffect": 0},
        "movement": {
            "burrow": None,
            "climb": None,
            "fly": None,
            "swim": None,
            "walk": None,
            "units": "m",
            "hover": False,
        },
        "docReference": [""],
        "pdfReference": {"type": "", "href": "", "label": ""},
        "radiationDose": {"value": 0, "max": 0, "min": 0, "label": ""},
        "encumbrance": {"value": 0, "max": 0, "min": 0, "offset": 0},
        # FFA's LIF is what Twodsix's hits are. Twodsix recomputes hits from characteristics
        # (STR + DEX + END, or stamina + lifeblood under "Show Lifeblood and Stamina", which
        # gives LIF: docs/features/exports.md), so LIF and WND are in the notes as well.
        "hits": {
            "value": report.derived.LIF,
            "max": report.derived.LIF,
            "min": 0,
            "lastDelta": 0,
        },
        "untrainedSkill": untrained_id,
        "description": "",
        "notes": _notes(report),
        "bio": _paragraphs(document.get("notes") or ""),
        "homeWorld": document.get("homeworld") or "",
        "nationality": document.get("native_culture") or "",
        "primaryLanguage": document.get("native_language") or "",
        "species": report.species.capitalize(),
        "age": {"value": report.age, "min": report.age_minimum or 0},
        "gender": "",
        # Hero points are not an FFA rule: none are granted.
        "heroPoints": 0,
        "contacts": "",
        # Twodsix parses the cash text back into a number: digits only, no separators.
        "finances": {
            "cash": str(credits),
            "pension": "0",
            "payments": "0",
            "debt": "0",
            "livingCosts": "0",
            "financial-notes": "",
        },
        "financeValues": {
            "cash": credits,
            "pension": 0,
            "payment": 0,
            "debt": 0,
            "livingCosts": 0,
        },
        "hideStoredItems": dict.fromkeys(
            ("weapon", "armor", "augment", "equipment", "consumable", "attachment", "junk"),
            False,
        ),
        "experience": {"value": 0, "totalEarned": 0},
        "xpNotes": "",
        "displaySkillGroup": {},
    }


def _item_base(item_type: str, name: str, description: str) -> dict[str, Any]:
    """The fields of Twodsix's ``item-base.js`` every item has."""
    return {
        "name": name,
        "description": description,
        "type": item_type,
        "docReference": [""],
        "pdfReference": {"type": "", "href": "", "label": ""},
        "priorType": "unknown",
    }


def _item(
    ids: _Ids,
    item_type: str,
    name: str,
    system: dict[str, Any],
    flags: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "_id": ids(item_type, name),
        "name": name,
        "type": item_type,
        "system": system,
        "effects": [],
        "flags": flags or {},
    }


def _skill_system(name: str, level: int, characteristic: str, description: str) -> dict[str, Any]:
    return {
        **_item_base("skills", name, f"<p>{escape(description)}</p>" if description else ""),
        "value": level,
        "shortdescr": "",
        "subtype": "",
        "prereq": "",
        "key": _key(name),
        "characteristic": characteristic,
        "difficulty": "Average",
        "rolltype": "Normal",
        "trainingNotes": "",
        "groupLabel": "",
    }


def _untrained_item(ids: _Ids) -> dict[str, Any]:
    return _item(
        ids,
        "skills",
        UNTRAINED_SKILL,
        _skill_system(UNTRAINED_SKILL, UNTRAINED_LEVEL, "NONE", ""),
        flags={"twodsix": {"untrainedSkill": True}},
    )


def _skill_item(line: SkillLine, ids: _Ids) -> dict[str, Any]:
    name = f"{line.skill} ({line.cascade})" if line.cascade else line.skill
    specialties = ", ".join(line.specialties)
    description = f"FFA: {line.name}" + (f". Specialties: {specialties}." if specialties else "")
    # Rolled with the attribute FFA suggests for the skill (the player may choose another).
    characteristic = SHORT_LABELS[governing_attribute(line.skill)]
    system = _skill_system(name, line.level, characteristic, description)
    system["shortdescr"] = f"Specialties: {specialties}" if specialties else ""
    return _item(ids, "skills", name, system)


def _trait_item(trait: TraitLine, ids: _Ids) -> dict[str, Any]:
    return _item(
        ids,
        "trait",
        trait.title,
        {
            **_item_base(
                "trait", trait.title, f"<p>{escape(trait.title)} {escape(trait.notation)}</p>"
            ),
            "value": trait.points,
            "shortdescr": trait.notation,
            "subtype": trait.type,
            "prereq": "",
            "key": _key(trait.title),
        },
    )


def _catalog_item(line: EquipmentLine) -> EquipmentItem | None:
    found = catalog().equipment_item(line.item, line.tl)
    return found if found is not None and found.table == line.table else None


def _gear_system(
    item_type: str, line: EquipmentLine, figures: list[str], skill: str = "", modifier: int = 0
) -> dict[str, Any]:
    """The fields of Twodsix's ``gear-data.js``, per piece (the report's cost and weight are for
    the whole quantity)."""
    description = "; ".join(figures)
    return {
        **_item_base(item_type, line.item, f"<p>{escape(description)}</p>" if figures else ""),
        "techLevel": line.tl or 0,
        "shortdescr": description,
        "quantity": line.quantity,
        "weight": line.weight_kg / line.quantity,
        "price": line.cost / line.quantity,
        "traits": [],
        "consumables": [],
        "useConsumableForAttack": "",
        "skillModifier": modifier,
        "skill": "",
        "associatedSkillName": skill,
        # Carried, not worn or wielded: the player equips in Foundry what the character uses.
        "equipped": "backpack",
    }


def _gear_item(
    line: EquipmentLine, ids: _Ids, skill_ids: dict[str, str], untrained_id: str, str_dv: int
) -> dict[str, Any]:
    item = _catalog_item(line)
    if item is None:
        system = _gear_system("equipment", line, ["not in the catalog"])
        return _item(ids, "equipment", line.item, system)
    row = item.row
    if item.table == "armor":
        return _item(ids, "armor", line.item, _armor_system(line, row))
    if item.table in ("melee", "ranged"):
        system = _weapon_system(line, item, str_dv)
        skill = match_key(system["associatedSkillName"])
        system["skill"] = skill_ids.get(skill, untrained_id)
        return _item(ids, "weapon", line.item, system)
    notes = [str(row["notes"])] if row.get("notes") else []
    return _item(ids, "equipment", line.item, _gear_system("equipment", line, notes))


def _armor_system(line: EquipmentLine, row: Any) -> dict[str, Any]:
    figures = [f"AV {_figure(row.get('av'))}", f"STR minimum {_figure(row.get('str_min'))}"]
    if row.get("notes"):
        figures.append(str(row["notes"]))
    return {
        **_gear_system("armor", line, figures),
        "armor": row.get("av") or 0,
        "armorDM": 0,
        "secondaryArmor": {"value": 0, "protectionTypes": []},
        "radiationProtection": {"value": 0},
        "isPowered": False,
        "nonstackable": False,
        "armorType": "nothing",
    }


def _weapon_system(line: EquipmentLine, item: EquipmentItem, str_dv: int) -> dict[str, Any]:
    """A weapon's fields, ``skill`` left for the caller to link. ``damage`` is FFA's damage per
    point of effect, which Twodsix rolls as the formula: a ranged weapon's DMG, a melee weapon's
    DMG bonus plus the wielder's STR DV."""
    row = item.row
    damage = str(weapon_from_item(item).damage_per_effect(str_dv))
    if item.table == "melee":
        bonus = int(row.get("dmg_bonus") or 0)
        reach, magazine = "Melee", 0
        figures = [
            f"DMG {_signed(bonus)} + STR DV {str_dv} = {damage} a point of effect",
            f"size {_figure(row.get('size'))}",
        ]
    else:
        if row.get("max_range_m") is not None:
            reach = f"{row['max_range_m']} m"
        else:
            reach = str(row.get("max_range_text") or "")
        magazine = 0 if row.get("ammo_unlimited") else int(row.get("ammo") or 0)
        ammo = "unlimited" if row.get("ammo_unlimited") else _figure(row.get("ammo"))
        figures = [
            f"DMG {damage}",
            f"Rmod {_signed(int(row.get('rmod') or 0))}",
            f"range {reach}",
            f"RoF {_figure(row.get('rof'))}",
            f"ammunition {ammo}",
        ]
    accuracy = int(row.get("acc") or 0)
    figures[1:1] = [f"type {_figure(row.get('damage_type'))}", f"ACC {_signed(accuracy)}"]
    figures += [f"STR minimum {_figure(row.get('str_min'))}", f"skill {_figure(row.get('skill'))}"]
    if row.get("notes"):
        figures.append(str(row["notes"]))
    return {
        # FFA's ACC is a DM to the attack roll, which is what Twodsix's skill modifier is.
        **_gear_system("weapon", line, figures, str(row.get("skill") or ""), accuracy),
        "target": {"value": None, "width": None, "units": "m", "type": "none"},
        "range": reach,
        "damage": damage,
        # Twodsix never reads it: the whole per-point damage is the formula above.
        "damageBonus": 0,
        "magazineSize": magazine,
        "ammo": magazine,
        "magazineCost": float(row.get("ammo_cost") or 0),
        "lawLevel": "",
        "rangeBand": "none",
        "weaponType": "",
        # Twodsix's damage types are its own keys; FFA's (P/L, B/S…) is in the description.
        "damageType": "NONE",
        "rateOfFire": str(row.get("rof") or ""),
        "doubleTap": False,
        "isSingleAction": False,
        "recoil": False,
        "features": str(row.get("notes") or ""),
        "armorPiercing": "0",
        "parryAV": 0,
        "isShield": False,
        "handlingModifiers": "",
        "meleeRangeModifier": "0",
        "customCT": {
            "armor": dict.fromkeys(
                ("nothing", "jack", "mesh", "cloth", "reflec", "ablat", "combat"), "0"
            ),
            "range": dict.fromkeys(("close", "short", "medium", "long", "veryLong"), "0"),
        },
    }


def _notes(report: Report) -> str:
    """What Twodsix has no field for, as a list in the actor's notes."""
    lines = [
        f"UPP {report.upp}",
        f"{report.kind.upper()}, {report.species}"
        + (f", {report.service}, {report.terms} terms" if report.service else ""),
        "Attributes (level, hex, DM, DV): "
        + "; ".join(f"{a.code} {a.level} ({a.hex}) DM {_signed(a.dm)} DV {a.dv}"
                    for a in report.attributes),
        "Derived: "
        + "; ".join(f"{code} {value} ({DERIVED_NAMES[code]})"
                    for code, value in report.derived.as_dict().items()),
    ]  # fmt: skip
    equipment = report.equipment
    if equipment.encumbrance_penalty:
        lines.append(
            f"Encumbered (-{equipment.encumbrance_penalty}): "
            + "; ".join(f"{c} {v}" for c, v in equipment.encumbered_derived.as_dict().items())
        )
    lines.append(
        f"Load {equipment.load_kg} kg of {equipment.unencumbered_kg} kg unencumbered, "
        f"{equipment.capacity_kg} kg at most"
    )
    if report.rank.level or report.rank.title:
        lines.append(
            f"Rank {report.rank.level}" + (f" {report.rank.title}" if report.rank.title else "")
        )
    if report.noble_title:
        lines.append(f"Noble title {report.noble_title}")
    lines.extend(f"Trait {trait.title} {trait.notation}" for trait in report.traits)
    lines.extend(f"Skill {line.name}" for line in report.skills.lines)
    if report.psionics:
        talents = ", ".join(f"{name}-{level}" for name, level in report.psionics.talents)
        lines.append(
            f"Psionics: strength {report.psionics.strength} of {report.psionics.max_strength}"
            + (f"; talents {talents}" if talents else "")
        )
    points = report.points
    lines.append(
        f"Points {points.total} of {points.budget} ({points.remaining} left): attributes "
        f"{points.attributes}, skills {points.skills}, perks {points.perks}, flaws "
        f"{points.flaws}, rank {points.rank}, psionics {points.psionics}, package {points.package}"
    )
    lines.append(f"Mustering-out cash Cr{report.mustering_out.credits}")
    lines.append(
        "Twodsix derives its own characteristic modifiers and hits: FFA's DM, DV and derived "
        "attributes above are the rules' figures. Equip in Foundry what the character wears "
        "and wields."
    )
    items = "".join(f"<li>{escape(line)}</li>" for line in lines)
    return f"<h2>From the FFA character builder</h2><ul>{items}</ul>"


def _paragraphs(text: str) -> str:
    return "".join(f"<p>{escape(part)}</p>" for part in text.split("\n\n") if part.strip())


def _figure(value: object) -> str:
    return "—" if value is None or value == "" else str(value)


def _signed(value: int) -> str:
    return f"+{value}" if value > 0 else str(value)


def _key(name: str) -> str:
    return "".join(word.capitalize() for word in name.replace("(", " ").replace(")", " ").split())
