"""What every encounter action shares, whatever its combat system: the encounter locked at the
version its page showed, who may act, the record undo restores (``UndoRecord``), the log line
that moves the encounter to its next version, the turn order stored, the ammunition fired, and
a fighter's condition marked where it is kept (its play sheet, or the encounter's own record of
a group member or an animal), and what the systems' rounds do alike: who controls a fighter,
what the fight keeps between steps, an attack's log line, a new round's. The systems' rounds
(``ffa``, ``t4``, ``twod6``) are built of these; ``services`` is the one door the views use.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any

from django.contrib.auth.models import User
from django.db.models import F

import rules
from characters.core.selectors import is_referee
from characters.core.services import Refused
from characters.encounters.selectors import Board, Row, magazine_key, weapon_key
from characters.models import Character, Combatant, Encounter, EncounterEntry
from characters.play import record_services
from characters.play import services as play_services
from characters.play.selectors import carried_equipment, gear_key
from rules import Condition
from rules.catalog import EquipmentItem
from rules.combat import CombatRefused, Weapon
from rules.combat.records import Record, record_as_dict
from rules.wording import plural

Kind = EncounterEntry.Kind
Side = Combatant.Side
# What a fighter does with its turn: once one is logged in a round, the round has begun.
ROUND_ACTIONS = (Kind.ATTACK, Kind.PASS, Kind.DELAY, Kind.HOLD, Kind.AIM, Kind.LEADERSHIP)


class EncounterConflict(Refused):
    """The encounter changed since the page was loaded: nothing was done."""


def lock(
    encounter: Encounter, expected_version: int | None, *, ended_ok: bool = False
) -> Encounter:
    """The encounter's row, locked, at the version the page showed; an ended encounter is
    read-only (``ended_ok``: but for undoing its end)."""
    locked = Encounter.objects.select_for_update().get(pk=encounter.pk)
    locked.campaign = encounter.campaign
    refuse_if_stale(locked, expected_version)
    if locked.ended_at is not None and not ended_ok:
        raise Refused(f"{locked.name} has ended: it is read-only.")
    return locked


def refuse_if_stale(encounter: Encounter, expected_version: int | None) -> None:
    """EncounterConflict when the page's version is not the encounter's."""
    if expected_version is not None and encounter.version != expected_version:
        raise EncounterConflict(
            f"{encounter.name} changed since this page was loaded (someone else acted, or "
            "another tab did): nothing was done. Here it is as it stands now; do it again if it "
            "still applies."
        )


@dataclass(slots=True)
class UndoRecord:
    """What undoing one log entry restores, kept as the entry's ``before``.

    Taken before the action (``UndoRecord.of``): the encounter's round, turn, surprised side
    and leaders, what its combat system keeps (``system``), and each fighter's place and
    initiative (``order``, [position, initiative] by combatant) and system state. The action
    adds what it changes as it changes it: the conditions kept in the encounter (a group
    member's, an animal's), the play sheets' condition changes, the rounds loaded and the
    spare magazines counted before they moved, the magazines taken from a play sheet, and the
    fighters added. Keys are combatant ids as text, as the stored JSON has them.
    """

    round: int
    turn: int
    order: dict[str, list[int | None]]
    states: dict[str, Any]
    # None where an entry was logged before the record kept it: undo leaves it as it is.
    surprised: str | None
    leaders: dict[str, Any] | None
    system: dict[str, Any] | None
    conditions: dict[str, Any] = field(default_factory=dict)
    ammunition: dict[str, dict[str, int]] = field(default_factory=dict)
    # The rounds loaded in characters' weapons as their play sheets kept them, by character id.
    loaded: dict[str, dict[str, int]] = field(default_factory=dict)
    changes: list[int] = field(default_factory=list)
    magazines: list[dict[str, Any]] = field(default_factory=list)
    spares: dict[str, dict[str, int]] = field(default_factory=dict)
    added: list[int] = field(default_factory=list)
    # Entries logged before the play sheets' changes were kept name their characters only.
    sheets: list[int] = field(default_factory=list)

    @classmethod
    def of(cls, state: Board) -> UndoRecord:
        """The record of the encounter as it stands, before an action changes it."""
        return cls(
            round=state.encounter.round,
            turn=state.encounter.turn,
            surprised=state.encounter.surprised_side,
            leaders=dict(state.encounter.leaders),
            order={
                str(row.pk): [row.combatant.position, row.combatant.initiative]
                for row in state.rows
            },
            # What a T4 or 2D6 fight keeps between its steps, the fight's and each fighter's.
            system=dict(state.encounter.system_state),
            states={str(row.pk): row.combatant.system_state for row in state.rows},
        )

    @classmethod
    def stored(cls, before: Mapping[str, Any]) -> UndoRecord:
        """The record a log entry keeps (``EncounterEntry.before``), older entries' included."""
        return cls(
            round=before["round"],
            turn=before["turn"],
            order=before.get("order", {}),
            states=before.get("states", {}),
            surprised=before.get("surprised"),
            leaders=before.get("leaders"),
            system=before.get("system"),
            conditions=before.get("conditions", {}),
            ammunition=before.get("ammunition", {}),
            loaded=before.get("loaded", {}),
            changes=before.get("changes", []),
            magazines=before.get("magazines", []),
            spares=before.get("spares", {}),
            added=before.get("added", []),
            sheets=before.get("sheets", []),
        )

    def restore(self, encounter: Encounter) -> None:
        """Put the encounter's own figures back as they were (``log`` saves them)."""
        encounter.round, encounter.turn = self.round, self.turn
        if self.system is not None:
            encounter.system_state = self.system
        if self.surprised is not None:
            encounter.surprised_side = self.surprised
        if self.leaders is not None:
            encounter.leaders = self.leaders

    def as_json(self) -> dict[str, Any]:
        """The record as the log entry stores it."""
        stored = asdict(self)
        del stored["sheets"]  # only ever read from older entries
        return stored


def log(
    state: Board,
    *,
    kind: str,
    by: User,
    summary: str,
    before: UndoRecord | None,
    actor: Row | None = None,
    target: Row | None = None,
    detail: dict[str, Any] | None = None,
) -> EncounterEntry:
    """Write the log line and move the encounter to its next version; ``before`` is what
    undoing it restores (None: an undo, which is not undone in turn)."""
    encounter = state.encounter
    Encounter.objects.filter(pk=encounter.pk).update(
        round=encounter.round,
        turn=encounter.turn,
        surprised_side=encounter.surprised_side,
        leaders=encounter.leaders,
        ended_at=encounter.ended_at,
        system_state=encounter.system_state,
        version=F("version") + 1,
    )
    encounter.version += 1
    return EncounterEntry.objects.create(
        encounter=encounter,
        round=encounter.round,
        kind=kind,
        actor=actor.combatant if actor else None,
        target=target.combatant if target else None,
        summary=summary,
        detail=detail or {},
        before=before.as_json() if before is not None else {},
        by=by,
    )


def log_attack(
    state: Board,
    attacker: Row,
    target: Row,
    *,
    by: User,
    before: UndoRecord,
    summary: str,
    detail: dict[str, Any],
) -> EncounterEntry:
    """An attack's log line, on its attacker and its (first) target."""
    return log(
        state,
        kind=Kind.ATTACK,
        by=by,
        summary=summary,
        before=before,
        actor=attacker,
        target=target,
        detail=detail,
    )


def attack_recall(weapon: Weapon, rounds: int, target: Row) -> dict[str, Any]:
    """What a T4 or 2D6 attack's log line recalls besides the engine's result: the weapon, the
    rounds it took off a magazine, the target's name and its states after the blow."""
    return {
        "weapon": weapon.name,
        "rounds": rounds,
        "target_name": target.combatant.name,
        "states": [words for _, words in target.states],
    }


def counted_rounds(weapon: Weapon, rounds: int) -> int:
    """The rounds an attack takes off a magazine: none from a weapon that uses no ammunition."""
    return rounds if rules.combat.ammunition_for(weapon) is not None else 0


def log_round_begins(
    state: Board, *, by: User, before: UndoRecord, news: Iterable[str]
) -> EncounterEntry:
    """The log line of a new round (the round and its turn set): who acts first, and what
    happened to the fighters as it began (``news``)."""
    current = state.current
    first = f" {current.combatant.name} acts first." if current else ""
    summary = " ".join((f"Round {state.encounter.round} begins.{first}", *news))
    return log(state, kind=Kind.ROUND, by=by, summary=summary, before=before)


def reinforcements_initiative(rolls: list[dict[str, Any]]) -> dict[str, Any]:
    """The log's words and detail of the initiative reinforcements threw as they joined."""
    words = ", ".join(f"{roll['name']} {roll['total']}" for roll in rolls)
    return {"words": f"Initiative: {words}." if rolls else "", "rolls": rolls}


def update_fight_state(state: Board, **changes: Any) -> None:
    """Change what a T4 or 2D6 fight keeps on the encounter between its steps (saved with the
    log line)."""
    encounter = state.encounter
    encounter.system_state = {**encounter.system_state, **changes}


def update_fighter_state(row: Row, **changes: Any) -> None:
    """Change what a T4 or 2D6 fight keeps of a fighter between its steps (saved with the
    order)."""
    row.combatant.system_state = {**row.state, **changes}


def save_order(state: Board) -> None:
    """The rows' order as it stands, with each fighter's initiative and what its system keeps
    of it (T4 statuses, 2D6 initiative)."""
    for position, row in enumerate(state.rows):
        row.combatant.position = position
    Combatant.objects.bulk_update(
        [row.combatant for row in state.rows], ["position", "initiative", "system_state"]
    )


def next_able(state: Board, start: int) -> int:
    """The place of the first fighter from ``start`` on whose turn comes (past the end: the
    round is over)."""
    for index in range(start, len(state.rows)):
        if state.rows[index].takes_turn:
            return index
    return len(state.rows)


def lose_surprise(state: Board) -> str:
    """The surprised side is surprised no more (reading 27: the alarm is raised): it takes its
    turns and its own DEF from now on. Returns the words for the log."""
    encounter = state.encounter
    side = Side(encounter.surprised_side).label.lower()
    encounter.surprised_side = ""
    return f" Surprise is lost: {side} is no longer surprised."


def advance(state: Board) -> None:
    state.encounter.turn = next_able(state, state.encounter.turn + 1)


def controls(state: Board, user: User, row: Row) -> bool:
    """Whether ``user`` acts for the fighter: the referee for anyone, a player for their own
    character."""
    return is_referee(state.encounter.campaign, user.pk) or row.owned_by(user.pk)


def require_control(state: Board, by: User, row: Row, doing: str) -> None:
    """Refuse ``by`` unless they act for the fighter (``controls``); ``doing`` ends the
    message ("sets its status")."""
    if not controls(state, by, row):
        raise Refused(f"Only {row.combatant.name}'s player or the referee {doing}.")


def refuse_coup_de_grace_unless_referee(state: Board, by: User, coup_de_grace: bool) -> None:
    """A coup de grâce (a target out of action, reading 16) is the referee's choice alone."""
    if coup_de_grace and not is_referee(state.encounter.campaign, by.pk):
        raise Refused("Target: only the referee chooses a coup de grâce.")


def acting(state: Board, by: User, doing: str) -> Row:
    """The fighter whose turn it is, if ``by`` may act for it: the referee for anyone, a player
    for their own character."""
    current = state.current
    if current is None:
        raise Refused(
            "Nobody's turn: throw initiative first."
            if state.encounter.round == 0
            else "The round is over: start the next round."
        )
    if not controls(state, by, current):
        raise Refused(
            f"It is {current.combatant.name}'s turn: only its player or the referee can {doing}."
        )
    return current


def weapon_of(row: Row, key: str) -> Weapon:
    for weapon in row.fighter.weapons:
        if weapon_key(weapon) == key:
            return weapon
    raise Refused(f"Weapon: {row.combatant.name} has no {key.split('|')[0]}.")


def target_of(state: Board, attacker: Row, pk: int, label: str, *, finishing: bool = False) -> Row:
    """The target ``pk``; a fighter out of action only for a coup de grâce (``finishing``)."""
    target = state.row(pk)
    if target is None:
        raise Refused(f"{label}: that combatant is not in this encounter.")
    if target.pk == attacker.pk:
        raise Refused(f"{label}: a fighter does not attack itself.")
    if target.out_of_action and not finishing:
        words = target.states[0][1].lower()
        raise Refused(
            f"{label}: {target.combatant.name} is {words}, out of action: no target, unless "
            "the referee chooses a coup de grâce."
        )
    return target


@contextmanager
def refused_as_the_form_says(labels: Mapping[str, str]) -> Iterator[None]:
    """The engine's refusal of an attack planned within, as the attack form names its fields
    (``labels``: "Range: …")."""
    try:
        yield
    except CombatRefused as refused:
        label = labels.get(refused.field)
        raise Refused(f"{label}: {refused.message}" if label else str(refused)) from None


def take_magazine(
    row: Row,
    item: EquipmentItem,
    weapon: Weapon,
    by: User,
    encounter: Encounter,
    before: UndoRecord,
) -> None:
    """One spare magazine out: from what a character with a play sheet carries, through the
    credits ledger (``give_up_gear``, as any gear used up in play, so the document, paid for
    at creation, is not rewritten and the credits stay right); from a group member's own count
    in the encounter, which starts at its stat block's."""
    if row.group_member:
        before.spares.setdefault(str(row.pk), row.combatant.magazines)
        spares = dict(row.combatant.magazines)
        spares[magazine_key(item)] = row.spare_magazines(item) - 1
        row.combatant.magazines = spares
        Combatant.objects.filter(pk=row.pk).update(magazines=spares)
        return
    character = row.combatant.character
    assert character is not None
    entry = play_services.give_up_gear(
        character=character,
        by=by,
        item=item.name,
        tl=item.tl,
        note=f"{item.name} loaded into the {weapon.name} in {encounter.name}",
    )
    before.magazines.append({"character": character.pk, "item": entry.item, "tl": entry.tl})


def spare_magazines(row: Row, item: EquipmentItem) -> int:
    """The magazines of ``item`` the fighter has besides the loaded one."""
    if row.group_member:
        return row.spare_magazines(item)
    assert row.combatant.character is not None
    return sum(
        entry.quantity
        for entry in carried_equipment(row.combatant.character)
        if gear_key(entry.item, entry.tl) == (item.name, item.tl)
    )


@dataclass(frozen=True)
class Firing:
    """What an attack's rounds do to the fighter's count of a weapon's ammunition."""

    item: EquipmentItem
    loaded: dict[str, int]  # the rounds in each weapon, as they were
    fired: rules.combat.Fired


def firing(row: Row, weapon: Weapon, rounds: int) -> Firing | None:
    """The count of ``rounds`` fired from ``weapon``, as the engine counts them, before any of
    it is done; None when the fighter keeps no count (an animal, or a fighter that carries none
    of the weapon's ammunition). Refused when it has too few rounds and no magazine to load,
    so the odds say so before the throw, and the attack is refused before any die."""
    item = rules.combat.ammunition_for(weapon)
    if item is None or row.combatant.character is None:
        return None
    key = weapon_key(weapon)
    loaded = dict(row.loaded)
    spares = spare_magazines(row, item)
    if key not in loaded and not spares:
        return None
    try:
        fired = rules.combat.fire_rounds(item, rounds, loaded=loaded.get(key, 0), spares=spares)
    except CombatRefused as refused:  # "out of ...": it has no magazine left to load
        raise Refused(f"{row.combatant.name} is {refused.message}.") from None
    return Firing(item, loaded, fired)


def fire(
    row: Row, weapon: Weapon, rounds: int, by: User, encounter: Encounter, before: UndoRecord
) -> str:
    """Fire the attack's rounds (``firing``), taking out the magazine it loads; returns a note
    for the log, "" when the fighter keeps no count. A group member counts its own magazines,
    starting from its stat block's."""
    count = firing(row, weapon, rounds)
    if count is None:
        return ""
    character = row.combatant.character
    if row.group_member or character is None:
        before.ammunition.setdefault(str(row.pk), row.loaded)
    else:
        before.loaded.setdefault(str(character.pk), row.loaded)
    note = ""
    if count.fired.reloaded:
        take_magazine(row, count.item, weapon, by, encounter, before)
        # The catalog's item is "<weapon> ammunition", one of which is one magazine (reading
        # 33): "a new Revolver ammunition" does not read as English.
        note = (
            f" Loaded a fresh magazine into the {weapon.name} ({count.fired.spares} more carried)."
        )
    loaded = count.loaded | {weapon_key(weapon): count.fired.loaded}
    row.loaded = loaded
    if row.group_member or character is None:
        row.combatant.ammunition = loaded
        Combatant.objects.filter(pk=row.pk).update(ammunition=loaded)
    else:
        # The character's own: its next encounter starts from what is left.
        play_services.keep_rounds_loaded(character=character, loaded=loaded)
    return f"{note} {plural(count.fired.loaded, 'round')} left in the {weapon.name}."


def mark(
    row: Row,
    before: UndoRecord,
    *,
    on_sheet: Callable[[Character], play_services.PlayResult],
    here: Callable[[Condition], tuple[Condition, Iterable[rules.Event]]],
) -> tuple[rules.Event, ...]:
    """Change a fighter's condition where it is kept: through the play services (``on_sheet``)
    for a character with a play sheet, so its revisions, log and undo are the play sheet's;
    by the same rules function (``here``) on the encounter's own record of a group member or
    an animal. ``before`` learns what undoing it takes. Returns the engine's events."""
    if row.combatant.condition is None:
        assert row.combatant.character is not None
        result = on_sheet(row.combatant.character)
        before.changes.append(result.change.pk)
        row.condition = result.condition
        return result.events
    before.conditions[str(row.pk)] = row.combatant.condition
    after, events = here(row.condition)
    row.combatant.condition = rules.condition_as_dict(after)
    Combatant.objects.filter(pk=row.pk).update(condition=row.combatant.condition)
    row.condition = after
    return tuple(events)


def mark_record(
    row: Row,
    before: UndoRecord,
    after: Record,
    *,
    by: User,
    what: str,
    events: Iterable[rules.Event] = (),
) -> None:
    """A T4 or 2D6 record changed where it is kept: on a character's play sheet through the
    record services (refused when the sheet changed since the board read it), or in the
    encounter's own record of a group member; ``before`` learns what undoing it takes."""
    assert row.record is not None
    if row.combatant.condition is None:
        assert row.combatant.character is not None
        result = record_services.apply_outcome(
            character=row.combatant.character,
            by=by,
            system=row.system,
            planned_on=row.record,
            after=after,
            what=what,
            events=events,
        )
        before.changes.append(result.change.pk)
    else:
        before.conditions.setdefault(str(row.pk), row.combatant.condition)
        row.combatant.condition = record_as_dict(row.system, after)
        Combatant.objects.filter(pk=row.pk).update(condition=row.combatant.condition)
    row.record = after
