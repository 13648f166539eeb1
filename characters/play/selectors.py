"""Reads of a character in play: its condition now, improvement points, credits and carried
gear, and the words the pages use for its state."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django.contrib.auth.models import User

import rules
from characters.core.selectors import character_report
from characters.core.wording import STATE_WORDS
from characters.models import (
    Character,
    CharacterQuerySet,
    CombatSystem,
    ConditionChange,
    PlayState,
)
from rules import (
    Condition,
    EquipmentEntry,
    Report,
    parse_document,
)
from rules.combat import records
from rules.combat.records import Record
from rules.combat.sheet import FighterSheet, fighter_sheet
from rules.combat.t4.condition import T4Condition
from rules.play import severity_rules
from rules.report import Equipment


def condition_of(character: Character, report: Report | None = None) -> tuple[Condition, int]:
    """The character's current condition (unhurt if nothing was recorded yet) and the
    version of it the page shows; rescaled when LIF or WND changed since it was stored."""
    report = report or character_report(character)
    return condition_in(play_state(character), report)


def play_state(character: Character) -> PlayState | None:
    """The character's play state as stored now (None while nothing is): read afresh, never
    from a copy cached on the instance, so a page drawn after a change sees the change. What is
    read is kept on the instance for the rest of the page (``stored_state``)."""
    state = PlayState.objects.filter(character=character).first()
    Character.play_state.related.set_cached_value(character, state)
    return state


def condition_in(state: PlayState | None, report: Report) -> tuple[Condition, int]:
    """The condition ``state`` stores (unhurt when there is none yet) and its version: for a
    page that read the states of many characters at once."""
    if state is None:
        return rules.condition_for(report), 1
    return stored_condition(state, report), state.version


def stored_state(character: Character) -> PlayState | None:
    """The play state read with the character (``select_related("play_state")``, as
    ``party_medics`` reads them); None while nothing is stored."""
    try:
        return character.play_state
    except PlayState.DoesNotExist:
        return None


def stored_condition(state: PlayState, report: Report) -> Condition:
    return rules.rescale(
        rules.condition_from_dict(state.condition),
        maximum=report.derived.LIF,
        wnd=report.derived.WND,
    )


def stored_record(state: PlayState | None, system: str) -> dict[str, Any] | None:
    """What the play state holds of ``system``'s condition: FFA's LIF track, or the T4 or 2D6
    record (None: none kept yet)."""
    if state is None:
        return None
    if system == CombatSystem.FFA:
        return state.condition
    return state.system_conditions.get(system)


def record_in(state: PlayState | None, system: str) -> Record:
    """The character's T4 or 2D6 record (unhurt while none is kept)."""
    return records.record_from_dict(system, stored_record(state, system))


def combat_system_of(character: Character) -> str:
    """The combat system the character's campaign fights under (FFA outside any campaign)."""
    campaign = character.campaign  # no query when there is none
    return campaign.combat_system if campaign is not None else CombatSystem.FFA


def fighting_sheet(character: Character, report: Report) -> FighterSheet:
    """The character as T4 and 2D6 read it, with the gear it carries and the armor it wears now
    (``report``: the stored document's, reused while nothing changed in play)."""
    if gear_changed_in_play(character):
        document = parse_document(character.document)
        return fighter_sheet(replace(document, equipment=tuple(carried_equipment(character))))
    return fighter_sheet(parse_document(character.document), report=report)


# The words of a T4 or 2D6 state, for the sheets and the encounter.
RECORD_STATE_WORDS = {
    records.DEAD: "Dead",
    records.UNCONSCIOUS: "Unconscious",
    records.STUNNED: "Stunned",
}


def record_states(system: str, sheet: FighterSheet, record: Record) -> list[tuple[str, str]]:
    """A T4 or 2D6 record's states for a sheet, worst first, as (code, words), as ``states``
    gives FFA's: dead alone; else unconscious, stunned, bleeding (T4) and the wound category;
    "ok" when the character is unhurt or hurt but fit."""
    state = records.record_state(system, sheet, record)
    if state == records.DEAD:
        return [("dead", "Dead")]
    found = [(state, RECORD_STATE_WORDS[state])] if state in RECORD_STATE_WORDS else []
    if isinstance(record, T4Condition):
        bleeding = sum(wound.per_round for wound in record.bleeding)
        if bleeding:
            found.append(("bleeding", f"Bleeding {bleeding} a round"))
        if record.wound is not None:
            found.append(("wounded", f"{record.wound.capitalize()} wound"))
    if not found:
        hurt = not records.is_unhurt(system, record)
        found.append(("ok", "Hurt, but fit to act" if hurt else "Unhurt"))
    return found


def record_view(system: str, sheet: FighterSheet, record: Record) -> dict[str, Any]:
    """A T4 or 2D6 record as a sheet shows it, in JSON's terms (an ended encounter keeps it):
    each characteristic's level, the points taken (lethal and stun under T4) and what is left,
    the states and, under T4, the End-pool fatigue, bleeding and injuries."""
    now = records.characteristics_now(system, sheet, record)
    taken = record.damage
    stun = record.stun if isinstance(record, T4Condition) else {}
    # 2D6 damage comes off END first (the seed's "Damage"): END leads its row.
    order = ("END", "STR", "DEX") if system == CombatSystem.TWOD6 else tuple(now)
    rows = [
        {
            "code": code,
            "level": sheet.levels[code],
            "damage": taken.get(code, 0),
            "stun": stun.get(code, 0),
            "now": now[code],
        }
        for code in order
    ]
    view: dict[str, Any] = {
        "system": system,
        "rows": rows,
        "state": records.record_state(system, sheet, record),
        "states": record_states(system, sheet, record),
        "hurt": not records.is_unhurt(system, record),
        "taken": sum(taken.values()) + sum(stun.values()),
    }
    if isinstance(record, T4Condition):
        view |= {
            "fatigue": record.fatigue,
            "wound": record.wound,
            "unconscious": record.unconscious,
            "stunned_rounds": record.stunned_rounds,
            "bleeding": [wound.as_dict() for wound in record.bleeding],
            "bleeding_per_round": sum(wound.per_round for wound in record.bleeding),
            "injuries": [injury.as_dict() for injury in record.injuries],
            "stun_taken": sum(stun.values()),
        }
    return view


def sheet_record(character: Character, state: PlayState | None, report: Report) -> dict[str, Any]:
    """The condition a sheet shows beside (or in place of) FFA's LIF track: the system the
    character's campaign fights under, and under T4 or 2D6 that system's record
    (``record_view``; None under FFA)."""
    system = combat_system_of(character)
    if system == CombatSystem.FFA:
        return {"system": system, "record": None}
    sheet = fighting_sheet(character, report)
    return {
        "system": system,
        "system_label": CombatSystem(system).label,
        "record": record_view(system, sheet, record_in(state, system)),
    }


def undoable_change(
    character: Character, state: PlayState | None, by: User | None
) -> tuple[ConditionChange | None, str]:
    """The character's last change of condition not undone yet, and why ``by`` cannot undo it
    ("" when they can): nothing was recorded, the condition ``state`` holds is no longer what
    that change left (it was changed some other way since), or someone else recorded it and
    ``by`` does not referee the campaign: a player does not take back the referee's blow."""
    last = (
        character.condition_changes.filter(undone_at__isnull=True)
        .select_related("actor")
        .order_by("-created_at", "-id")
        .first()
    )
    if last is None or state is None:
        return None, f"Nothing to undo: no change of {character.name}'s condition is recorded."
    if stored_record(state, last.system) != last.after:
        return last, (
            f'"{last.what}" cannot be undone: {character.name}\'s condition was changed another '
            "way since, and putting it back would lose that."
        )
    referee_id = character.campaign.referee_id if character.campaign is not None else None
    if by is not None and by.pk not in (last.actor_id, referee_id):
        if last.actor_id == referee_id:
            return last, f'"{last.what}" was recorded by the referee: only the referee can undo it.'
        recorder = last.actor.get_username() if last.actor is not None else "someone else"
        return last, (
            f'"{last.what}" was recorded by {recorder}: only they or the referee can undo it.'
        )
    return last, ""


def party_medics(user: User, character: Character) -> CharacterQuerySet:
    """Who in the character's party may give it medical care on its sheet: the campaign's other
    characters that ``user`` may see (their own, or every one for the campaign's referee),
    each read with its campaign and play state (``stored_state``) for its report and
    condition."""
    if character.campaign_id is None:
        return Character.objects.none()
    return (
        Character.objects.visible_to(user)
        .filter(campaign_id=character.campaign_id)
        .exclude(pk=character.pk)
        .select_related("campaign", "play_state")
        .order_by("name", "pk")
    )


def ip_balance(character: Character) -> int:
    # Summed from .all(), so entries prefetched for the play sheet are reused.
    return sum(entry.amount for entry in character.improvement_entries.all())


def credit_balance(character: Character, report: Report | None = None) -> int:
    """What creation left (mustering-out cash less creation equipment, by the engine) plus
    every credits entry since."""
    report = report or character_report(character)
    # Summed from .all(), so a ledger prefetched with the character (the party PDF) is reused.
    ledger = sum(entry.amount for entry in character.credit_entries.all())
    return report.equipment.credits_remaining + ledger


def gear_key(item: str, tl: int | None) -> tuple[str, int | None]:
    """An item as the catalog names it: (name, TL), so a document's "jack" and the ledger's
    "Jack" at TL 1 are one item. Items the catalog lacks keep their own name."""
    found = rules.catalog().equipment_item(item, tl)
    return (found.name, found.tl) if found is not None else (item, tl)


def worn_in_play(character: Character) -> set[tuple[str, int | None]] | None:
    """The armor the play sheet says the character wears now, as ``gear_key``s; None while
    nothing was chosen there (the document's ``worn`` marks hold). Read with the character
    (``select_related("play_state")``) where many are."""
    state = stored_state(character)
    if state is None or state.worn is None:
        return None
    return {gear_key(name, tl) for name, tl in state.worn}


def worn_marked(character: Character) -> set[tuple[str, int | None]]:
    """The armor the character document marks worn, as ``gear_key``s."""
    return {
        gear_key(entry["item"], entry.get("tl"))
        for entry in character.document.get("equipment") or ()
        if entry.get("worn")
    }


def carried_equipment(
    character: Character, *, worn: set[tuple[str, int | None]] | None = None
) -> list[EquipmentEntry]:
    """What the character carries now: the document's equipment, then every item the credits
    ledger added or took away, by item; items given up entirely are left out. Each is marked
    worn as ``worn`` says (``gear_key``s), by default as the play sheet chose
    (``worn_in_play``), else as the document marks it."""
    counts: dict[tuple[str, int | None], int] = {}
    for entry in character.document.get("equipment") or ():
        key = gear_key(entry["item"], entry.get("tl"))
        counts[key] = counts.get(key, 0) + entry.get("quantity", 1)
    for entry in character.credit_entries.all():  # a prefetched ledger is reused
        if entry.quantity:
            key = gear_key(entry.item, entry.tl)
            counts[key] = counts.get(key, 0) + entry.quantity
    if worn is None:
        worn = worn_in_play(character)
    if worn is None:
        worn = worn_marked(character)
    return [
        EquipmentEntry(
            item,
            quantity,
            tl if len(rules.catalog().equipment_named(item)) > 1 else None,
            worn=(item, tl) in worn,
        )
        for (item, tl), quantity in counts.items()
        if quantity > 0
    ]


def gear_changed_in_play(character: Character) -> bool:
    """Whether the credits ledger bought, sold or used up gear, or the play sheet chose the
    armor worn: if not, the character carries and wears its document's equipment still."""
    return (
        any(entry.quantity for entry in character.credit_entries.all())
        or worn_in_play(character) is not None
    )


def carried_load(character: Character, report: Report | None = None) -> Equipment:
    """The engine's load figures for what the character carries now (``carried_equipment``),
    with the armor it wears now.

    Given the report on the stored document, a ledger that never moved gear and armor never
    chosen in play cost no second check: the report's own equipment is what is carried. House
    rules change no equipment figure, so the carried load is checked without them.
    """
    if report is not None and not gear_changed_in_play(character):
        return report.equipment
    return rules.carried_load(parse_document(character.document), carried_equipment(character))


def equipment_now(character: Character, report: Report) -> Equipment:
    """The report's equipment as it stands in play: what the character carries now, and the
    credits it holds now in place of what creation left."""
    return carried_load(character, report)._replace(
        credits_remaining=credit_balance(character, report)
    )


def wound_notes(condition: Condition) -> list[dict[str, object]]:
    """For each wound, what the engine says about it now: its effect (the body change and mind
    DM it imposes), whether it bleeds, how often and for how long more (``bleed_left``; None:
    until stabilised), how long it bled if its thrown time is over (``bled_for``), the TNs and
    times of its stabilisation and treatment, and whether it still needs treatment or can be
    cleared."""
    notes = []
    for index, wound in enumerate(condition.wounds):
        table = severity_rules(wound.severity)
        body, mind = rules.play.wound_penalty(wound)
        left = wound.bleeds_left
        notes.append(
            {
                "index": index,
                "wound": wound,
                "body": body,
                "mind": mind,
                "bleeds": wound.bleeds,
                "bleed_points": table.bleed_points,
                "bleed_every": table.bleed_every,
                "bleed_left": table.bleed_time(left) if left else None,
                "bled_for": table.bleed_time(wound.bled) if left == 0 else None,
                "stabilisation_tn": table.stabilisation_tn,
                "rethrow": table.stabilisation_rethrow,
                "treatment_tn": table.treatment_tn,
                "treatment_time": table.treatment_time,
                # Where the wound stands, for the sheets to word: treated, stabilised, bleeding,
                # stopped (its thrown days of bleeding are over) or still (it never bled).
                "care": (
                    "treated"
                    if wound.treated
                    else "stabilised"
                    if wound.stabilised
                    else "bleeding"
                    if wound.bleeds
                    else "stopped"
                    if left == 0
                    else "still"
                ),
                "can_clear": wound.clearable,
                "needs_care": wound.needs_treatment,
            }
        )
    return notes


def states(condition: Condition) -> list[tuple[str, str]]:
    """The engine's states of the condition for a sheet, worst first, as (code, words); "ok"
    when the character is unhurt or only scratched (its wounds impose nothing)."""
    found = [(code, STATE_WORDS[code]) for code in rules.condition_states(condition)]
    if not found:
        hurt = condition.stun or condition.lethal
        found.append(("ok", "Hurt, but fit to act" if hurt else "Unhurt"))
    return found


def summary(
    character: Character, report: Report | None = None, *, load: Equipment | None = None
) -> dict[str, object]:
    """The character's state in play for a sheet: the LIF track, states, wounds and the
    derived attributes as the wounds leave them, with the IP and credits balances. ``load``:
    the carried load, when the caller has worked it out already."""
    report = report or character_report(character)
    condition, version = condition_of(character, report)
    penalty = (load or carried_load(character, report)).encumbrance_penalty
    effective = rules.effective(report, condition, encumbrance_penalty=penalty)
    return {
        **sheet_record(character, stored_state(character), report),
        "condition": condition,
        "version": version,
        "boxes": rules.boxes(condition),
        "states": states(condition),
        "wounds": wound_notes(condition),
        "derived_now": [
            (code, getattr(effective.derived, code), base)
            for code, base in report.derived.as_dict().items()
        ],
        "ip_balance": ip_balance(character),
        "credit_balance": credit_balance(character, report),
        "hurt": bool(condition.stun or condition.lethal or condition.wounds or condition.stunned),
    }
