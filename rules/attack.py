"""One attack, planned and then resolved: the TN and every DM with its reason, the exact chance
of a hit before the dice are thrown, then the dice, the damage through armor and TGH, the wound
and the target's new condition.

The figures come from ``data/combat.json`` (the situation tables), ``data/equipment.json`` (the
weapons and armor) and ``data/injury.json`` (wounds); where the chapter is unclear this module
follows ``docs/combat.md``. Typical use::

    plan = plan_attack(attacker, weapon, target, "medium", Situation(aim_turns=1))
    plan.chance                                  # Fraction: the odds the web shows
    dice = [rng.randint(1, 6) for _ in range(dice_needed(plan))]
    result = resolve_attack(plan, dice)
    attack_result_as_dict(result)                # the CLI's JSON
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from fractions import Fraction
from functools import cache
from typing import Any

from .catalog import catalog
from .condition import (
    Condition,
    Event,
    blow_severity,
    condition_as_dict,
    damage_after_protection,
    effective,
    incapacity,
    take_damage,
)
from .dice import (
    LEVEL_ZERO,
    dice_notation,
    dice_rules,
    dice_thrown,
    kind_of_test,
    read_highest,
    read_lowest,
    reads_highest,
    result_distribution,
    throw,
)
from .fighters import (
    MOVEMENTS,
    RANGE_BANDS,
    RANGE_DMS,
    SITUATION_DMS,
    Armor,
    CombatRefused,
    Fighter,
    Refusals,
    Weapon,
    armor_against,
    band_index,
    combat_tables,
    field_name,
)
from .injury import LETHAL, STUN, Period, injury_rules, severity_rules
from .wording import MINUS, TIMES, plural, verb


@dataclass(frozen=True, slots=True)
class Modifier:
    """One DM and why it applies."""

    label: str
    dm: int

    def as_dict(self) -> dict[str, Any]:
        return {"label": self.label, "dm": self.dm}


@dataclass(frozen=True, slots=True)
class Situation:
    """What the referee says about the attack; every field's default is the ordinary case.

    ``movement``: the attacker's this turn (stationary, stepping, moving). ``aim_turns``: full
    turns spent aiming before this one. ``cover``, ``lighting``, ``visibility``,
    ``target_size``: a row of their tables or None. ``facing``: where the target is from the
    attacker (front, side, rear squares). ``attacker_in_target_rear``: the attack comes from
    the target's rear squares (its DEF -2). ``target_surprised``: DEF 1. ``extra_actions``:
    actions beyond the first this turn. ``dm``: any other DM the referee adds; ``def_dm``: any
    change to the target's DEF (diving, crawling, evading). ``autofire_rounds``: rounds fired
    on autofire (0: a single shot); ``targets`` and ``squares_between_targets`` for autofire at
    several targets. ``target_squares_per_turn``: how fast the target moves. ``ammunition``: a
    load the weapon's notes offer (HEAP, DS, TR, GS, EX).
    """

    movement: str = "stationary"
    aim_turns: int = 0
    cover: str | None = None
    lighting: str | None = None
    visibility: str | None = None
    target_size: str | None = None
    facing: str = "front"
    target_surprised: bool = False
    extra_actions: int = 0
    dm: int = 0
    autofire_rounds: int = 0
    targets: int = 1
    squares_between_targets: int = 0
    attacker_braced: bool = False
    target_prone: bool = False
    target_higher: bool = False
    attacker_in_target_rear: bool = False
    target_squares_per_turn: int = 0
    def_dm: int = 0
    ammunition: str | None = None

    @property
    def rounds_fired(self) -> int:
        """The rounds the attack fires from a weapon that counts them: its burst, else one."""
        return max(self.autofire_rounds, 1)


SITUATION_KEYS: tuple[str, ...] = tuple(f.name for f in fields(Situation))


@dataclass(frozen=True, slots=True)
class AttackPlan:
    """An attack before its dice: the TN (the target's DEF after ``tn_dms``), the attack's
    ``dms``, the dice it throws (``kind``, ``skill_level``, ``dice_rule``) and the exact
    ``chance`` of a hit."""

    attacker: Fighter
    weapon: Weapon
    target: Fighter
    range_band: str
    situation: Situation
    tn: int
    tn_dms: tuple[Modifier, ...]
    dms: tuple[Modifier, ...]
    kind: str
    # The target's DEF the TN starts from, as its wounds leave it (a stunned target's is 1).
    target_def: int
    skill_level: int | None
    dice_rule: str
    chance: Fraction
    str_dv: int
    damage_type: str
    notes: frozenset[str]
    target_condition: Condition | None = None
    # What the rules left out, in words (aiming adds nothing to autofire).
    remarks: tuple[str, ...] = ()

    @property
    def dm(self) -> int:
        return sum(m.dm for m in self.dms)


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


# -- the plan ----------------------------------------------------------------------------------


def _table_dm(key: str, value: str | None) -> int:
    if value is None:
        return 0
    table = SITUATION_DMS[key]
    if value not in table:
        raise CombatRefused(
            f"situation.{key}", f"unknown {value!r}; use one of {', '.join(table)} or null"
        )
    return table[value]


def _check_counts(situation: Situation) -> None:
    for name in (
        "aim_turns",
        "extra_actions",
        "autofire_rounds",
        "squares_between_targets",
        "target_squares_per_turn",
    ):
        if getattr(situation, name) < 0:
            raise CombatRefused(f"situation.{name}", "cannot be negative")
    if situation.targets < 1:
        raise CombatRefused("situation.targets", "an attack has at least 1 target")
    if situation.movement not in MOVEMENTS:
        raise CombatRefused(
            "situation.movement",
            f"unknown {situation.movement!r}; use one of {', '.join(MOVEMENTS)}",
        )


def _able(fighter: Fighter, condition: Condition | None) -> None:
    state = incapacity(condition) if condition is not None else None
    if state is not None:
        raise CombatRefused("attacker", f"{fighter.name} is {state.state} and cannot attack")


def _armed(fighter: Fighter, weapon: Weapon) -> None:
    """A weapon made to be fired from armor (the PGMP-13 and FGMP-14 from battle dress, note
    BD) is not fired without it."""
    required, armor = weapon.requires_armor, fighter.armor
    if required is None or (armor is not None and armor.catalog_name == required):
        return
    worn = armor.name if armor is not None else "no armor"
    raise CombatRefused(
        "weapon",
        f"the {weapon.label} is fired only from {required.lower()}, and the attacker wears {worn}",
    )


@dataclass(frozen=True, slots=True)
class FiguresNow:
    """A fighter's figures under its wounds: DEF, INI, the DEX DM and the STR DV."""

    DEF: int
    INI: int
    dex_dm: int
    str_dv: int


def figures_now(fighter: Fighter, condition: Condition | None) -> FiguresNow:
    """DEF, INI, DEX DM and STR DV under the fighter's wounds (a character's through the
    engine's ``effective``, with the load and armor its unhurt figures carry; reading 24). An
    animal's are not recomputed, but a stunned one has the stunned DEF. No condition: unhurt."""
    unhurt = FiguresNow(fighter.DEF, fighter.INI, fighter.dex_dm, fighter.str_dv)
    if condition is None:
        return unhurt
    report = fighter.report
    if report is None:
        stunned_def = injury_rules().stunned_def
        return FiguresNow(
            stunned_def if condition.stunned else fighter.DEF,
            fighter.INI,
            fighter.dex_dm,
            fighter.str_dv,
        )
    equipment = report.equipment
    now = effective(
        report,
        condition,
        encumbrance_penalty=equipment.encumbrance_penalty,
        armor_str_short=equipment.armor_str_short,
    )
    armor = fighter.armor
    strength = now.levels["STR"]
    if armor is not None and armor.provides_str is not None:
        strength = max(strength, armor.provides_str)
    return FiguresNow(
        now.derived.DEF, now.derived.INI, now.test_dm("DEX"), catalog().dm_dv(strength)[1]
    )


def _tn(target_def: int, situation: Situation) -> tuple[int, tuple[Modifier, ...]]:
    """The TN: the target's DEF (1 when surprised), then its modifiers, never below 1
    (docs/combat.md, readings 10 and 11)."""
    tables = combat_tables()
    base = target_def
    shown: list[Modifier] = []
    if situation.target_surprised:
        base = tables["surprise"]["surprised_def"]
        shown.append(Modifier("target surprised: base DEF", base - target_def))
    changes: list[Modifier] = []
    if situation.attacker_in_target_rear:
        changes.append(Modifier("attacked from its rear", tables["attacked_from_rear_def"]))
    if situation.def_dm:
        changes.append(Modifier("target's DEF changed by the referee", situation.def_dm))
    tn = max(base + sum(m.dm for m in changes), catalog().derived_floors["DEF"])
    return tn, (*shown, *changes)


def _active_notes(weapon: Weapon, situation: Situation) -> frozenset[str]:
    """The weapon's notes in force: an ammunition note only when that load is chosen
    (reading 15)."""
    notes_table = combat_tables()["weapon_notes"]
    loads = {code for code in weapon.notes if notes_table.get(code, {}).get("ammunition")}
    chosen = situation.ammunition
    if chosen is not None and chosen not in loads:
        offered = ", ".join(sorted(loads)) or "none"
        raise CombatRefused(
            "situation.ammunition",
            f"the {weapon.label} takes no {chosen!r} load (it takes {offered})",
        )
    active = weapon.notes - loads
    if chosen is not None:
        if notes_table[chosen].get("explosion"):
            raise CombatRefused(
                "situation.ammunition",
                f"{chosen} attacks use the explosion rules, not resolved here",
            )
        active |= {chosen}
    return active


def _range_dms(
    weapon: Weapon,
    attacker: Fighter,
    band: str,
    situation: Situation,
    notes: frozenset[str],
) -> list[Modifier]:
    """Range, Rmod and aiming for a shot; the optimal distance for a melee attack (readings 2,
    3 and 7)."""
    tables = combat_tables()
    if weapon.melee:
        return _reach_dms(weapon, attacker, band)
    _within_max_range(weapon, attacker, band)
    range_dm = RANGE_DMS[band]
    out = [Modifier(f"range: {band}", range_dm)] if range_dm else []
    movement = next(m for m in tables["movements"] if m["name"] == situation.movement)
    aimed = situation.aim_turns > 0
    offset = 0
    rmod = weapon.rmod + sum(
        tables["weapon_notes"][n].get("rmod", 0) for n in notes if n in tables["weapon_notes"]
    )
    if movement["rmod"] and aimed and rmod > 0 and range_dm < 0:
        offset = min(rmod, -range_dm)
        out.append(Modifier(f"Rmod {rmod:+d} offsets range (stationary, aimed)", offset))
    # No bonus for aiming combines with autofire (reading 13): the aim still steadies the Rmod.
    if aimed and not situation.autofire_rounds:
        level = attacker.skill_level(weapon) or 0
        aim = tables["aim"]
        bonus = max(aim["least_dm"], min(situation.aim_turns * aim["dm_per_turn"], level))
        bonus = min(bonus, -(range_dm + offset))
        if bonus > 0:
            out.append(
                Modifier(f"aiming {plural(situation.aim_turns, 'turn')} offsets range", bonus)
            )
    return out


def _band_start(band: str) -> float:
    """Where a band begins: at the previous band's distance (reading 12)."""
    index = band_index(band)
    return 0 if index == 0 else float(combat_tables()["range_bands"]["bands"][index - 1]["metres"])


def max_range_m(weapon: Weapon, attacker: Fighter) -> float | None:
    """A weapon's MAX in metres (None: no limit): the table's, or a thrown weapon's STR x its
    multiple, with the thrower's STR level (reading 12); CombatRefused for an animal, which
    throws nothing."""
    multiple = weapon.max_range_str_multiple
    if multiple is None:
        return weapon.max_range_m
    if attacker.str_level is None:
        raise CombatRefused("weapon", f"{attacker.name} cannot throw the {weapon.label}")
    return float(attacker.str_level * multiple)


def _reaches(weapon: Weapon, attacker: Fighter, band: str) -> bool:
    most = max_range_m(weapon, attacker)
    return most is None or band_index(band) == 0 or (_band_start(band) < most)


def _within_max_range(weapon: Weapon, attacker: Fighter, band: str) -> None:
    """A shot whose whole band lies beyond the weapon's MAX is refused (reading 12)."""
    if not _reaches(weapon, attacker, band):
        most = max_range_m(weapon, attacker)
        thrown = (
            f" (STR {attacker.str_level} x {weapon.max_range_str_multiple})"
            if weapon.max_range_str_multiple is not None
            else ""
        )
        raise CombatRefused(
            "range",
            f"the {weapon.label} reaches {most:g} m{thrown}; {band} range starts beyond "
            f"{_band_start(band):g} m",
        )


def _optimal_bands(weapon: Weapon, attacker: Fighter) -> tuple[str, ...]:
    """A melee or natural weapon's optimal distance, as range bands (reading 3)."""
    if weapon.natural and weapon.name in attacker.reaches:  # Vargr claws reach close
        return (attacker.reaches[weapon.name],)
    sizes = combat_tables()["optimal_distance"]["sizes"]
    if weapon.size in sizes:
        return tuple(sizes[weapon.size])
    # A natural weapon of size "var": the animal's reach; a character's hand is S.
    return (attacker.reach or RANGE_BANDS[0],)


def usual_band(weapon: Weapon, attacker: Fighter) -> str:
    """The range band an attack with ``weapon`` is first offered at (reading 34): a melee or
    natural weapon's optimal distance (the farther, of two); a ranged weapon's pistol range, or
    the farthest band nearer than that the weapon reaches."""
    if weapon.melee:
        return max(_optimal_bands(weapon, attacker), key=band_index)
    nearer = RANGE_BANDS[: band_index(combat_tables()["range_bands"]["pistol_range"]) + 1]
    return [band for band in nearer if _reaches(weapon, attacker, band)][-1]


def _reach_dms(weapon: Weapon, attacker: Fighter, band: str) -> list[Modifier]:
    tables = combat_tables()["optimal_distance"]
    optimal = _optimal_bands(weapon, attacker)
    index = band_index(band)
    farthest = max(band_index(b) for b in optimal)
    if index > farthest:
        raise CombatRefused(
            "range",
            f"the {weapon.label} reaches {' or '.join(optimal)}; a target at {band} is out of "
            "reach",
        )
    if band in optimal:
        return []
    nearer = f"nearer than optimal distance ({' or '.join(optimal)}) for the {weapon.label}"
    return [Modifier(nearer, tables["not_optimal_dm"])]


def _situation_dms(
    weapon: Weapon, target: Fighter, band: str, situation: Situation, notes: frozenset[str]
) -> list[Modifier]:
    tables = combat_tables()
    out: list[Modifier] = []
    speed = tables["target_speed"]
    steps = situation.target_squares_per_turn // speed["squares_per_step"]
    if steps:
        out.append(Modifier("target moving fast", steps * speed["dm_per_step"]))
    if situation.target_size is not None:
        out.append(
            Modifier(
                f"target size: {situation.target_size}",
                _table_dm("target_size", situation.target_size),
            )
        )
    elif target.size_dm:
        out.append(Modifier("target's size", target.size_dm))
    lighting = _table_dm("lighting", situation.lighting)
    if lighting and not (situation.aim_turns > 0 and _notes_say(notes, "aimed_lighting")):
        out.append(Modifier(f"lighting: {situation.lighting}", lighting))
    for key in ("visibility", "cover", "facing"):
        value = getattr(situation, key)
        dm = _table_dm(key, value)
        if dm:
            out.append(Modifier(f"{key}: {value}", dm))
    out.extend(_position_dms(weapon, band, situation))
    if situation.extra_actions:  # each action costs, the first included (reading 9)
        actions = situation.extra_actions + 1
        out.append(
            Modifier(f"{actions} actions this turn", actions * tables["actions"]["dm_per_action"])
        )
    return out


def _position_dms(weapon: Weapon, band: str, situation: Situation) -> list[Modifier]:
    """The position table's rows that apply: each row says whether it needs an aimed attack,
    a shot, or a range band at least as far as its ``from_band``."""
    labels = {
        "attacker_braced": "attacker braced or prone",
        "target_prone": "target prone",
        "target_higher": "target higher than the attacker",
    }
    out = []
    for key, row in combat_tables()["position"].items():
        applies = (
            getattr(situation, key)
            and (weapon.ranged or not row.get("shots_only"))
            and (situation.aim_turns > 0 or not row.get("needs_aim"))
            and ("from_band" not in row or band_index(band) >= band_index(row["from_band"]))
        )
        if applies:
            out.append(Modifier(labels[key], row["dm"]))
    return out


def _weapon_dms(
    attacker: Fighter, weapon: Weapon, str_dv: int, situation: Situation
) -> list[Modifier]:
    tables = combat_tables()
    out: list[Modifier] = []
    movement = next(m for m in tables["movements"] if m["name"] == situation.movement)
    # A negative ACC is the weapon's fault whatever the attacker does; a positive one needs a
    # steady attacker (docs/combat.md, reading 8).
    if weapon.acc < 0 or (weapon.acc > 0 and movement["acc"]):
        out.append(Modifier(f"ACC of the {weapon.label}", weapon.acc))
    if attacker.has_specialty(weapon):  # reading 35
        out.append(Modifier(f"specialty: {weapon.specialty}", catalog().limits.specialty_dm))
    if weapon.str_min is not None and str_dv < weapon.str_min:
        short = weapon.str_min - str_dv
        out.append(
            Modifier(
                f"STR DV {str_dv} below STRmin {weapon.str_min}",
                short * catalog().limits.weapon_dm_per_point,
            )
        )
    out.extend(_autofire_dms(weapon, situation))
    return out


def autofire_bursts(weapon: Weapon) -> tuple[int, ...]:
    """The autofire bursts to choose from for an attack with ``weapon``: each whole step of
    the autofire table (4 rounds, 8...) up to the most rounds it fires in an attack, and that
    most (reading 18); none when it has no autofire."""
    auto = combat_tables()["autofire"]
    if auto["mode_note"] not in weapon.notes:
        return ()
    most = weapon.most_rounds
    step = auto["rounds_per_step"]
    return tuple(sorted({*range(step, most + 1, step), most} - {0}))


def _autofire_dms(weapon: Weapon, situation: Situation) -> list[Modifier]:
    """Autofire's bonus and the DMs for several targets (reading 18)."""
    auto = combat_tables()["autofire"]
    rounds = situation.autofire_rounds
    if not rounds:
        if situation.targets > 1:
            raise CombatRefused("situation.targets", "only autofire attacks several targets")
        return []
    if auto["mode_note"] not in weapon.notes:
        raise CombatRefused("situation.autofire_rounds", f"the {weapon.label} has no autofire")
    if rounds > weapon.most_rounds:
        raise CombatRefused(
            "situation.autofire_rounds",
            f"the {weapon.label} fires at most {plural(weapon.most_rounds, 'round')} a turn, "
            f"not {rounds}",
        )
    steps = -(-rounds // auto["rounds_per_step"])
    out = [Modifier(f"autofire, {plural(rounds, 'round')}", steps * auto["dm_per_step"])]
    if situation.targets > steps:
        raise CombatRefused(
            "situation.targets",
            f"{plural(rounds, 'round')} {verb(rounds, 'reaches', 'reach')} at most "
            f"{plural(steps, 'target')}, one per {plural(auto['rounds_per_step'], 'round')}",
        )
    if situation.targets > 1:
        out.append(
            Modifier(f"{situation.targets} targets", situation.targets * auto["dm_per_target"])
        )
    if situation.squares_between_targets:
        out.append(
            Modifier(
                f"{plural(situation.squares_between_targets, 'square')} between the targets",
                situation.squares_between_targets * auto["dm_per_square_between"],
            )
        )
    return out


def _notes_say(notes: frozenset[str], flag: str) -> bool:
    """Whether one of the notes in force carries ``flag`` in the weapon notes table."""
    table = combat_tables()["weapon_notes"]
    return any(table.get(code, {}).get(flag) for code in notes)


def _damage_type(attacker: Fighter, weapon: Weapon, notes: frozenset[str]) -> str:
    notes_table = combat_tables()["weapon_notes"]
    for code in sorted(notes):
        changed = notes_table.get(code, {}).get("damage_type")
        if changed:
            return str(changed)
    if weapon.armored_type and attacker.armor is not None and attacker.armor.armors_hands:
        return weapon.armored_type
    return weapon.damage_type


def hit_chance(kind: str, skill_level: int | None, *, dm: int, tn: int) -> Fraction:
    """The exact chance that a throw hits: the dice result plus ``dm`` reaches ``tn`` and the
    result is not a fumble, by enumerating every outcome of the dice."""
    return _chance_of_result(kind, dice_thrown(kind, skill_level), tn - dm)


@cache
def _chance_of_result(kind: str, count: int, least: int) -> Fraction:
    """The chance that ``count`` dice of ``kind`` read ``least`` or more and are no fumble
    (cached: an encounter asks the same odds again and again)."""
    lowest = dice_rules().lowest
    return sum(
        (
            chance
            for result, chance in result_distribution(kind, count).items()
            if result != lowest and result >= least
        ),
        Fraction(0),
    )


def plan_attack(
    attacker: Fighter,
    weapon: Weapon,
    target: Fighter,
    range_band: str,
    situation: Situation,
    *,
    attacker_condition: Condition | None = None,
    target_condition: Condition | None = None,
) -> AttackPlan:
    """Everything about an attack but its dice. CombatRefused (naming the field) when the rules
    do not allow it: an attacker who cannot act, a target out of reach or beyond the weapon's
    range, autofire the weapon cannot fire, a situation value no table has."""
    band_index(range_band)
    _check_counts(situation)
    _able(attacker, attacker_condition)
    _armed(attacker, weapon)
    attacker_now = figures_now(attacker, attacker_condition)
    dex_dm, str_dv = attacker_now.dex_dm, attacker_now.str_dv
    target_def = figures_now(target, target_condition).DEF
    tn, tn_dms = _tn(target_def, situation)
    notes = _active_notes(weapon, situation)
    dms = [Modifier("DEX DM", dex_dm)] if dex_dm else []
    dms.extend(_range_dms(weapon, attacker, range_band, situation, notes))
    dms.extend(_weapon_dms(attacker, weapon, str_dv, situation))
    dms.extend(_situation_dms(weapon, target, range_band, situation, notes))
    if situation.dm:
        dms.append(Modifier("referee's DM", situation.dm))
    level = attacker.skill_level(weapon)
    kind = kind_of_test(level)
    total_dm = sum(m.dm for m in dms)
    remarks: tuple[str, ...] = (
        ("Aiming adds no bonus to autofire (reading 13).",)
        if situation.autofire_rounds and situation.aim_turns and weapon.ranged
        else ()
    )
    chance = hit_chance(kind, level, dm=total_dm, tn=tn)
    if not chance:
        count = dice_thrown(kind, level)
        most = max(result_distribution(kind, count))
        rule = dice_notation(kind, level)
        remarks += (
            f"It cannot hit: TN {tn} with DM {total_dm:+d} needs {tn - total_dm} on the dice, "
            f"and {rule} reads {most} at most.",
        )
    return AttackPlan(
        attacker=attacker,
        weapon=weapon,
        target=target,
        range_band=range_band,
        situation=situation,
        tn=tn,
        tn_dms=tn_dms,
        dms=tuple(dms),
        kind=kind,
        target_def=target_def,
        skill_level=level,
        dice_rule=dice_notation(kind, level),
        chance=chance,
        str_dv=str_dv,
        damage_type=_damage_type(attacker, weapon, notes),
        notes=notes,
        target_condition=target_condition,
        remarks=remarks,
    )


# -- the dice ----------------------------------------------------------------------------------


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


# -- the damage --------------------------------------------------------------------------------


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


def chance_percent(chance: Fraction | float) -> float:
    """A chance as a percentage to one decimal, never shown as 0 or 100 unless it is."""
    shown = round(float(chance) * 100, 1)
    if 0 < chance < 1:
        return min(max(shown, 0.1), 99.9)
    return shown


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


# The largest count or DM a situation takes: far beyond any fight, small enough to print.
LARGEST_SITUATION_FIGURE = 1000


def _situation_value(key: str, value: Any, default: Any) -> Any:
    field_name = f"situation.{key}"
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise CombatRefused(field_name, "must be true or false")
    elif isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise CombatRefused(field_name, "must be a whole number")
        if abs(value) > LARGEST_SITUATION_FIGURE:
            raise CombatRefused(
                field_name, f"must be at most {LARGEST_SITUATION_FIGURE} either way"
            )
    elif not isinstance(value, str):
        raise CombatRefused(field_name, "must be text or null")
    return value


def situation_from_mapping(data: Mapping[str, Any]) -> Situation:
    """A Situation from a JSON object; InputRefused names every key or value it cannot take. A
    null value leaves the key's default."""
    values: dict[str, Any] = {}
    defaults = Situation()
    refusals = Refusals()
    for key, value in data.items():
        if key not in SITUATION_KEYS:
            refusals.add(
                f"situation.{field_name(key)}", f"unknown key; use {', '.join(SITUATION_KEYS)}"
            )
        elif value is not None:
            values[key] = refusals.attempt(_situation_value, key, value, getattr(defaults, key))
    refusals.raise_any()
    return Situation(**values)
