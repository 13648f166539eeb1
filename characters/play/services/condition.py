"""The condition in play: a blow's damage, stun ending, dying and bleeding, each change kept
so the last one can be undone."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F
from django.utils import timezone

import rules
from characters.core import dice
from characters.core.selectors import character_report
from characters.core.services import Refused, lock_character, log_event
from characters.models import Character, CharacterEvent, ConditionChange, DiceRoll, PlayState
from characters.play.selectors import stored_condition, undoable_change
from rules import Condition, Event, Report
from rules.play import severity_rules


class PlayConflict(Refused):
    """The condition changed since the page was loaded (another tab): nothing was recorded."""


@dataclass(frozen=True, slots=True)
class PlayResult:
    """What an action did: the new condition and version, the engine's events in order, the
    change recorded (what its undo takes back), and the action test thrown for it, if any."""

    condition: Condition
    version: int
    events: tuple[Event, ...]
    change: ConditionChange
    roll: DiceRoll | None = None

    @property
    def message(self) -> str:
        return " ".join(event.message for event in self.events)


def _change_condition(
    character: Character,
    *,
    by: User | None,
    expected_version: int | None,
    what: str,
    change: Callable[[Character, Condition, Report], tuple[Condition, Iterable[Event]]],
) -> PlayResult:
    """Lock the character, read its condition, apply ``change`` (which calls the engine), store
    the result with the next version and log ``what`` and the engine's events."""
    locked = lock_character(character)
    report = character_report(locked)
    state = locked_play_state(locked, report, expected_version)
    before = stored_condition(state, report)
    after, events = change(locked, before, report)
    events = tuple(events)
    stored_after = rules.condition_as_dict(after)
    PlayState.objects.filter(pk=state.pk).update(condition=stored_after, version=F("version") + 1)
    # What the row held, not the rescaled condition: undoing puts back exactly what was there.
    recorded = ConditionChange.objects.create(
        character=locked, before=state.condition, after=stored_after, actor=by, what=what[:150]
    )
    detail = f"{what}. " + " ".join(event.message for event in events)
    log_event(locked, kind=CharacterEvent.Kind.PLAY, by=by, detail=detail.strip())
    return PlayResult(condition=after, version=state.version + 1, events=events, change=recorded)


def locked_play_state(locked: Character, report: Report, expected_version: int | None) -> PlayState:
    """The (locked) character's play state, locked too (made, unhurt, when there is none yet),
    at the version the page showed: PlayConflict when it moved on since."""
    state, _ = PlayState.objects.select_for_update().get_or_create(
        character=locked,
        defaults={"condition": rules.condition_as_dict(rules.condition_for(report))},
    )
    if expected_version is not None and state.version != expected_version:
        raise PlayConflict(
            f"{locked.name}'s sheet changed since this page was loaded (another tab or the "
            "referee recorded something): nothing was recorded. Here it is as it stands now; "
            "do it again if it still applies."
        )
    return state


@dataclass(frozen=True, slots=True)
class Undone:
    """What an undo did: the change it took back, and the condition and version now."""

    change: ConditionChange
    condition: Condition
    version: int

    @property
    def message(self) -> str:
        return f"Undone: {self.change.what}."


@transaction.atomic
def undo_last_condition_change(
    *, character: Character, by: User | None, expected_version: int | None = None
) -> Undone:
    """Put the character's condition back as it was before its last change that is not
    undone yet, mark that change undone and log the undo. Undoing again takes back the change
    before it, and so on.

    Refused when there is nothing to undo, when the page named a version the condition has
    moved on from (``PlayConflict``), or when the condition is no longer what the change left
    (it was changed some other way since): then nothing is written. Dice thrown for the
    change (a medical test) stay in the log: they were thrown."""
    locked = lock_character(character)
    state = PlayState.objects.select_for_update().filter(character=locked).first()
    if state is not None and expected_version is not None and state.version != expected_version:
        raise PlayConflict(
            f"{locked.name}'s condition changed since this page was loaded: nothing was undone. "
            "Here it is as it stands now; undo again if it still applies."
        )
    last, blocked = undoable_change(locked, state, by)
    if last is None or state is None or blocked:
        raise Refused(blocked)
    PlayState.objects.filter(pk=state.pk).update(
        **state.storing(last.system, last.before), version=F("version") + 1
    )
    last.undone_at = timezone.now()
    last.save(update_fields=["undone_at"])
    log_event(locked, kind=CharacterEvent.Kind.PLAY, by=by, detail=f"Undone: {last.what}.")
    report = character_report(locked)
    for field, value in state.storing(last.system, last.before).items():
        setattr(state, field, value)
    return Undone(change=last, condition=stored_condition(state, report), version=state.version + 1)


@transaction.atomic
def undo_condition_change(*, change: ConditionChange, by: User | None) -> None:
    """Undo ``change``, which another page made (an encounter's blow), while it is the
    character's last: nothing when it was undone already (on the play sheet); refused when a
    change recorded after it still stands, which undoing the last change would take back
    instead."""
    locked = lock_character(change.character)
    if locked.condition_changes.filter(pk=change.pk, undone_at__isnull=False).exists():
        return
    state = PlayState.objects.select_for_update().filter(character=locked).first()
    last, _ = undoable_change(locked, state, by)
    if last is not None and last.pk != change.pk:
        raise Refused(
            f'"{change.what}" cannot be undone: "{last.what}" was recorded on '
            f"{locked.name}'s play sheet since. Undo that there first."
        )
    undo_last_condition_change(character=locked, by=by)


def _wound_index(condition: Condition, wound: int) -> int:
    if not 0 <= wound < len(condition.wounds):
        raise Refused("That wound is no longer on the sheet; reload the page.")
    return wound


def blow(
    condition: Condition, amount: int, form: str, rng: random.Random
) -> tuple[Condition, tuple[Event, ...]]:
    """The engine's ``take_damage``, with the bleeding time thrown for the wound it makes when
    that wound's severity bleeds for a thrown time (a light wound: 1D days)."""
    severity = rules.blow_severity(condition, amount=amount, form=form)
    lasts = severity_rules(severity).bleed_lasts if severity else None
    return rules.take_damage(
        condition, amount=amount, form=form, bleed_lasts=lasts.roll(rng) if lasts else None
    )


@transaction.atomic
def take_damage(
    *,
    character: Character,
    by: User | None,
    amount: int,
    form: str,
    damage_type: str | None = None,
    armor: int = 0,
    expected_version: int | None = None,
    rng: random.Random | None = None,
) -> PlayResult:
    """Record one blow. ``form``: "S" stunning or "L" lethal. ``damage_type``: None when
    ``amount`` already has armor and TGH taken off, else "B" (blunt: less armor and TGH) or
    "P" (penetrating: less armor), with the character's TGH from its report. A wound that
    bleeds for a thrown time has it thrown here."""
    if form not in (rules.play.STUN, rules.play.LETHAL):
        raise Refused("Mark stunning (S) or lethal (L) damage.")
    if amount < 0 or armor < 0:
        raise Refused("Damage and armor are 0 or more.")
    rng = rng or dice.dice_source()

    def change(_, condition, report):
        if damage_type is None:
            return blow(condition, amount, form, rng)
        try:
            reaching = rules.damage_after_protection(
                amount, damage_type=damage_type, armor=armor, tgh=report.derived.TGH
            )
        except ValueError as error:
            raise Refused(str(error)) from None
        less = (
            f"armor {armor} and TGH {report.derived.TGH}"
            if damage_type == "B"
            else (f"armor {armor}")
        )
        note = Event("protection", f"{amount} less {less}: {reaching} reach LIF.")
        after, events = blow(condition, reaching, form, rng)
        return after, (note, *events)

    kind = "stunning" if form == rules.play.STUN else "lethal"
    return _change_condition(
        character,
        by=by,
        expected_version=expected_version,
        what=f"Took {amount} {kind} damage",
        change=change,
    )


@transaction.atomic
def end_stun(
    *, character: Character, by: User | None, expected_version: int | None = None
) -> PlayResult:
    """The stunned character has spent its turn recovering and acts normally again."""

    def change(_, condition, report):
        if not condition.stunned:
            raise Refused("The character is not stunned.")
        return rules.end_stun(condition), (Event("stun_ended", "No longer stunned."),)

    return _change_condition(
        character, by=by, expected_version=expected_version, what="Stun ended", change=change
    )


@transaction.atomic
def dying_turn(
    *, character: Character, by: User | None, expected_version: int | None = None
) -> PlayResult:
    """A turn passes for a dying character: the engine takes its LIF."""

    def change(_, condition, report):
        if not condition.dying:
            raise Refused("The character is not dying.")
        return rules.dying_turn(condition)

    return _change_condition(
        character, by=by, expected_version=expected_version, what="A dying turn", change=change
    )


@transaction.atomic
def bleed(
    *,
    character: Character,
    by: User | None,
    wound: int,
    expected_version: int | None = None,
) -> PlayResult:
    """A bleeding wound's period has passed: its additional damage."""

    def change(_, condition, report):
        index = _wound_index(condition, wound)
        try:
            return rules.bleed(condition, index)
        except ValueError as error:
            raise Refused(str(error)) from None

    return _change_condition(
        character, by=by, expected_version=expected_version, what="Bleeding", change=change
    )
