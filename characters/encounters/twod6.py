"""The 2D6 round on the encounter page (docs/combat-2d6.md, "The round"; docs/encounters.md):
initiative thrown once (a prepared fighter's is 12), each side's Tactics check, hastening at
the start of a round, the dynamic order (reactions, recoil and hastening move it), each
fighter's turn of one significant and one minor action or three minor (an attack, aiming, a
Leadership check), the target's reaction asked before the dice, delays. Every rule is the 2D6
engine's (``rules.combat.twod6``); ``services`` locks the encounter and calls these.

What the fight keeps between steps: on the encounter (``system_state``) each side's Tactics
Effect, an attack waiting for its target's reaction (``pending``) and a delaying fighter acting
now (``interrupt``, with the count it acts on); on each fighter its ``initiative`` record (the
engine's :class:`Initiative`), whether it is ``delaying``, its ``reactions`` since its last turn
(-1 each on its checks), its ``aim`` (+1 a minor action, kept until it does anything else) and
the actions of its turn so far (``minors``).
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping
from dataclasses import asdict, dataclass, replace
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
    log_round_begins,
    mark_record,
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
from rules.combat import CombatRefused, Weapon
from rules.combat.throws import RandomDice, chance_at_least
from rules.combat.twod6 import initiative as twod6_initiative
from rules.combat.twod6.attack import (
    PARRY,
    REACTIONS,
    TABLES,
    TwoD6Attack,
    TwoD6Plan,
    TwoD6Result,
    TwoD6Situation,
    plan_2d6_attack,
    resolve_2d6_attack,
)
from rules.combat.twod6.command import twod6_result_as_dict
from rules.combat.twod6.condition import TwoD6Condition
from rules.combat.twod6.initiative import Initiative

# The reaction a form leaves to the target's player (or the referee) to choose.
ASK, NO_REACTION = "ask", "none"
# A reaction as the log says it.
REACTION_WORDS = {"dodge": "dodges", "dodge in cover": "dodges in cover", "parry": "parries"}
# Three minor actions a turn, or one significant and one minor (the seed's "Combat").
MINORS_A_TURN = 3


# -- the fight's records -----------------------------------------------------------------------


def record_of(row: Row) -> TwoD6Condition:
    """The fighter's 2D6 record (the board reads one for every 2D6 fighter)."""
    assert isinstance(row.record, TwoD6Condition), row.record
    return row.record


def initiative_of(row: Row) -> Initiative | None:
    """The fighter's initiative record (None until initiative is thrown or it joins)."""
    stored = row.state.get("initiative")
    return Initiative(**stored) if stored else None


def _store(row: Row, initiative: Initiative) -> None:
    update_fighter_state(row, initiative=asdict(initiative))
    row.combatant.initiative = initiative.current


def _resort(state: Board) -> None:
    """The order by current initiative, highest first, ties by DEX (then as they stood), the
    fallen last; the turn is the first who has neither acted nor delays (the seed's "Dynamic
    Initiative": a change before a fighter acts moves it this round)."""

    def key(row: Row) -> tuple[int, int, int]:
        initiative = initiative_of(row)
        if initiative is None or row.out_of_action:
            return (1, 0, 0)
        return (0, -initiative.current, -initiative.dex)

    state.rows = sorted(state.rows, key=key)
    state.encounter.turn = next(
        (index for index, row in enumerate(state.rows) if _to_act(row)), len(state.rows)
    )
    save_order(state)


def _to_act(row: Row) -> bool:
    initiative = initiative_of(row)
    return (
        initiative is not None
        and not initiative.acted
        and not row.state.get("delaying")
        and not row.out_of_action
    )


def round_begun(state: Board) -> bool:
    """Whether anyone has acted this round (hastening is declared before, reading 2D-11)."""
    return any(
        (initiative := initiative_of(row)) is not None and initiative.acted for row in state.rows
    ) or bool(state.encounter.system_state.get("pending"))


def pending(state: Board) -> dict[str, Any] | None:
    """An attack declared and waiting for its target's reaction."""
    waiting = state.encounter.system_state.get("pending")
    return dict(waiting) if waiting else None


def _refuse_while_pending(state: Board) -> None:
    """Nothing else happens while an attack waits for its target's reaction."""
    if pending(state):
        raise Refused("An attack waits for its target's reaction: answer it first.")


# -- initiative and Tactics --------------------------------------------------------------------


def throw_initiative(
    state: Board, *, by: User, rng: random.Random, prepared: Collection[int] = ()
) -> EncounterEntry:
    """Once, at the start: each fighter 2D6 + DEX DM; one the referee marks ``prepared`` (an
    ambush) counts the dice as 12. The INI trait lasts the fight (spec §1.3)."""
    encounter = state.encounter
    if encounter.round:
        raise Refused(f"Initiative was thrown for {encounter.name}: it is round {encounter.round}.")
    before = UndoRecord.of(state)
    told = []
    rolls = []
    for row in state.rows:
        if row.out_of_action:
            continue
        assert row.sheet is not None
        ready = row.pk in prepared
        # A prepared fighter throws no dice: it counts 12.
        dice = (0, 0) if ready else (rng.randint(1, 6), rng.randint(1, 6))
        initiative = twod6_initiative.starting_initiative(
            str(row.pk), row.sheet, record_of(row), dice, prepared=ready
        )
        _store(row, initiative)
        update_fighter_state(row, prepared=ready)
        thrown = "prepared 12" if ready else f"2D {dice[0]}+{dice[1]}"
        dm = initiative.base - (12 if ready else sum(dice))
        trait = f" + INI trait {initiative.lasting:+d}" if initiative.lasting else ""
        told.append(
            (
                initiative.current,
                f"{row.combatant.name} {initiative.current} ({thrown}, DEX {initiative.dex} "
                f"{dm:+d}{trait})",
            )
        )
        rolls.append(
            {
                "name": row.combatant.name,
                "dice": [] if ready else list(dice),
                "dex_dm": dm,
                "lasting": initiative.lasting,
                "total": initiative.current,
            }
        )
    encounter.round = 1
    _resort(state)
    highest_first = [words for _, words in sorted(told, key=lambda said: -said[0])]
    summary = f"Initiative (2D6): {'; '.join(highest_first)}."
    return log(
        state,
        kind=Kind.INITIATIVE,
        by=by,
        summary=summary,
        before=before,
        detail={"rolls": rolls},
    )


def commander(state: Board, side: str) -> Row | None:
    """A side's unit commander: its best Tactics (ground) among those standing, the first
    fielded of equals."""
    standing = [row for row in state.fielded(side) if not row.out_of_action and row.sheet]
    return max(standing, key=_tactics_level, default=None)


def _tactics_level(row: Row) -> int:
    assert row.sheet is not None
    level = row.sheet.skill_level(twod6_initiative.TACTICS)
    return -1 if level is None else level


def tactics_open(state: Board) -> list[str]:
    """The sides whose Tactics check may be thrown now: once, at the start of the fight."""
    if state.encounter.round != 1 or round_begun(state):
        return []
    thrown = state.encounter.system_state.get("tactics", {})
    return [side for side in Side.values if side not in thrown and commander(state, side)]


def check_odds(check_dms: tuple[Modifier, ...]) -> Fraction:
    """The chance of 8+ on 2D6 with these DMs."""
    return chance_at_least(2, int(TABLES["target"]) - sum(m.dm for m in check_dms))


def _check_words(dice: tuple[int, int], check: twod6_initiative.SkillCheck) -> str:
    """A Tactics or Leadership check as the log says it: the dice, each DM, the total vs 8."""
    dms = "".join(f" {m.label} {m.dm:+d}" for m in check.dms)
    return f"2D {dice[0]}+{dice[1]}{dms} = {check.total} vs 8"


def tactics_preview(state: Board, side: str) -> tuple[Row, tuple[Modifier, ...]] | None:
    """The commander who throws a side's Tactics and its DMs, before the dice."""
    leader = commander(state, side)
    if leader is None:
        return None
    assert leader.sheet is not None
    check = twod6_initiative.tactics_check(leader.sheet, (0, 0))
    return leader, check.dms


def tactics(state: Board, *, by: User, side: str, rng: random.Random) -> EncounterEntry:
    """A side's unit commander throws 2D6 + Tactics + INT DM (reading 2D-3) once, at the start:
    a success adds its Effect to every fighter of the side for the fight."""
    require_referee(state.encounter.campaign, by, "throw a side's Tactics")
    if side not in tactics_open(state):
        raise Refused("Tactics: each side's is thrown once, at the start, before anyone acts.")
    leader = commander(state, side)
    assert leader is not None
    assert leader.sheet is not None
    before = UndoRecord.of(state)
    dice = (rng.randint(1, 6), rng.randint(1, 6))
    check = twod6_initiative.tactics_check(leader.sheet, dice)
    for row in state.side(side):
        initiative = initiative_of(row)
        if initiative is not None and check.effect:
            _store(row, twod6_initiative.lasting_boost(initiative, check.effect))
    thrown = {**state.encounter.system_state.get("tactics", {}), side: check.effect}
    update_fight_state(state, tactics=thrown)
    _resort(state)
    verdict = (
        f"Effect {check.effect}: +{check.effect} initiative for {Side(side).label.lower()}"
        if check.effect
        else ("a failure: nothing" if check.total < int(TABLES["target"]) else "Effect 0")
    )
    summary = (
        f"Tactics of {Side(side).label.lower()}: {leader.combatant.name} throws "
        f"{_check_words(dice, check)}: {verdict}."
    )
    detail = {"side": side, "dice": list(dice), "dms": [m.as_dict() for m in check.dms]}
    return log(
        state, kind=Kind.TACTICS, by=by, summary=summary, before=before, actor=leader, detail=detail
    )


def hasten(state: Board, *, by: User, combatant: int) -> EncounterEntry:
    """A fighter declares it acts hastily at the start of the round: +2 initiative this round,
    -1 on its actions; once a round (reading 2D-11)."""
    row = state.row(combatant)
    if row is None or initiative_of(row) is None:
        raise Refused("Hasten: that combatant has no initiative in this fight.")
    require_control(state, by, row, "hastens it")
    if round_begun(state):
        raise Refused("Hasten: it is declared at the start of the round, before anyone acts.")
    initiative = initiative_of(row)
    assert initiative is not None
    try:
        hurried = twod6_initiative.hasten(initiative)
    except CombatRefused:
        raise Refused(f"Hasten: {row.combatant.name} hastens this round already.") from None
    before = UndoRecord.of(state)
    _store(row, hurried)
    _resort(state)
    summary = (
        f"{row.combatant.name} acts hastily: initiative {hurried.current} this round, "
        f"{TABLES['hasty']['dm']:+d} on its actions."
    )
    return log(state, kind=Kind.HASTEN, by=by, summary=summary, before=before, actor=row)


# -- turns -------------------------------------------------------------------------------------


def _acted(state: Board, row: Row) -> None:
    """The fighter's turn is over: it has acted (a delayed one at the count it acted on,
    reading 2D-17), its turn's actions and the reactions since its last turn are spent."""
    initiative = initiative_of(row)
    assert initiative is not None
    fight = state.encounter.system_state
    if fight.get("interrupt") == row.pk:
        initiative = twod6_initiative.act_at(initiative, int(fight.get("count", 0)))
        update_fight_state(state, interrupt=None, count=None)
    _store(row, twod6_initiative.acted(initiative))
    update_fighter_state(row, delaying=False, minors=0, reactions=0)


def _budget(row: Row, *, significant: bool) -> None:
    """One significant action and one minor, or three minor: refused beyond."""
    minors = int(row.state.get("minors", 0))
    if significant and minors > 1:
        raise Refused(
            f"{row.combatant.name} has spent {minors} minor actions: a significant action "
            "(an attack, Leadership) goes with one minor at most."
        )


def take_turn(state: Board, *, by: User, action: str, after: int | None) -> EncounterEntry:
    """``pass`` (the turn ends), ``aim`` (a minor action: +1, kept until the fighter does
    anything else), ``delay`` (it acts later), ``act_now`` (the delaying fighter ``after`` acts
    now, at the count of the fighter whose turn it is), and for the referee ``next_round``."""
    if action != "next_round":
        _refuse_while_pending(state)
    before = UndoRecord.of(state)
    if action == "next_round":
        return _next_round(state, by, before)
    if action == "act_now":
        return _act_now(state, by, before, after)
    actor = acting(state, by, "end its turn")
    name = actor.combatant.name
    if action == "aim":
        minors = int(actor.state.get("minors", 0)) + 1
        most = int(TABLES["aim"]["most_actions"])
        aim = min(int(actor.state.get("aim", 0)) + 1, most)
        update_fighter_state(actor, aim=aim, minors=minors)
        done = minors >= MINORS_A_TURN
        if done:
            _acted(state, actor)
        _resort(state)
        summary = f"{name} aims (+{aim} on its next attack)." + (
            " Three minor actions: its turn ends." if done else ""
        )
        return log(state, kind=Kind.AIM, by=by, summary=summary, before=before, actor=actor)
    if action == "delay":
        if state.encounter.system_state.get("interrupt") == actor.pk:
            raise Refused(f"{name} acts now: it acts or ends its turn.")
        update_fighter_state(actor, delaying=True)
        _resort(state)
        summary = f"{name} delays: it may act later this round, or first next round."
        return log(state, kind=Kind.DELAY, by=by, summary=summary, before=before, actor=actor)
    if action != "pass":
        raise Refused("Action: under 2D6 a turn is passed, delayed or spent aiming.")
    _acted(state, actor)
    _resort(state)
    return log(
        state, kind=Kind.PASS, by=by, summary=f"{name} ends its turn.", before=before, actor=actor
    )


def delaying(state: Board) -> list[Row]:
    """The fighters delaying, who may act now at the count of the fighter whose turn it is."""
    if state.encounter.system_state.get("interrupt") or pending(state):
        return []
    return [row for row in state.rows if row.state.get("delaying") and not row.out_of_action]


def _act_now(state: Board, by: User, before: UndoRecord, pk: int | None) -> EncounterEntry:
    row = next((row for row in delaying(state) if row.pk == pk), None)
    if row is None:
        raise Refused("Act now: only a delaying fighter acts now.")
    require_control(state, by, row, "says it acts now")
    # The count it acts on: that of the fighter whose turn it is, else (the round's turns are
    # over) the lowest of those who acted.
    current = state.current
    now = initiative_of(current) if current is not None else None
    acted = [i.current for r in state.rows if (i := initiative_of(r)) is not None and i.acted]
    count = now.current if now is not None else min(acted, default=0)
    update_fight_state(state, interrupt=row.pk, count=count)
    summary = f"{row.combatant.name} stops delaying and acts now, on initiative {count}."
    return log(state, kind=Kind.DELAY, by=by, summary=summary, before=before, actor=row)


def _next_round(state: Board, by: User, before: UndoRecord) -> EncounterEntry:
    """The referee ends the round: a fighter still delaying takes the first place next round
    (reading 2D-17), and each fighter's next-round changes become this round's."""
    require_referee(state.encounter.campaign, by, "start the next round")
    _refuse_while_pending(state)
    everyone = [(row, i) for row in state.rows if (i := initiative_of(row)) is not None]
    late = [row for row, i in everyone if row.state.get("delaying") and not i.acted]
    moved = twod6_initiative.act_first_next_round(
        [i for _, i in everyone], [str(row.pk) for row in late]
    )
    for (row, _), initiative in zip(everyone, moved, strict=True):
        _store(row, twod6_initiative.next_round(initiative))
        update_fighter_state(row, delaying=False, minors=0)
    state.encounter.round += 1
    update_fight_state(state, interrupt=None, count=None)
    _resort(state)
    news = [
        f"{row.combatant.name} acts first, having delayed to the end of the last." for row in late
    ]
    return log_round_begins(state, by=by, before=before, news=news)


# -- the attack --------------------------------------------------------------------------------


@dataclass(frozen=True)
class TwoD6Order:
    """An attack as the 2D6 form asks for it; aiming, hastening and the attacker's reactions
    come from the fight. ``reaction``: the target's (``ASK``: its player, or the referee,
    chooses before the dice)."""

    target: int
    weapon: str
    range_band: str
    situation: TwoD6Situation
    reaction: str = ASK
    coup_de_grace: bool = False

    def as_dict(self) -> dict[str, Any]:
        """As an attack waiting for its reaction keeps it."""
        situation = {
            key: value
            for key, value in asdict(self.situation).items()
            if key not in ("target_weapon", "accessories")
        }
        situation["accessories"] = sorted(self.situation.accessories)
        return {
            "target": self.target,
            "weapon": self.weapon,
            "range_band": self.range_band,
            "situation": situation,
            "coup_de_grace": self.coup_de_grace,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], reaction: str) -> TwoD6Order:
        situation = dict(data["situation"])
        situation["accessories"] = frozenset(situation.get("accessories", ()))
        return cls(
            data["target"],
            data["weapon"],
            data["range_band"],
            TwoD6Situation(**situation),
            reaction,
            data.get("coup_de_grace", False),
        )


@dataclass(frozen=True)
class TwoD6Planned:
    plan: TwoD6Plan
    target: Row
    weapon: Weapon
    rounds: int


FORM_LABELS = {
    "range": "Range",
    "weapon": "Weapon",
    "situation.fire": "Fire",
    "situation.cover": "Cover",
    "situation.target_reaction": "Reaction",
    "situation.characteristic": "Characteristic",
    "attacker": "Attacker",
}


def chooser(encounter: Any, target: Row) -> int:
    """Who chooses the target's reaction: its player, for a character with a play sheet of a
    player's own; the referee for everyone else (by its user id)."""
    referee_id = encounter.campaign.referee_id
    character = target.combatant.character
    if target.combatant.condition is None and character is not None:
        return int(character.owner_id) if character.owner_id != referee_id else referee_id
    return int(referee_id)


def can_react(target: Row) -> bool:
    """Only a fighter aware and able reacts (the seed's "Reactions")."""
    return not target.out_of_action


def parry_weapon(target: Row) -> Weapon | None:
    """What the target parries with: its melee weapon in hand, else its first (reading 2D-9)."""
    key = target.state.get("in_hand")
    melee = [w for w in target.fighter.weapons if w.melee and not w.natural]
    return next((w for w in melee if weapon_key(w) == key), melee[0] if melee else None)


def plan(
    state: Board, attacker: Row, order: TwoD6Order, *, reaction: str | None = None
) -> TwoD6Planned:
    """The engine's plan of the attack (every DM and the exact chance), before any die; the
    target's ``reaction`` when it is known (the odds before it is: none)."""
    target = target_of(state, attacker, order.target, "Target", finishing=order.coup_de_grace)
    weapon = weapon_of(attacker, order.weapon)
    chosen = order.reaction if reaction is None else reaction
    initiative = initiative_of(attacker)
    situation = replace(
        order.situation,
        aim_actions=int(attacker.state.get("aim", 0)),
        hasty=bool(initiative and initiative.hastened),
        attacker_reactions=int(attacker.state.get("reactions", 0)),
        target_reaction=chosen if chosen in REACTIONS else None,
        target_weapon=parry_weapon(target) if chosen == PARRY else None,
    )
    assert attacker.sheet is not None
    assert target.sheet is not None
    attack = TwoD6Attack(
        attacker.sheet,
        target.sheet,
        weapon,
        order.range_band,
        situation,
        record_of(attacker),
        record_of(target),
    )
    with refused_as_the_form_says(FORM_LABELS):
        planned = plan_2d6_attack(attack)
    rounds = counted_rounds(weapon, planned.rounds)
    return TwoD6Planned(planned, target, weapon, rounds)


def reaction_odds(
    state: Board, attacker: Row, order: TwoD6Order
) -> list[tuple[str, str, Fraction]]:
    """The attack's chance against each reaction the target may choose, for its player to see
    before choosing: (reaction, label, chance)."""
    offered = [(NO_REACTION, "No reaction")] + [(name, name.capitalize()) for name in REACTIONS]
    odds = []
    for reaction, label in offered:
        try:
            planned = plan(state, attacker, order, reaction=reaction)
        except Refused:
            continue  # a parry against a shot, a prone target dodging
        odds.append((reaction, label, planned.plan.chance))
    return odds


def attack(state: Board, *, by: User, order: TwoD6Order, rng: random.Random) -> EncounterEntry:
    """The fighter acting now attacks. When the target's reaction is to be asked (its player's
    or the referee's, not the attacker's, to choose), the attack waits for it; else it is
    resolved at once."""
    _refuse_while_pending(state)
    attacker = acting(state, by, "attack")
    _budget(attacker, significant=True)
    refuse_coup_de_grace_unless_referee(state, by, order.coup_de_grace)
    planned = plan(state, attacker, order, reaction=NO_REACTION)  # refused before any ask
    target = planned.target
    asked = chooser(state.encounter, target) != by.pk
    if order.reaction == ASK and can_react(target) and asked:
        before = UndoRecord.of(state)
        waiting = {"attacker": attacker.pk, "by": by.pk, "order": order.as_dict()}
        update_fight_state(state, pending=waiting)
        who = (
            f"{target.combatant.name}'s player"
            if target.combatant.condition is None and target.combatant.character_id
            else "the referee"
        )
        summary = (
            f"{attacker.combatant.name} attacks {target.combatant.name} with the "
            f"{planned.weapon.name} at {order.range_band} range: {who} chooses "
            f"{target.combatant.name}'s reaction."
        )
        return log(
            state,
            kind=Kind.DECLARE,
            by=by,
            summary=summary,
            before=before,
            actor=attacker,
            target=target,
        )
    reaction = NO_REACTION if order.reaction == ASK else order.reaction
    return _resolve(
        state, by, attacker, replace(order, reaction=reaction), rng, UndoRecord.of(state)
    )


def react(state: Board, *, by: User, reaction: str, rng: random.Random) -> EncounterEntry:
    """The target's player (or the referee) answers an attack waiting for its reaction: none,
    a dodge or a parry; then the dice are thrown."""
    waiting = pending(state)
    if waiting is None:
        raise Refused("Reaction: no attack waits for one.")
    attacker = state.row(int(waiting["attacker"]))
    order = TwoD6Order.from_dict(waiting["order"], reaction)
    target = state.row(order.target)
    if attacker is None or target is None:
        raise Refused("Reaction: the attack's fighters are no longer in this encounter.")
    require_control(state, by, target, "chooses its reaction")
    if reaction != NO_REACTION and reaction not in REACTIONS:
        raise Refused(f"Reaction: choose none or one of {', '.join(REACTIONS)}.")
    before = UndoRecord.of(state)
    update_fight_state(state, pending=None)
    declarer = User.objects.filter(pk=waiting["by"]).first() or by
    return _resolve(state, declarer, attacker, order, rng, before)


def _resolve(
    state: Board,
    by: User,
    attacker: Row,
    order: TwoD6Order,
    rng: random.Random,
    before: UndoRecord,
) -> EncounterEntry:
    planned = plan(state, attacker, order)
    encounter = state.encounter
    ammunition = fire(attacker, planned.weapon, planned.rounds, by, encounter, before)
    result = resolve_2d6_attack(planned.plan, RandomDice(rng))
    target = planned.target
    name, target_name = attacker.combatant.name, target.combatant.name
    if result.damage:
        mark_record(
            target,
            before,
            result.condition_after,
            by=by,
            what=f"hit by {name} ({result.damage} damage)",
            events=result.events,
        )
    news = []
    if planned.plan.attack.situation.target_reaction is not None:
        reacted = initiative_of(target)
        if reacted is not None:
            _store(target, twod6_initiative.change(reacted, result.target_initiative_change))
        update_fighter_state(target, reactions=int(target.state.get("reactions", 0)) + 1, aim=0)
        reacted_how = REACTION_WORDS[planned.plan.attack.situation.target_reaction]
        news.append(
            f"{target_name} {reacted_how}: initiative "
            f"{result.target_initiative_change:+d}, {TABLES['reaction_check_dm']:+d} on its "
            "checks until its next turn."
        )
    _acted(state, attacker)
    update_fighter_state(attacker, aim=0, in_hand=weapon_key(planned.weapon))
    recoil = planned.plan.attacker_initiative_change
    if recoil:
        initiative = initiative_of(attacker)
        assert initiative is not None
        _store(attacker, twod6_initiative.change(initiative, recoil))
        news.append(f"{name}: recoil {recoil:+d} initiative next round.")
    _resort(state)
    fell = "".join(
        f" {event.message[0].upper()}{event.message[1:]}."
        for event in result.events
        if event.code in ("unconscious", "dead", "stray shot", "blast")
    )
    summary = " ".join(
        part
        for part in (
            f"{name} attacks {target_name} with the {planned.weapon.name} at {order.range_band} "
            f"range: {_verdict(result)}.{fell}",
            *news,
            ammunition.strip(),
        )
        if part
    )
    detail = (
        twod6_result_as_dict(result)
        | {"odds": percent(planned.plan.chance)}
        | attack_recall(planned.weapon, planned.rounds, target)
        | {"total_dm": planned.plan.total_dm}
    )
    return log_attack(state, attacker, target, by=by, before=before, summary=summary, detail=detail)


def _verdict(result: TwoD6Result) -> str:
    """The throws, the Effect and the damage in words, each figure checkable by hand."""
    dm = result.plan.total_dm
    throws = ", ".join(
        f"2D {'+'.join(map(str, t.dice))} {dm:+d} = {t.total} vs 8, "
        + (f"a hit, Effect {t.effect}" if t.hit else "a miss")
        for t in result.throws
    )
    hits = "; ".join(
        f"{hit.rolled} ({'+'.join(map(str, hit.dice))}) + Effect {hit.effect}"
        + (f" + Auto {hit.auto}" if hit.auto else "")
        + f" - armour {hit.armour} = {hit.after_armour}"
        for hit in result.hits
    )
    applied = ", ".join(f"{code} -{points}" for code, points in result.applied.items() if points)
    damage = f": {hits}" + (f" ({applied})" if applied else " (no damage)") if hits else ""
    return f"{throws}{damage}"


def leadership_preview(row: Row) -> tuple[Modifier, ...]:
    assert row.sheet is not None
    return twod6_initiative.leadership_check(row.sheet, (0, 0)).dms


def leadership(state: Board, *, by: User, ally: int, rng: random.Random) -> EncounterEntry:
    """Leadership as the fighter's significant action (reading 2D-3): 2D6 + Leadership + PRE
    DM; a success adds its Effect to an ally's initiative for the fight. The turn ends."""
    _refuse_while_pending(state)
    leader = acting(state, by, "use Leadership")
    _budget(leader, significant=True)
    other = state.row(ally)
    if other is None or other.pk == leader.pk or other.combatant.side != leader.combatant.side:
        raise Refused("Leadership: choose an ally of the same side.")
    assert leader.sheet is not None
    before = UndoRecord.of(state)
    dice = (rng.randint(1, 6), rng.randint(1, 6))
    check = twod6_initiative.leadership_check(leader.sheet, dice)
    boosted = initiative_of(other)
    if boosted is not None and check.effect:
        _store(other, twod6_initiative.lasting_boost(boosted, check.effect))
    _acted(state, leader)
    update_fighter_state(leader, aim=0)
    _resort(state)
    verdict = (
        f"Effect {check.effect}: {other.combatant.name} +{check.effect} initiative for the fight"
        if check.effect
        else "no Effect: nothing"
    )
    summary = (
        f"{leader.combatant.name} leads {other.combatant.name}: {_check_words(dice, check)}: "
        f"{verdict}."
    )
    return log(
        state,
        kind=Kind.LEADERSHIP,
        by=by,
        summary=summary,
        before=before,
        actor=leader,
        target=other,
    )


# -- reinforcements ----------------------------------------------------------------------------


def join(state: Board, *, newcomers: list[Row], present: int, rng: random.Random) -> dict[str, Any]:
    """Reinforcements throw 2D6 + DEX DM as they join, with their side's Tactics Effect, and
    take their place in the dynamic order."""
    del present
    tactics_effects = state.encounter.system_state.get("tactics", {})
    rolls = []
    for row in newcomers:
        if row.out_of_action:
            continue
        assert row.sheet is not None
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        initiative = twod6_initiative.starting_initiative(
            str(row.pk), row.sheet, record_of(row), dice
        )
        effect = int(tactics_effects.get(row.combatant.side, 0))
        if effect:
            initiative = twod6_initiative.lasting_boost(initiative, effect)
        _store(row, initiative)
        rolls.append({"name": row.combatant.name, "dice": list(dice), "total": initiative.current})
    _resort(state)
    return reinforcements_initiative(rolls)
