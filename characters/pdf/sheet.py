"""What a PDF sheet prints of a character: a :class:`Sheet` (its document, the engine's report
and what the app knows of it), worded and arranged as the template shows it, and its line on
a party's summary page."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from characters.core.selectors import key_skills
from characters.core.wording import (
    MINUS,
    STATE_WORDS,
    TIMES,
    armor_worn,
    catalog_item,
    credits_figure,
    figure,
    item_label,
    kg,
    signed,
    weapon_lines,
    with_specialty_dm,
)
from characters.models import CombatSystem
from characters.pdf.layout import breakable, notes_as_printed, one_line, one_per_line, table
from rules import HouseRules, Report, catalog, check_document, parse_document, play, stat_block
from rules.engine import ENCUMBERED
from rules.fighters import skill_specialties, weapon_from_item
from rules.play import Condition, SeverityRules
from rules.report import Derived, Equipment, EquipmentLine, SkillLine, TraitLine

# The skills box prints its table in this many tables side by side.
SKILL_COLUMNS: Final = 3


# Where a pencil sheet leaves a figure to be written in; in a table's cell, a shorter one.
PENCIL_BLANK: Final = "____________"
PENCIL_CELL: Final = "______"


# The trait that makes a character a member of the Travellers' Aid Society.
_TAS_TRAIT: Final = re.compile(r"\btas\b|travell?ers'? aid society", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Sheet:
    """One character to print: its document, the engine's report on it, and what the app knows.

    ``rolls`` are the mustering-out roll records the app keeps, in order, as dicts with ``die``,
    ``modifier``, ``row``, ``credits`` and ``rolled_at``; the sheet prints the report's figures
    and takes the date of each roll from the record at the same position.
    """

    document: Mapping[str, Any]
    report: Report
    rolls: tuple[Mapping[str, Any], ...] = ()
    status: str | None = None
    player: str | None = None
    # The character's state in play; with it the life track shows today's marks and wounds.
    condition: Condition | None = None
    # The engine's penalty for what the character carries in play, shown with the wounds'.
    encumbrance_penalty: int = 0
    # The engine's figures for what a stored character carries now (its creation equipment
    # and the gear its ledger bought or gave up); None prints the document's equipment.
    carried: Equipment | None = None
    # When the credits ledger has entries: the credits the character has now.
    credits_now: int | None = None
    # When the character's campaign fights under T4 or 2D6: that system's condition as the play
    # sheet shows it (characters.play.selectors.sheet_record: "system", "system_label" and
    # "record"), printed in boxes 14 and 15 in place of FFA's life track and wound thresholds,
    # which do not apply there. None under FFA.
    record: Mapping[str, Any] | None = None
    # For pencil: every running figure (what changes in play: LIF and its marks, wounds and
    # states, the derived attributes as they move, credits) is left blank. In pen each prints
    # as it stands now. The gear and the armor worn are the character's belongings, not
    # figures: both print them as carried and worn now (docs/features/sheets.md).
    pencil: bool = False


def sheet_for_document(
    document: Mapping[str, Any],
    *,
    house_rules: HouseRules | None = None,
    rolls: Iterable[Mapping[str, Any]] = (),
    status: str | None = None,
    player: str | None = None,
    condition: Condition | None = None,
) -> Sheet:
    """A sheet for a character document, checked under ``house_rules`` (a campaign's settings).

    Raises rules.MalformedDocument when the document is not a character document of format 1.
    """
    return Sheet(
        document=document,
        report=check_document(document, house_rules=house_rules),
        rolls=tuple(rolls),
        status=status,
        player=player,
        condition=condition,
    )


BOX: Final = "\u25a1"  # □, a life box
DASH: Final = "\u2013"  # the en dash of ranges


def sheet_context(sheet: Sheet) -> dict[str, Any]:
    report, document = sheet.report, sheet.document
    cat = catalog()
    species = cat.species.get(report.species)
    service = cat.services.get(report.service) if report.service else None
    skills = sorted(report.skills.lines, key=lambda line: line.name.lower())
    equipment = _equipment_now(sheet)
    mustering = report.mustering_out
    return {
        "title": report.name,
        "name": breakable(report.name),
        "upp": report.upp,
        "byline": _byline(sheet),
        "id_fields": [
            ("2. UPP", report.upp),
            ("3. Noble title", report.noble_title or "—"),
            ("4. Former rank", _rank(report)),
        ],
        "bio_fields": [
            ("5. Species", species.name if species else report.species),
            ("6. Service", service.name if service else (report.service or "—")),
            ("7. Terms served", report.terms),
            ("8. Age", figure(report.age)),
            ("9. Homeworld", document.get("homeworld") or "—"),
        ],
        "attributes": _attribute_table(report),
        "derived": table("t-derived", ("Attribute", "Value", "Now", "Name"), _derived_rows(sheet)),
        "psionics": _psionics(report),
        "tas": _tas(report),
        "lif": report.derived.LIF,
        "lif_boxes": _lif_boxes(report.derived.LIF),
        "in_play": _in_play(report, sheet.condition, sheet.encumbrance_penalty),
        "record": _record_boxes(sheet),
        "wnd": report.derived.WND,
        "wounds": table(
            "t-wound",
            ("Severity", "Multiple", "Damage", "Effect until stabilised or treated"),
            _wound_rows(report.derived.WND),
        ),
        "skill_tables": [
            table("t-skill", ("Skill", "Level"), (_skill_row(line) for line in part))
            for part in _columns(skills, SKILL_COLUMNS)
            if part
        ],
        "traits": table(
            "t-trait", ("Notation", "Trait"), (_trait_row(t) for t in report.traits), first=1
        ),
        "roll_count": len(mustering.rolls),
        "rolls_allowed": mustering.rolls_allowed,
        "rolls": table(
            "t-roll", ("Roll", "Die", "DM", "Row", "Credits", "Rolled"), _roll_rows(sheet)
        ),
        "money_row": _money_row(sheet),
        "str_dv": report.attribute("STR").dv,
        "weapons": table(
            "t-weapon",
            (
                "Weapon",
                "TL",
                "DMG",
                "Type",
                "ACC",
                "Rmod",
                "Range",
                "RoF",
                "Ammo",
                "Skill and notes",
            ),
            (
                (
                    w.weapon,
                    w.tl,
                    w.dmg,
                    w.damage_type,
                    w.acc,
                    w.rmod,
                    w.reach,
                    w.rof,
                    w.ammo,
                    " · ".join(w.notes) or "—",
                )
                for w in weapon_lines(equipment, skill_specialties(report.skills.lines))
            ),
        ),
        "armor": table(
            "t-armor", ("Armor", "TL", "AV", "STR min", "kg", "Notes"), _armor_rows(equipment)
        ),
        "armor_worn": f"Worn: {armor_worn(equipment)}"
        + ("; each blow meets the better AV" if equipment.armor_under else ""),
        "possessions": table(
            "t-item",
            ("Qty", "TL", "kg", "Cost", "Item"),
            (_possession_row(line) for line in equipment.lines),
            first=4,
        ),
        "load_row": _load_row(equipment),
        "notes": notes_as_printed(document.get("notes") or ""),
        "stat_block": breakable(
            stat_block(
                parse_document(document),
                report._replace(equipment=equipment),
                credits=f"Cr{PENCIL_BLANK}" if sheet.pencil else None,
            )
        ),
        # Errors only: a sheet is for play, and warnings (points unspent...) are the builder's.
        "problems": breakable(one_per_line(f"Error: {p.message}" for p in report.errors)),
    }


def _byline(sheet: Sheet) -> str:
    report = sheet.report
    parts = [
        "NPC" if report.kind == "npc" else "PC",
        f"{report.points.total} of {report.points.budget} points",
    ]
    if sheet.player:
        parts.append(f"player {sheet.player}")
    if sheet.status:
        parts.append(sheet.status)
    if not report.valid:
        parts.append("does not pass the rules check")
    return one_line(" · ".join(parts))


def _rank(report: Report) -> str:
    rank = report.rank
    return f"{rank.level} · {rank.title}" if rank.title else str(rank.level)


def _attribute_table(report: Report) -> dict[str, Any]:
    """The attributes in the UPP's order, a gap before each of its groups but the first (body,
    mind, background)."""
    cat = catalog()
    values = {a.code: a for a in report.attributes}
    rows: list[tuple[Any, ...]] = []
    gaps: set[int] = set()
    for group in ("body", "mind", "background"):
        if rows:
            gaps.add(len(rows))
        for code in cat.attribute_groups[group]:
            a = values[code]
            rows.append((code, a.level, a.hex, signed(a.dm), a.dv, cat.attribute_names[code]))
    return table(
        "t-attr", ("Attr", "Level", "Hex", "DM", "DV", "Attribute"), rows, gaps=sorted(gaps)
    )


def _skill_row(line: SkillLine) -> tuple[str, int]:
    """The skill (its cascade in brackets, then its specialties, each with the DM it adds where
    it applies) and its level."""
    name = f"{line.skill} ({line.cascade})" if line.cascade else line.skill
    if line.specialties:
        name += ": " + ", ".join(with_specialty_dm(specialty) for specialty in line.specialties)
    return (name, line.level)


def _derived_now(sheet: Sheet) -> Derived | None:
    """The derived attributes as the character stands now, after its wounds and its load, LIF
    as its marks leave it; None on a pencil sheet, which leaves them to be written in."""
    if sheet.pencil:
        return None
    condition = sheet.condition or play.condition_for(sheet.report)
    now = play.effective(
        sheet.report, condition, encumbrance_penalty=sheet.encumbrance_penalty
    ).derived
    return now._replace(LIF=condition.lif)


def _derived_rows(sheet: Sheet) -> list[tuple[str, int, Any, str]]:
    """Each derived attribute: its value, its value now (blank for pencil) and its name."""
    names = catalog().derived_names
    now = _derived_now(sheet)
    return [
        (code, value, PENCIL_CELL if now is None else getattr(now, code), names[code])
        for code, value in sheet.report.derived.as_dict().items()
    ]


def _psionics(report: Report) -> str:
    psionics = report.psionics
    if psionics is None:
        return "Not trained."
    talents = ", ".join(f"{name}-{level}" for name, level in psionics.talents) or "no talents"
    return f"PSI {psionics.strength} · trained (maximum {psionics.max_strength}) · {talents}"


def _tas(report: Report) -> str:
    memberships = [trait for trait in report.traits if _TAS_TRAIT.search(trait.name)]
    if not memberships:
        return "Not a member."
    return "Member · " + "; ".join(f"{trait.name} {trait.notation}" for trait in memberships)


def _lif_boxes(lif: int) -> str:
    """The life track: a "□" per LIF point, in groups of five, twenty to a line.

    The boxes are characters of the sheet's font, so the whole track is one run of text, far
    cheaper for WeasyPrint than drawn boxes, and as crisp at any size.
    """
    groups = [BOX * min(5, lif - start) for start in range(0, max(lif, 0), 5)]
    return one_per_line(" ".join(groups[i : i + 4]) for i in range(0, len(groups), 4))


def _in_play(
    report: Report, condition: Condition | None, encumbrance_penalty: int
) -> dict[str, Any] | None:
    """Today's marks, states and wounds, when the character has been hurt in play.

    Marked boxes are printed one element each ("/" stun, "x" lethal) so they line up with the
    blank boxes; an unhurt sheet keeps the single run of blank boxes, the fast path.
    """
    if condition is None or not (
        condition.stun or condition.lethal or condition.wounds or condition.stunned
    ):
        return None
    marks = play.boxes(condition)
    groups = [marks[start : start + 5] for start in range(0, len(marks), 5)]
    states = [STATE_WORDS[code] for code in play.condition_states(condition)]
    wounds = []
    for wound in condition.wounds:
        care = (
            "treated" if wound.treated else "stabilised" if wound.stabilised else "not stabilised"
        )
        if wound.bleeds and wound.bleeds_left is not None:
            left = play.severity_rules(wound.severity).bleed_time(wound.bleeds_left)
            care += f", bleeds {left} more"
        wounds.append(f"{wound.severity.capitalize()} wound ({wound.damage} damage, {care})")
    effective = play.effective(report, condition, encumbrance_penalty=encumbrance_penalty).derived
    changed = [
        f"{code} {getattr(effective, code)} (from {getattr(report.derived, code)})"
        for code in ENCUMBERED
        if getattr(effective, code) != getattr(report.derived, code)
    ]
    return {
        "rows": [groups[i : i + 4] for i in range(0, len(groups), 4)],
        "lif_now": condition.lif,
        "summary": "; ".join(
            [f"LIF now {condition.lif} of {condition.maximum}", *states, *wounds, *changed]
        ),
    }


def _record_boxes(sheet: Sheet) -> dict[str, Any] | None:
    """Boxes 14 and 15 under T4 or 2D6, worded as the play sheet's record: each characteristic's
    level, the points taken (lethal and stun under T4) and its value now; then the states and,
    under T4, the End-pool fatigue, the wound category, bleeding and injuries. For pencil the
    running figures are blank to be written in; the levels are the character's own."""
    if sheet.record is None:
        return None
    label, record = sheet.record["system_label"], sheet.record["record"]
    t4 = record["system"] == CombatSystem.T4
    columns = ("Characteristic", "Level", "Damage", *(("Stun",) if t4 else ()), "Now")

    def running(value: Any) -> Any:
        return PENCIL_CELL if sheet.pencil else value or DASH

    rows = [
        (
            row["code"],
            row["level"],
            running(row["damage"]),
            *((running(row["stun"]),) if t4 else ()),
            PENCIL_CELL if sheet.pencil else row["now"],
        )
        for row in record["rows"]
    ]
    return {
        "label": label,
        "table": table("t-record", columns, rows),
        "lines": _record_lines(record, t4, pencil=sheet.pencil),
        "kept_apart": f"The campaign fights under {label}; the FFA LIF track is kept apart "
        "and prints again under FFA.",
    }


def _record_lines(record: Mapping[str, Any], t4: bool, *, pencil: bool) -> list[str]:
    """The record's states, and under T4 its fatigue, wound, bleeding and injuries, a line each,
    in the play sheet's words (play.selectors.record_states); for pencil, blanks to fill."""
    if pencil:
        lines = [f"State: {PENCIL_BLANK}"]
        if t4:
            lines += [
                f"End-pool fatigue {PENCIL_BLANK} · worst wound since healed: {PENCIL_BLANK}",
                f"Bleeding: {PENCIL_BLANK}",
                f"Injuries: {PENCIL_BLANK}",
            ]
        return lines
    lines = [" · ".join(words for _code, words in record["states"])]
    if t4:
        fatigue = f"End-pool fatigue {record['fatigue']}"
        if record["stunned_rounds"]:
            rounds = record["stunned_rounds"]
            fatigue += f" · stunned for {rounds} more round{'' if rounds == 1 else 's'}"
        if record["wound"]:
            fatigue += f" · worst wound since healed: {record['wound']}"
        lines.append(fatigue)
        lines += [
            f"Bleeding {wound['per_round']} a round: {wound['effect']} ({wound['location']})"
            for wound in record["bleeding"]
        ]
        lines += [f"{injury['effect']} ({injury['location']})" for injury in record["injuries"]]
    return [one_line(line) for line in lines]


def _wound_rows(wnd: int) -> list[tuple[str, str, str, str]]:
    """The wound severities of DAMAGE AND INJURY: one wound's damage in multiples of WND."""
    rows = []
    for band in play.wound_bands(wnd):
        severity = band.severity
        if band.highest is None:
            multiple, damage = f"> {band.above_wnd_multiple}{TIMES}WND", f"{band.lowest}+"
        else:
            multiple = f"≤ {severity.up_to_wnd_multiple}{TIMES}WND"
            high = band.highest
            damage = f"{band.lowest}{DASH}{high}" if band.lowest < high else str(high)
        rows.append((severity.name.capitalize(), multiple, damage, _wound_effect(severity)))
    return rows


def _wound_effect(severity: SeverityRules) -> str:
    parts = []
    stabilised, treated = severity.body_until_stabilised, severity.body_until_treated
    if stabilised != treated:
        parts.append(f"body {signed(stabilised)}, {signed(treated)} once stabilised")
    elif treated:
        parts.append(f"body {signed(treated)} until treated")
    if severity.mind_until_treated:
        parts.append(f"mind tests {signed(severity.mind_until_treated)}")
    if severity.bleed_points and severity.bleed_every is not None:
        every = severity.bleed_every
        per = f"per {every.unit}" if every.count == 1 else f"per {every}"
        lasts = f" for {severity.bleed_lasts}" if severity.bleed_lasts else ""
        parts.append(f"{MINUS}{severity.bleed_points} LIF {per}{lasts}")
    return "; ".join(parts) or "none"


def _columns(items: Sequence[SkillLine], count: int) -> list[list[SkillLine]]:
    """Items split top to bottom into ``count`` columns, the first ones the longest."""
    per_column = max(1, -(-len(items) // count))
    return [list(items[i * per_column : (i + 1) * per_column]) for i in range(count)]


def _trait_row(trait: TraitLine) -> tuple[str, str]:
    details = []
    if trait.control_score is not None:
        details.append(f"control score {trait.control_score}")
    if trait.source == "package":
        details.append("species package")
    return (trait.notation, f"{trait.name} ({', '.join(details)})" if details else trait.name)


def _roll_rows(sheet: Sheet) -> list[tuple[Any, ...]]:
    rows = []
    for index, roll in enumerate(sheet.report.mustering_out.rolls):
        record = sheet.rolls[index] if index < len(sheet.rolls) else {}
        rows.append(
            (
                index + 1,
                roll.die,
                signed(roll.modifier),
                roll.row,
                credits_figure(roll.credits),
                _rolled_at(record.get("rolled_at")),
            )
        )
    return rows


def _rolled_at(value: Any) -> str:
    if value is None or value == "":
        return "—"
    if hasattr(value, "isoformat"):
        return value.isoformat(sep=" ", timespec="minutes")[:16]
    return str(value).replace("T", " ")[:16]


def summary_row(sheet: Sheet) -> dict[str, Any]:
    """A character's line on the party summary: who, UPP, derived attributes, best skills, the
    weapons it carries with the damage each does a point of effect, and the AV of its armor."""
    report = sheet.report
    equipment = _equipment_now(sheet)
    str_dv = report.attribute("STR").dv
    weapons = []
    for line in equipment.lines:
        item = catalog_item(line)
        if item is not None and item.table in ("melee", "ranged"):
            damage = weapon_from_item(item).damage_per_effect(str_dv)
            weapons.append((line.item, f"DMG {damage}"))
    return {
        "name": report.name,
        "player": sheet.player or "",
        "upp": report.upp,
        "derived": _derived_figures(sheet),
        "skills": ", ".join(key_skills(report)),
        "weapons": weapons,
        "armor": armor_worn(equipment),
    }


def _derived_figures(sheet: Sheet) -> list[str]:
    """The derived attributes as the referee meets the character today: LIF as it stands, and
    each figure its wounds and load move written with the sheet's value beside it; for pencil,
    the sheet's values, as its box 11 prints them."""
    derived = sheet.report.derived
    now = _derived_now(sheet)
    figures = []
    for code, value in derived.as_dict().items():
        current = value if now is None else getattr(now, code)
        if code == "LIF" and current != value:
            figures.append(f"LIF {current} of {value}")
        elif current != value:
            figures.append(f"{code} {current} (from {value})")
        else:
            figures.append(f"{code} {value}")
    return figures


def _equipment_now(sheet: Sheet) -> Equipment:
    """The equipment the character has now: what it carries, and the credits it has as the
    credits remaining (gear bought in play is paid from the ledger, not from the cash that
    ``Sheet.carried`` counts it against)."""
    creation = sheet.report.equipment
    carried = creation if sheet.carried is None else sheet.carried
    credits = creation.credits_remaining if sheet.credits_now is None else sheet.credits_now
    return carried._replace(credits_remaining=credits)


def _money_row(sheet: Sheet) -> str:
    mustering, equipment = sheet.report.mustering_out, sheet.report.equipment
    creation = (
        f"Mustering-out cash {credits_figure(mustering.credits)} · spent on equipment "
        f"{credits_figure(equipment.cost)}"
    )
    if sheet.pencil:
        return f"{creation} · credits {PENCIL_BLANK}"
    if sheet.credits_now is None:
        return f"{creation} · credits {credits_figure(equipment.credits_remaining)}"
    return (
        f"{creation} · credits after creation {credits_figure(equipment.credits_remaining)} · "
        f"credits now {credits_figure(sheet.credits_now)}"
    )


def _armor_rows(equipment: Equipment) -> list[tuple[str, ...]]:
    """The armor, "worn" beside each piece worn now, then its TL, AV, STR minimum, weight and
    notes."""
    worn = {equipment.armor_worn, equipment.armor_under, equipment.helmet_worn} - {None}
    rows: list[tuple[str, ...]] = []
    for line in equipment.lines:
        item = catalog_item(line)
        if item is None or item.table != "armor":
            continue
        figures = item.row
        rows.append(
            (
                item_label(line) + (" · worn" if item.label in worn else ""),
                figure(item.tl),
                figure(figures.get("av")),
                figure(figures.get("str_min")),
                kg(item.weight_kg),
                figure(figures.get("notes")),
            )
        )
    return rows


def _possession_row(line: EquipmentLine) -> tuple[str, ...]:
    name = line.item if line.table is not None else f"{line.item} (not in the catalog)"
    return (
        str(line.quantity),
        figure(line.tl),
        kg(line.weight_kg),
        credits_figure(line.cost),
        name,
    )


def _load_row(equipment: Equipment) -> str:
    if equipment.encumbrance_penalty:
        encumbered = ", ".join(
            f"{code} {value}"
            for code, value in equipment.encumbered_derived.as_dict().items()
            if code in ENCUMBERED
        )
        encumbrance = f"{MINUS}{equipment.encumbrance_penalty} ({encumbered})"
    else:
        encumbrance = "none"
    multiple = catalog().limits.unencumbered_str_multiple
    over = " · OVER CAPACITY" if equipment.over_capacity else ""
    return (
        f"Total {credits_figure(equipment.cost)}, {kg(equipment.load_kg)} kg · unencumbered up to "
        f"{equipment.unencumbered_kg} kg ({multiple} {TIMES} STR) · capacity "
        f"{equipment.capacity_kg} kg (STR²){over} · encumbrance {encumbrance}"
    )
