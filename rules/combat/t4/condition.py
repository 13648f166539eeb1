"""A character's condition under T4 (docs/combat-t4.md, "The T4 condition"): the points taken
off each characteristic, lethal and stun apart, the End-pool fatigue, the wound category, and
the bleeding and injuries hit locations leave. Stored as is on the play sheet beside the FFA LIF
track (reading X-2: nothing converts between them)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from ...fighters import InputRefused, Refusals
from .. import reading
from ..sheet import PHYSICAL, FighterSheet
from ..tables import t4_tables

SYSTEM = "t4"
WOUNDS: tuple[str, ...] = tuple(t4_tables()["wound_categories"])
SUPERFICIAL, MINOR, SERIOUS, DEAD = WOUNDS
HEAD_STATS: tuple[str, ...] = tuple(t4_tables()["head_stats"])
DAMAGED: tuple[str, ...] = (*PHYSICAL, *HEAD_STATS)
CONSCIOUS, STUNNED, UNCONSCIOUS = "conscious", "stunned", "unconscious"
_NONE: Mapping[str, int] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Bleeding:
    location: str
    effect: str
    per_round: int

    def as_dict(self) -> dict[str, Any]:
        return {"location": self.location, "effect": self.effect, "per_round": self.per_round}


@dataclass(frozen=True, slots=True)
class Injury:
    location: str
    effect: str

    def as_dict(self) -> dict[str, Any]:
        return {"location": self.location, "effect": self.effect}


@dataclass(frozen=True, slots=True)
class T4Condition:
    """``damage``: lethal points taken off STR, DEX, END, INT, EDU, PSI; ``stun``: stun points
    off STR, DEX, END; ``fatigue``: End-pool fatigue (reading T4-8); ``wound``: the worst
    category since last healed (reading T4-16); ``stunned_rounds``: rounds the character cannot
    attack or move."""

    damage: Mapping[str, int] = field(default_factory=lambda: _NONE)
    stun: Mapping[str, int] = field(default_factory=lambda: _NONE)
    fatigue: int = 0
    wound: str | None = None
    unconscious: bool = False
    stunned_rounds: int = 0
    bleeding: tuple[Bleeding, ...] = ()
    injuries: tuple[Injury, ...] = ()

    def taken(self, code: str) -> int:
        return self.damage.get(code, 0) + self.stun.get(code, 0)


def current(sheet: FighterSheet, condition: T4Condition, code: str) -> int:
    """A characteristic now: the document's level less the damage and stun taken, never below 0
    (the value damage counts from; attacks lower it further, :meth:`FighterSheet.attacking`)."""
    return max(sheet.levels.get(code, 0) - condition.taken(code), 0)


def zero_count(sheet: FighterSheet, condition: T4Condition) -> int:
    return sum(current(sheet, condition, code) == 0 for code in PHYSICAL)


def wound_now(sheet: FighterSheet, condition: T4Condition) -> str | None:
    """The category the current values make (VI.10): any damage superficial, one physical
    characteristic at 0 minor, two serious, three dead."""
    zeros = zero_count(sheet, condition)
    if zeros:
        return WOUNDS[zeros]
    hurt = any(condition.taken(code) for code in DAMAGED)
    return SUPERFICIAL if hurt else None


def worse(first: str | None, second: str | None) -> str | None:
    ranked = [w for w in (first, second) if w is not None]
    return max(ranked, key=WOUNDS.index, default=None)


def state(sheet: FighterSheet, condition: T4Condition) -> str:
    """Dead (three physical characteristics at 0), unconscious (one or two at 0, or still out
    from a serious wound: reading T4-27), stunned, or conscious."""
    zeros = zero_count(sheet, condition)
    if zeros == len(PHYSICAL):
        return DEAD
    if condition.unconscious or zeros:
        return UNCONSCIOUS
    return STUNNED if condition.stunned_rounds > 0 else CONSCIOUS


def out_of_action(sheet: FighterSheet, condition: T4Condition) -> str | None:
    """Why the character cannot attack or move this round (dead, unconscious, stunned)."""
    now = state(sheet, condition)
    return None if now == CONSCIOUS else now


def take(
    sheet: FighterSheet, condition: T4Condition, code: str, points: int, *, stun: bool
) -> tuple[T4Condition, int]:
    """``points`` taken off ``code`` (as stun or lethal damage); the points beyond 0 are lost.
    Returns the condition and the points actually taken."""
    taken = min(points, current(sheet, condition, code))
    if taken <= 0:
        return condition, 0
    record = condition.stun if stun else condition.damage
    changed = MappingProxyType({**record, code: record.get(code, 0) + taken})
    after = replace(condition, stun=changed) if stun else replace(condition, damage=changed)
    return after, taken


def default_stat(
    sheet: FighterSheet, condition: T4Condition, points: int, *, head: bool, stun: bool
) -> str:
    """Where a block of damage goes when the target does not say (reading T4-10): the physical
    characteristic with the most left (ties END, STR, DEX); on a head hit, a block that would
    bring it to 0 goes to the higher of INT, EDU (and PSI) when that one stays above 0."""
    order = ("END", "STR", "DEX")
    chosen = max(order, key=lambda code: (current(sheet, condition, code), -order.index(code)))
    if head and not stun and points >= current(sheet, condition, chosen):
        spare = [code for code in HEAD_STATS if code in sheet.levels]
        best = max(spare, key=lambda code: current(sheet, condition, code), default=None)
        if best is not None and current(sheet, condition, best) > points:
            return best
    return chosen


def allowed_stats(sheet: FighterSheet, *, head: bool, stun: bool) -> tuple[str, ...]:
    """The characteristics a block may go to: the physical three, and on a head hit INT, EDU
    and PSI (lethal damage only; VI.7, reading T4-28)."""
    if head and not stun:
        return (*PHYSICAL, *(code for code in HEAD_STATS if code in sheet.levels))
    return PHYSICAL


def bleed(
    sheet: FighterSheet, condition: T4Condition, choices: Sequence[str] = ()
) -> tuple[T4Condition, tuple[tuple[str, int], ...]]:
    """The end of a round for a bleeding character: each wound's points a round, allocated as
    damage is (``choices``: the target's, one per bleeding wound in order; reading T4-10)."""
    applied: list[tuple[str, int]] = []
    for index, wound in enumerate(condition.bleeding):
        stat = (
            choices[index]
            if index < len(choices)
            else default_stat(sheet, condition, wound.per_round, head=False, stun=False)
        )
        condition, taken = take(sheet, condition, stat, wound.per_round, stun=False)
        applied.append((stat, taken))
    return settle(sheet, condition), tuple(applied)


def settle(sheet: FighterSheet, condition: T4Condition) -> T4Condition:
    """The wound category after damage (the worst since healed: reading T4-16), and shock: a
    minor or serious wound knocks the character out (VI.11; reading T4-27)."""
    zeros = zero_count(sheet, condition)
    return replace(
        condition,
        wound=worse(condition.wound, wound_now(sheet, condition)),
        unconscious=condition.unconscious or 0 < zeros < len(PHYSICAL),
    )


def recover_from_shock(sheet: FighterSheet, condition: T4Condition) -> T4Condition:
    """Waking from shock (VI.11): a minor wound brings the characteristic at 0 to 1 and the
    others halfway back to the document's level (fractions dropped); a serious wound only
    brings those at 0 to 1. Points come off stun first."""
    minor = zero_count(sheet, condition) <= 1
    for code in PHYSICAL:
        now, top = current(sheet, condition, code), sheet.levels[code]
        wanted = 1 if now == 0 else (now + (top - now) // 2 if minor else now)
        condition = restore(condition, code, min(wanted, top) - now)
    return replace(condition, unconscious=False)


def restore(condition: T4Condition, code: str, points: int) -> T4Condition:
    """``points`` given back to ``code``: stun first, then lethal damage (reading T4-28)."""
    if points <= 0:
        return condition
    from_stun = min(points, condition.stun.get(code, 0))
    from_damage = min(points - from_stun, condition.damage.get(code, 0))
    return replace(
        condition,
        stun=MappingProxyType({**condition.stun, code: condition.stun.get(code, 0) - from_stun}),
        damage=MappingProxyType(
            {**condition.damage, code: condition.damage.get(code, 0) - from_damage}
        ),
    )


def recover_stun(condition: T4Condition, code: str, points: int) -> T4Condition:
    """An hour's rest (VI.12): ``points`` (1D) of stun back to ``code`` (thrown at random)."""
    left = max(condition.stun.get(code, 0) - points, 0)
    return replace(condition, stun=MappingProxyType({**condition.stun, code: left}))


def medical_attention(condition: T4Condition) -> T4Condition:
    """Medical attention stops every bleeding wound."""
    return replace(condition, bleeding=())


# -- JSON --------------------------------------------------------------------------------------


def condition_as_dict(condition: T4Condition) -> dict[str, Any]:
    return {
        "system": SYSTEM,
        "damage": {code: condition.damage.get(code, 0) for code in (*PHYSICAL, *DAMAGED[3:])},
        "stun": {code: condition.stun.get(code, 0) for code in PHYSICAL},
        "fatigue": condition.fatigue,
        "wound": condition.wound,
        "unconscious": condition.unconscious,
        "stunned_rounds": condition.stunned_rounds,
        "bleeding": [b.as_dict() for b in condition.bleeding],
        "injuries": [i.as_dict() for i in condition.injuries],
    }


def _bleeding(value: Any, field: str) -> tuple[Bleeding, ...]:
    return tuple(
        Bleeding(
            location=reading.text(item.get("location"), f"{field}[{index}].location"),
            effect=reading.text(item.get("effect"), f"{field}[{index}].effect"),
            per_round=reading.whole(item.get("per_round"), f"{field}[{index}].per_round"),
        )
        for index, item in enumerate(reading.objects(value, field))
    )


def _injuries(value: Any, field: str) -> tuple[Injury, ...]:
    return tuple(
        Injury(
            location=reading.text(item.get("location"), f"{field}[{index}].location"),
            effect=reading.text(item.get("effect"), f"{field}[{index}].effect"),
        )
        for index, item in enumerate(reading.objects(value, field))
    )


def condition_from_dict(value: Any, field: str) -> T4Condition:
    """A T4 condition from its JSON; :class:`InputRefused` names every fault under ``field``.
    Every key is optional (absent: unhurt)."""
    data = reading.obj(value, field)
    refusals = Refusals()
    values = reading.read_fields(
        data,
        field,
        {
            "system": lambda v, f: reading.system_of(v, f, SYSTEM),
            "damage": reading.points(DAMAGED),
            "stun": reading.points(PHYSICAL),
            "fatigue": reading.whole,
            "wound": lambda v, f: reading.one_of(v, f, WOUNDS),
            "unconscious": reading.boolean,
            "stunned_rounds": reading.whole,
            "bleeding": _bleeding,
            "injuries": _injuries,
        },
        refusals,
    )
    if refusals.found:
        raise InputRefused(refusals.found)
    values.pop("system", None)
    return T4Condition(**values)
