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

from html import escape
from typing import Any

from rules import Report, catalog
from rules.catalog import EquipmentItem
from rules.report import EquipmentLine, SkillLine, TraitLine

TWODSIX_VERSION = "7.5.2"
ACTOR_IMAGE = "icons/svg/mystery-man.svg"

# FFA's attributes by Twodsix characteristic key. Twodsix has no Presence, Awareness or
# Experience, but it has three relabelable "alternative" characteristics: they carry the three,
# under FFA's names, so all nine attributes stand on the sheet.
CHARACTERISTICS: tuple[tuple[str, str, str], ...] = (
    # (Twodsix key, FFA attribute, label)
    ("strength", "STR", "Strength"),
    ("dexterity", "DEX", "Dexterity"),
    ("endurance", "END", "Endurance"),
    ("intelligence", "INT", "Intelligence"),
    ("education", "EDU", "Education"),
    ("socialStanding", "SOC", "Social Standing"),
    ("alternative1", "PRE", "Presence"),
    ("alternative2", "AWA", "Awareness"),
    ("alternative3", "EXP", "Experience"),
)
# Twodsix characteristics FFA has no attribute for: written at 0 so that no invented figure
# reaches the table (psionic strength is filled in for a psionic character).
UNUSED_CHARACTERISTICS: tuple[tuple[str, str, str], ...] = (
    ("psionicStrength", "PSI", "Psionic Strength"),
    ("stamina", "STA", "Stamina"),
    ("lifeblood", "LFB", "Lifeblood"),
)

DERIVED_NAMES = {
    "DEF": "Defense",
    "INI": "Initiative",
    "MOV": "Movement",
    "TGH": "Toughness",
    "LIF": "Life",
    "WND": "Wound threshold",
}


def actor_for(report: Report, document: dict[str, Any]) -> dict[str, Any]:
    """The Twodsix ``traveller`` actor of a character: ``report`` is the engine's report on
    ``document`` (with the equipment and credits the character has now, if it is in play)."""
    items = [
        *(_skill_item(line) for line in report.skills.lines),
        *(_gear_item(line) for line in report.equipment.lines),
        *(_trait_item(trait) for trait in report.traits),
    ]
    return {
        "name": report.name,
        "type": "traveller",
        "img": ACTOR_IMAGE,
        "system": _actor_system(report, document),
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


def _characteristic(key: str, short_label: str, label: str, value: int) -> dict[str, Any]:
    return {
        "key": key,
        "value": value,
        "damage": 0,
        "label": label,
        "shortLabel": short_label,
        "displayShortLabel": short_label,
    }


def _characteristics(report: Report) -> dict[str, dict[str, Any]]:
    found = {
        key: _characteristic(key, code, label, report.attribute(code).level)
        for key, code, label in CHARACTERISTICS
    }
    for key, short_label, label in UNUSED_CHARACTERISTICS:
        value = report.psionics.strength if key == "psionicStrength" and report.psionics else 0
        found[key] = _characteristic(key, short_label, label, value)
    return found


def _actor_system(report: Report, document: dict[str, Any]) -> dict[str, Any]:
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
        # FFA's LIF is what Twodsix's hits are; Twodsix may recompute hits from characteristics
        # under its own settings, so LIF and WND are in the notes as well.
        "hits": {
            "value": report.derived.LIF,
            "max": report.derived.LIF,
            "min": 0,
            "lastDelta": 0,
        },
        "untrainedSkill": "",
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


def _item(item_type: str, name: str, system: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "type": item_type, "system": system, "effects": [], "flags": {}}


def _skill_item(line: SkillLine) -> dict[str, Any]:
    name = f"{line.skill} ({line.cascade})" if line.cascade else line.skill
    specialties = ", ".join(line.specialties)
    description = f"FFA: {line.name}" + (f". Specialties: {specialties}." if specialties else "")
    return _item(
        "skills",
        name,
        {
            **_item_base("skills", name, f"<p>{escape(description)}</p>"),
            "value": line.level,
            "shortdescr": f"Specialties: {specialties}" if specialties else "",
            "subtype": "",
            "prereq": "",
            "key": _key(name),
            # FFA skills are rolled with whichever attribute the situation calls for.
            "characteristic": "NONE",
            "difficulty": "Average",
            "rolltype": "Normal",
            "trainingNotes": "",
            "groupLabel": "",
        },
    )


def _trait_item(trait: TraitLine) -> dict[str, Any]:
    return _item(
        "trait",
        trait.name,
        {
            **_item_base("trait", trait.name, f"<p>{escape(f'{trait.name} {trait.notation}')}</p>"),
            "value": trait.points,
            "shortdescr": trait.notation,
            "subtype": trait.type,
            "prereq": "",
            "key": _key(trait.name),
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


def _gear_item(line: EquipmentLine) -> dict[str, Any]:
    item = _catalog_item(line)
    if item is None:
        return _item(
            "equipment", line.item, _gear_system("equipment", line, ["not in the catalog"])
        )
    row = item.row
    if item.table == "armor":
        return _armor_item(line, row)
    if item.table in ("melee", "ranged"):
        return _weapon_item(line, item.table, row)
    notes = [str(row["notes"])] if row.get("notes") else []
    return _item("equipment", line.item, _gear_system("equipment", line, notes))


def _armor_item(line: EquipmentLine, row: Any) -> dict[str, Any]:
    figures = [f"AV {_figure(row.get('av'))}", f"STR minimum {_figure(row.get('str_min'))}"]
    if row.get("notes"):
        figures.append(str(row["notes"]))
    return _item(
        "armor",
        line.item,
        {
            **_gear_system("armor", line, figures),
            "armor": row.get("av") or 0,
            "armorDM": 0,
            "secondaryArmor": {"value": 0, "protectionTypes": []},
            "radiationProtection": {"value": 0},
            "isPowered": False,
            "nonstackable": False,
            "armorType": "nothing",
        },
    )


def _weapon_item(line: EquipmentLine, table: str, row: Any) -> dict[str, Any]:
    if table == "melee":
        # FFA's melee weapons add a bonus to the wielder's damage rather than roll their own.
        damage, bonus = "", int(row.get("dmg_bonus") or 0)
        reach, magazine = "Melee", 0
        figures = [f"DMG {_signed(bonus)}", f"size {_figure(row.get('size'))}"]
    else:
        damage, bonus = str(row.get("dmg")), 0
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
    return _item(
        "weapon",
        line.item,
        {
            # FFA's ACC is a DM to the attack roll, which is what Twodsix's skill modifier is.
            **_gear_system("weapon", line, figures, str(row.get("skill") or ""), accuracy),
            "target": {"value": None, "width": None, "units": "m", "type": "none"},
            "range": reach,
            "damage": damage,
            "damageBonus": bonus,
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
        },
    )


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
    lines.extend(f"Trait {trait.name} {trait.notation}" for trait in report.traits)
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
