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
from dataclasses import dataclass
from typing import Any

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
    weapon_key,
)
from characters.models import Campaign, Character, Combatant, Encounter, EncounterEntry
from characters.play import services as play_services
from characters.play.selectors import carried_equipment, gear_key
from characters.templatetags.ffa_format import percent
from rules import Condition
from rules.catalog import AMMUNITION, EquipmentItem
from rules.combat import AttackPlan, AttackResult, CombatRefused, Damage, Situation, Weapon

Kind = EncounterEntry.Kind
Side = Combatant.Side

# Guards against slips, not rules: the most one group or one herd may field.
MAX_GROUP = 20
MAX_COMBATANTS = 40


class EncounterConflict(Refused):
    """The encounter changed since the page was loaded: nothing was done."""


def dice_source() -> random.Random:
    """The play services' dice: the operating system's randomness (tests pass ``rng``)."""
    return play_services.dice_source()


def _throw(rng: random.Random, count: int) -> list[int]:
    faces = rules.dice.dice_rules()
    return [rng.randint(faces.lowest, faces.highest) for _ in range(count)]


@dataclass(frozen=True)
class Group:
    """Fighters fielded from one stat block: ``count`` of an NPC, or of an animal."""

    count: int
    side: str
    character: Character | None = None
    animal_type: str = ""
    weight_kg: float = 0.0


def _names(name: str, count: int) -> list[str]:
    return [name] if count == 1 else [f"{name} {n}" for n in range(1, count + 1)]


def _fielded(group: Group, encounter: Encounter, campaign: Campaign) -> list[Combatant]:
    """The combatants a group fields: named after their stat block, numbered when several."""
    if group.character is None:
        animal = {"type": group.animal_type, "weight_kg": group.weight_kg}
        try:
            fighter = fighter_for(Combatant(animal=animal))
        except ValueError as error:  # the engine's CombatRefused names the figure
            raise Refused(f"Animals: {error}") from None
        unhurt = rules.condition_as_dict(animal_condition(fighter))
        return [
            Combatant(
                encounter=encounter, name=label, side=group.side, animal=animal, condition=unhurt
            )
            for label in _names(fighter.name, group.count)
        ]
    character = group.character
    if character.campaign_id != campaign.pk:
        raise Refused(f"{character.name} is not in {campaign.name}.")
    # Fielded alone, a character fights with its play sheet; a group member, unhurt, on its own.
    alone = group.count == 1
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
        for label in _names(character.name, group.count)
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


def _lock(encounter: Encounter, expected_version: int | None) -> Encounter:
    locked = Encounter.objects.select_for_update().get(pk=encounter.pk)
    locked.campaign = encounter.campaign
    refuse_if_stale(locked, expected_version)
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
        "order": {
            str(row.pk): [row.combatant.position, row.combatant.initiative] for row in state.rows
        },
        "conditions": {},
        "ammunition": {},
        "sheets": [],
        "magazines": [],
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
        round=encounter.round, turn=encounter.turn, version=F("version") + 1
    )
    encounter.version += 1
    return EncounterEntry.objects.create(
        encounter=encounter,
        round=encounter.round,
        kind=kind,
        actor=actor.combatant if actor else None,
        target=target.combatant if target else None,
        summary=summary[:300],
        detail=detail or {},
        before=before,
        by=by,
    )


def _save_order(state: Board) -> None:
    for position, row in enumerate(state.rows):
        row.combatant.position = position
    Combatant.objects.bulk_update([row.combatant for row in state.rows], ["position", "initiative"])


def _next_able(state: Board, start: int) -> int:
    """The place of the first fighter from ``start`` on whose turn comes (past the end: the
    round is over)."""
    for index in range(start, len(state.rows)):
        if state.rows[index].can_act:
            return index
    return len(state.rows)


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
    locked.round, locked.turn = 1, _next_able(state, 0)
    order = ", ".join(f"{row.combatant.name} {row.combatant.initiative}" for row in state.rows)
    return _log(
        state,
        kind=Kind.INITIATIVE,
        by=by,
        summary=f"Initiative: {order}.",
        before=before,
        detail={"rolls": [roll.as_dict() for roll in thrown]},
    )


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
    """An attack as a form asks for it."""

    target: int
    weapon: str
    range_band: str
    situation: Situation


def _weapon(row: Row, key: str) -> Weapon:
    for weapon in row.weapons:
        if weapon_key(weapon) == key:
            return weapon
    raise Refused(f"Weapon: {row.combatant.name} has no {key.split('|')[0]}.")


def plan(state: Board, attacker: Row, order: AttackOrder) -> tuple[AttackPlan, Row, Weapon]:
    """The engine's plan of the attack (its TN, DMs and exact chance), before any die."""
    target = state.row(order.target)
    if target is None:
        raise Refused("Target: that combatant is not in this encounter.")
    if target.pk == attacker.pk:
        raise Refused("Target: a fighter does not attack itself.")
    weapon = _weapon(attacker, order.weapon)
    try:
        planned = rules.combat.plan_attack(
            attacker.fighter,
            weapon,
            target.fighter,
            order.range_band,
            order.situation,
            attacker_condition=attacker.condition,
            target_condition=target.condition,
        )
    except CombatRefused as refused:
        raise Refused(str(refused)) from None
    return planned, target, weapon


def _ammunition_item(weapon: Weapon) -> EquipmentItem | None:
    """The catalog's ammunition for the weapon, when it is bought apart and counts rounds."""
    item = rules.catalog().equipment_item(AMMUNITION.format(weapon=weapon.name), weapon.tl)
    if item is None or item.row.get("unlimited") or not item.row.get("rounds"):
        return None
    return item


def _fire(row: Row, weapon: Weapon, rounds: int, by: User, encounter: Encounter, before) -> str:
    """Count down the rounds the attack fires, loading a magazine from the sheet when the
    loaded one is empty; returns a note for the log ("" when the sheet keeps no count).

    Only a fighter with a play sheet of its own counts: a group shares one stat block, whose
    ammunition is no one member's. A magazine comes out of what the character carries through
    the credits ledger (``give_up_gear``, as any gear used up in play), so the document, paid
    for at creation, is not rewritten and the credits stay right."""
    item = _ammunition_item(weapon)
    character = row.combatant.character
    if item is None or character is None or row.combatant.condition is not None:
        return ""
    key = weapon_key(weapon)
    loaded = dict(row.combatant.ammunition)
    carried = sum(
        entry.quantity
        for entry in carried_equipment(character)
        if gear_key(entry.item, entry.tl) == (item.name, item.tl)
    )
    if key not in loaded and not carried:
        return ""  # the sheet carries none of it: it keeps no count for this weapon
    before["ammunition"].setdefault(str(row.pk), row.combatant.ammunition)
    left = loaded.get(key, 0)
    note = ""
    if left < rounds:
        if not carried:
            raise Refused(f"{row.combatant.name} is out of {item.name}: {left} round(s) left.")
        entry = play_services.give_up_gear(
            character=character,
            by=by,
            item=item.name,
            tl=item.tl,
            note=f"Loaded into the {weapon.name} in {encounter.name}",
        )
        before["magazines"].append({"character": character.pk, "item": entry.item, "tl": entry.tl})
        left = int(item.row["rounds"])
        note = f" Loaded a new {item.name} ({carried - 1} left)."
    loaded[key] = left - rounds
    row.combatant.ammunition = loaded
    Combatant.objects.filter(pk=row.pk).update(ammunition=loaded)
    return f"{note} {loaded[key]} round(s) left in the {weapon.name}."


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
        before["sheets"].append(row.combatant.character_id)
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
    if damage is None or not result.hit or damage.lif <= 0:
        return
    form = _form(damage)
    _mark(
        target,
        before,
        on_sheet=lambda character: play_services.take_damage(
            character=character, by=by, amount=damage.lif, form=form, rng=rng
        ),
        here=lambda condition: play_services.blow(condition, damage.lif, form, rng),
    )


def _form(damage: Damage) -> str:
    """Stunning or lethal: the form the tables write after the damage type ("P/L")."""
    return damage.type.split("/")[-1]


def _verdict(result: AttackResult) -> str:
    """The throw in words: a miss (or fumble), or a hit with what reached LIF."""
    if not result.hit:
        return "a fumble, a miss" if result.fumble else "a miss"
    damage = result.damage
    if damage is None or not damage.lif:
        return f"a hit, EN {result.effect}, but no damage gets through"
    form = "stunning" if _form(damage) == rules.play.STUN else "lethal"
    wound = f", a {result.wound} wound" if result.wound else ""
    return f"a hit, EN {result.effect}: {damage.lif} {form} damage reaches LIF{wound}"


def _state_after(target: Row) -> str:
    """The target's worst state after the blow, when it is worse than hurt."""
    code, words = target.states[0]
    return "" if code in ("ok", "wounded") else f" {target.combatant.name}: {words.lower()}."


def _advance(state: Board) -> None:
    state.encounter.turn = _next_able(state, state.encounter.turn + 1)


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
    thrown here, the damage marked on the target, ammunition counted, and the turn passed on."""
    locked = _lock(encounter, expected_version)
    state = board(locked, entries=0)
    attacker = acting(state, by, "attack")
    planned, target, weapon = plan(state, attacker, order)
    before = _snapshot(state)
    rng = rng or dice_source()
    fired = max(order.situation.autofire_rounds, 1)
    ammunition = _fire(attacker, weapon, fired, by, locked, before)
    dice = _throw(rng, rules.combat.dice_needed(planned))
    result = rules.combat.resolve_attack(planned, dice, target_condition=target.condition)
    _apply(result, target, by, before, rng)
    _advance(state)
    detail = rules.combat.attack_result_as_dict(result) | {
        # The odds as the page showed them before the throw (the engine's "chance" is exact).
        "odds": percent(planned.chance),
        "weapon": weapon.name,
        "range": order.range_band,
        "states": [words for _, words in target.states],
    }
    summary = (
        f"{attacker.combatant.name} attacks {target.combatant.name} with the {weapon.name} "
        f"at {order.range_band} range: {result.total} vs TN {result.tn}, {_verdict(result)}."
        f"{_state_after(target)}{ammunition}"
    )
    return _log(
        state,
        kind=Kind.ATTACK,
        by=by,
        summary=summary,
        before=before,
        actor=attacker,
        target=target,
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
    encounter.round, encounter.turn = encounter.round + 1, _next_able(state, 0)
    current = state.current
    first = f" {current.combatant.name} acts first." if current else ""
    summary = " ".join((f"Round {encounter.round} begins.{first}", *news))
    return _log(state, kind=Kind.ROUND, by=by, summary=summary, before=before)


def _delay(state: Board, actor: Row, by: User, before: dict[str, Any]) -> EncounterEntry:
    """The fighter acts just after the next one who can act (the engine's delay)."""
    now = state.encounter.turn
    later = _next_able(state, now + 1)
    if later >= len(state.rows):
        raise Refused(f"{actor.combatant.name} is the last to act: nobody to wait for.")
    other = state.rows[later]
    # The engine's delay, on the order as it stands (its dice are thrown already).
    order = rules.combat.delay(
        [
            rules.combat.InitiativeRoll(
                str(row.pk), row.fighter.INI, 0, row.combatant.initiative or 0
            )
            for row in state.rows
        ],
        str(actor.pk),
        acts="after",
        other=str(other.pk),
    )
    by_key = {str(row.pk): row for row in state.rows}
    state.rows = [by_key[roll.key] for roll in order]
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
    *, encounter: Encounter, by: User, action: str, expected_version: int | None = None
) -> EncounterEntry:
    """Another way through a turn: ``pass`` (the fighter did something else), ``delay`` (it
    acts after the next fighter instead), ``recover`` (a stunned fighter's turn) or, for the
    referee, ``next_round``."""
    locked = _lock(encounter, expected_version)
    state = board(locked, entries=0)
    before = _snapshot(state)
    if action == "next_round":
        return _next_round(state, by, before)
    actor = acting(state, by, "end its turn")
    if action == "delay":
        return _delay(state, actor, by, before)
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
    expected_version: int | None = None,
    rng: random.Random | None = None,
) -> EncounterEntry:
    """The referee throws a side's morale test, when the engine says one is due: its best EXP
    stands for the side (its leader)."""
    locked = _lock(encounter, expected_version)
    _require_referee(locked, by, "test morale")
    state = board(locked, entries=0)
    if side not in morale_due(state):
        raise Refused(f"Side: no morale test is due for {Side(side).label.lower()}.")
    standing = [row for row in state.side(side) if row.can_act]
    if not standing:
        raise Refused(f"Side: nobody of {Side(side).label.lower()} is left to test.")
    # The side tests on its best EXP: its leader's (an animal has none: DM 0).
    leader = max(standing, key=lambda row: row.fighter.exp_dm or 0)
    rng = rng or dice_source()
    out = sum(row.out_of_action for row in state.side(side))
    dice = _throw(rng, rules.dice.dice_rules().attribute_test_dice)
    result = rules.combat.morale_test(
        dice,
        exp_dm=leader.fighter.exp_dm or 0,
        side_size=len(state.side(side)),
        out_of_action=out,
        combat_experience=leader.fighter.combat_experience,
        leader_present=True,
    )
    verdict = "holds" if result.passed else "breaks"
    summary = (
        f"Morale of {Side(side).label.lower()} ({leader.combatant.name} leads): "
        f"{result.total} vs TN {result.tn}: it {verdict}."
    )
    detail = {
        "side": side,
        "out": out,
        "tn": result.tn,
        "dms": [dm.as_dict() for dm in result.dms],
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
        actor=leader,
        detail=detail,
    )


@transaction.atomic
def undo_last(
    *, encounter: Encounter, by: User, expected_version: int | None = None
) -> EncounterEntry:
    """Undo the encounter's last action: the turn, round and order as they were, the target's
    condition (a play sheet's through the play undo service), and the ammunition it used. The
    referee undoes anything; a player only what they did themselves."""
    locked = _lock(encounter, expected_version)
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
            note=f"Back from an undone attack in {locked.name}",
        )
    for pk, condition in before.get("conditions", {}).items():
        Combatant.objects.filter(pk=pk, encounter=locked).update(condition=condition)
    for pk, ammunition in before.get("ammunition", {}).items():
        Combatant.objects.filter(pk=pk, encounter=locked).update(ammunition=ammunition)
    for pk, (position, initiative) in before.get("order", {}).items():
        Combatant.objects.filter(pk=pk, encounter=locked).update(
            position=position, initiative=initiative
        )
    locked.round, locked.turn = before["round"], before["turn"]
    EncounterEntry.objects.filter(pk=last.pk).update(undone_at=timezone.now())
    state = Board(locked, [])
    return _log(state, kind=Kind.UNDO, by=by, summary=f"Undone: {last.summary}", before={})
