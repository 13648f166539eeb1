"""The FFA round on the encounter page (docs/encounters.md): the contested surprise test,
initiative thrown once, each fighter's turn (an attack with every target of a burst, a delay, a
stunned fighter's recovery) and the next round with its dying turns. Every rule is FFA's engine
(``rules.combat``, ``rules.condition``); ``services`` locks the encounter and calls these with
its board, the user and the dice.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from django.contrib.auth.models import User

import rules
from characters.core.services import Refused, require_referee
from characters.core.wording import percent
from characters.encounters.recording import (
    Kind,
    Side,
    UndoRecord,
    acting,
    advance,
    counted_rounds,
    fire,
    log,
    log_attack,
    log_round_begins,
    lose_surprise,
    mark,
    next_able,
    refuse_coup_de_grace_unless_referee,
    refused_as_the_form_says,
    save_order,
    target_of,
    weapon_of,
)
from characters.encounters.selectors import Board, Row, side_fighters
from characters.models import EncounterEntry
from characters.play import services as play_services
from rules.combat import AttackPlan, AttackResult, Situation, Weapon

# Who the referee says may be surprised: a side, or either.
EITHER = "either"


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


def throw_surprise(
    state: Board,
    *,
    by: User,
    may_be_surprised: str,
    dms: dict[str, int] | None,
    rng: random.Random,
) -> EncounterEntry:
    """Before initiative, the referee has the sides throw for surprise (the engine's contested
    AWA test: each side's best AWA DM, the encounter range DMs its sheets settle, and the
    referee's DM for it, 2DH each). A side the referee said may be surprised
    (``may_be_surprised``: a side, or ``EITHER``) and beaten by the margin is surprised: it
    loses its turns and has the surprised DEF until the referee says surprise is lost."""
    locked = state.encounter
    if problem := surprise_refused(state):
        raise Refused(problem)
    dms = dms or {}
    throws = []
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
    before = UndoRecord.of(state)
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
    return log(state, kind=Kind.SURPRISE, by=by, summary=summary, before=before, detail=detail)


def throw_initiative(state: Board, *, by: User, rng: random.Random) -> EncounterEntry:
    """The referee throws everyone's initiative on the server (the engine breaks ties); the
    first round begins with the highest."""
    locked = state.encounter
    if locked.round:
        raise Refused(f"Initiative was thrown for {locked.name}: it is round {locked.round}.")
    before = UndoRecord.of(state)
    thrown = rules.combat.throw_initiative([(str(row.pk), row.ini_now) for row in state.rows], rng)
    by_key = {str(row.pk): row for row in state.rows}
    state.rows = [by_key[roll.key] for roll in thrown]
    for roll, row in zip(thrown, state.rows, strict=True):
        row.combatant.initiative = roll.total
    save_order(state)
    locked.round = 1
    locked.turn = next_able(state, 0)
    return log(
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
    targets = [target_of(state, attacker, order.target, "Target", finishing=order.coup_de_grace)]
    for pk in dict.fromkeys(order.others):
        if pk != order.target:
            targets.append(target_of(state, attacker, pk, "Further targets"))
    weapon = weapon_of(attacker, order.weapon)
    situation = replace(order.situation, targets=len(targets))
    plans = []
    for target in targets:
        seen = replace(situation, target_surprised=True) if target.surprised else situation
        with refused_as_the_form_says(FORM_LABELS):
            planned = rules.combat.plan_attack(
                attacker.fighter,
                weapon,
                target.fighter,
                order.range_band,
                seen,
                attacker_condition=attacker.condition,
                target_condition=target.condition,
            )
        plans.append((planned, target))
    return Planned(plans, weapon)


def _apply(result: AttackResult, target: Row, by: User, before, rng: random.Random) -> None:
    """Mark what reaches LIF on the target, its bleeding time thrown as the play sheet does."""
    damage = result.damage
    # What the engine marks, the sheets mark: stunning or lethal damage that reaches LIF.
    if damage is None or not result.hit or damage.lif <= 0:
        return
    form = damage.form
    if form not in (rules.play.STUN, rules.play.LETHAL):
        return
    mark(
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
    if not result.effect:
        return "a hit, EN 0 (exactly the TN): it does no damage"
    if damage is None or not damage.lif:
        return f"a hit, EN {result.effect}, but no damage gets through"
    form = "stunning" if damage.form == rules.play.STUN else "lethal"
    wound = f", a {result.wound} wound" if result.wound else ""
    return f"a hit, EN {result.effect}: {damage.lif} {form} damage reaches LIF{wound}"


def _raises_alarm(target: Row, result: AttackResult) -> bool:
    """A surprised target hit and left standing raises the alarm (the engine's call)."""
    return rules.combat.raises_alarm(
        surprised=target.surprised, hit=result.hit, now=target.condition
    )


def _state_after(target: Row, result: AttackResult) -> str:
    """The target's worst state after the blow, when it is worse than hurt; and, for a
    surprised target hit and left conscious, that it raises the alarm (reading 27)."""
    code, words = target.states[0]
    said = "" if code in ("ok", "wounded") else f" {target.combatant.name}: {words.lower()}."
    if _raises_alarm(target, result):
        said += f" {target.combatant.name}, hit and still standing, raises the alarm."
    return said


def _throw_at(
    planned: AttackPlan, target: Row, by: User, before: UndoRecord, rng: random.Random
) -> tuple[dict[str, Any], str]:
    """One target's throw: resolved by the engine, the damage marked on it. Returns the log's
    detail of it (``alarm``: it raised the alarm) and its words."""
    dice = rules.combat.throw_dice(planned, rng)
    result = rules.combat.resolve_attack(planned, dice, target_condition=target.condition)
    _apply(result, target, by, before, rng)
    detail = rules.combat.attack_result_as_dict(result) | {
        # The odds as the page showed them before the throw (the engine's "chance" is exact).
        "odds": percent(planned.chance),
        "target_name": target.combatant.name,
        "states": [words for _, words in target.states],
        "alarm": _raises_alarm(target, result),
    }
    words = f"{result.total} vs TN {result.tn}, {_verdict(result)}.{_state_after(target, result)}"
    return detail, words


def attack(state: Board, *, by: User, order: AttackOrder, rng: random.Random) -> EncounterEntry:
    """The fighter whose turn it is attacks: planned and resolved by the engine with dice
    thrown here (one throw per target of a burst), the damage marked on each target,
    ammunition counted, and the turn passed on."""
    locked = state.encounter
    attacker = acting(state, by, "attack")
    refuse_coup_de_grace_unless_referee(state, by, order.coup_de_grace)
    planned = plan(state, attacker, order)
    weapon = planned.weapon
    before = UndoRecord.of(state)
    fired = order.situation.rounds_fired
    ammunition = fire(attacker, weapon, fired, by, locked, before)
    thrown = [_throw_at(plan_of, target, by, before, rng) for plan_of, target in planned.plans]
    # The burst's throws were one moment, all at the surprised DEF; the alarm ends surprise
    # from the next turn on, so those of the side still to act this round take their turns.
    alarm = lose_surprise(state) if any(detail["alarm"] for detail, _ in thrown) else ""
    advance(state)
    (detail, words), *others = thrown
    detail |= {
        "weapon": weapon.name,
        "range": order.range_band,
        # Rounds off a magazine, for the encounter's summary (0: the weapon counts none).
        "rounds": counted_rounds(weapon, fired),
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
            f"{len(targets)} targets at {order.range_band} range. {told}{alarm}{ammunition}"
        )
    else:
        summary = (
            f"{attacker.combatant.name} attacks {targets[0].combatant.name} with the "
            f"{weapon.name} at {order.range_band} range: {words}{alarm}{ammunition}"
        )
    return log_attack(
        state, attacker, targets[0], by=by, before=before, summary=summary, detail=detail
    )


def _next_round(state: Board, by: User, before: UndoRecord) -> EncounterEntry:
    """The referee starts the next round: every dying fighter loses its turn's LIF first."""
    encounter = state.encounter
    require_referee(encounter.campaign, by, "start the next round")
    news = []
    for row in state.rows:
        if row.condition.dying:
            events = mark(
                row,
                before,
                on_sheet=lambda character: play_services.dying_turn(character=character, by=by),
                here=rules.dying_turn,
            )
            news.append(f"{row.combatant.name}: {' '.join(e.message for e in events)}")
    # The round first: whose turn comes depends on it (a surprised side acts from round 2).
    encounter.round += 1
    encounter.turn = next_able(state, 0)
    return log_round_begins(state, by=by, before=before, news=news)


def waiting_for(state: Board) -> list[Row]:
    """Whom the fighter acting now may delay for: those after it whose turn comes this round."""
    turn = state.encounter.turn
    return [row for row in state.rows[turn + 1 :] if row.takes_turn]


def _delay(
    state: Board, actor: Row, by: User, before: UndoRecord, after: int | None
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
    save_order(state)
    state.encounter.turn = next_able(state, now)
    summary = f"{actor.combatant.name} delays, acting after {other.combatant.name}."
    return log(state, kind=Kind.DELAY, by=by, summary=summary, before=before, actor=actor)


def _recover(state: Board, actor: Row, by: User, before: UndoRecord) -> EncounterEntry:
    """A stunned fighter spends its turn recovering: the stun ends, and the turn passes."""
    if not actor.condition.stunned:
        raise Refused(f"{actor.combatant.name} is not stunned.")
    mark(
        actor,
        before,
        on_sheet=lambda character: play_services.end_stun(character=character, by=by),
        here=lambda condition: (rules.end_stun(condition), ()),
    )
    advance(state)
    summary = f"{actor.combatant.name} spends the turn recovering from the stun."
    return log(state, kind=Kind.PASS, by=by, summary=summary, before=before, actor=actor)


def take_turn(state: Board, *, by: User, action: str, after: int | None) -> EncounterEntry:
    """Another way through a turn: ``pass`` (the fighter did something else), ``delay`` (it
    acts after the fighter ``after`` instead, by default the next), ``recover`` (a stunned
    fighter's turn) or, for the referee, ``next_round``."""
    before = UndoRecord.of(state)
    if action == "next_round":
        return _next_round(state, by, before)
    actor = acting(state, by, "end its turn")
    if action == "delay":
        return _delay(state, actor, by, before, after)
    if action == "recover":
        return _recover(state, actor, by, before)
    if action != "pass":
        raise Refused("Action: under FFA a turn is passed, delayed or spent recovering.")
    advance(state)
    return log(
        state,
        kind=Kind.PASS,
        by=by,
        summary=f"{actor.combatant.name} ends its turn.",
        before=before,
        actor=actor,
    )


def join(state: Board, *, newcomers: list[Row], present: int, rng: random.Random) -> dict[str, Any]:
    """Reinforcements once initiative is thrown: each throws its initiative as it joins and
    takes its place by it (the engine's ``join_initiative``); the fighter acting now keeps the
    turn, and a newcomer placed before it first acts next round. Returns the log's words and
    detail of the throws."""
    current = state.current
    rolls, keys = rules.combat.join_initiative(
        [(str(row.pk), row.combatant.initiative or 0) for row in state.rows[:present]],
        [(str(row.pk), row.ini_now) for row in newcomers],
        rng,
    )
    by_key = {str(row.pk): row for row in state.rows}
    for roll in rolls:
        by_key[roll.key].combatant.initiative = roll.total
    state.rows = [by_key[key] for key in keys]
    save_order(state)
    state.encounter.turn = state.rows.index(current) if current else len(state.rows)
    return {
        "words": f"Initiative: {_initiative_words(rolls, by_key)}.",
        "rolls": _initiative_detail(rolls, by_key),
    }
