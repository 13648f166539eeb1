"""One T4 attack resolved from its dice (docs/combat-t4.md, "Resolution"): the throws, the hit
locations, armor as dice, damage to the characteristics, and both conditions after.

    result = resolve_t4_attack(plan, GivenDice({...}) or RandomDice(rng))
    t4_result_as_dict(result)                      # the command's JSON (t4.command)
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cache
from itertools import product
from typing import Any

from ...condition import Event
from ...fighters import CombatRefused
from ...wording import MINUS
from ..common import blast_event, blast_note, refuse_unless
from ..figures import ArmorFigures
from ..sheet import PHYSICAL
from ..throws import DiceSource, half_die
from .condition import (
    CONSCIOUS,
    DEAD,
    STUNNED,
    UNCONSCIOUS,
    T4Condition,
    allowed_stats,
    current,
    default_stat,
    settle,
    state,
    take,
)
from .locations import Location, LocationEffect, covering_armor, effect_at, location_rolled
from .plan import AUTOFIRE, BANDS, TABLES, Difficulty, T4Plan

SPECTACULAR_SUCCESS, SPECTACULAR_FAILURE = "success", "failure"


@dataclass(frozen=True, slots=True)
class Throw:
    """One throw against a to-hit number: the dice (the half die last), what they read, and
    whether it is spectacular (reading T4-2)."""

    dice: tuple[int, ...]
    read: int
    success: bool
    spectacular: str | None
    margin: int

    half_die: bool = False

    @property
    def whole(self) -> tuple[int, ...]:
        """The whole dice, each read as it fell."""
        return self.dice[:-1] if self.half_die else self.dice

    @property
    def half(self) -> int | None:
        """The half die as it fell (it reads ⌈d ÷ 2⌉), or None for a throw of whole dice."""
        return self.dice[-1] if self.half_die else None

    @property
    def words(self) -> str:
        """The dice and what they read, the half die named: "4+5 + half die 6 (3) reads 12"."""
        said = "+".join(map(str, self.whole))
        if self.half is not None:
            said += f" + half die {self.half} ({half_die(self.half)})"
        return f"{said} reads {self.read}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "dice": list(self.dice),
            "whole": list(self.whole),
            "half_die": None
            if self.half is None
            else {"die": self.half, "reads": half_die(self.half)},
            "read": self.read,
            "words": self.words,
            "success": self.success,
            "spectacular": self.spectacular,
            "margin": self.margin,
        }


def read_throw(dice: tuple[int, ...], difficulty: Difficulty, to_hit: int) -> Throw:
    whole = dice[: difficulty.dice]
    read = sum(whole) + (half_die(dice[-1]) if difficulty.half_die else 0)
    success = read <= to_hit
    # Reading T4-2: three or more whole dice alike (all of one or two); the half die never counts.
    needed = min(TABLES["spectacular_dice"], len(whole))
    spectacular = None
    if success and whole.count(1) >= needed:
        spectacular = SPECTACULAR_SUCCESS
    elif not success and whole.count(6) >= needed:
        spectacular = SPECTACULAR_FAILURE
    return Throw(tuple(dice), read, success, spectacular, to_hit - read, difficulty.half_die)


@dataclass(frozen=True, slots=True)
class T4Hit:
    """One hit on the target: where, the armor there, the dice after it and the damage."""

    location: Location
    roll: int
    armor: ArmorFigures | None
    av: int
    rating: int
    dice_after_armor: int
    blunt_trauma: int
    damage_dice: tuple[int, ...]
    critical: bool
    stun: bool
    applied: tuple[tuple[str, int], ...]
    effect: LocationEffect | None

    @property
    def damage(self) -> int:
        return sum(self.damage_dice) + self.blunt_trauma

    @property
    def penetrated(self) -> bool:
        """VI.8: only a damage rating greater than the AV penetrates the armor; one equal to
        it (or less) is stopped, though flexible armor still passes its blunt trauma."""
        return self.armor is None or self.rating > self.av

    @property
    def worked(self) -> str:
        """The damage in one line a referee can check: "3D - Flak jacket 2D = 1D: 4 + 2 blunt
        trauma = 6" (with the sign of arithmetic); a rating not above the AV, "2D against Flak
        jacket 2D: not penetrated (only more dice than the AV penetrate); 2 blunt trauma"."""
        trauma = f" + {self.blunt_trauma} blunt trauma" if self.blunt_trauma else ""
        if self.armor is None or self.penetrated:
            armor = f" {MINUS} {self.armor.label} {self.av}D" if self.armor is not None else ""
            after = f" = {self.dice_after_armor}D" if self.armor is not None else ""
            thrown = "+".join(str(die) for die in self.damage_dice) or "0"
            return f"{self.rating}D{armor}{after}: {thrown}{trauma} = {self.damage}"
        stopped = (
            f"{self.rating}D against {self.armor.label} {self.av}D: not penetrated (only "
            "more dice than the AV penetrate)"
        )
        if self.blunt_trauma:
            return f"{stopped}; {self.blunt_trauma} blunt trauma"
        return f"{stopped}, and rigid armor passes no blunt trauma"

    def as_dict(self) -> dict[str, Any]:
        return {
            "location": self.location.name,
            "roll": self.roll,
            "region": self.location.region,
            "armor": None
            if self.armor is None
            else {"name": self.armor.label, "av": self.av, "rigid": self.armor.rigid},
            "rating": self.rating,
            "dice_after_armor": self.dice_after_armor,
            "blunt_trauma": self.blunt_trauma,
            "damage_dice": list(self.damage_dice),
            "damage": self.damage,
            "penetrated": self.penetrated,
            "worked": self.worked,
            "critical": self.critical,
            "stun": self.stun,
            "applied": [{"stat": stat, "points": points} for stat, points in self.applied],
        }


@dataclass(frozen=True, slots=True)
class T4Result:
    plan: T4Plan
    throws: tuple[Throw, ...]
    defense: Throw | None
    hits: tuple[T4Hit, ...]
    jammed: bool
    blocked_by_cover: tuple[str, ...]
    incidental: int
    condition_after: T4Condition
    attacker_condition_after: T4Condition
    attacker_damage: int
    events: tuple[Event, ...]

    @property
    def hit(self) -> bool:
        return bool(self.hits)

    @property
    def damage(self) -> int:
        return sum(taken for hit in self.hits for _, taken in hit.applied)


@dataclass(slots=True)
class _Resolution:
    """The attack as it is resolved, throw by throw (private working state)."""

    plan: T4Plan
    dice: DiceSource
    target: T4Condition
    attacker: T4Condition
    allocation: list[str] | None
    events: list[Event] = field(default_factory=list)
    hits: list[T4Hit] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    incidental: int = 0
    attacker_damage: int = 0
    locations_thrown: int = 0
    damage_thrown: int = 0
    random_picks: int = 0


def _attack_throws(plan: T4Plan, dice: DiceSource) -> tuple[tuple[Throw, ...], bool]:
    """The attack throws, stopping at a jam (V.6: an autofire spectacular failure)."""
    thrown: list[Throw] = []
    for index in range(plan.throws):
        throw = read_throw(
            dice.take("attack", index, plan.difficulty.count), plan.difficulty, plan.to_hit
        )
        thrown.append(throw)
        if plan.routine == AUTOFIRE and throw.spectacular == SPECTACULAR_FAILURE:
            return tuple(thrown), True
    return tuple(thrown), False


@cache
def _jam_chance(difficulty: Difficulty, to_hit: int) -> Fraction:
    """The exact chance one throw is a spectacular failure (reading T4-2), which jams an
    autofire burst (V.6), by reading every way the dice can fall."""
    faces = range(1, 7)
    jams = sum(
        read_throw(dice, difficulty, to_hit).spectacular == SPECTACULAR_FAILURE
        for dice in product(faces, repeat=difficulty.count)
    )
    return Fraction(jams, 6**difficulty.count)


def chance_of_any_hit(plan: T4Plan) -> Fraction:
    """The exact chance that at least one of the attack's throws hits (each hits with
    ``plan.chance``): an autofire burst's throws stop at a jam (V.6), so a throw that jams
    leaves the later ones unthrown."""
    if plan.throws <= 1:
        return plan.chance
    jam = _jam_chance(plan.difficulty, plan.to_hit) if plan.routine == AUTOFIRE else Fraction(0)
    plain_miss = 1 - plan.chance - jam
    # No hit: every throw a plain miss, or plain misses until one jams.
    no_hit = plain_miss**plan.throws + sum(plain_miss**k * jam for k in range(plan.throws))
    return 1 - no_hit


def _defense(plan: T4Plan, dice: DiceSource) -> Throw:
    """Reading T4-12: the defender throws the strike's difficulty against its own to-hit
    number (its skill with its weapon and STR), without the attacker's skill."""
    attack = plan.attack
    target, condition = attack.target, attack.target_condition
    blocker = attack.situation.target_weapon
    skill = "Brawling" if blocker is None or blocker.natural else blocker.skill
    strength = target.attacking("STR", current(target, condition, "STR"))
    to_hit = 2 * (target.skill_level(skill) or 0) + -(-strength // 2)
    return read_throw(dice.take("defense", 0, plan.difficulty.count), plan.difficulty, to_hit)


def _attacker_wins(attacker: Throw, defender: Throw) -> bool:
    """Reading T4-12: the larger margin wins; a success beats a failure; ties and two failures
    are blocked."""
    if attacker.success != defender.success:
        return attacker.success
    return attacker.success and attacker.margin > defender.margin


def _allocated(
    work: _Resolution, blocks: list[int], head: bool, stun: bool
) -> tuple[tuple[str, int], ...]:
    """Each block of damage to a characteristic: the target's choice in order, else reading
    T4-10's default."""
    attack = work.plan.attack
    applied: list[tuple[str, int]] = []
    allowed = allowed_stats(attack.target, head=head, stun=stun)
    for points in blocks:
        if work.allocation is not None:
            if not work.allocation:
                raise CombatRefused(
                    "allocation",
                    "names fewer characteristics than the damage has dice and blunt trauma",
                )
            stat = work.allocation.pop(0)
            refuse_unless(
                stat in allowed,
                "allocation",
                f"{stat} takes no damage from this hit; use {', '.join(allowed)}",
            )
        else:
            stat = default_stat(attack.target, work.target, points, head=head, stun=stun)
        work.target, taken = take(attack.target, work.target, stat, points, stun=stun)
        applied.append((stat, taken))
    return tuple(applied)


def _critical(work: _Resolution, points: int, stun: bool) -> tuple[tuple[str, int], ...]:
    """Reading T4-6: the whole damage to a random physical characteristic, and what is left
    when it reaches 0 to another, thrown among those left (1-2, 3-4, 5-6; of two, 1-3, 4-6)."""
    target = work.plan.attack.target
    applied: list[tuple[str, int]] = []
    left = [code for code in PHYSICAL if current(target, work.target, code) > 0]
    while points > 0 and left:
        if len(left) == 1:
            stat = left[0]
        else:
            die = work.dice.take("random_stat", work.random_picks, 1)[0]
            work.random_picks += 1
            stat = left[(die - 1) * len(left) // 6]
        work.target, taken = take(target, work.target, stat, points, stun=stun)
        applied.append((stat, taken))
        points -= taken
        left.remove(stat)
    return tuple(applied)


def _bare_hands_on_rigid(work: _Resolution) -> None:
    """IV.8: a bare-handed strike that meets rigid armor costs the attacker a point."""
    attacker, before = work.plan.attack.attacker, work.attacker
    points = TABLES["rigid_armor_strike_damage"]
    stat = default_stat(attacker, before, points, head=False, stun=False)
    hurt, taken = take(attacker, before, stat, points, stun=False)
    work.attacker = settle(attacker, hurt)
    work.attacker_damage += taken


def _damage_dice(plan: T4Plan, av: int, spectacular: bool) -> tuple[int, int, int]:
    """The dice that reach the target after armor (reading T4-9: at most 3, shotguns
    uncapped; autofire spectacular doubled, at most 6), the dice absorbed, the rating."""
    rating = plan.figures.dice
    after = max(rating - av, 0)
    if not plan.figures.t4.uncapped:
        after = min(after, TABLES["max_damage_dice"])
    if plan.routine == AUTOFIRE and spectacular:
        cap = TABLES["max_damage_dice"] * TABLES["autofire_spectacular_damage_multiplier"]
        after = min(after * TABLES["autofire_spectacular_damage_multiplier"], cap)
    return after, min(rating, av), rating


def _hit(work: _Resolution, throw: Throw | None) -> None:
    """One successful throw (or a special strike): its location, armor, damage and effect."""
    plan = work.plan
    attack, situation = plan.attack, plan.attack.situation
    moved = situation.location_skew + situation.snipe_shift
    location, roll = location_rolled(work.dice.take("location", work.locations_thrown, 2), moved)
    work.locations_thrown += 1
    if location.incidental:
        work.incidental += 1
        work.events.append(Event("incidental", "the hit struck equipment, not the body (VI.2)"))
        return
    if situation.cover is not None and location.body_part in situation.cover_regions:
        work.blocked.append(location.name)
        work.events.append(
            Event("cover", f"the {location.name} is behind cover: the shot misses (V.18)")
        )
        return
    spectacular = throw is not None and throw.spectacular == SPECTACULAR_SUCCESS
    armor = covering_armor(attack.target, location, plan.figures.armor_class)
    av = armor.t4_av[plan.figures.armor_class] if armor is not None else 0
    after, absorbed, rating = _damage_dice(plan, av, spectacular)
    trauma = absorbed if armor is not None and not armor.rigid else 0
    damage_dice = work.dice.take("damage", work.damage_thrown, after)
    work.damage_thrown += 1
    critical = spectacular and plan.routine != AUTOFIRE
    points = sum(damage_dice) + trauma
    if critical:
        applied = _critical(work, points, plan.stun)
    else:
        order = (
            list(damage_dice) if work.allocation is not None else sorted(damage_dice, reverse=True)
        )
        blocks = order + ([trauma] if trauma else [])
        applied = _allocated(work, blocks, location.head, plan.stun)
    work.target = settle(attack.target, work.target)
    effect = None
    if points > 0:
        energy = bool(attack.weapon.notes & set(TABLES["energy_notes"]))
        effect = effect_at(location, work.target.wound, energy=energy)
        work.target = _with_effect(work.target, effect)
    if (
        armor is not None
        and armor.rigid
        and attack.weapon.name in TABLES["conversion"]["unarmed_weapons"]  # Reading T4-26
        and not attack.attacker.armored_hands
    ):
        _bare_hands_on_rigid(work)
    work.hits.append(
        T4Hit(
            location,
            roll,
            armor,
            av,
            rating,
            after,
            trauma,
            damage_dice,
            critical,
            plan.stun,
            applied,
            effect,
        )
    )


def _with_effect(condition: T4Condition, effect: LocationEffect | None) -> T4Condition:
    if effect is None:
        return condition
    if effect.stunned_rounds:
        condition = replace(
            condition, stunned_rounds=max(condition.stunned_rounds, effect.stunned_rounds)
        )
    if effect.bleeding is not None:
        condition = replace(condition, bleeding=(*condition.bleeding, effect.bleeding))
    if effect.injury is not None:
        condition = replace(condition, injuries=(*condition.injuries, effect.injury))
    return condition


def resolve_t4_attack(plan: T4Plan, dice: DiceSource) -> T4Result:
    """The attack's outcome from its dice (docs/combat-t4.md, "Resolution"); CombatRefused
    names a throw the dice lack or an allocation that does not fit."""
    attack = plan.attack
    work = _Resolution(
        plan=plan,
        dice=dice,
        target=attack.target_condition,
        attacker=replace(attack.attacker_condition, fatigue=plan.fatigue_after)
        if plan.fatigue_after is not None
        else attack.attacker_condition,
        allocation=list(attack.allocation) if attack.allocation is not None else None,
    )
    throws, jammed = _attack_throws(plan, dice)
    defense = None
    if plan.throws == 0:
        _hit(work, None)  # IV.6: a special strike needs no throw
    elif attack.situation.pure_defense:
        defense = _defense(plan, dice)
        if _attacker_wins(throws[0], defense):
            _hit(work, throws[0])
    else:
        for throw in throws:
            if throw.success:
                _hit(work, throw)
    events = _events(work, throws, jammed)
    return T4Result(
        plan=plan,
        throws=throws,
        defense=defense,
        hits=tuple(work.hits),
        jammed=jammed,
        blocked_by_cover=tuple(work.blocked),
        incidental=work.incidental,
        condition_after=work.target,
        attacker_condition_after=work.attacker,
        attacker_damage=work.attacker_damage,
        events=(*work.events, *events),
    )


def _throw_events(plan: T4Plan, throws: tuple[Throw, ...], jammed: bool) -> list[Event]:
    """Spectacular throws (reading T4-2) and a jam."""
    out: list[Event] = []
    for throw in throws:
        if throw.spectacular == SPECTACULAR_SUCCESS:
            what = "double damage (V.6)" if plan.routine == AUTOFIRE else "a critical hit (VI.6)"
            out.append(Event("spectacular", f"spectacular success: {what}"))
        elif throw.spectacular == SPECTACULAR_FAILURE and not jammed:
            out.append(
                Event(
                    "spectacular",
                    "spectacular failure: a fumble or bad luck, the referee's call (I.4)",
                )
            )
    if jammed:
        out.append(Event("jam", f"the {plan.attack.weapon.label} jams (V.6)"))
    return out


def _hit_events(work: _Resolution) -> list[Event]:
    """What the hits' locations did: bleeding, and the events the referee applies."""
    target = work.plan.attack.target
    out: list[Event] = []
    for hit in work.hits:
        if hit.critical:
            out.append(Event("critical", "a critical hit: random characteristics take it (VI.6)"))
        effect = hit.effect
        if effect is not None and effect.bleeding is not None:
            out.append(
                Event(
                    "bleeding",
                    f"{target.name} bleeds {effect.bleeding.per_round} a round "
                    f"from the {hit.location.name}",
                )
            )
        if effect is not None and effect.event:
            out.append(
                Event(
                    effect.effect.lower(),
                    f"{effect.effect} ({hit.location.name}): the referee decides (VI.2)",
                )
            )
    if work.hits and blast_note(work.plan.attack.weapon):
        out.append(blast_event(work.plan.attack.weapon))
    return out


def _events(work: _Resolution, throws: tuple[Throw, ...], jammed: bool) -> list[Event]:
    plan = work.plan
    attack, situation = plan.attack, plan.attack.situation
    out = _throw_events(plan, throws, jammed)
    target = attack.target
    now = state(target, work.target)
    before = state(target, attack.target_condition)
    if now != before and now in (STUNNED, UNCONSCIOUS, DEAD):
        out.append(Event(now, f"{target.name} is {now}"))
    out.extend(_hit_events(work))
    if situation.with_surprise:
        out.extend(_surprise_events(work, now))
    if plan.strike or work.hits:
        out.append(Event("aim disrupted", f"{target.name} loses any aim this round (V.4)"))
    riding = situation.target_movement == "riding"  # Reading T4-23
    if riding and any(not t.success for t in throws):
        rule = TABLES["mount_hit"]
        out.append(
            Event(
                "mount",
                f"a miss at a rider: {rule['dice']}D, {rule['from']}+ hits the mount or "
                "vehicle (III.3)",
            )
        )
    return out


def _surprise_events(work: _Resolution, now: str) -> list[Event]:
    """II.3: an unsilenced shot, or a target hit and still standing, ends surprise (readings
    T4-17, T4-29)."""
    plan = work.plan
    attack = plan.attack
    silent = bool(attack.weapon.notes & set(TABLES["silent_notes"])) or any(
        TABLES["accessories"][name].get("silences") for name in attack.situation.accessories
    )
    if not plan.strike and not silent:
        return [Event("surprise lost", "an unsilenced shot ends surprise (II.3)")]
    if work.hits and now in (CONSCIOUS, STUNNED):
        return [
            Event("surprise lost", f"{attack.target.name} was hit and is still conscious (II.3)")
        ]
    return []


def group_hits(plan: T4Plan) -> int:
    """V.13: how many targets next to this one the referee may attack with group hits, which
    this command does not resolve (reading T4-19)."""
    rule = TABLES["group_hits"]
    notes = plan.attack.weapon.notes
    if notes & set(rule["shotgun_rule_notes"]) or (
        notes & set(rule["shotgun_rule_at_very_long"]) and plan.attack.range_band == BANDS[-1]
    ):
        return int(rule["shotgun_rule"])
    if plan.burst is None:
        return 0
    return int(
        max(
            (r for r in rule["autofire"] if plan.burst >= r["from_rounds"]),
            key=lambda r: r["from_rounds"],
        )["targets"]
    )
