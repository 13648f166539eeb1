"""Writes of a character's T4 and 2D6 records in play (docs/combat-t4.md, "The T4 condition";
docs/combat-2d6.md, "The 2D6 condition"): a blow an encounter resolved, damage marked on the
play sheet, points restored, waking from shock, stun recovery, medical attention, a record
cleared; and the fresh records a campaign starts when it changes its combat system.

As the play services do for FFA's LIF track, each function locks the character, names the
``PlayState.version`` its page showed (``PlayConflict`` when it moved on), keeps the change as a
``ConditionChange`` of its system (so the play sheet's undo takes it back) and logs it. Every
rule is the engine's (``rules.combat.t4.condition``, ``rules.combat.twod6.condition``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F

import rules
from characters.core import dice
from characters.core.selectors import character_report
from characters.core.services import Refused, lock_character, log_event
from characters.models import (
    Campaign,
    Character,
    CharacterEvent,
    CombatSystem,
    ConditionChange,
    PlayState,
)
from characters.play.selectors import fighting_sheet, stored_record
from characters.play.services import locked_play_state
from rules import Event
from rules.combat import records
from rules.combat.records import Record
from rules.combat.sheet import PHYSICAL, FighterSheet
from rules.combat.t4 import condition as t4
from rules.combat.twod6 import condition as twod6

T4, TWOD6 = CombatSystem.T4.value, CombatSystem.TWOD6.value
# Whose change a T4 or 2D6 record's log line names.
LABELS = {T4: "T4", TWOD6: "2D6"}


@dataclass(frozen=True, slots=True)
class RecordResult:
    """What a change of a record did: the record and version now, the events, the change kept
    (what the play sheet's undo takes back)."""

    record: Record
    version: int
    events: tuple[Event, ...]
    change: ConditionChange

    @property
    def message(self) -> str:
        return " ".join(event.message for event in self.events)


Change = Callable[[FighterSheet, Any], tuple[Any, Iterable[Event]]]


def _check_system(system: str) -> None:
    if system not in records.SYSTEMS_WITH_RECORDS:
        raise Refused(f"FFA's LIF track is changed on the play sheet's own forms, not as {system}.")


@transaction.atomic
def change_record(
    *,
    character: Character,
    by: User | None,
    system: str,
    what: str,
    change: Change,
    expected_version: int | None = None,
) -> RecordResult:
    """Lock the character, read its ``system`` record, apply ``change`` (an engine function of
    the character's sheet and the record), store the result with the next version, keep the
    change and log ``what`` with the engine's events."""
    _check_system(system)
    locked = lock_character(character)
    report = character_report(locked)
    state = locked_play_state(locked, report, expected_version)
    before = stored_record(state, system)
    sheet = fighting_sheet(locked, report)
    after, events = change(sheet, records.record_from_dict(system, before))
    events = tuple(events)
    stored_after = records.record_as_dict(system, after)
    PlayState.objects.filter(pk=state.pk).update(
        **state.storing(system, stored_after), version=F("version") + 1
    )
    what = f"{LABELS[system]}: {what}"
    recorded = ConditionChange.objects.create(
        character=locked,
        system=system,
        before=before,
        after=stored_after,
        actor=by,
        what=what[:150],
    )
    detail = f"{what}. " + " ".join(event.message for event in events)
    log_event(locked, kind=CharacterEvent.Kind.PLAY, by=by, detail=detail.strip()[:300])
    return RecordResult(after, state.version + 1, events, recorded)


def apply_outcome(
    *,
    character: Character,
    by: User | None,
    system: str,
    planned_on: Record,
    after: Record,
    what: str,
    events: Iterable[Event] = (),
) -> RecordResult:
    """What an encounter's engine worked out for the character (a blow, the end of a round)
    stored on its play sheet: refused when the record is no longer the one it was worked out
    from (someone changed the sheet meanwhile), so nothing is applied to a record nobody saw."""

    def change(_: FighterSheet, record: Record) -> tuple[Record, Iterable[Event]]:
        if records.record_as_dict(system, record) != records.record_as_dict(system, planned_on):
            raise Refused(
                f"{character.name}'s {LABELS[system]} record changed on the play sheet while "
                "this was worked out: nothing was done. Do it again."
            )
        return after, events

    return change_record(character=character, by=by, system=system, what=what, change=change)


# -- the play sheet's actions ------------------------------------------------------------------


def _physical(code: str, allowed: Iterable[str] = PHYSICAL) -> str:
    codes = tuple(allowed)
    if code not in codes:
        raise Refused(f"Characteristic: choose one of {', '.join(codes)}.")
    return code


def take_points(
    *,
    character: Character,
    by: User | None,
    system: str,
    points: int,
    stat: str = "",
    stun: bool = False,
    overflow_to: str = "",
    expected_version: int | None = None,
) -> RecordResult:
    """Damage the referee marks by hand (a grenade, a fall: reading T4-19): under T4 ``points``
    off ``stat`` (lethal, or ``stun``), the wound category and shock settled; under 2D6 off END
    and then ``overflow_to`` (reading 2D-5: by default the higher of STR and DEX)."""
    if points < 1:
        raise Refused("Points: 1 or more.")

    if system == T4:
        code = _physical(stat, t4.DAMAGED)
        if stun and code not in PHYSICAL:
            raise Refused("Characteristic: stun damage is taken off STR, DEX or END only.")
        form = "stun" if stun else "lethal"

        def change(sheet: FighterSheet, record: Any) -> tuple[Any, Iterable[Event]]:
            if code not in sheet.levels:
                raise Refused(f"Characteristic: {character.name} has no {code}.")
            hurt, taken = t4.take(sheet, record, code, points, stun=stun)
            after = t4.settle(sheet, hurt)
            return after, (Event("damage", f"{code} took {taken} ({form})."),)

        what = f"took {points} {form} off {code}"
    else:
        overflow = _physical(overflow_to, twod6.OVERFLOW) if overflow_to else None

        def change(sheet: FighterSheet, record: Any) -> tuple[Any, Iterable[Event]]:
            after, applied = twod6.take_damage(sheet, record, points, overflow)
            taken = ", ".join(f"{code} {n}" for code, n in applied.items() if n)
            return after, (Event("damage", f"Taken: {taken or 'nothing (all at 0)'}."),)

        what = f"took {points} damage"
    return change_record(
        character=character,
        by=by,
        system=system,
        what=what,
        change=change,
        expected_version=expected_version,
    )


def restore_points(
    *,
    character: Character,
    by: User | None,
    system: str,
    stat: str,
    points: int,
    expected_version: int | None = None,
) -> RecordResult:
    """Points given back to a characteristic by healing or the referee (reading 2D-10; under T4
    stun first, reading T4-28)."""
    if points < 1:
        raise Refused("Points: 1 or more.")
    code = _physical(stat, t4.DAMAGED if system == T4 else PHYSICAL)
    restore = t4.restore if system == T4 else twod6.restore

    def change(_: FighterSheet, record: Any) -> tuple[Any, Iterable[Event]]:
        taken = record.taken(code) if system == T4 else record.damage.get(code, 0)
        if not taken:
            raise Refused(f"{code} has taken no damage to restore.")
        given = min(points, taken)
        return restore(record, code, given), (Event("restored", f"{code} +{given}."),)

    return change_record(
        character=character,
        by=by,
        system=system,
        what=f"{stat} restored {points}",
        change=change,
        expected_version=expected_version,
    )


def wake_from_shock(
    *, character: Character, by: User | None, expected_version: int | None = None
) -> RecordResult:
    """T4 VI.11: waking from shock (reading T4-27)."""

    def change(sheet: FighterSheet, record: Any) -> tuple[Any, Iterable[Event]]:
        if t4.state(sheet, record) == t4.DEAD:
            raise Refused(f"{character.name} is dead.")
        if not (record.unconscious or t4.zero_count(sheet, record)):
            raise Refused(f"{character.name} is not in shock.")
        after = t4.recover_from_shock(sheet, record)
        now = ", ".join(f"{c} {t4.current(sheet, after, c)}" for c in PHYSICAL)
        return after, (Event("woke", f"Awake again: {now}."),)

    return change_record(
        character=character,
        by=by,
        system=T4,
        what="woke from shock",
        change=change,
        expected_version=expected_version,
    )


def recover_stun(
    *,
    character: Character,
    by: User | None,
    expected_version: int | None = None,
    rng: random.Random | None = None,
) -> RecordResult:
    """T4 VI.12: an hour's rest gives 1D of stun back to a characteristic thrown at random
    among those with stun taken (one die a pick, as a critical hit's: reading T4-6)."""
    rng = rng or dice.dice_source()

    def change(_: FighterSheet, record: Any) -> tuple[Any, Iterable[Event]]:
        stunned = [code for code in PHYSICAL if record.stun.get(code, 0)]
        if not stunned:
            raise Refused(f"{character.name} has no stun damage to recover.")
        points = rng.randint(1, 6)
        pick = rng.randint(1, 6) if len(stunned) > 1 else None
        code = stunned[(pick - 1) * len(stunned) // 6] if pick is not None else stunned[0]
        picked = f", 1D {pick} picks {code}" if pick is not None else ""
        message = f"An hour's rest: 1D {points}{picked}: {code} recovers up to {points} stun."
        return t4.recover_stun(record, code, points), (Event("stun", message),)

    return change_record(
        character=character,
        by=by,
        system=T4,
        what="an hour's rest (stun)",
        change=change,
        expected_version=expected_version,
    )


def medical_attention(
    *, character: Character, by: User | None, expected_version: int | None = None
) -> RecordResult:
    """Medical attention stops every bleeding wound (T4 VI.2)."""

    def change(_: FighterSheet, record: Any) -> tuple[Any, Iterable[Event]]:
        if not record.bleeding:
            raise Refused(f"{character.name} is not bleeding.")
        return t4.medical_attention(record), (Event("bleeding", "The bleeding is stopped."),)

    return change_record(
        character=character,
        by=by,
        system=T4,
        what="medical attention",
        change=change,
        expected_version=expected_version,
    )


def clear_record(
    *,
    character: Character,
    by: User | None,
    system: str,
    expected_version: int | None = None,
) -> RecordResult:
    """Healed: the record starts again unhurt (the referee's word that the character is well)."""

    def change(_: FighterSheet, record: Any) -> tuple[Any, Iterable[Event]]:
        if records.is_unhurt(system, record):
            raise Refused(f"{character.name} is unhurt already.")
        return records.kind_of(system).unhurt(), (Event("healed", "Healed: unhurt."),)

    return change_record(
        character=character,
        by=by,
        system=system,
        what="healed",
        change=change,
        expected_version=expected_version,
    )


# -- a campaign changing its system ------------------------------------------------------------


def start_records_unhurt(*, campaign: Campaign, by: User | None, system: str) -> int:
    """A campaign now fighting under ``system`` starts that system's record unhurt for each of
    its characters (reading X-2: nothing converts between records). A record that was not
    unhurt is kept as a change, so the play sheet's undo can bring it back. Returns how many
    records were reset. Runs inside the campaign's own transaction."""
    reset = 0
    label = CombatSystem(system).label
    states = PlayState.objects.filter(character__campaign=campaign).select_related("character")
    for state in states:
        before = stored_record(state, system)
        if system == CombatSystem.FFA:
            unhurt = rules.condition_as_dict(rules.condition_for(character_report(state.character)))
        else:
            unhurt = records.record_as_dict(system, records.kind_of(system).unhurt())
        if before is None or before == unhurt:
            continue
        PlayState.objects.filter(pk=state.pk).update(
            **state.storing(system, unhurt), version=F("version") + 1
        )
        what = f"{label}: starts unhurt (the campaign now fights under it)"
        ConditionChange.objects.create(
            character=state.character,
            system=system,
            before=before,
            after=unhurt,
            actor=by,
            what=what,
        )
        log_event(state.character, kind=CharacterEvent.Kind.PLAY, by=by, detail=f"{what}.")
        reset += 1
    return reset
