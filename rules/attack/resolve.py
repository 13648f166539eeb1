"""An attack resolved: its dice read, the damage through armor and TGH, the wound and the
target's new condition, and the attack command's JSON of it all."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..condition import (
    Condition,
    Event,
    blow_severity,
    condition_as_dict,
    damage_after_protection,
    take_damage,
)
from ..dice import (
    LEVEL_ZERO,
    dice_rules,
    dice_thrown,
    read_highest,
    read_lowest,
    reads_highest,
    throw,
)
from ..fighters import Armor, CombatRefused, armor_against, combat_tables
from ..injury import LETHAL, STUN, Period, injury_rules, severity_rules
from ..wording import MINUS, TIMES, plural
from .plan import AttackPlan, chance_percent
from .situation import Modifier


@dataclass(frozen=True, slots=True)
class DamageParts:
    """What a hit's damage is worked from, for showing the arithmetic: the EN, the weapon's
    DMG (an animal's listed damage), the STR DV added to it (melee and natural weapons), the
    armor that applied and its AV before the notes, and what multiplies the damage past armor
    (a shotgun's x4)."""

    effect: int
    dmg: int
    str_dv: int | None = None
    armor: str | None = None
    armor_worn: int = 0
    times: int = 1


@dataclass(frozen=True, slots=True)
class Damage:
    """What a hit does. ``raw``: min(EN, 6) x the damage per point; ``armor``: the AV that
    applied after the notes; ``tgh``: the TGH taken off (blunt damage only); ``lif``: what
    reaches LIF; ``type``: as the tables write it ("P/L")."""

    raw: int
    armor: int
    tgh: int
    lif: int
    type: str
    multiplier: int
    per_point: int
    notes: tuple[str, ...] = ()
    parts: DamageParts | None = None

    @property
    def form(self) -> str:
        """Stunning ("S") or lethal ("L"): what the tables write after the slash."""
        return self.type.split("/")[-1]

    @property
    def worked(self) -> str:
        """The arithmetic in one line a referee can check against the tables, e.g.
        "EN 4: x4 x DMG 8 = 32 - AV 12 (Mesh (TL 7)) = 20 to LIF" (with the signs of
        arithmetic)."""
        parts = self.parts
        if parts is None:
            return f"{self.raw}, {self.lif} to LIF"
        if parts.effect == 0:
            # EN x DMG is 0: no damage is made, so there is nothing for armor to stop.
            return "EN 0 (exactly the TN): a hit that does no damage"
        capped = f", at most {TIMES}{self.multiplier}" if parts.effect > self.multiplier else ""
        per = (
            f"(DMG {parts.dmg:+d} + STR DV {parts.str_dv})"
            if parts.str_dv is not None
            else f"DMG {parts.dmg}"
        )
        text = f"EN {parts.effect}{capped}: {TIMES}{self.multiplier} {TIMES} {per} = {self.raw}"
        if self.notes == ("special damage",):
            return f"{text}; special damage ({self.type}): no LIF lost"
        if parts.armor is not None:
            before = (
                f", {parts.armor_worn} before the notes" if parts.armor_worn != self.armor else ""
            )
            text += f" {MINUS} AV {self.armor} ({parts.armor}{before})"
        if self.tgh:
            text += f" {MINUS} TGH {self.tgh}"
        if parts.times > 1:
            past = max(self.raw - self.armor - self.tgh, 0)
            text += f" = {past} past armor, {TIMES}{parts.times}"
        if parts.armor is None and not self.tgh and parts.times == 1:
            return f"{text} to LIF"  # nothing protects: the whole of it
        return f"{text} = {self.lif} to LIF"

    def as_dict(self) -> dict[str, Any]:
        parts = self.parts
        return {
            "raw": self.raw,
            "armor": self.armor,
            "tgh": self.tgh,
            "lif": self.lif,
            "type": self.type,
            "multiplier": self.multiplier,
            "per_point": self.per_point,
            "dmg": parts.dmg if parts else None,
            "str_dv": parts.str_dv if parts else None,
            "armor_worn": parts.armor if parts else None,
            "armor_av_worn": parts.armor_worn if parts else 0,
            "notes": list(self.notes),
            "worked": self.worked,
        }


@dataclass(frozen=True, slots=True)
class AttackResult:
    plan: AttackPlan
    dice: tuple[int, ...]
    result: int
    total: int
    hit: bool
    effect: int | None
    fumble: bool
    exceptional: bool
    damage: Damage | None
    wound: str | None
    condition_before: Condition
    condition_after: Condition
    events: tuple[Event, ...] = field(default=())
    reading: str = ""  # how the dice were read (dice_reading)

    @property
    def tn(self) -> int:
        return self.plan.tn

    @property
    def dms(self) -> tuple[Modifier, ...]:
        return self.plan.dms


def dice_needed(plan: AttackPlan) -> int:
    """How many dice to throw for the plan: a level-0 throw may need its re-throw, so it
    asks for both throws' dice (the second pair is read only after a 1)."""
    count = dice_thrown(plan.kind, plan.skill_level)
    if plan.kind == LEVEL_ZERO:
        return count * (1 + dice_rules().level_zero_rethrows)
    return count


def throw_dice(plan: AttackPlan, rng: random.Random) -> list[int]:
    """Throw the plan's dice (:func:`dice_needed` of them) with ``rng``."""
    return throw(rng, dice_needed(plan))


def read_dice(plan: AttackPlan, dice: Sequence[int]) -> tuple[tuple[int, ...], int]:
    """The dice the throw used and its result; CombatRefused ("dice") when they cannot be read."""
    rules = dice_rules()
    thrown = tuple(dice)
    if any(
        isinstance(die, bool)
        or not isinstance(die, int)
        or not rules.lowest <= die <= rules.highest
        for die in thrown
    ):
        raise CombatRefused("dice", f"each die is a whole number {rules.lowest} to {rules.highest}")
    count = dice_thrown(plan.kind, plan.skill_level)
    most = dice_needed(plan)
    if not count <= len(thrown) <= most:
        wanted = str(count) if count == most else f"{count} to {most}"
        raise CombatRefused(
            "dice", f"a {plan.dice_rule} throw reads {wanted} dice, not {len(thrown)}"
        )
    if reads_highest(plan.kind):
        return thrown, read_highest(thrown)
    used = thrown[:count]
    result = read_lowest(used)
    for _ in range(rules.level_zero_rethrows if plan.kind == LEVEL_ZERO else 0):
        if result != rules.lowest:
            break
        again = thrown[len(used) : len(used) + count]
        if len(again) < count:
            raise CombatRefused(
                "dice", f"a level-0 throw that shows a 1 is thrown again: give {most} dice"
            )
        used += again
        result = read_lowest(again)
    return used, result


def dice_reading(plan: AttackPlan, used: Sequence[int], result: int) -> str:
    """How the dice were read, in words a referee checks against the dice shown: "highest
    die 6, +2 for two more sixes", "lowest die 3", a level-0 re-throw."""
    top = dice_rules().highest
    if reads_highest(plan.kind):
        if len(used) == 1:
            return f"one die: {result}"
        sixes = list(used).count(top)
        if sixes > 1:
            extra = plural(sixes - 1, "more six", "more sixes")
            return f"highest die {top}, +{sixes - 1} for {extra}: {result}"
        return f"highest die: {result}"
    count = dice_thrown(plan.kind, plan.skill_level)
    if len(used) > count:
        first = ", ".join(map(str, used[:count]))
        return f"lowest of {first} is a 1, thrown again: lowest die {result}"
    return f"lowest die: {result}"


@dataclass(frozen=True, slots=True)
class ArmorMet:
    """The armor an attack meets: the piece whose AV applied (``name``; None without armor),
    that AV as the table gives it (``worn``) and after the weapon's notes (``av``), and why
    they differ (``why``)."""

    name: str | None
    worn: int
    av: int
    why: tuple[str, ...]


_NO_ARMOR = ArmorMet(None, 0, 0, ())


def _after_notes(armor: Armor, plan: AttackPlan) -> ArmorMet:
    """One piece of armor's AV against the attack, after the weapon's notes and its own
    (reading 13)."""
    if armor.av == 0:
        return ArmorMet(armor.name, 0, 0, ())
    blunt = plan.damage_type.split("/")[0] == "B"
    av, why = armor_against(armor, blunt=blunt, notes=plan.notes)
    return ArmorMet(armor.name, armor.av, av, why)


def armor_after_notes(plan: AttackPlan) -> ArmorMet:
    """The armor the attack meets (reading 13): the body armor's AV after the weapon's notes,
    or reflec's under it where that is better (reading 9)."""
    pieces = [armor for armor in (plan.target.armor, plan.target.armor_under) if armor]
    if not pieces:
        return _NO_ARMOR
    met = [_after_notes(armor, plan) for armor in pieces]
    best = max(met, key=lambda one: one.av)  # the body armor's on a tie: it is listed first
    if len(met) == 1:
        return best
    other = next(one for one in met if one is not best)
    compared = (
        f"{best.name} AV {best.av} is better than {other.name}'s {other.av} against this "
        "attack: the better applies"
    )
    return ArmorMet(best.name, best.worn, best.av, (*best.why, compared))


def attack_damage(plan: AttackPlan, effect: int) -> Damage:
    """The damage of a hit with effect number ``effect`` (readings 4, 14 and 15)."""
    tables = combat_tables()
    weapon, attacker = plan.weapon, plan.attacker
    str_dv: int | None = None
    if weapon.natural and attacker.damage is not None:
        dmg = attacker.damage
    elif weapon.melee:
        dmg, str_dv = weapon.dmg, plan.str_dv
    else:
        dmg = weapon.dmg
    per_point = dmg + (str_dv or 0)
    multiplier = min(effect, tables["damage"]["max_multiplier"])
    raw = multiplier * per_point
    kind = plan.damage_type.split("/")[0]
    parts = DamageParts(effect, dmg, str_dv)
    if kind not in injury_rules().protection:  # special damage: no LIF lost
        return Damage(
            raw, 0, 0, 0, plan.damage_type, multiplier, per_point, ("special damage",), parts
        )
    met = armor_after_notes(plan)
    tgh = plan.target.TGH if "TGH" in injury_rules().protection[kind] else 0
    lif = damage_after_protection(raw, damage_type=kind, armor=met.av, tgh=tgh)
    why = met.why
    times = 1
    for code in sorted(plan.notes):
        by = tables["weapon_notes"].get(code, {}).get("damage_multiplier")
        if by and lif:
            lif *= by
            times *= by
            why = (*why, f"{code}: the damage past armor x{by}")
    parts = DamageParts(effect, dmg, str_dv, met.name, met.worn, times)
    return Damage(raw, met.av, tgh, lif, plan.damage_type, multiplier, per_point, why, parts)


def resolve_attack(
    plan: AttackPlan,
    dice: Sequence[int],
    *,
    target_condition: Condition | None = None,
    bleed_lasts: Period | None = None,
) -> AttackResult:
    """Read the dice against the plan; on a hit, the damage, the wound and the target's new
    condition (through :func:`rules.condition.take_damage`). ``target_condition`` defaults to
    the plan's, else the target unhurt; ``bleed_lasts`` is passed on for a light wound."""
    used, result = read_dice(plan, dice)
    rules = dice_rules()
    total = result + plan.dm
    fumble = result == rules.lowest
    hit = total >= plan.tn and not fumble
    before = (
        target_condition or plan.target_condition or Condition(plan.target.LIF, plan.target.WND)
    )
    events: list[Event] = []
    if fumble:
        events.append(Event("fumble", "A 1 on the dice: a fumble, the attack misses."))
    if not hit:
        return AttackResult(
            plan,
            used,
            result,
            total,
            False,
            None,
            fumble,
            False,
            None,
            None,
            before,
            before,
            tuple(events),
            dice_reading(plan, used, result),
        )
    effect = total - plan.tn
    damage = attack_damage(plan, effect)
    form = damage.form
    wound = None
    after = before
    if form in (STUN, LETHAL) and damage.lif:
        wound = blow_severity(before, amount=damage.lif, form=form)
        periods = bleed_lasts if wound is not None and _bleeds_for_a_time(wound) else None
        after, taken = take_damage(before, amount=damage.lif, form=form, bleed_lasts=periods)
        events.extend(taken)
    elif not damage.lif:
        events.append(Event("no_damage", "The hit does no damage past armor and TGH."))
    return AttackResult(
        plan,
        used,
        result,
        total,
        True,
        effect,
        False,
        effect >= rules.exceptional_effect,
        damage,
        wound,
        before,
        after,
        tuple(events),
        dice_reading(plan, used, result),
    )


def _bleeds_for_a_time(severity: str) -> bool:
    return severity_rules(severity).bleed_lasts is not None


def attack_result_as_dict(result: AttackResult) -> dict[str, Any]:
    """The attack command's JSON (docs/combat.md)."""
    plan = result.plan
    return {
        "attacker": plan.attacker.name,
        "target": plan.target.name,
        "weapon": plan.weapon.label,
        "range": plan.range_band,
        "tn": plan.tn,
        "tn_dms": [m.as_dict() for m in plan.tn_dms],
        "dms": [m.as_dict() for m in plan.dms],
        "dm": plan.dm,
        "dice_rule": plan.dice_rule,
        "remarks": list(plan.remarks),
        "chance": str(plan.chance),
        "chance_percent": chance_percent(plan.chance),
        "dice": list(result.dice),
        "reading": result.reading,
        "result": result.result,
        "total": result.total,
        "hit": result.hit,
        "effect": result.effect,
        "fumble": result.fumble,
        "exceptional": result.exceptional,
        "damage": result.damage.as_dict() if result.damage else None,
        "wound": result.wound,
        "condition_after": condition_as_dict(result.condition_after),
        "events": [{"code": e.code, "message": e.message} for e in result.events],
    }
