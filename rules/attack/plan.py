"""An attack planned before its dice: the TN and every DM with its reason, and the exact
chance of a hit."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from ..catalog import catalog
from ..condition import Condition, effective, incapacity
from ..dice import dice_notation, dice_rules, dice_thrown, kind_of_test, result_distribution
from ..fighters import (
    MOVEMENTS,
    RANGE_BANDS,
    RANGE_DMS,
    SITUATION_DMS,
    CombatRefused,
    Fighter,
    Weapon,
    band_index,
    combat_tables,
)
from ..injury import injury_rules
from ..wording import plural, verb
from .situation import Modifier, Situation


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


def chance_percent(chance: Fraction | float) -> float:
    """A chance as a percentage to one decimal, never shown as 0 or 100 unless it is."""
    shown = round(float(chance) * 100, 1)
    if 0 < chance < 1:
        return min(max(shown, 0.1), 99.9)
    return shown
