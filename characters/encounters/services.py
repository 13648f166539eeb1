"""Writes of an encounter: starting it, initiative, attacks, delays, rounds, morale tests and
undoing the last of them. Views change encounters only through here.

Like every feature's services, each function takes keyword arguments only and runs in one
transaction: a refused action (``Refused``, its message for the user) writes nothing. Every rule
is the engine's (``rules.combat``, ``rules.condition``). What an attack does to a character
with a play sheet goes through the play services (``take_damage``, ``give_up_gear``, the
condition undo), so its revisions, log and ``PlayState`` stay the one record of it; group
members and animals keep their condition in the encounter, changed by the same rules functions.

Concurrency. Every write locks the encounter's row and names the ``Encounter.version`` its
page showed; when the encounter moved on since (another tab, the referee), ``EncounterConflict``
refuses the action instead of applying it twice. Dice are thrown on the server with the play
services' ``dice_source``; every function that throws takes ``rng`` for tests.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F
from django.utils import timezone

import rules
from characters.core.selectors import character_report
from characters.core.services import Refused
from characters.encounters.selectors import (
    Board,
    Row,
    animal_condition,
    board,
    fighter_for,
    magazine_key,
    side_fighters,
    weapon_key,
)
from characters.models import (
    Campaign,
    Character,
    Combatant,
    ConditionChange,
    Encounter,
    EncounterEntry,
)
from characters.play import services as play_services
from characters.play.selectors import carried_equipment, gear_key
from characters.templatetags.ffa_format import percent
from rules import Condition
from rules.catalog import EquipmentItem
from rules.combat import AttackPlan, AttackResult, CombatRefused, Situation, Weapon
from rules.wording import plural

Kind = EncounterEntry.Kind
Side = Combatant.Side

# The most a log line's summary holds (its detail keeps every figure).
SUMMARY_LENGTH = cast(int, EncounterEntry._meta.get_field("summary").max_length)

# Guards against slips, not rules: the most one group or one herd may field.
MAX_GROUP = 20
MAX_COMBATANTS = 40


class EncounterConflict(Refused):
    """The encounter changed since the page was loaded: nothing was done."""


def dice_source() -> random.Random:
    """The play services' dice: the operating system's randomness (tests pass ``rng``)."""
    return play_services.dice_source()


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


def _fielded(
    group: Group, encounter: Encounter, campaign: Campaign, present: Sequence[Combatant] = ()
) -> list[Combatant]:
    """The combatants a group fields: named after their stat block, numbered when several
    (on from those of the same stat block ``present`` in the fight already)."""
    if group.character is None:
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
    condition = (
        None if alone else rules.condition_as_dict(rules.condition_for(character_report(character)))
    )
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
    *, campaign: Campaign, by: User, name: str, groups: Sequence[Group]
) -> Encounter:
    """The referee's new encounter with its combatants: a lone character keeps its condition
    on its play sheet; each member of a group of one NPC's stat block, and each animal, has a
    condition of its own in the encounter."""
    total = sum(group.count for group in groups)
    if total < 2:
        raise Refused("Combatants: an encounter needs at least two combatants.")
    if total > MAX_COMBATANTS:
        raise Refused(f"Combatants: at most {MAX_COMBATANTS} in one encounter, not {total}.")
    encounter = Encounter.objects.create(campaign=campaign, name=name.strip(), started_by=by)
    combatants = [
        combatant for group in groups for combatant in _fielded(group, encounter, campaign)
    ]
    for position, combatant in enumerate(combatants):
        combatant.position = position
    Combatant.objects.bulk_create(combatants)
    return encounter


def _lock(
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


def _is_referee(encounter: Encounter, user: User) -> bool:
    return encounter.campaign.referee_id == user.pk


def _require_referee(encounter: Encounter, user: User, doing: str) -> None:
    if not _is_referee(encounter, user):
        raise Refused(f"Only the referee can {doing}.")


def _snapshot(state: Board) -> dict[str, Any]:
    """What undoing the next entry restores of the encounter itself: round, turn and order."""
    return {
        "round": state.encounter.round,
        "turn": state.encounter.turn,
        "surprised": state.encounter.surprised_side,
        "leaders": dict(state.encounter.leaders),
        "order": {
            str(row.pk): [row.combatant.position, row.combatant.initiative] for row in state.rows
        },
        "conditions": {},
        "ammunition": {},
        "changes": [],
        "magazines": [],
        "spares": {},
        "added": [],
    }


def _log(
    state: Board,
    *,
    kind: str,
    by: User,
    summary: str,
    before: dict[str, Any],
    actor: Row | None = None,
    target: Row | None = None,
    detail: dict[str, Any] | None = None,
) -> EncounterEntry:
    """Write the log line and move the encounter to its next version."""
    encounter = state.encounter
    Encounter.objects.filter(pk=encounter.pk).update(
        round=encounter.round,
        turn=encounter.turn,
        surprised_side=encounter.surprised_side,
        leaders=encounter.leaders,
        ended_at=encounter.ended_at,
        version=F("version") + 1,
    )
    encounter.version += 1
    return EncounterEntry.objects.create(
        encounter=encounter,
        round=encounter.round,
        kind=kind,
        actor=actor.combatant if actor else None,
        target=target.combatant if target else None,
        summary=_shortened(summary, SUMMARY_LENGTH),
        detail=detail or {},
        before=before,
        by=by,
    )


def _shortened(text: str, most: int) -> str:
    """``text`` cut to ``most`` characters at a word, with an ellipsis where it was cut (the
    entry's detail keeps every figure)."""
    if len(text) <= most:
        return text
    return text[: most - 1].rsplit(" ", 1)[0] + "\u2026"


def _save_order(state: Board) -> None:
    for position, row in enumerate(state.rows):
        row.combatant.position = position
    Combatant.objects.bulk_update([row.combatant for row in state.rows], ["position", "initiative"])


def _next_able(state: Board, start: int) -> int:
    """The place of the first fighter from ``start`` on whose turn comes (past the end: the
    round is over)."""
    for index in range(start, len(state.rows)):
        if state.rows[index].takes_turn:
            return index
    return len(state.rows)


# Who the referee says may be surprised: a side, or either.
EITHER = "either"
# What a fighter does with its turn: once one is logged in a round, the round has begun.
ROUND_ACTIONS = (Kind.ATTACK, Kind.PASS, Kind.DELAY)


def _chosen(
    rows: list[Row], choose: Callable[[rules.combat.SideFighters], str | None]
) -> Row | None:
    """The fighter of a side the engine's ``choose`` picks (its spotter)."""
    key = choose(side_fighters(rows))
    return next((row for row in rows if str(row.pk) == key), None)


def sheets_range_dms(state: Board, side: str) -> tuple[rules.combat.Modifier, ...]:
    """The encounter range DMs a side's sheets settle for its surprise test (reading 27): its
    armor, chameleon surfaces, its size, and the combat experience of its leader."""
    leader = state.leader(side)
    return rules.combat.encounter_range_dms(
        side_fighters(state.side(side)),
        combat_experience=leader is not None and leader.fighter.combat_experience,
    )


def spotter_of(state: Board, side: str) -> str:
    """The name of who throws for a side in its surprise test ("" for nobody)."""
    spotter = _chosen(state.side(side), rules.combat.spotter)
    return spotter.combatant.name if spotter else ""


def surprise_refused(state: Board) -> str:
    """Why the sides cannot throw for surprise ("" when they can): the test is contested, so
    each side needs one who can act to throw for it."""
    for side in Side.values:
        rows, name = state.side(side), Side(side).label.lower()
        if not rows:
            return (
                f"Surprise: {name} has no fighters in this encounter, so there is nobody to "
                "surprise or be surprised by; add combatants first, or throw initiative."
            )
        if _chosen(rows, rules.combat.spotter) is None:
            return f"Surprise: nobody of {name} can act."
    return ""


@transaction.atomic
def throw_surprise(
    *,
    encounter: Encounter,
    by: User,
    may_be_surprised: str,
    dms: dict[str, int] | None = None,
    expected_version: int | None = None,
    rng: random.Random | None = None,
) -> EncounterEntry:
    """Before initiative, the referee has the sides throw for surprise (the engine's contested
    AWA test: each side's best AWA DM, the encounter range DMs its sheets settle, and the
    referee's DM for it, 2DH each). A side the referee said may be surprised
    (``may_be_surprised``: a side, or ``EITHER``) and beaten by the margin is surprised: it
    loses its turns and has the surprised DEF until the referee says surprise is lost."""
    locked = _lock(encounter, expected_version)
    _require_referee(locked, by, "throw for surprise")
    if locked.round:
        raise Refused("Surprise: it is thrown before initiative, and the fight has begun.")
    if locked.entries.filter(kind=Kind.SURPRISE, undone_at__isnull=True).exists():
        raise Refused("Surprise: it was thrown already (undo it to throw again).")
    state = board(locked, entries=0)
    if problem := surprise_refused(state):
        raise Refused(problem)
    dms = dms or {}
    throws = []
    rng = rng or dice_source()
    for side in Side.values:
        spotter = _chosen(state.side(side), rules.combat.spotter)
        assert spotter is not None  # surprise_refused said so otherwise
        modifiers = [
            rules.combat.Modifier(f"{spotter.combatant.name}'s AWA DM", spotter.fighter.awa_dm),
            *sheets_range_dms(state, side),
        ]
        if dms.get(side):
            modifiers.append(rules.combat.Modifier("referee's DM", dms[side]))
        dice = rules.dice.throw_attribute_test(rng)
        throws.append((side, modifiers, dice))
    (first, first_dms, first_dice), (second, second_dms, second_dice) = throws
    result = rules.combat.surprise(
        (first, sum(m.dm for m in first_dms)),
        (second, sum(m.dm for m in second_dms)),
        first_dice=first_dice,
        second_dice=second_dice,
    )
    before = _snapshot(state)
    allowed = Side.values if may_be_surprised == EITHER else [may_be_surprised]
    surprised = result.surprised if result.surprised in allowed else None
    locked.surprised_side = surprised or ""
    told = [
        f"{Side(side).label.lower()} {total} (dice {', '.join(map(str, dice))}"
        + "".join(f"; {m.label} {m.dm:+d}" for m in modifiers)
        + ")"
        for (side, modifiers, dice), total in zip(throws, result.totals, strict=True)
    ]
    verdict = (
        f"{Side(surprised).label.lower()} is surprised" if surprised else "nobody is surprised"
    )
    summary = f"Surprise: {' against '.join(told)}: {verdict}."
    detail = {
        "throws": [
            {"side": side, "dice": dice, "dms": [m.as_dict() for m in modifiers], "total": total}
            for (side, modifiers, dice), total in zip(throws, result.totals, strict=True)
        ],
        "margin": result.margin,
        "surprised": surprised or "",
    }
    return _log(state, kind=Kind.SURPRISE, by=by, summary=summary, before=before, detail=detail)


@transaction.atomic
def throw_initiative(
    *,
    encounter: Encounter,
    by: User,
    expected_version: int | None = None,
    rng: random.Random | None = None,
) -> EncounterEntry:
    """The referee throws everyone's initiative on the server (the engine breaks ties); the
    first round begins with the highest."""
    locked = _lock(encounter, expected_version)
    _require_referee(locked, by, "throw initiative")
    if locked.round:
        raise Refused(f"Initiative was thrown for {locked.name}: it is round {locked.round}.")
    state = board(locked, entries=0)
    before = _snapshot(state)
    thrown = rules.combat.throw_initiative(
        [(str(row.pk), row.ini_now) for row in state.rows], rng or dice_source()
    )
    by_key = {str(row.pk): row for row in state.rows}
    state.rows = [by_key[roll.key] for roll in thrown]
    for roll, row in zip(thrown, state.rows, strict=True):
        row.combatant.initiative = roll.total
    _save_order(state)
    locked.round = 1
    locked.turn = _next_able(state, 0)
    return _log(
        state,
        kind=Kind.INITIATIVE,
        by=by,
        summary=f"Initiative: {_initiative_words(thrown, by_key)}.",
        before=before,
        detail={"rolls": _initiative_detail(thrown, by_key)},
    )


def _initiative_words(rolls: Iterable[rules.combat.InitiativeRoll], by_key) -> str:
    """Each fighter's total in order, with the 1D each tied one threw to break the tie."""
    return ", ".join(
        f"{by_key[roll.key].combatant.name} {roll.total}"
        + (f" (tie: 1D {', '.join(map(str, roll.tie_breaks))})" if roll.tie_breaks else "")
        for roll in rolls
    )


def _initiative_detail(rolls: Iterable[rules.combat.InitiativeRoll], by_key) -> list[dict]:
    """Each roll as the log keeps it (the die, the INI, the total, the tie-break dice), named."""
    return [roll.as_dict() | {"name": by_key[roll.key].combatant.name} for roll in rolls]


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
    if not _is_referee(state.encounter, by) and not current.owned_by(by.pk):
        raise Refused(
            f"It is {current.combatant.name}'s turn: only its player or the referee can {doing}."
        )
    return current


@dataclass(frozen=True)
class AttackOrder:
    """An attack as a form asks for it; ``others``: further targets of an autofire burst.
    ``coup_de_grace``: the referee chose a target out of action (reading 16)."""

    target: int
    weapon: str
    range_band: str
    situation: Situation
    others: tuple[int, ...] = ()
    coup_de_grace: bool = False


# The engine's names of what the attack form asks, as the form labels them.
FORM_LABELS = {
    "range": "Range",
    "weapon": "Weapon",
    "tl": "Weapon",
    "situation.autofire_rounds": "Autofire",
    "situation.targets": "Further targets",
    "situation.squares_between_targets": "Squares between the targets",
    "situation.aim_turns": "Turns aimed",
}


def _weapon(row: Row, key: str) -> Weapon:
    for weapon in row.fighter.weapons:
        if weapon_key(weapon) == key:
            return weapon
    raise Refused(f"Weapon: {row.combatant.name} has no {key.split('|')[0]}.")


def _target(state: Board, attacker: Row, pk: int, label: str, *, finishing: bool = False) -> Row:
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


@dataclass(frozen=True)
class Planned:
    """The engine's plan of the attack on each of its targets (one throw each), with the
    weapon."""

    plans: list[tuple[AttackPlan, Row]]
    weapon: Weapon


def plan(state: Board, attacker: Row, order: AttackOrder) -> Planned:
    """The engine's plan of the attack on each target (its TN, DMs and exact chance), before
    any die. Several targets share the burst's DMs (reading 18); a target whose side is
    surprised has the surprised DEF."""
    targets = [_target(state, attacker, order.target, "Target", finishing=order.coup_de_grace)]
    for pk in dict.fromkeys(order.others):
        if pk != order.target:
            targets.append(_target(state, attacker, pk, "Further targets"))
    weapon = _weapon(attacker, order.weapon)
    situation = replace(order.situation, targets=len(targets))
    plans = []
    for target in targets:
        seen = replace(situation, target_surprised=True) if target.surprised else situation
        try:
            planned = rules.combat.plan_attack(
                attacker.fighter,
                weapon,
                target.fighter,
                order.range_band,
                seen,
                attacker_condition=attacker.condition,
                target_condition=target.condition,
            )
        except CombatRefused as refused:
            label = FORM_LABELS.get(refused.field)
            raise Refused(f"{label}: {refused.message}" if label else str(refused)) from None
        plans.append((planned, target))
    return Planned(plans, weapon)


def _take_magazine(
    row: Row, item: EquipmentItem, weapon: Weapon, by: User, encounter: Encounter, before
) -> None:
    """One spare magazine out: from what a character with a play sheet carries, through the
    credits ledger (``give_up_gear``, as any gear used up in play, so the document, paid for
    at creation, is not rewritten and the credits stay right); from a group member's own count
    in the encounter, which starts at its stat block's."""
    if row.group_member:
        before["spares"].setdefault(str(row.pk), row.combatant.magazines)
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
    before["magazines"].append({"character": character.pk, "item": entry.item, "tl": entry.tl})


def _spares(row: Row, item: EquipmentItem) -> int:
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
    loaded = dict(row.combatant.ammunition)
    spares = _spares(row, item)
    if key not in loaded and not spares:
        return None
    try:
        fired = rules.combat.fire_rounds(item, rounds, loaded=loaded.get(key, 0), spares=spares)
    except CombatRefused as refused:  # "out of ...": it has no magazine left to load
        raise Refused(f"{row.combatant.name} is {refused.message}.") from None
    return Firing(item, loaded, fired)


def _fire(row: Row, weapon: Weapon, rounds: int, by: User, encounter: Encounter, before) -> str:
    """Fire the attack's rounds (``firing``), taking out the magazine it loads; returns a note
    for the log, "" when the fighter keeps no count. A group member counts its own magazines,
    starting from its stat block's."""
    count = firing(row, weapon, rounds)
    if count is None:
        return ""
    before["ammunition"].setdefault(str(row.pk), row.combatant.ammunition)
    note = ""
    if count.fired.reloaded:
        _take_magazine(row, count.item, weapon, by, encounter, before)
        # The catalog's item is "<weapon> ammunition", one of which is one magazine (reading
        # 33): "a new Revolver ammunition" does not read as English.
        note = (
            f" Loaded a fresh magazine into the {weapon.name} ({count.fired.spares} more carried)."
        )
    loaded = count.loaded | {weapon_key(weapon): count.fired.loaded}
    row.combatant.ammunition = loaded
    Combatant.objects.filter(pk=row.pk).update(ammunition=loaded)
    return f"{note} {plural(count.fired.loaded, 'round')} left in the {weapon.name}."


def _mark(
    row: Row,
    before: dict[str, Any],
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
        before["changes"].append(result.change.pk)
        row.condition = result.condition
        return result.events
    before["conditions"][str(row.pk)] = row.combatant.condition
    after, events = here(row.condition)
    row.combatant.condition = rules.condition_as_dict(after)
    Combatant.objects.filter(pk=row.pk).update(condition=row.combatant.condition)
    row.condition = after
    return tuple(events)


def _apply(result: AttackResult, target: Row, by: User, before, rng: random.Random) -> None:
    """Mark what reaches LIF on the target, its bleeding time thrown as the play sheet does."""
    damage = result.damage
    # What the engine marks, the sheets mark: stunning or lethal damage that reaches LIF.
    if damage is None or not result.hit or damage.lif <= 0:
        return
    form = damage.form
    if form not in (rules.play.STUN, rules.play.LETHAL):
        return
    _mark(
        target,
        before,
        on_sheet=lambda character: play_services.take_damage(
            character=character, by=by, amount=damage.lif, form=form, rng=rng
        ),
        here=lambda condition: play_services.blow(condition, damage.lif, form, rng),
    )


def _verdict(result: AttackResult) -> str:
    """The throw in words: a miss (or fumble), or a hit with what reached LIF."""
    if not result.hit:
        return "a fumble, a miss" if result.fumble else "a miss"
    damage = result.damage
    if damage is None or not damage.lif:
        return f"a hit, EN {result.effect}, but no damage gets through"
    form = "stunning" if damage.form == rules.play.STUN else "lethal"
    wound = f", a {result.wound} wound" if result.wound else ""
    return f"a hit, EN {result.effect}: {damage.lif} {form} damage reaches LIF{wound}"


def _state_after(target: Row, result: AttackResult) -> str:
    """The target's worst state after the blow, when it is worse than hurt; and, for a
    surprised target hit and left conscious, that it raises the alarm (reading 27)."""
    code, words = target.states[0]
    said = "" if code in ("ok", "wounded") else f" {target.combatant.name}: {words.lower()}."
    if target.surprised and result.hit and not target.out_of_action:
        said += f" {target.combatant.name}, hit and still standing, raises the alarm."
    return said


def _advance(state: Board) -> None:
    state.encounter.turn = _next_able(state, state.encounter.turn + 1)


def _throw_at(
    planned: AttackPlan, target: Row, by: User, before: dict[str, Any], rng: random.Random
) -> tuple[dict[str, Any], str]:
    """One target's throw: resolved by the engine, the damage marked on it. Returns the log's
    detail of it and its words."""
    dice = rules.combat.throw_dice(planned, rng)
    result = rules.combat.resolve_attack(planned, dice, target_condition=target.condition)
    _apply(result, target, by, before, rng)
    detail = rules.combat.attack_result_as_dict(result) | {
        # The odds as the page showed them before the throw (the engine's "chance" is exact).
        "odds": percent(planned.chance),
        "target_name": target.combatant.name,
        "states": [words for _, words in target.states],
    }
    words = f"{result.total} vs TN {result.tn}, {_verdict(result)}.{_state_after(target, result)}"
    return detail, words


@transaction.atomic
def attack(
    *,
    encounter: Encounter,
    by: User,
    order: AttackOrder,
    expected_version: int | None = None,
    rng: random.Random | None = None,
) -> EncounterEntry:
    """The fighter whose turn it is attacks: planned and resolved by the engine with dice
    thrown here (one throw per target of a burst), the damage marked on each target,
    ammunition counted, and the turn passed on."""
    locked = _lock(encounter, expected_version)
    state = board(locked, entries=0)
    attacker = acting(state, by, "attack")
    if order.coup_de_grace and not _is_referee(locked, by):
        raise Refused("Target: only the referee chooses a coup de grâce.")
    planned = plan(state, attacker, order)
    weapon = planned.weapon
    before = _snapshot(state)
    rng = rng or dice_source()
    fired = order.situation.rounds_fired
    ammunition = _fire(attacker, weapon, fired, by, locked, before)
    thrown = [_throw_at(plan_of, target, by, before, rng) for plan_of, target in planned.plans]
    _advance(state)
    (detail, words), *others = thrown
    detail |= {
        "weapon": weapon.name,
        "range": order.range_band,
        # Rounds off a magazine, for the encounter's summary (0: the weapon counts none).
        "rounds": fired if rules.combat.ammunition_for(weapon) else 0,
        "others": [other for other, _ in others],
    }
    targets = [target for _, target in planned.plans]
    if others:
        told = " ".join(
            f"{target.combatant.name}: {said}"
            for target, (_, said) in zip(targets, thrown, strict=True)
        )
        summary = (
            f"{attacker.combatant.name} fires {fired} rounds from the {weapon.name} at "
            f"{len(targets)} targets at {order.range_band} range. {told}{ammunition}"
        )
    else:
        summary = (
            f"{attacker.combatant.name} attacks {targets[0].combatant.name} with the "
            f"{weapon.name} at {order.range_band} range: {words}{ammunition}"
        )
    return _log(
        state,
        kind=Kind.ATTACK,
        by=by,
        summary=summary,
        before=before,
        actor=attacker,
        target=targets[0],
        detail=detail,
    )


def _next_round(state: Board, by: User, before: dict[str, Any]) -> EncounterEntry:
    """The referee starts the next round: every dying fighter loses its turn's LIF first."""
    encounter = state.encounter
    _require_referee(encounter, by, "start the next round")
    news = []
    for row in state.rows:
        if row.condition.dying:
            events = _mark(
                row,
                before,
                on_sheet=lambda character: play_services.dying_turn(character=character, by=by),
                here=rules.dying_turn,
            )
            news.append(f"{row.combatant.name}: {' '.join(e.message for e in events)}")
    # The round first: whose turn comes depends on it (a surprised side acts from round 2).
    encounter.round += 1
    encounter.turn = _next_able(state, 0)
    current = state.current
    first = f" {current.combatant.name} acts first." if current else ""
    summary = " ".join((f"Round {encounter.round} begins.{first}", *news))
    return _log(state, kind=Kind.ROUND, by=by, summary=summary, before=before)


def waiting_for(state: Board) -> list[Row]:
    """Whom the fighter acting now may delay for: those after it whose turn comes this round."""
    turn = state.encounter.turn
    return [row for row in state.rows[turn + 1 :] if row.takes_turn]


def _delay(
    state: Board, actor: Row, by: User, before: dict[str, Any], after: int | None
) -> EncounterEntry:
    """The fighter acts just after the one it chose (``after``; None: the next who can act),
    by the engine's delay on the order as it stands (its dice are thrown already)."""
    later = waiting_for(state)
    if not later:
        raise Refused(f"{actor.combatant.name} is the last to act: nobody to wait for.")
    other = later[0] if after is None else next((r for r in later if r.pk == after), None)
    if other is None:
        raise Refused(
            f"Act after: choose one of those still to act this round "
            f"({', '.join(row.combatant.name for row in later)})."
        )
    now = state.encounter.turn
    keys = rules.combat.delay_keys(
        [str(row.pk) for row in state.rows], str(actor.pk), acts="after", other=str(other.pk)
    )
    by_key = {str(row.pk): row for row in state.rows}
    state.rows = [by_key[key] for key in keys]
    _save_order(state)
    state.encounter.turn = _next_able(state, now)
    summary = f"{actor.combatant.name} delays, acting after {other.combatant.name}."
    return _log(state, kind=Kind.DELAY, by=by, summary=summary, before=before, actor=actor)


def _recover(state: Board, actor: Row, by: User, before: dict[str, Any]) -> EncounterEntry:
    """A stunned fighter spends its turn recovering: the stun ends, and the turn passes."""
    if not actor.condition.stunned:
        raise Refused(f"{actor.combatant.name} is not stunned.")
    _mark(
        actor,
        before,
        on_sheet=lambda character: play_services.end_stun(character=character, by=by),
        here=lambda condition: (rules.end_stun(condition), ()),
    )
    _advance(state)
    summary = f"{actor.combatant.name} spends the turn recovering from the stun."
    return _log(state, kind=Kind.PASS, by=by, summary=summary, before=before, actor=actor)


@transaction.atomic
def take_turn(
    *,
    encounter: Encounter,
    by: User,
    action: str,
    after: int | None = None,
    expected_version: int | None = None,
) -> EncounterEntry:
    """Another way through a turn: ``pass`` (the fighter did something else), ``delay`` (it
    acts after the fighter ``after`` instead, by default the next), ``recover`` (a stunned
    fighter's turn) or, for the referee, ``next_round``."""
    locked = _lock(encounter, expected_version)
    state = board(locked, entries=0)
    before = _snapshot(state)
    if action == "next_round":
        return _next_round(state, by, before)
    actor = acting(state, by, "end its turn")
    if action == "delay":
        return _delay(state, actor, by, before, after)
    if action == "recover":
        return _recover(state, actor, by, before)
    _advance(state)
    return _log(
        state,
        kind=Kind.PASS,
        by=by,
        summary=f"{actor.combatant.name} ends its turn.",
        before=before,
        actor=actor,
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
    locked = _lock(encounter, expected_version)
    _require_referee(locked, by, "test morale")
    state = board(locked, entries=0)
    if side not in morale_due(state):
        raise Refused(f"Side: no morale test is due for {Side(side).label.lower()}.")
    rows = state.fielded(side)
    leader = state.leader(side)
    dice = rules.dice.throw_attribute_test(rng or dice_source())
    try:
        test = rules.combat.side_morale(
            dice,
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
        f"(dice {', '.join(map(str, dice))}{told}): it {verdict}."
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
    return _log(
        state,
        kind=Kind.MORALE,
        by=by,
        summary=summary,
        before=_snapshot(state),
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
    locked = _lock(encounter, expected_version)
    _require_referee(locked, by, "name a side's leader")
    state = board(locked, entries=0)
    row = state.row(combatant)
    if row is None or row.combatant.side != side:
        raise Refused(f"Leader: choose one of {Side(side).label.lower()}.")
    before = _snapshot(state)
    locked.leaders = {**locked.leaders, side: row.pk}
    summary = f"{row.combatant.name} leads {Side(side).label.lower()}."
    return _log(state, kind=Kind.LEADER, by=by, summary=summary, before=before, actor=row)


@transaction.atomic
def end_surprise(
    *, encounter: Encounter, by: User, expected_version: int | None = None
) -> EncounterEntry:
    """The referee says surprise is lost (reading 27: an alarm, a shot heard, a surprised
    fighter attacked and left standing): the surprised side takes its turns and its own DEF
    from now on; one still to act this round acts in its place in the order."""
    locked = _lock(encounter, expected_version)
    _require_referee(locked, by, "end surprise")
    if not locked.surprised_side:
        raise Refused("Surprise: nobody is surprised.")
    state = board(locked, entries=0)
    before = _snapshot(state)
    side = Side(locked.surprised_side).label.lower()
    locked.surprised_side = ""
    if locked.round:
        # Lost before anyone acted this round, surprise cost the side no turn of it: the round
        # starts again from the first. Lost mid-round, those of the side still to act do.
        acted = locked.entries.filter(
            round=locked.round, kind__in=ROUND_ACTIONS, undone_at__isnull=True
        ).exists()
        locked.turn = _next_able(state, locked.turn if acted else 0)
    summary = f"Surprise is lost: {side} is no longer surprised."
    return _log(state, kind=Kind.ALARM, by=by, summary=summary, before=before)


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
    engine's ``join_initiative``); the fighter acting now keeps the turn, and a newcomer placed
    before it first acts next round."""
    locked = _lock(encounter, expected_version)
    _require_referee(locked, by, "add combatants")
    state = board(locked, entries=0)
    joining = sum(group.count for group in groups)
    if not joining:
        raise Refused("Combatants: choose who joins the fight.")
    if len(state.rows) + joining > MAX_COMBATANTS:
        raise Refused(
            f"Combatants: at most {MAX_COMBATANTS} in one encounter, "
            f"not {len(state.rows) + joining}."
        )
    before = _snapshot(state)
    present = [row.combatant for row in state.rows]
    added: list[Combatant] = []
    for group in groups:
        for combatant in _fielded(group, locked, locked.campaign, [*present, *added]):
            combatant.position = len(present) + len(added)
            combatant.save()
            added.append(combatant)
    before["added"] = [combatant.pk for combatant in added]
    state = board(locked, entries=0)
    names = ", ".join(combatant.name for combatant in added)
    summary = f"Joining the fight: {names}."
    detail: dict[str, Any] = {"added": [combatant.name for combatant in added]}
    if locked.round:
        current = state.current
        newcomers = [row for row in state.rows if row.pk in before["added"]]
        rolls, keys = rules.combat.join_initiative(
            [(str(row.pk), row.combatant.initiative or 0) for row in state.rows[: len(present)]],
            [(str(row.pk), row.ini_now) for row in newcomers],
            rng or dice_source(),
        )
        by_key = {str(row.pk): row for row in state.rows}
        for roll in rolls:
            by_key[roll.key].combatant.initiative = roll.total
        state.rows = [by_key[key] for key in keys]
        _save_order(state)
        locked.turn = state.rows.index(current) if current else len(state.rows)
        summary = f"Joining the fight: {names}. Initiative: {_initiative_words(rolls, by_key)}."
        detail["rolls"] = _initiative_detail(rolls, by_key)
    return _log(state, kind=Kind.JOIN, by=by, summary=summary, before=before, detail=detail)


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
    locked = _lock(encounter, expected_version)
    _require_referee(locked, by, "end the encounter")
    state = board(locked, entries=0)
    before = _snapshot(state)
    fired = _rounds_fired(locked)
    fighters = [
        {
            "name": row.combatant.name,
            "side": row.combatant.side,
            "out": row.out_of_action,
            # The play sheet's words, "Hurt, but fit to act" included: a scratch is not unhurt.
            "states": [words for _, words in row.states],
            "wounds": [wound.severity for wound in row.condition.wounds],
            "lif": [row.condition.lif, row.condition.maximum],
            "rounds": fired.get(row.pk, {}),
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
    return _log(
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
    locked = _lock(encounter, expected_version, ended_ok=True)
    last = (
        locked.entries.filter(undone_at__isnull=True)
        .exclude(kind=Kind.UNDO)
        .order_by("-created_at", "-id")
        .first()
    )
    if last is None:
        raise Refused("Nothing to undo.")
    if not _is_referee(locked, by) and last.by_id != by.pk:
        raise Refused("Only the referee can undo what someone else did.")
    before = last.before
    for change in ConditionChange.objects.filter(pk__in=before.get("changes", ())):
        play_services.undo_condition_change(change=change, by=by)
    # Entries logged before their changes were kept name the characters only.
    for character_id in before.get("sheets", ()):
        play_services.undo_last_condition_change(
            character=Character.objects.get(pk=character_id), by=by
        )
    for magazine in before.get("magazines", ()):
        play_services.buy_gear(
            character=Character.objects.get(pk=magazine["character"]),
            by=by,
            item=magazine["item"],
            tl=magazine["tl"],
            price=0,
            note=f"{magazine['item']} back from an undone attack in {locked.name}",
        )
    for pk, condition in before.get("conditions", {}).items():
        Combatant.objects.filter(pk=pk, encounter=locked).update(condition=condition)
    for pk, ammunition in before.get("ammunition", {}).items():
        Combatant.objects.filter(pk=pk, encounter=locked).update(ammunition=ammunition)
    for pk, spares in before.get("spares", {}).items():
        Combatant.objects.filter(pk=pk, encounter=locked).update(magazines=spares)
    Combatant.objects.filter(pk__in=before.get("added", ()), encounter=locked).delete()
    for pk, (position, initiative) in before.get("order", {}).items():
        Combatant.objects.filter(pk=pk, encounter=locked).update(
            position=position, initiative=initiative
        )
    locked.round, locked.turn = before["round"], before["turn"]
    locked.surprised_side = before.get("surprised", locked.surprised_side)
    locked.leaders = before.get("leaders", locked.leaders)
    if last.kind == Kind.END:
        locked.ended_at = None
    EncounterEntry.objects.filter(pk=last.pk).update(undone_at=timezone.now())
    state = Board(locked, [])
    return _log(state, kind=Kind.UNDO, by=by, summary=f"Undone: {last.summary}", before={})
