"""The T4 round on the encounter page (docs/combat-t4.md, "The round"; docs/encounters.md): the
surprise throw, initiative thrown every round, the movement phase lowest first (each fighter's
movement and action status), the combat phase highest first with tied fighters acting together,
held actions, and the end of the round (bleeding, stun, fatigue). Every rule is the T4 engine's
(``rules.combat.t4``); ``services`` locks the encounter and calls these with its board.

What the fight keeps between steps: on the encounter (``system_state``) the ``phase``, the tie
``group`` acting now (those able when it began still act: III.2) and the held fighter acting
now (``interrupt``); on each fighter its statuses this round (``movement``, ``action``,
``prone``), the Tactics points it keeps for initiative (chosen at its first throw, reading
T4-18), the rounds it has trotted, whether it ``acted`` (for the stun countdown, reading T4-22)
and ``struck`` at full strength (fatigue), whether it is ``holding``, the ``targets`` it attacked
this round (V.27), whether a weapon over 3000 mm was used at contact (IV.4) and the weapon
``in_hand`` (its bulk counts against initiative).
"""

from __future__ import annotations

import random
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from django.contrib.auth.models import User

from characters.core.services import Refused, require_referee
from characters.core.wording import percent
from characters.encounters.recording import (
    Kind,
    Side,
    UndoRecord,
    acting,
    attack_recall,
    counted_rounds,
    fire,
    log,
    log_attack,
    mark_record,
    next_able,
    refuse_coup_de_grace_unless_referee,
    refused_as_the_form_says,
    reinforcements_initiative,
    require_control,
    save_order,
    target_of,
    update_fight_state,
    update_fighter_state,
    weapon_of,
)
from characters.encounters.selectors import Board, Row, weapon_key
from characters.models import EncounterEntry
from rules.attack import Modifier
from rules.combat import Weapon
from rules.combat.figures import weapon_figures
from rules.combat.records import record_as_dict
from rules.combat.t4 import round as t4_round
from rules.combat.t4.command import t4_result_as_dict
from rules.combat.t4.condition import T4Condition, current
from rules.combat.t4.plan import (
    MOVEMENTS,
    STATIONARY,
    TABLES,
    T4Attack,
    T4Plan,
    T4Situation,
    plan_t4_attack,
)
from rules.combat.t4.resolve import T4Hit, T4Result, chance_of_any_hit, resolve_t4_attack
from rules.combat.throws import RandomDice

INITIATIVE, MOVEMENT, COMBAT = "initiative", "movement", "combat"
RANGED, STRIKING, EVADE, PRONE, STAND, HOLD = (
    "ranged attack",
    "strike",
    "evade",
    "go prone",
    "stand up",
    "hold",
)
# The action statuses a fighter declares in the movement phase (III.1).
ACTIONS = (RANGED, STRIKING, EVADE, PRONE, STAND, HOLD)
# What a side's surprise throw asks that the sheets cannot say (II.2).
SURPRISE_CHOICES = ("vehicle", "animals", "all_pouncers")


def phase(state: Board) -> str:
    return str(state.encounter.system_state.get("phase", INITIATIVE))


def record_of(row: Row) -> T4Condition:
    """The fighter's T4 record (the board reads one for every T4 fighter)."""
    assert isinstance(row.record, T4Condition), row.record
    return row.record


def movement_of(row: Row) -> str:
    return str(row.state.get("movement", STATIONARY))


def action_of(row: Row) -> str:
    """The action status declared, by default an attack with the fighter's first weapon."""
    first = row.fighter.weapons[0] if row.fighter.weapons else None
    usual = STRIKING if first is not None and first.melee else RANGED
    return str(row.state.get("action", usual))


def in_hand(row: Row) -> Weapon | None:
    """The weapon in the fighter's hand: the last it attacked with, else its first."""
    key = row.state.get("in_hand")
    by_key = {weapon_key(weapon): weapon for weapon in row.fighter.weapons}
    if key in by_key:
        return by_key[key]
    return row.fighter.weapons[0] if row.fighter.weapons else None


def able(row: Row) -> bool:
    """Whether the fighter can act this round: not out of action, not stunned (reading T4-22),
    not of the surprised side (reading T4-17)."""
    return not (row.out_of_action or row.surprised or row.record_state == "stunned")


def _words(dms: Iterable[Modifier]) -> str:
    return "".join(f", {m.label} {m.dm:+d}" for m in dms)


# -- surprise ----------------------------------------------------------------------------------


def surprise_sides(
    state: Board, choices: Mapping[str, Mapping[str, Any]] | None = None
) -> tuple[t4_round.SurpriseSide, t4_round.SurpriseSide]:
    """Each side as its surprise throw counts it: its fighters able to act, and what the
    referee says of it (a vehicle, animals with it, all pouncers)."""
    choices = choices or {}
    sides = []
    for side in Side.values:
        said = choices.get(side, {})
        members = tuple(row.sheet for row in state.side(side) if not row.out_of_action)
        sides.append(
            t4_round.SurpriseSide(
                side,
                tuple(sheet for sheet in members if sheet is not None),
                vehicle=bool(said.get("vehicle")),
                animals=int(said.get("animals", 0)),
                all_pouncers=bool(said.get("all_pouncers")),
            )
        )
    return sides[0], sides[1]


def surprise_odds(
    sides: tuple[t4_round.SurpriseSide, t4_round.SurpriseSide],
) -> dict[str, Fraction]:
    """The exact chance each side has surprise, before the dice (II.2: 1D each)."""
    chances = dict.fromkeys(Side.values, Fraction(0))
    for first in range(1, 7):
        for second in range(1, 7):
            winner = t4_round.throw_surprise(sides, (first, second)).side
            if winner is not None:
                chances[winner] += Fraction(1, 36)
    return chances


def throw_surprise(
    state: Board,
    *,
    by: User,
    rng: random.Random,
    sides: Mapping[str, Mapping[str, Any]] | None = None,
) -> EncounterEntry:
    """Before the first round: each side throws 1D + its DMs (II.2); a side 3 or more ahead has
    surprise, and the other side is surprised until surprise is lost (reading T4-17)."""
    counted = surprise_sides(state, sides)
    if any(not side.members for side in counted):
        raise Refused("Surprise: each side needs a fighter able to act to throw for it.")
    dice = (rng.randint(1, 6), rng.randint(1, 6))
    result = t4_round.throw_surprise(counted, dice)
    before = UndoRecord.of(state)
    winner = result.side
    loser = next((side for side in Side.values if side != winner), "") if winner else ""
    state.encounter.surprised_side = loser
    told = [
        f"{Side(throw.who).label.lower()} {throw.total} (1D {throw.die}{_words(throw.dms)})"
        for throw in result.throws
    ]
    verdict = f"{Side(winner).label.lower()} has surprise" if winner else "nobody has surprise"
    detail = {
        "throws": [
            {
                "side": throw.who,
                "dice": [throw.die],
                "dms": [m.as_dict() for m in throw.dms],
                "total": throw.total,
            }
            for throw in result.throws
        ],
        "surprised": loser,
    }
    summary = f"Surprise (T4): {' against '.join(told)}: {verdict}."
    return log(state, kind=Kind.SURPRISE, by=by, summary=summary, before=before, detail=detail)


# -- initiative --------------------------------------------------------------------------------


def side_leadership(state: Board, side: str) -> int:
    """A side's best Leadership among those able to act (III.2)."""
    sheets = [row.sheet for row in state.side(side) if row.sheet and not row.out_of_action]
    return t4_round.best_level(sheets, t4_round.LEADERSHIP)


def tactics_level(row: Row) -> int:
    assert row.sheet is not None
    return row.sheet.skill_level(t4_round.TACTICS) or 0


def asks_tactics(row: Row) -> bool:
    """Whether the fighter's Tactics split is still to be chosen (once, at its first throw)."""
    return tactics_level(row) > 0 and "tactics_kept" not in row.state


def initiative_dms(
    state: Board, row: Row, *, tactics_kept: int | None = None, quick_draw: bool = False
) -> tuple[Modifier, ...]:
    """III.2's DMs to the fighter's initiative now (shown before the throw)."""
    assert row.sheet is not None
    assert row.record is not None
    kept = row.state.get("tactics_kept", tactics_kept or 0)
    weapon = in_hand(row)
    bulk = weapon_figures(weapon).t4.bulk if weapon is not None else 0
    return t4_round.initiative_dms(
        row.sheet,
        record_of(row),
        side_leadership=side_leadership(state, row.combatant.side),
        tactics_kept=int(kept),
        quick_draw=quick_draw,
        weapon_bulk=bulk,
    )


def throw_initiative(
    state: Board,
    *,
    by: User,
    rng: random.Random,
    tactics_kept: Mapping[int, int] | None = None,
    quick_draw: Collection[int] = (),
) -> EncounterEntry:
    """Every round (III.2): each fighter able to act throws 1D + its DMs; the order is highest
    first, ties one group that acts together; the movement phase begins. ``tactics_kept``: the
    Tactics points a fighter keeps for initiative, asked at its first throw (the rest go to the
    pool, reading T4-18); ``quick_draw``: fighters drawing quickly this round (-3)."""
    encounter = state.encounter
    if encounter.round and phase(state) != INITIATIVE:
        raise Refused(f"Initiative for round {encounter.round} is thrown already.")
    before = UndoRecord.of(state)
    kept_now = tactics_kept or {}
    throws: list[t4_round.DieThrow] = []
    for row in state.rows:
        if row.out_of_action:
            row.combatant.initiative = None
            continue
        if asks_tactics(row):
            kept = min(max(kept_now.get(row.pk, 0), 0), tactics_level(row))
            update_fighter_state(row, tactics_kept=kept)
        dms = initiative_dms(state, row, quick_draw=row.pk in quick_draw)
        throws.append(t4_round.DieThrow(str(row.pk), rng.randint(1, 6), dms))
    groups = t4_round.order(throws, highest_first=True)
    by_key = {str(row.pk): row for row in state.rows}
    totals = {throw.who: throw for throw in throws}
    ordered = [by_key[key] for group in groups for key in group]
    for row in ordered:
        row.combatant.initiative = totals[str(row.pk)].total
    state.rows = ordered + [row for row in state.rows if row not in ordered]
    save_order(state)
    encounter.round = encounter.round or 1
    encounter.turn = 0
    update_fight_state(state, phase=MOVEMENT, group=None, interrupt=None)
    words = "; ".join(
        " = ".join(f"{by_key[key].combatant.name} {totals[key].total}" for key in group)
        + (" (together)" if len(group) > 1 else "")
        for group in groups
    )
    detail = {
        "rolls": [
            {
                "name": by_key[throw.who].combatant.name,
                "die": throw.die,
                "dms": [m.as_dict() for m in throw.dms],
                "total": throw.total,
            }
            for throw in sorted(throws, key=lambda t: -t.total)
        ]
    }
    summary = f"Initiative, round {encounter.round}: {words}. Movement, lowest first."
    return log(state, kind=Kind.INITIATIVE, by=by, summary=summary, before=before, detail=detail)


# -- the movement phase ------------------------------------------------------------------------


def set_status(
    state: Board, *, by: User, combatant: int, movement: str, action: str
) -> EncounterEntry:
    """A fighter's movement and action status for this round (III.1), set in the movement
    phase by its player or the referee; a stunned fighter neither moves nor attacks."""
    if phase(state) != MOVEMENT:
        raise Refused("Movement: statuses are set in the movement phase.")
    row = state.row(combatant)
    if row is None:
        raise Refused("Movement: that combatant is not in this encounter.")
    require_control(state, by, row, "sets its status")
    if movement not in MOVEMENTS or action not in ACTIONS:
        raise Refused(f"Movement: choose one of {', '.join(MOVEMENTS)} and an action.")
    if not able(row) and (movement != STATIONARY or action != HOLD):
        raise Refused(f"Movement: {row.combatant.name} cannot move or act this round.")
    before = UndoRecord.of(state)
    prone = {PRONE: True, STAND: False}.get(action, bool(row.state.get("prone")))
    update_fighter_state(row, movement=movement, action=action, prone=prone)
    save_order(state)
    summary = f"{row.combatant.name}: {movement}, {action}."
    return log(state, kind=Kind.MOVEMENT, by=by, summary=summary, before=before, actor=row)


def _done_moving(state: Board, by: User, before: UndoRecord) -> EncounterEntry:
    require_referee(state.encounter.campaign, by, "end the movement phase")
    if phase(state) != MOVEMENT:
        raise Refused("Movement: it is not the movement phase.")
    update_fight_state(state, phase=COMBAT, group=None, interrupt=None)
    state.encounter.turn = next_able(state, 0)
    _enter_group(state)
    current = state.current
    first = f" {current.combatant.name} acts first." if current else " Nobody can act."
    summary = f"Movement done: attacks, highest first.{first}"
    return log(state, kind=Kind.MOVEMENT, by=by, summary=summary, before=before)


# -- the combat phase --------------------------------------------------------------------------


def _enter_group(state: Board) -> None:
    """When the turn reaches a new tie group, the group's fighters able to act now are its
    members for the round: one knocked out by another of the group still attacks (III.2)."""
    encounter = state.encounter
    current = state.rows[encounter.turn] if encounter.turn < len(state.rows) else None
    group = encounter.system_state.get("group") or []
    if current is None or current.pk in group:
        return
    tied = current.combatant.initiative
    update_fight_state(
        state,
        group=[row.pk for row in state.rows if row.combatant.initiative == tied and able(row)],
    )


def _advance(state: Board, actor: Row) -> None:
    """The turn passes on (a held fighter acting now gives it back to whoever had it)."""
    if state.encounter.system_state.get("interrupt") == actor.pk:
        update_fight_state(state, interrupt=None)
        update_fighter_state(actor, holding=False)
        return
    state.encounter.turn = next_able(state, state.encounter.turn + 1)
    _enter_group(state)


def held(state: Board) -> list[Row]:
    """The fighters holding their action, who may act now at any time this round."""
    if phase(state) != COMBAT or state.encounter.system_state.get("interrupt"):
        return []
    current = state.current
    return [
        row
        for row in state.rows
        if row.state.get("holding") and row is not current and not row.out_of_action
    ]


def take_turn(state: Board, *, by: User, action: str, after: int | None) -> EncounterEntry:
    """``pass`` (the fighter does nothing more), ``hold`` (it holds its action), ``act_now``
    (the held fighter ``after`` acts now), and for the referee ``done_moving`` and
    ``next_round``."""
    before = UndoRecord.of(state)
    if action == "done_moving":
        return _done_moving(state, by, before)
    if action == "next_round":
        return _next_round(state, by, before)
    if action == "act_now":
        return _act_now(state, by, before, after)
    actor = acting(state, by, "end its turn")
    if action == "hold":
        if state.encounter.system_state.get("interrupt") == actor.pk:
            raise Refused(f"{actor.combatant.name} acts now: it attacks or passes.")
        update_fighter_state(actor, holding=True)
        _advance(state, actor)
        save_order(state)
        summary = f"{actor.combatant.name} holds its action."
        return log(state, kind=Kind.HOLD, by=by, summary=summary, before=before, actor=actor)
    if action != "pass":
        raise Refused("Action: under T4 a turn is passed or held.")
    update_fighter_state(actor, acted=True)
    _advance(state, actor)
    save_order(state)
    summary = f"{actor.combatant.name} ends its turn."
    return log(state, kind=Kind.PASS, by=by, summary=summary, before=before, actor=actor)


def _act_now(state: Board, by: User, before: UndoRecord, pk: int | None) -> EncounterEntry:
    row = next((row for row in held(state) if row.pk == pk), None)
    if row is None:
        raise Refused("Act now: only a fighter holding its action acts now.")
    require_control(state, by, row, "says it acts now")
    update_fight_state(state, interrupt=row.pk)
    summary = f"{row.combatant.name} acts now, its action held."
    return log(state, kind=Kind.HOLD, by=by, summary=summary, before=before, actor=row)


@dataclass(frozen=True)
class T4Order:
    """An attack as the T4 form asks for it. The fight's statuses (the attacker's and the
    target's movement, evading, prone, surprise, the first round, the targets this round) are
    filled in from the fight, not asked (docs/encounters.md). ``keep_turn``: the attacker means
    to attack another target this round (V.27)."""

    target: int
    weapon: str
    range_band: str
    routine: str | None
    situation: T4Situation
    keep_turn: bool = False
    coup_de_grace: bool = False


@dataclass(frozen=True)
class T4Planned:
    plan: T4Plan
    target: Row
    weapon: Weapon
    rounds: int

    @property
    def chance_any(self) -> Fraction:
        """The chance at least one of the throws hits: a burst's, whose throws each hit with
        ``plan.chance`` (one throw: its chance)."""
        return chance_of_any_hit(self.plan)

    @property
    def odds(self) -> str:
        """The odds as the outcome and the log recall them: per throw and, for a burst of
        several, of at least one hit."""
        each = percent(self.plan.chance)
        if self.plan.throws <= 1:
            return each
        return f"{each} each of {self.plan.throws} throws, {percent(self.chance_any)} of a hit"


# The engine's names of what the T4 form asks, as the form labels them.
FORM_LABELS = {
    "range": "Range",
    "routine": "Routine",
    "weapon": "Weapon",
    "situation.burst": "Burst",
    "situation.movement": "Movement",
    "situation.target_index": "Targets this round",
    "situation.location_skew": "Aimed snapshot",
    "situation.snipe_shift": "Snipe",
    "situation.first_round": "First round",
    "situation.weapon_used_at_contact": "Weapon",
    "situation.target_weapon": "Pure defense",
    "situation.cover_regions": "Cover",
    "situation.pistol_braced": "Pistol braced",
    "situation.accessories": "Accessories",
}


def blocker(target: Row) -> Weapon | None:
    """The weapon the target blocks a strike with: the melee weapon in its hand, else its first
    (none: it blocks bare-handed, IV.10)."""
    weapon = in_hand(target)
    if weapon is not None and weapon.melee and not weapon.natural:
        return weapon
    return next((w for w in target.fighter.weapons if w.melee and not w.natural), None)


def target_index(attacker: Row, target: Row) -> int:
    targets = list(attacker.state.get("targets", []))
    return targets.index(target.pk) + 1 if target.pk in targets else len(targets) + 1


def with_surprise(state: Board, attacker: Row) -> bool:
    surprised = state.encounter.surprised_side
    return bool(surprised) and surprised != attacker.combatant.side


def plan(state: Board, attacker: Row, order: T4Order) -> T4Planned:
    """The engine's plan of the attack (its to-hit number, every DM and the exact chance)
    before any die, the statuses of the fight filled in."""
    target = target_of(state, attacker, order.target, "Target", finishing=order.coup_de_grace)
    weapon = weapon_of(attacker, order.weapon)
    evading = action_of(target) == EVADE and bool(
        TABLES["target_movement"][movement_of(target)].get("evades")
    )
    situation = replace(
        order.situation,
        movement=movement_of(attacker),
        target_movement=movement_of(target),
        target_evading=evading,
        target_prone=bool(target.state.get("prone")),
        target_index=min(target_index(attacker, target), 3),
        with_surprise=with_surprise(state, attacker),
        first_round=weapon.melee and state.encounter.round == 1,
        weapon_used_at_contact=bool(attacker.state.get("long_used")),
        target_weapon=blocker(target) if weapon.melee else None,
    )
    if target_index(attacker, target) > 3:
        raise Refused("Target: three targets a round at most (V.27).")
    assert attacker.sheet is not None
    assert target.sheet is not None
    attack = T4Attack(
        attacker.sheet,
        target.sheet,
        weapon,
        order.range_band,
        order.routine,
        situation,
        record_of(attacker),
        record_of(target),
    )
    with refused_as_the_form_says(FORM_LABELS):
        planned = plan_t4_attack(attack)
    rounds = counted_rounds(weapon, planned.burst or 1)
    return T4Planned(planned, target, weapon, rounds)


def _dice_words(hit: T4Hit) -> str:
    """A hit's damage in short: the dice thrown and blunt trauma, or the armor not penetrated
    (a rating no greater than the AV: VI.8) and what blunt trauma it still passes."""
    trauma = hit.blunt_trauma
    if not hit.penetrated:
        return "armor not penetrated" + (f", {trauma} blunt trauma" if trauma else "")
    thrown = "+".join(map(str, hit.damage_dice)) or "0"
    return thrown + (f" + {trauma} blunt trauma" if trauma else "")


def _verdict(result: T4Result) -> str:
    """The throws and the hits in words."""
    plan_ = result.plan
    reads = ", ".join(
        t.words + (f" ({t.spectacular})" if t.spectacular else "") for t in result.throws
    )
    if not result.throws:
        reads = "no throw (an unconscious target)"
    hits = "; ".join(
        f"{hit.location.name} ({hit.roll}): {hit.damage} damage ({_dice_words(hit)})"
        + (
            " to " + ", ".join(f"{stat} {points}" for stat, points in hit.applied if points)
            if hit.applied
            else ""
        )
        for hit in result.hits
    )
    outcome = f"hit: {hits}" if result.hits else "a miss"
    if result.blocked_by_cover and not result.hits:
        outcome = "the hit is behind cover: a miss"
    return f"{plan_.difficulty.rule} at or under {plan_.to_hit}: {reads}; {outcome}"


def attack(state: Board, *, by: User, order: T4Order, rng: random.Random) -> EncounterEntry:
    """The fighter acting now attacks: planned and resolved by the T4 engine with dice thrown
    here, the target's record (and the attacker's fatigue) marked, ammunition counted, surprise
    kept or lost (II.3-4), the turn passed on unless it attacks another target this round."""
    encounter = state.encounter
    attacker = acting(state, by, "attack")
    refuse_coup_de_grace_unless_referee(state, by, order.coup_de_grace)
    planned = plan(state, attacker, order)
    before = UndoRecord.of(state)
    ammunition = fire(attacker, planned.weapon, planned.rounds, by, encounter, before).strip()
    result = resolve_t4_attack(planned.plan, RandomDice(rng))
    target = planned.target
    name, target_name = attacker.combatant.name, target.combatant.name
    # A strike at full strength costs fatigue (reading T4-8): the round then recovers none.
    full_strength = (planned.plan.fatigue_after or 0) > record_of(attacker).fatigue
    for row, after, what, events in (
        (target, result.condition_after, f"hit by {name} ({result.damage} damage)", result.events),
        (attacker, result.attacker_condition_after, f"attacked {target_name}", ()),
    ):
        if record_as_dict(row.system, after) != record_as_dict(row.system, record_of(row)):
            mark_record(row, before, after, by=by, what=what, events=events)
    long_weapon = planned.plan.strike and weapon_figures(planned.weapon).t4.length_mm > int(
        TABLES["clumsy_length_mm"]
    )
    targets = list(attacker.state.get("targets", []))
    if target.pk not in targets:
        targets.append(target.pk)
    update_fighter_state(
        attacker,
        acted=True,
        struck=bool(attacker.state.get("struck")) or full_strength,
        targets=targets,
        long_used=bool(attacker.state.get("long_used")) or long_weapon,
        in_hand=weapon_key(planned.weapon),
    )
    surprise = _surprise_after(state, planned.plan, result, rng)
    more = order.keep_turn and _may_attack_again(attacker)
    if not more:
        _advance(state, attacker)
    save_order(state)
    told = " ".join(
        e.message[0].upper() + e.message[1:] + "."
        for e in result.events
        if e.code != "aim disrupted"
    )
    routine = planned.plan.routine + (f" {planned.plan.burst} rounds" if planned.plan.burst else "")
    summary = " ".join(
        part
        for part in (
            f"{name} attacks {target_name} with the {planned.weapon.name} at "
            f"{order.range_band} range ({routine}): {_verdict(result)}.",
            surprise,
            told,
            ammunition,
        )
        if part
    )
    if more:
        summary += f" {name} keeps its turn to attack another target."
    detail = (
        t4_result_as_dict(result)
        | {"odds": planned.odds}
        | attack_recall(planned.weapon, planned.rounds, target)
        | {"surprise": surprise}
    )
    return log_attack(state, attacker, target, by=by, before=before, summary=summary, detail=detail)


def _may_attack_again(attacker: Row) -> bool:
    """Whether the attacker's DEX lets it attack another target this round (V.27)."""
    assert attacker.sheet is not None
    dex = attacker.sheet.attacking("DEX", current(attacker.sheet, record_of(attacker), "DEX"))
    most = max(row["most"] for row in TABLES["targets_by_dex"] if dex >= row["from_dex"])
    return len(attacker.state.get("targets", [])) < min(most, 3)


def _surprise_after(state: Board, plan_: T4Plan, result: T4Result, rng: random.Random) -> str:
    """II.3-4 after an attack with surprise: an unsilenced shot, or a target hit and still
    conscious, ends it; otherwise 2D of 5 or less does. Returns the words for the log."""
    if not plan_.attack.situation.with_surprise:
        return ""
    encounter = state.encounter
    if any(event.code == "surprise lost" for event in result.events):
        encounter.surprised_side = ""
        return "Surprise is lost."
    dice = (rng.randint(1, 6), rng.randint(1, 6))
    if t4_round.surprise_lost(dice):
        encounter.surprised_side = ""
        return f"Surprise: 2D {dice[0]}+{dice[1]} = {sum(dice)}, 5 or less: it is lost."
    return f"Surprise: 2D {dice[0]}+{dice[1]} = {sum(dice)}: it holds (lost on 5 or less)."


# -- the end of the round ----------------------------------------------------------------------


def _next_round(state: Board, by: User, before: UndoRecord) -> EncounterEntry:
    """The referee ends the round (III, VI): each fighter's bleeding, stun countdown and
    fatigue (reading T4-8), its statuses cleared; the next round starts with its initiative."""
    encounter = state.encounter
    require_referee(encounter.campaign, by, "start the next round")
    if phase(state) == INITIATIVE:
        raise Refused("Next round: throw this round's initiative first.")
    news = []
    for row in state.rows:
        assert row.sheet is not None
        assert row.record is not None
        movement = movement_of(row)
        trotted = int(row.state.get("trotting", 0)) + 1 if movement == "trotting" else 0
        after, bled = t4_round.end_of_round(
            row.sheet,
            record_of(row),
            movement=movement,
            trotting_rounds=trotted,
            struck_full_strength=bool(row.state.get("struck")),
            acted=bool(row.state.get("acted")),
        )
        if record_as_dict(row.system, after) != record_as_dict(row.system, record_of(row)):
            said = _round_words(row, after, bled)
            mark_record(row, before, after, by=by, what=f"end of round {encounter.round}")
            if said:
                news.append(f"{row.combatant.name}: {said}")
        # Last round's initiative is spent: the next is thrown anew.
        row.combatant.initiative = None
        update_fighter_state(
            row,
            movement=STATIONARY,
            action=action_of(row) if action_of(row) not in (EVADE, PRONE, STAND, HOLD) else RANGED,
            trotting=trotted,
            acted=False,
            struck=False,
            holding=False,
            targets=[],
        )
    encounter.round += 1
    encounter.turn = 0
    update_fight_state(state, phase=INITIATIVE, group=None, interrupt=None)
    save_order(state)
    summary = " ".join((f"Round {encounter.round}: throw initiative.", *news))
    return log(state, kind=Kind.ROUND, by=by, summary=summary, before=before)


def _round_words(row: Row, after: Any, bled: Iterable[tuple[str, int]]) -> str:
    """What the end of the round did to a fighter, in words."""
    said = [f"bleeds {points} ({stat})" for stat, points in bled if points]
    was = record_of(row).fatigue
    if after.fatigue != was:
        said.append(f"fatigue {was} to {after.fatigue}")
    if after.stunned_rounds < record_of(row).stunned_rounds:
        said.append("the stun wears off" if not after.stunned_rounds else "stunned a round less")
    return ", ".join(said)


# -- reinforcements ----------------------------------------------------------------------------


def join(state: Board, *, newcomers: list[Row], present: int, rng: random.Random) -> dict[str, Any]:
    """Reinforcements: each throws its initiative for this round as it joins (1D + its DMs;
    Tactics kept none) and takes its place by it, after those with the same total."""
    del present  # every fighter's place comes from its initiative this round
    current = state.current
    rolls = []
    for row in newcomers:
        if row.out_of_action:
            continue
        update_fighter_state(row, tactics_kept=0)
        throw = t4_round.DieThrow(str(row.pk), rng.randint(1, 6), initiative_dms(state, row))
        row.combatant.initiative = throw.total
        rolls.append(
            {
                "name": row.combatant.name,
                "die": throw.die,
                "dms": [m.as_dict() for m in throw.dms],
                "total": throw.total,
            }
        )
    if phase(state) != INITIATIVE:
        placed = sorted(
            state.rows,
            key=lambda row: (
                -(row.combatant.initiative if row.combatant.initiative is not None else -99)
            ),
        )
        state.rows = placed
        if current is not None and state.encounter.system_state.get("interrupt") is None:
            state.encounter.turn = state.rows.index(current)
    save_order(state)
    return reinforcements_initiative(rolls)
