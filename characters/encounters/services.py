"""Writes of an encounter: starting it, surprise, initiative, attacks, a turn's other actions,
rounds, morale tests, reinforcements, the end and undoing the last of them. Views change
encounters only through here.

Like every feature's services, each function takes keyword arguments only and runs in one
transaction: a refused action (``Refused``, its message for the user) writes nothing. An
encounter fights under one combat system, chosen when it starts (its campaign's by default):
each system's round has its own home (``ffa``, ``t4``, ``twod6``), built of what every
system shares (``recording``); the functions here lock the encounter, read its board and hand
it to its system. Every rule is the engine's. What an attack does to a character with a play
sheet goes through the play services (FFA's LIF track, or the T4 or 2D6 record), so its log,
undo and ``PlayState`` stay the one record of it; group members and animals keep their
condition in the encounter, changed by the same rules functions.

Concurrency. Every write locks the encounter's row and names the ``Encounter.version`` its
page showed; when the encounter moved on since (another tab, the referee), ``EncounterConflict``
refuses the action instead of applying it twice. Dice are thrown on the server with
``characters.core.dice``; every function that throws takes ``rng`` for tests.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

import rules
from characters.core import dice
from characters.core.selectors import character_report, is_referee
from characters.core.services import Refused, require_referee
from characters.encounters import ffa, t4, twod6
from characters.encounters.ffa import (
    EITHER,
    AttackOrder,
    plan,
    sheets_range_dms,
    spotter_of,
    surprise_refused,
    waiting_for,
)
from characters.encounters.recording import (
    ROUND_ACTIONS,
    EncounterConflict,
    Kind,
    Side,
    UndoRecord,
    acting,
    firing,
    lock,
    log,
    lose_surprise,
    next_able,
    refuse_if_stale,
)
from characters.encounters.selectors import (
    Board,
    animal_condition,
    board,
    fighter_for,
    side_fighters,
    wounds_of,
)
from characters.models import (
    Campaign,
    Character,
    Combatant,
    CombatSystem,
    ConditionChange,
    Encounter,
    EncounterEntry,
)
from characters.play import services as play_services
from rules.combat import CombatRefused
from rules.combat.records import kind_of, record_as_dict

__all__ = [
    "EITHER",
    "MAX_GROUP",
    "AttackOrder",
    "EncounterConflict",
    "Group",
    "Refused",
    "acting",
    "add_combatants",
    "attack",
    "end_encounter",
    "end_surprise",
    "firing",
    "hasten",
    "leadership",
    "morale_due",
    "name_leader",
    "plan",
    "react",
    "refuse_if_stale",
    "set_status",
    "sheets_range_dms",
    "spotter_of",
    "start_encounter",
    "surprise_refused",
    "tactics",
    "take_turn",
    "throw_initiative",
    "throw_morale",
    "throw_surprise",
    "undo_last",
    "waiting_for",
]

# Each system's round.
ROUNDS: Mapping[str, ModuleType] = {
    CombatSystem.FFA: ffa,
    CombatSystem.T4: t4,
    CombatSystem.TWOD6: twod6,
}

# Guards against slips, not rules: the most one group or one herd may field.
MAX_GROUP = 20
MAX_COMBATANTS = 40


@dataclass(frozen=True)
class Group:
    """Fighters fielded from one stat block: ``count`` of an NPC, or of an animal."""

    count: int
    side: str
    character: Character | None = None
    animal_type: str = ""
    weight_kg: float = 0.0


def _names(name: str, count: int, present: int = 0) -> list[str]:
    """Names for ``count`` fighters of one stat block, ``present`` of which fight already:
    the name alone for one on its own, else numbered on from those there."""
    if count == 1 and not present:
        return [name]
    return [f"{name} {n}" for n in range(present + 1, present + count + 1)]


def round_of(encounter: Encounter) -> ModuleType:
    """The home of the encounter's system's round: ``ffa``, ``t4`` or ``twod6``."""
    return ROUNDS[encounter.combat_system]


def _fielded(
    group: Group,
    encounter: Encounter,
    campaign: Campaign,
    present: Sequence[Combatant] = (),
) -> list[Combatant]:
    """The combatants a group fields: named after their stat block, numbered when several
    (on from those of the same stat block ``present`` in the fight already). A group member's
    condition starts unhurt in the encounter's system; animals fight under FFA only."""
    system = encounter.combat_system
    if group.character is None:
        if system != CombatSystem.FFA:
            raise Refused(
                f"Animals: they fight under FFA only in this version; "
                f"{CombatSystem(system).label} has no animal figures yet."
            )
        animal = {"type": group.animal_type, "weight_kg": group.weight_kg}
        try:
            fighter = fighter_for(Combatant(animal=animal))
        except ValueError as error:  # the engine's CombatRefused names the figure
            raise Refused(f"Animals: {error}") from None
        unhurt = rules.condition_as_dict(animal_condition(fighter))
        same = sum(c.animal == animal for c in present)
        return [
            Combatant(
                encounter=encounter, name=label, side=group.side, animal=animal, condition=unhurt
            )
            for label in _names(fighter.name, group.count, same)
        ]
    character = group.character
    if character.campaign_id != campaign.pk:
        raise Refused(f"{character.name} is not in {campaign.name}.")
    same = sum(c.character_id == character.pk for c in present)
    if same and character.kind == Character.Kind.PC:
        raise Refused(f"Party: {character.name} is in {encounter.name} already.")
    # Fielded alone, a character fights with its play sheet; a group member, unhurt, on its own.
    alone = group.count == 1 and not same
    if alone:
        condition = None
    elif system == CombatSystem.FFA:
        condition = rules.condition_as_dict(rules.condition_for(character_report(character)))
    else:
        condition = record_as_dict(system, kind_of(system).unhurt())
    return [
        Combatant(
            encounter=encounter,
            character=character,
            name=label,
            side=group.side,
            condition=condition,
        )
        for label in _names(character.name, group.count, same)
    ]


@transaction.atomic
def start_encounter(
    *,
    campaign: Campaign,
    by: User,
    name: str,
    groups: Sequence[Group],
    combat_system: str | None = None,
) -> Encounter:
    """The referee's new encounter with its combatants, under ``combat_system`` (None: the
    campaign's): a lone character keeps its condition on its play sheet; each member of a
    group of one NPC's stat block, and each animal, has a condition of its own in the
    encounter."""
    system = combat_system or campaign.combat_system
    if system not in CombatSystem.values:
        raise Refused("Combat system: choose one of those offered.")
    total = sum(group.count for group in groups)
    if total < 2:
        raise Refused("Combatants: an encounter needs at least two combatants.")
    if total > MAX_COMBATANTS:
        raise Refused(f"Combatants: at most {MAX_COMBATANTS} in one encounter, not {total}.")
    encounter = Encounter.objects.create(
        campaign=campaign, name=name.strip(), started_by=by, combat_system=system
    )
    combatants = [
        combatant for group in groups for combatant in _fielded(group, encounter, campaign)
    ]
    for position, combatant in enumerate(combatants):
        combatant.position = position
    Combatant.objects.bulk_create(combatants)
    return encounter


def _only(encounter: Encounter, system: str, doing: str) -> None:
    if encounter.combat_system != system:
        raise Refused(
            f"{doing.capitalize()} is {CombatSystem(system).label}'s; {encounter.name} fights "
            f"under {encounter.get_combat_system_display()}."
        )


@transaction.atomic
def throw_surprise(
    *,
    encounter: Encounter,
    by: User,
    may_be_surprised: str = EITHER,
    dms: dict[str, int] | None = None,
    sides: Mapping[str, Mapping[str, Any]] | None = None,
    expected_version: int | None = None,
    rng: random.Random | None = None,
) -> EncounterEntry:
    """Before initiative, the referee has the sides throw for surprise: FFA's contested AWA
    test (``may_be_surprised``, ``dms``: ``ffa.throw_surprise``) or T4's 1D each (``sides``:
    what the sheets cannot say of each, ``t4.throw_surprise``). 2D6 has none: its ambushers
    are marked prepared when initiative is thrown."""
    locked = lock(encounter, expected_version)
    require_referee(locked.campaign, by, "throw for surprise")
    if locked.round:
        raise Refused("Surprise: it is thrown before initiative, and the fight has begun.")
    if locked.entries.filter(kind=Kind.SURPRISE, undone_at__isnull=True).exists():
        raise Refused("Surprise: it was thrown already (undo it to throw again).")
    state = board(locked, entries=0)
    rng = rng or dice.dice_source()
    if locked.combat_system == CombatSystem.T4:
        return t4.throw_surprise(state, by=by, rng=rng, sides=sides)
    if locked.combat_system == CombatSystem.TWOD6:
        raise Refused(
            "Surprise: 2D6 has no surprise throw; mark the ambushers prepared when you throw "
            "initiative (they count 12)."
        )
    return ffa.throw_surprise(state, by=by, may_be_surprised=may_be_surprised, dms=dms, rng=rng)


@transaction.atomic
def throw_initiative(
    *,
    encounter: Encounter,
    by: User,
    tactics_kept: Mapping[int, int] | None = None,
    quick_draw: Collection[int] = (),
    prepared: Collection[int] = (),
    expected_version: int | None = None,
    rng: random.Random | None = None,
) -> EncounterEntry:
    """The referee throws initiative on the server: under FFA once, the engine breaking ties;
    under T4 every round (``tactics_kept`` at a fighter's first throw, ``quick_draw`` this
    round); under 2D6 once (``prepared``: the ambushers)."""
    locked = lock(encounter, expected_version)
    require_referee(locked.campaign, by, "throw initiative")
    state = board(locked, entries=0)
    rng = rng or dice.dice_source()
    if locked.combat_system == CombatSystem.T4:
        return t4.throw_initiative(
            state, by=by, rng=rng, tactics_kept=tactics_kept, quick_draw=quick_draw
        )
    if locked.combat_system == CombatSystem.TWOD6:
        return twod6.throw_initiative(state, by=by, rng=rng, prepared=prepared)
    return ffa.throw_initiative(state, by=by, rng=rng)


@transaction.atomic
def attack(
    *,
    encounter: Encounter,
    by: User,
    order: AttackOrder | t4.T4Order | twod6.TwoD6Order,
    expected_version: int | None = None,
    rng: random.Random | None = None,
) -> EncounterEntry:
    """The fighter whose turn it is attacks, under the encounter's system (its ``order``)."""
    locked = lock(encounter, expected_version)
    state = board(locked, entries=0)
    orders: dict[str, type] = {
        CombatSystem.FFA: AttackOrder,
        CombatSystem.T4: t4.T4Order,
        CombatSystem.TWOD6: twod6.TwoD6Order,
    }
    if not isinstance(order, orders[locked.combat_system]):
        raise Refused(f"Attack: {locked.name} fights under {locked.get_combat_system_display()}.")
    return round_of(locked).attack(state, by=by, order=order, rng=rng or dice.dice_source())


@transaction.atomic
def take_turn(
    *,
    encounter: Encounter,
    by: User,
    action: str,
    after: int | None = None,
    expected_version: int | None = None,
) -> EncounterEntry:
    """A turn's other actions, the system's (``ffa``, ``t4`` or ``twod6`` ``take_turn``): ending
    it, delaying or holding, acting now, aiming, a stunned fighter's recovery; and for the
    referee the end of T4's movement phase and the next round. Ending the movement phase
    does not name a version: the players' statuses set meanwhile are what it ends (the phase
    itself refuses a second end)."""
    in_step = action in STEPS_ANY_VERSION
    locked = lock(encounter, None if in_step else expected_version)
    state = board(locked, entries=0)
    return round_of(locked).take_turn(state, by=by, action=action, after=after)


# Turn actions taken whatever the version the page had: they do not depend on what changed
# since it was drawn, and their step refuses them once it is over. So one player's choice does
# not refuse another's or the referee's. (``set_status`` and ``hasten`` are such steps too.)
STEPS_ANY_VERSION = ("done_moving",)


@transaction.atomic
def set_status(
    *,
    encounter: Encounter,
    by: User,
    combatant: int,
    movement: str,
    action: str,
    expected_version: int | None = None,
) -> EncounterEntry:
    """T4's movement phase: a fighter's movement and action status this round (whatever the
    version the page had: ``STEPS_ANY_VERSION``)."""
    del expected_version
    locked = lock(encounter, None)
    _only(locked, CombatSystem.T4, "a movement status")
    return t4.set_status(
        board(locked, entries=0), by=by, combatant=combatant, movement=movement, action=action
    )


@transaction.atomic
def react(
    *,
    encounter: Encounter,
    by: User,
    reaction: str,
    expected_version: int | None = None,
    rng: random.Random | None = None,
) -> EncounterEntry:
    """2D6: the target's player (or the referee) answers an attack waiting for its reaction."""
    locked = lock(encounter, expected_version)
    _only(locked, CombatSystem.TWOD6, "a reaction")
    return twod6.react(
        board(locked, entries=0), by=by, reaction=reaction, rng=rng or dice.dice_source()
    )


@transaction.atomic
def tactics(
    *,
    encounter: Encounter,
    by: User,
    side: str,
    expected_version: int | None = None,
    rng: random.Random | None = None,
) -> EncounterEntry:
    """2D6: a side's unit commander throws Tactics, once, at the start of the fight."""
    locked = lock(encounter, expected_version)
    _only(locked, CombatSystem.TWOD6, "a Tactics check")
    return twod6.tactics(board(locked, entries=0), by=by, side=side, rng=rng or dice.dice_source())


@transaction.atomic
def hasten(
    *, encounter: Encounter, by: User, combatant: int, expected_version: int | None = None
) -> EncounterEntry:
    """2D6: a fighter acts hastily this round (whatever the version the page had:
    ``STEPS_ANY_VERSION``)."""
    del expected_version
    locked = lock(encounter, None)
    _only(locked, CombatSystem.TWOD6, "hastening")
    return twod6.hasten(board(locked, entries=0), by=by, combatant=combatant)


@transaction.atomic
def leadership(
    *,
    encounter: Encounter,
    by: User,
    ally: int,
    expected_version: int | None = None,
    rng: random.Random | None = None,
) -> EncounterEntry:
    """2D6: the fighter acting now spends its turn leading an ally."""
    locked = lock(encounter, expected_version)
    _only(locked, CombatSystem.TWOD6, "Leadership")
    return twod6.leadership(
        board(locked, entries=0), by=by, ally=ally, rng=rng or dice.dice_source()
    )


def morale_due(state: Board) -> list[str]:
    """The sides whose morale the engine says is tested now, and not yet at this count of
    fighters out of action."""
    tested = {
        (entry.detail.get("side"), entry.detail.get("out"))
        for entry in state.encounter.entries.filter(kind=Kind.MORALE, undone_at__isnull=True)
    }
    due = []
    for side in Side.values:
        rows = state.side(side)
        out = sum(row.out_of_action for row in rows)
        if rows and rules.combat.morale_check(len(rows), out) and (side, out) not in tested:
            due.append(side)
    return due


@transaction.atomic
def throw_morale(
    *,
    encounter: Encounter,
    by: User,
    side: str,
    combat_experience: bool | None = None,
    dm: int = 0,
    expected_version: int | None = None,
    rng: random.Random | None = None,
) -> EncounterEntry:
    """The referee throws a side's morale test, when the engine says one is due (reading 28):
    the side's one leader (the referee's, else the engine's) is present, adds its tactical
    skill, and fallen costs -2; the EXP thrown is the leader's while it stands, else the best
    standing. ``combat_experience``: the referee's word (None: the leader's trait); ``dm``: any
    DM the referee adds. The log line names the leader, whose EXP is thrown and every DM."""
    locked = lock(encounter, expected_version)
    require_referee(locked.campaign, by, "test morale")
    state = board(locked, entries=0)
    if side not in morale_due(state):
        raise Refused(f"Side: no morale test is due for {Side(side).label.lower()}.")
    rows = state.fielded(side)
    leader = state.leader(side)
    thrown = rules.dice.throw_attribute_test(rng or dice.dice_source())
    try:
        test = rules.combat.side_morale(
            thrown,
            side_fighters(rows),
            leader=str(leader.pk) if leader else None,
            combat_experience=combat_experience,
            referee_dm=dm,
        )
    except CombatRefused:
        raise Refused(f"Side: nobody of {Side(side).label.lower()} is left to test.") from None
    by_key = {str(row.pk): row for row in rows}
    thrower = by_key[test.thrower]
    result = test.result
    verdict = "holds" if result.passed else "breaks"
    told = "".join(f"; {m.label} {m.dm:+d}" for m in result.dms)
    if leader is None:
        led = f"no leader; {thrower.combatant.name} throws"
    elif leader.out_of_action:
        fallen = leader.states[0][1].lower()
        led = f"its leader {leader.combatant.name} is {fallen}; {thrower.combatant.name} throws"
    else:
        led = f"{leader.combatant.name} leads"
    summary = (
        f"Morale of {Side(side).label.lower()} ({led}): {result.total} vs TN {result.tn} "
        f"(dice {', '.join(map(str, thrown))}{told}): it {verdict}."
    )
    detail = {
        "side": side,
        "out": sum(row.out_of_action for row in rows),
        "leader": leader.combatant.name if leader else "",
        "tn": result.tn,
        "dms": [m.as_dict() for m in result.dms],
        "dice": list(result.dice),
        "total": result.total,
        "passed": result.passed,
    }
    return log(
        state,
        kind=Kind.MORALE,
        by=by,
        summary=summary,
        before=UndoRecord.of(state),
        actor=thrower,
        detail=detail,
    )


@transaction.atomic
def name_leader(
    *,
    encounter: Encounter,
    by: User,
    side: str,
    combatant: int,
    expected_version: int | None = None,
) -> EncounterEntry:
    """The referee names a side's leader (reading 28: one per side): the one "leader present",
    the leader's Tactics and "the leader is killed" refer to; a new leader who takes control
    after the last fell ends the -2."""
    locked = lock(encounter, expected_version)
    require_referee(locked.campaign, by, "name a side's leader")
    state = board(locked, entries=0)
    row = state.row(combatant)
    if row is None or row.combatant.side != side:
        raise Refused(f"Leader: choose one of {Side(side).label.lower()}.")
    before = UndoRecord.of(state)
    locked.leaders = {**locked.leaders, side: row.pk}
    summary = f"{row.combatant.name} leads {Side(side).label.lower()}."
    return log(state, kind=Kind.LEADER, by=by, summary=summary, before=before, actor=row)


@transaction.atomic
def end_surprise(
    *, encounter: Encounter, by: User, expected_version: int | None = None
) -> EncounterEntry:
    """The referee says surprise is lost (reading 27: an alarm, a shot heard, a surprised
    fighter attacked and left standing): the surprised side takes its turns and its own DEF
    from now on; one still to act this round acts in its place in the order."""
    locked = lock(encounter, expected_version)
    require_referee(locked.campaign, by, "end surprise")
    if not locked.surprised_side:
        raise Refused("Surprise: nobody is surprised.")
    state = board(locked, entries=0)
    before = UndoRecord.of(state)
    summary = lose_surprise(state).strip()
    if locked.round:
        # Lost before anyone acted this round, surprise cost the side no turn of it: the round
        # starts again from the first. Lost mid-round, those of the side still to act do.
        acted = locked.entries.filter(
            round=locked.round, kind__in=ROUND_ACTIONS, undone_at__isnull=True
        ).exists()
        locked.turn = next_able(state, locked.turn if acted else 0)
    return log(state, kind=Kind.ALARM, by=by, summary=summary, before=before)


@transaction.atomic
def add_combatants(
    *,
    encounter: Encounter,
    by: User,
    groups: Sequence[Group],
    expected_version: int | None = None,
    rng: random.Random | None = None,
) -> EncounterEntry:
    """Reinforcements: the referee adds party characters, more of an NPC's group, animals.
    Once initiative is thrown they throw theirs as they join and take their places by it (the
    system's ``join``); the fighter acting now keeps the turn."""
    locked = lock(encounter, expected_version)
    require_referee(locked.campaign, by, "add combatants")
    state = board(locked, entries=0)
    joining = sum(group.count for group in groups)
    if not joining:
        raise Refused("Combatants: choose who joins the fight.")
    if len(state.rows) + joining > MAX_COMBATANTS:
        raise Refused(
            f"Combatants: at most {MAX_COMBATANTS} in one encounter, "
            f"not {len(state.rows) + joining}."
        )
    before = UndoRecord.of(state)
    present = [row.combatant for row in state.rows]
    added: list[Combatant] = []
    for group in groups:
        for combatant in _fielded(group, locked, locked.campaign, [*present, *added]):
            combatant.position = len(present) + len(added)
            combatant.save()
            added.append(combatant)
    before.added = [combatant.pk for combatant in added]
    state = board(locked, entries=0)
    names = ", ".join(combatant.name for combatant in added)
    summary = f"Joining the fight: {names}."
    detail: dict[str, Any] = {"added": [combatant.name for combatant in added]}
    if locked.round:
        newcomers = [row for row in state.rows if row.pk in before.added]
        joined = round_of(locked).join(
            state, newcomers=newcomers, present=len(present), rng=rng or dice.dice_source()
        )
        summary = f"Joining the fight: {names}. {joined['words']}".strip()
        detail["rolls"] = joined["rolls"]
    return log(state, kind=Kind.JOIN, by=by, summary=summary, before=before, detail=detail)


def _rounds_fired(encounter: Encounter) -> dict[int, dict[str, int]]:
    """The rounds each fighter fired, by weapon, in the attacks not undone."""
    fired: dict[int, dict[str, int]] = {}
    attacks = encounter.entries.filter(kind=Kind.ATTACK, undone_at__isnull=True)
    for entry in attacks.exclude(actor=None):
        rounds = int(entry.detail.get("rounds", 0))
        if rounds and entry.actor_id is not None:
            weapons = fired.setdefault(entry.actor_id, {})
            weapons[entry.detail["weapon"]] = weapons.get(entry.detail["weapon"], 0) + rounds
    return fired


@transaction.atomic
def end_encounter(
    *, encounter: Encounter, by: User, expected_version: int | None = None
) -> EncounterEntry:
    """The referee ends the fight: its summary (who is out of action, the wounds, the rounds
    fired) is logged, and the encounter becomes read-only and leaves the campaign's active
    list for its past encounters. Undo reopens it."""
    locked = lock(encounter, expected_version)
    require_referee(locked.campaign, by, "end the encounter")
    state = board(locked, entries=0)
    before = UndoRecord.of(state)
    fired = _rounds_fired(locked)
    fighters = [
        {
            "name": row.combatant.name,
            "side": row.combatant.side,
            "out": row.out_of_action,
            # The play sheet's words, "Hurt, but fit to act" included: a scratch is not unhurt.
            "states": [words for _, words in row.states],
            # FFA's wound severities; a T4 or 2D6 record's points taken and wound category.
            "wounds": wounds_of(row),
            "lif": [row.condition.lif, row.condition.maximum],
            "rounds": fired.get(row.pk, {}),
            # Under T4 or 2D6: the record as the turn order showed it.
            "record": row.record_shown if row.record is not None else None,
        }
        for row in state.rows
    ]
    out = [row.combatant.name for row in state.rows if row.out_of_action]
    locked.ended_at = timezone.now()
    summary = (
        f"{locked.name} ends after {locked.round} round{'' if locked.round == 1 else 's'}. "
        "Out of action: "
        f"{', '.join(out) if out else 'nobody'}."
    )
    return log(
        state, kind=Kind.END, by=by, summary=summary, before=before, detail={"fighters": fighters}
    )


@transaction.atomic
def undo_last(
    *, encounter: Encounter, by: User, expected_version: int | None = None
) -> EncounterEntry:
    """Undo the encounter's last action: the turn, round and order as they were, the target's
    condition (a play sheet's through the play undo service), and the ammunition it used. The
    referee undoes anything; a player only what they did themselves. Undoing an encounter's
    end reopens it."""
    locked = lock(encounter, expected_version, ended_ok=True)
    last = (
        locked.entries.filter(undone_at__isnull=True)
        .exclude(kind=Kind.UNDO)
        .order_by("-created_at", "-id")
        .first()
    )
    if last is None:
        raise Refused("Nothing to undo.")
    if not is_referee(locked.campaign, by.pk) and last.by_id != by.pk:
        raise Refused("Only the referee can undo what someone else did.")
    before = UndoRecord.stored(last.before)
    _undo_on_play_sheets(locked, before, by)
    _restore_combatants(locked, before)
    before.restore(locked)
    if last.kind == Kind.END:
        locked.ended_at = None
    EncounterEntry.objects.filter(pk=last.pk).update(undone_at=timezone.now())
    state = Board(locked, [])
    return log(state, kind=Kind.UNDO, by=by, summary=f"Undone: {last.summary}", before=None)


def _undo_on_play_sheets(encounter: Encounter, before: UndoRecord, by: User) -> None:
    """Take back what the action did on the characters' play sheets: their condition changes
    (through the play undo service), the rounds loaded in their weapons and the magazines
    taken from what they carry."""
    for change in ConditionChange.objects.filter(pk__in=before.changes):
        play_services.undo_condition_change(change=change, by=by)
    for character_id in before.sheets:
        play_services.undo_last_condition_change(
            character=Character.objects.get(pk=character_id), by=by
        )
    for key, loaded in before.loaded.items():
        play_services.keep_rounds_loaded(character=Character.objects.get(pk=key), loaded=loaded)
    for magazine in before.magazines:
        play_services.buy_gear(
            character=Character.objects.get(pk=magazine["character"]),
            by=by,
            item=magazine["item"],
            tl=magazine["tl"],
            price=0,
            note=f"{magazine['item']} back from an undone attack in {encounter.name}",
        )


def _restore_combatants(encounter: Encounter, before: UndoRecord) -> None:
    """Each fighter as it was: the conditions kept in the encounter, the rounds loaded, the
    spare magazines, the place and initiative and what the system keeps; newcomers leave."""
    combatants = Combatant.objects.filter(encounter=encounter)
    for pk, condition in before.conditions.items():
        combatants.filter(pk=pk).update(condition=condition)
    for pk, ammunition in before.ammunition.items():
        combatants.filter(pk=pk).update(ammunition=ammunition)
    for pk, spares in before.spares.items():
        combatants.filter(pk=pk).update(magazines=spares)
    combatants.filter(pk__in=before.added).delete()
    for pk, (position, initiative) in before.order.items():
        combatants.filter(pk=pk).update(position=position, initiative=initiative)
    for pk, kept in before.states.items():
        combatants.filter(pk=pk).update(system_state=kept)
