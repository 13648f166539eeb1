"""How a sheet words a figure: the play sheet, the PDF, the encounter page and the party table
write a modifier, a weight, an amount of credits, a chance, a state of the condition and a
weapon's line the same way, from here (the credits themselves: ``rules.wording``)."""

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final

from rules import catalog, wording
from rules.attack import chance_percent
from rules.catalog import EquipmentItem
from rules.fighters import names_specialty, weapon_from_item
from rules.report import Equipment, EquipmentLine

MINUS: Final = wording.MINUS
TIMES: Final = wording.TIMES

# The engine's states of a condition (rules.condition_states), as a sheet names them.
STATE_WORDS: Final[Mapping[str, str]] = {
    "dead": "Dead",
    "dying": "Dying",
    "halted": "Below 0 LIF, the dying halted by medical help",
    "unconscious": "Unconscious",
    "stunned": "Stunned",
    "bleeding": "Bleeding",
    "wounded": "Wounded",
}


def figure(value: Any) -> str:
    """A figure of a table, "—" where there is none."""
    return "—" if value is None or value == "" else str(value)


def signed(value: int | None) -> str:
    """A modifier with its sign: "+2", "-1" (with the minus sign), "0"; "—" where there is none."""
    if value is None:
        return "—"
    return f"+{value}" if value > 0 else f"{MINUS}{-value}" if value < 0 else "0"


def credits_figure(amount: int | None) -> str:
    """An amount of credits in a table ("Cr12,500"), "—" where there is none."""
    return "—" if amount is None else wording.credits(amount)


def kg(weight: float) -> str:
    """A weight in kilograms to the gram, without trailing zeros: "2.5", "0"."""
    return f"{weight:.3f}".rstrip("0").rstrip(".") if round(weight, 3) else "0"


def percent(chance: Fraction | float) -> str:
    """A chance of 0 to 1 as "58.3%"; "0%" and "100%" only when exact, so a test that can
    still fail (7775 in 7776) never reads as certain (the engine's ``chance_percent``)."""
    return f"{chance_percent(chance):.1f}%".replace(".0%", "%")


def catalog_item(line: EquipmentLine) -> EquipmentItem | None:
    """The catalog's item of an equipment line; None for an item the catalog does not have."""
    item = catalog().equipment_item(line.item, line.tl)
    return item if item is not None and item.table == line.table else None


def item_label(line: EquipmentLine) -> str:
    """The item, with how many when more than one: "Dagger", "Grenade x3" (the times sign)."""
    return line.item if line.quantity == 1 else f"{line.item} {TIMES}{line.quantity}"


@dataclass(frozen=True, slots=True)
class WeaponLine:
    """One weapon the character carries as the sheets print it: its figures as text ("—" where
    the table gives none), then the weapon and its notes (skill, size, the table's notes)."""

    tl: str
    dmg: str
    damage_type: str
    acc: str
    rmod: str
    reach: str
    rof: str
    ammo: str
    weapon: str
    notes: tuple[str, ...]

    @property
    def label(self) -> str:
        return " · ".join((self.weapon, *self.notes))


def with_specialty_dm(specialty: str) -> str:
    """A specialty with the DM it adds where it applies: "small craft (+1)"."""
    return f"{specialty} ({signed(catalog().limits.specialty_dm)})"


def armor_worn(equipment: Equipment) -> str:
    """The armor worn, each piece with its AV, as the play sheet and the PDF say it: "Combat
    armor (TL 11) (AV 33), with Reflec (TL 10) (AV 30) under it; Helmet (TL 5)" (a helmet
    counts for nothing in FFA personal combat)."""
    if equipment.armor_worn is None:
        worn = "No body armor"
    else:
        worn = f"{equipment.armor_worn} (AV {equipment.armor_av})"
    if equipment.armor_under:
        worn += f", with {equipment.armor_under} (AV {equipment.armor_under_av}) under it"
    return f"{worn}; {equipment.helmet_worn}" if equipment.helmet_worn else worn


def weapon_lines(
    equipment: Equipment, specialties: Mapping[str, frozenset[str]] | None = None
) -> list[WeaponLine]:
    """The weapons among ``equipment``'s lines, in its order, with the catalog's figures: the
    PDF's weapons box and the play sheet's weapon table. ``specialties``
    (``rules.fighters.skill_specialties``): a weapon one of them names says so in its notes,
    with the DM its attacks take."""
    lines = []
    for line in equipment.lines:
        item = catalog_item(line)
        if item is None or item.table not in ("melee", "ranged"):
            continue
        figures = item.row
        weapon = weapon_from_item(item)
        specialty = (
            f"specialty {with_specialty_dm(weapon.specialty)}"
            if weapon.specialty and names_specialty(weapon, specialties or {})
            else None
        )
        notes = [figures.get("skill"), specialty, figures.get("notes")]
        if item.table == "melee":
            notes.insert(1, f"size {figures['size']}" if figures.get("size") else None)
            dmg, reach, rmod, rof, ammo = signed(figures.get("dmg_bonus")), "melee", "—", "—", "—"
        else:
            dmg = figure(figures.get("dmg"))
            if figures.get("max_range_m") is not None:
                reach = f"{figures['max_range_m']:,} m"
            else:
                reach = figure(figures.get("max_range_text"))
            rmod = signed(figures.get("rmod"))
            rof = figure(figures.get("rof"))
            ammo = "∞" if figures.get("ammo_unlimited") else figure(figures.get("ammo"))
        lines.append(
            WeaponLine(
                tl=figure(item.tl),
                dmg=dmg,
                damage_type=figure(figures.get("damage_type")),
                acc=signed(figures.get("acc")),
                rmod=rmod,
                reach=reach,
                rof=rof,
                ammo=ammo,
                weapon=item_label(line),
                notes=tuple(str(note) for note in notes if note),
            )
        )
    return lines
