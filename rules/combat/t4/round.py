"""The T4 round (seed II and III; docs/combat-t4.md, "The round"): surprise before the first
round, individual initiative every round, movement lowest first and attacks highest first with
ties simultaneous, and the end of the round (bleeding, stun, fatigue).

Every function is pure: the encounter keeps the state between rounds (each fighter's Tactics
points kept for initiative, rounds spent trotting, the conditions) and passes it in."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from ...attack import Modifier
from ..sheet import FighterSheet
from ..tables import t4_tables
from .condition import T4Condition, bleed, current
from .plan import RANGE_NUMBERS

TABLES = t4_tables()
# Personal combat's Tactics is the ground cascade (spec §1.4).
TACTICS = "Tactics (ground)"
LEADERSHIP = "Leadership"


@dataclass(frozen=True, slots=True)
class SurpriseSide:
    """A side before the fight, as the surprise throw counts it: its characters, and what the
    sheets cannot say (a vehicle, animals with it, a side all of pouncers)."""

    name: str
    members: tuple[FighterSheet, ...]
    vehicle: bool = False
    animals: int = 0
    all_pouncers: bool = False


@dataclass(frozen=True, slots=True)
class DieThrow:
    """1D and its DMs, for a side (surprise) or a fighter (initiative)."""

    who: str
    die: int
    dms: tuple[Modifier, ...]

    @property
    def total(self) -> int:
        return self.die + sum(m.dm for m in self.dms)


@dataclass(frozen=True, slots=True)
class SurpriseResult:
    """Both sides' throws and the side with surprise (None: both are aware)."""

    throws: tuple[DieThrow, DieThrow]
    side: str | None


def best_level(members: Iterable[FighterSheet], skill: str) -> int:
    """The highest level of ``skill`` on a side (0 when nobody has it)."""
    return max((m.skill_level(skill) or 0 for m in members), default=0)


def surprise_dms(side: SurpriseSide) -> tuple[Modifier, ...]:
    """The DMs of a side's surprise throw (II.2; Recon is Survival, reading T4-14)."""
    rule = TABLES["surprise"]
    members = side.members
    dms: list[Modifier] = []
    if any(m.wears("Battle dress") for m in members):
        dms.append(Modifier("battle dress worn", rule["battle_dress_dm"]))
    for skill, shown in zip(
        rule["skills"], ("Leadership", "Tactics", "Recon (Survival)"), strict=True
    ):
        level = best_level(members, TACTICS if skill == "Tactics" else skill)
        if level:
            dms.append(Modifier(f"highest {shown}", level))
    if any(m.service in rule["military_services"] for m in members):
        dms.append(Modifier("military training (army or marines)", rule["military_dm"]))
    if side.vehicle:
        dms.append(Modifier("a vehicle", rule["vehicle_dm"]))
    if len(members) >= rule["people"]["from"]:
        dms.append(Modifier(f"{rule['people']['from']}+ people", rule["people"]["dm"]))
    if side.animals >= rule["animals"]["from"]:
        dms.append(Modifier(f"{rule['animals']['from']}+ animals", rule["animals"]["dm"]))
    if side.all_pouncers:
        dms.append(Modifier("all pouncers", rule["all_pouncers_dm"]))
    return tuple(dms)


def throw_surprise(
    sides: tuple[SurpriseSide, SurpriseSide], dice: tuple[int, int]
) -> SurpriseResult:
    """II.2: each side 1D + its DMs; a side 3 or more higher has surprise."""
    first, second = (
        DieThrow(s.name, die, surprise_dms(s)) for s, die in zip(sides, dice, strict=True)
    )
    margin = TABLES["surprise"]["margin"]
    winner = None
    if first.total - second.total >= margin:
        winner = first.who
    elif second.total - first.total >= margin:
        winner = second.who
    return SurpriseResult((first, second), winner)


def surprise_lost(dice: tuple[int, int]) -> bool:
    """II.4: after an attack that raised no alarm, 2D 5 or less ends surprise."""
    return sum(dice) <= int(TABLES["surprise"]["lost_on_2d_at_most"])


def avoids_contact(range_band: str, dice: tuple[int, int]) -> bool:
    """II.6: a side without surprise avoids contact on 2D of 3 + the range number or less."""
    return sum(dice) <= int(TABLES["avoidance"]["base"]) + RANGE_NUMBERS[range_band]


def initiative_dms(
    sheet: FighterSheet,
    condition: T4Condition,
    *,
    side_leadership: int,
    tactics_kept: int = 0,
    quick_draw: bool = False,
    weapon_bulk: int = 0,
) -> tuple[Modifier, ...]:
    """III.2's DMs to a fighter's initiative: its side's best Leadership, the Tactics points it
    keeps for initiative (at most its level; the rest go to the Tactics pool, reading T4-18),
    its current DEX, its wound (reading T4-16), a quick draw, the weapon in hand's bulk, and
    its INI trait."""
    rule = TABLES["initiative"]
    kept = min(max(tactics_kept, 0), sheet.skill_level(TACTICS) or 0)
    dex = sheet.attacking("DEX", current(sheet, condition, "DEX"))
    dex_dm = max((row["dm"] for row in rule["dex_dms"] if dex >= row["from_dex"]), default=0)
    wound_dm = rule["wound_dms"].get(condition.wound, 0)
    candidates = (
        ("side's best Leadership", side_leadership),
        ("Tactics kept for initiative", kept),
        (f"DEX {dex}", dex_dm),
        (f"{condition.wound} wound", wound_dm),
        ("quick draw", rule["quick_draw_dm"] if quick_draw else 0),
        ("weapon bulk", -weapon_bulk),
        ("INI trait", sheet.ini_dm),
    )
    return tuple(Modifier(label, dm) for label, dm in candidates if dm)


def order(throws: Sequence[DieThrow], *, highest_first: bool) -> tuple[tuple[str, ...], ...]:
    """The fighters in initiative order as groups: tied totals are one group, which acts
    simultaneously (III.2). Attacks go highest first, movement lowest first (III.1)."""
    totals = sorted({t.total for t in throws}, reverse=highest_first)
    return tuple(tuple(t.who for t in throws if t.total == total) for total in totals)


def end_of_round(
    sheet: FighterSheet,
    condition: T4Condition,
    *,
    movement: str,
    trotting_rounds: int = 0,
    struck_full_strength: bool = False,
    acted: bool = False,
    bleeding_choices: Sequence[str] = (),
) -> tuple[T4Condition, tuple[tuple[str, int], ...]]:
    """A fighter's end of round: bleeding applied (the target's choices, else reading T4-10),
    a stunned round counted down when the stun took this round's turn (``acted``: the fighter
    acted before it was stunned, so the stun takes the next round's; reading T4-22), and
    fatigue (reading T4-8): +1 for a round running, +1 each 10th round trotting
    (``trotting_rounds``: rounds trotting so far, this one included), -1 for a round with no
    full-strength strike and no running or trotting (never below 0)."""
    rule = TABLES["fatigue"]
    condition, bled = bleed(sheet, condition, bleeding_choices)
    fatigue = condition.fatigue
    if movement == "running":
        fatigue += rule["running_round"]
    elif movement == "trotting":
        if trotting_rounds and trotting_rounds % rule["trotting_rounds_per_point"] == 0:
            fatigue += 1
    elif not struck_full_strength:
        fatigue = max(fatigue - rule["rest_recovery"], 0)
    stunned = condition.stunned_rounds if acted else max(condition.stunned_rounds - 1, 0)
    condition = replace(condition, fatigue=fatigue, stunned_rounds=stunned)
    return condition, bled
