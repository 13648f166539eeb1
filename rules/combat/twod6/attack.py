"""One 2D6 attack (docs/combat-2d6.md): 2D6 + skill + characteristic DM + DMs, 8+ hits, the
Effect added to the weapon's dice, armour subtracted, damage to END and then STR or DEX.

    plan = plan_2d6_attack(TwoD6Attack(attacker, target, weapon, "medium"))
    plan.chance                                 # Fraction: one attack reaching 8
    result = resolve_2d6_attack(plan, GivenDice({...}) or RandomDice(rng))
    twod6_result_as_dict(result)                # the command's JSON

Readings are cited as ``# Reading 2D-n``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from ...attack import Modifier
from ...condition import Event
from ...fighters import Weapon
from ..common import blast_event, blast_note, check_able, refuse_unless
from ..conversion import characteristic_dm
from ..figures import WeaponFigures, weapon_figures
from ..sheet import FighterSheet, SkillUse
from ..tables import twod6_tables
from ..throws import DiceSource, chance_at_least
from .condition import CONSCIOUS, OVERFLOW, TwoD6Condition, current, state, take_damage

TABLES = twod6_tables()
BANDS: tuple[str, ...] = tuple(band["name"] for band in TABLES["range_bands"])
SINGLE, BURST, FULL_AUTO = TABLES["fire_modes"]
FIRE_MODES: tuple[str, ...] = tuple(TABLES["fire_modes"])
REACTIONS: tuple[str, ...] = tuple(TABLES["reactions"])
PARRY = "parry"
COVERS: tuple[str, ...] = tuple(row["name"] for row in TABLES["cover"])
STANCES: tuple[str, ...] = tuple(TABLES["stances"])
STANDING = STANCES[0]
DARKNESS: tuple[str, ...] = tuple(TABLES["darkness"])
SMOKE: tuple[str, ...] = tuple(TABLES["smoke"])
ACCESSORIES: tuple[str, ...] = tuple(TABLES["accessories"])
DICE = 2
MELEE_CHARACTERISTICS: tuple[str, ...] = ("STR", "DEX")


@dataclass(frozen=True, slots=True)
class TwoD6Situation:
    """What the referee says about the attack (docs/combat-2d6.md, "Input"); every default is
    the ordinary case."""

    fire: str = SINGLE
    aim_actions: int = 0
    hasty: bool = False
    attacker_reactions: int = 0
    target_reaction: str | None = None
    target_weapon: Weapon | None = None
    cover: str | None = None
    target_stance: str = STANDING
    target_movement_m: int = 0
    darkness: str | None = None
    smoke: str | None = None
    weather: bool = False
    into_combat: bool = False
    characteristic: str | None = None
    overflow_to: str | None = None
    accessories: frozenset[str] = frozenset()
    dm: int = 0


@dataclass(frozen=True, slots=True)
class TwoD6Attack:
    attacker: FighterSheet
    target: FighterSheet
    weapon: Weapon
    range_band: str
    situation: TwoD6Situation = field(default_factory=TwoD6Situation)
    attacker_condition: TwoD6Condition = field(default_factory=TwoD6Condition)
    target_condition: TwoD6Condition = field(default_factory=TwoD6Condition)


@dataclass(frozen=True, slots=True)
class TwoD6Plan:
    """An attack before its dice: the skill DM used, the characteristic and its DM, the other
    DMs by name, the exact ``chance`` one attack reaches 8, how many attacks it makes (full
    auto: Auto ÷ 2), the rounds it fires and the attacker's initiative change (Recoil/Heft)."""

    attack: TwoD6Attack
    figures: WeaponFigures
    fire: str
    skill: SkillUse
    skill_dm: int
    characteristic: str
    characteristic_value: int
    characteristic_dm: int
    dms: tuple[Modifier, ...]
    chance: Fraction
    attacks: int
    rounds: int
    attacker_initiative_change: int

    @property
    def dm(self) -> int:
        return sum(m.dm for m in self.dms)

    @property
    def total_dm(self) -> int:
        """What is added to 2D6: the skill, the characteristic DM and every other DM."""
        return self.skill_dm + self.characteristic_dm + self.dm


def _range_dm(attack: TwoD6Attack, figures: WeaponFigures) -> int:
    """The profile's DM at the band (reading 2D-4), refused where the profile has none or the
    band starts beyond the weapon's MAX (a thrown weapon: the thrower's STR x 5 m)."""
    band, weapon = attack.range_band, attack.weapon
    ranges = figures.twod6.ranges
    refuse_unless(
        band in ranges,
        "range",
        f"the {weapon.label} ({figures.twod6.profile}) attacks at {', '.join(ranges)}; "
        f"not at {band}",
    )
    per_str = figures.twod6.thrown_m_per_str
    if per_str is not None:
        strength = attack.attacker.attacking(
            "STR", current(attack.attacker, attack.attacker_condition, "STR")
        )
        start = TABLES["range_bands"][BANDS.index(band)]["from_m"]
        refuse_unless(
            start <= strength * per_str,
            "range",
            f"STR {strength} throws the {weapon.label} {strength * per_str} m; {band} range "
            f"starts at {start} m",
        )
    return int(ranges[band])


def _fire(attack: TwoD6Attack, figures: WeaponFigures) -> tuple[str, int, int]:
    """The fire mode, the attacks it makes and the rounds it fires (the seed's "Automatic
    Weapons"; reading 2D-6)."""
    fire = attack.situation.fire
    auto = figures.twod6.auto
    if fire == SINGLE:
        return fire, 1, 1
    refuse_unless(
        auto is not None, "situation.fire", f"the {attack.weapon.label} has no Auto rating"
    )
    assert auto is not None
    if fire == BURST:
        return fire, 1, auto
    return fire, auto // DICE, TABLES["full_auto"]["rounds_per_auto"] * auto


def _skill(attack: TwoD6Attack, figures: WeaponFigures, fire: str) -> tuple[SkillUse, int]:
    """The weapon's skill and the DM it gives: none -3 (reading 2D-2; Jack-of-all-trades 0),
    full auto at most 1."""
    used = attack.attacker.weapon_skill(attack.weapon, figures)
    if used.level is None:
        dm = 0 if attack.attacker.jack_of_all_trades else int(TABLES["unskilled_dm"])
    else:
        dm = used.level
    if fire == FULL_AUTO:
        dm = min(dm, TABLES["full_auto"]["skill_at_most"])
    return used, dm


def _characteristic(attack: TwoD6Attack) -> tuple[str, int, int]:
    """DEX for shots and throws; for melee STR or DEX, the attacker's choice (default the
    better DM, STR on a tie: reading 2D-18)."""
    attacker, condition = attack.attacker, attack.attacker_condition
    chosen = attack.situation.characteristic
    values = {
        code: attacker.attacking(code, current(attacker, condition, code))
        for code in MELEE_CHARACTERISTICS
    }
    if attack.weapon.ranged:
        refuse_unless(
            chosen in (None, "DEX"), "situation.characteristic", "a shot or a throw uses DEX"
        )
        chosen = "DEX"
    elif chosen is None:
        chosen = max(
            MELEE_CHARACTERISTICS, key=lambda c: (characteristic_dm(values[c]), c == "STR")
        )
    return chosen, values[chosen], characteristic_dm(values[chosen])


def _cover_dm(attack: TwoD6Attack) -> list[Modifier]:
    """Cover, one step higher for a crouched or prone target; in full cover so, it cannot be
    hit."""
    situation = attack.situation
    if situation.cover is None:
        return []
    step = COVERS.index(situation.cover) + (situation.target_stance != STANDING)
    refuse_unless(
        step < len(COVERS),
        "situation.cover",
        f"a {situation.target_stance} target in full cover cannot be hit",
    )
    row = TABLES["cover"][step]
    label = f"cover {row['name']}" + (
        f" ({situation.target_stance})" if step != COVERS.index(situation.cover) else ""
    )
    return [Modifier(label, row["dm"])] if row["dm"] else []


def _reaction_dm(attack: TwoD6Attack) -> list[Modifier]:
    situation, target = attack.situation, attack.target
    reaction = situation.target_reaction
    if reaction is None:
        return []
    # Reading 2D-13: a prone target parries but does not dodge.
    row = TABLES["reactions"][reaction]
    refuse_unless(
        not row["melee_only"] or attack.weapon.melee,
        "situation.target_reaction",
        "a ranged attack is dodged, not parried",
    )
    refuse_unless(
        reaction == PARRY or situation.target_stance != "prone",
        "situation.target_reaction",
        "a prone character cannot dodge",
    )
    if reaction != PARRY:
        return [Modifier(f"target {reaction}s", row["dm"])]
    # Readings 2D-9 and 2D-16: the skill with the weapon it parries with, Brawling without one;
    # no level takes nothing off.
    blocker = situation.target_weapon
    skill = "Brawling" if blocker is None or blocker.natural else blocker.skill
    level = max(target.skill_level(skill) or 0, 0)
    return [Modifier(f"target parries ({skill} {level})", -level)] if level else []


def _target_dms(attack: TwoD6Attack) -> list[Modifier]:
    situation, band = attack.situation, attack.range_band
    out = _cover_dm(attack) + _reaction_dm(attack)
    if situation.target_stance == "prone":  # Reading 2D-13: by band, for every attack
        dms = TABLES["prone_target_dms"]
        dm = dms.get(band, dms["farther"])
        if dm:
            out.append(Modifier("target prone", dm))
    move = TABLES["movement"]
    steps = situation.target_movement_m // move["metres_per_step"]
    if steps:
        out.append(
            Modifier(f"target moved {situation.target_movement_m} m", steps * move["dm_per_step"])
        )
    if attack.target.def_dm:
        out.append(Modifier(f"{attack.target.name}'s DEF trait", -attack.target.def_dm))
    return out


def _shot_dms(attack: TwoD6Attack) -> list[Modifier]:
    """The battlefield conditions of ranged attacks only (reading 2D-12): darkness (avoided
    by IS or electronic sights when aiming, reading 2D-14), smoke, weather, firing into
    combat."""
    situation, weapon = attack.situation, attack.weapon
    out: list[Modifier] = []
    if situation.darkness is not None:
        rule = TABLES["darkness_cancelled_by"]
        sensor = weapon.notes & set(rule["notes"]) or situation.accessories & set(
            rule["accessories"]
        )
        if not (sensor and situation.aim_actions > 0):
            out.append(
                Modifier(f"darkness: {situation.darkness}", TABLES["darkness"][situation.darkness])
            )
    if situation.smoke is not None:
        lasers = bool(weapon.notes & set(TABLES["smoke_doubled_for_notes"]))
        dm = TABLES["smoke"][situation.smoke] * (2 if lasers else 1)
        out.append(Modifier(f"{situation.smoke}" + (" (laser)" if lasers else ""), dm))
    if situation.weather:
        out.append(Modifier("extreme weather", TABLES["extreme_weather_dm"]))
    if situation.into_combat:
        out.append(Modifier("firing into combat", TABLES["into_combat_dm"]))
    return out


def _attacker_dms(
    attack: TwoD6Attack, figures: WeaponFigures, skill: SkillUse, range_dm: int
) -> list[Modifier]:
    situation = attack.situation
    out: list[Modifier] = []
    if skill.specialty is not None:
        out.append(Modifier(f"specialty: {skill.specialty}", TABLES["specialty_dm"]))
    if range_dm:
        out.append(Modifier(f"{attack.range_band} range ({figures.twod6.profile})", range_dm))
    aim = TABLES["aim"]
    actions = min(situation.aim_actions, aim["most_actions"])
    if actions:
        out.append(Modifier(f"aiming {actions} minor action(s)", actions * aim["dm_per_action"]))
    if situation.hasty:
        out.append(Modifier("acting hastily", TABLES["hasty"]["dm"]))
    if situation.attacker_reactions:
        out.append(
            Modifier(
                f"{situation.attacker_reactions} reaction(s) since its last turn",
                situation.attacker_reactions * TABLES["reaction_check_dm"],
            )
        )
    if figures.acc_dm:
        out.append(Modifier(f"ACC of the {attack.weapon.label} (FFA reading 8)", figures.acc_dm))
    return out


def _recoil(attack: TwoD6Attack, figures: WeaponFigures, fire: str) -> int:
    """The seed's "Recoil and Heft": the attacker's STR DM below the weapon's Recoil (+1 for a
    burst, + half Auto on full auto, rounded down: reading 2D-6) is taken off its next
    round's initiative."""
    attacker = attack.attacker
    strength = attacker.attacking("STR", current(attacker, attack.attacker_condition, "STR"))
    recoil = figures.twod6.recoil
    if fire == BURST:
        recoil += TABLES["burst_recoil"]
    elif fire == FULL_AUTO:
        recoil += (figures.twod6.auto or 0) // 2
    return min(0, characteristic_dm(strength) - recoil)


def plan_2d6_attack(attack: TwoD6Attack) -> TwoD6Plan:
    """Everything about a 2D6 attack but its dice; CombatRefused (naming the field) when the
    rules do not allow it (docs/combat-2d6.md, "Refusals")."""
    figures = weapon_figures(attack.weapon)
    now = state(attack.attacker, attack.attacker_condition)
    check_able(attack.attacker, attack.weapon, None if now == CONSCIOUS else now)
    range_dm = _range_dm(attack, figures)
    fire, attacks, rounds = _fire(attack, figures)
    skill, skill_dm = _skill(attack, figures, fire)
    characteristic, value, char_dm = _characteristic(attack)
    dms = _attacker_dms(attack, figures, skill, range_dm) + _target_dms(attack)
    if attack.weapon.ranged:
        dms += _shot_dms(attack)
    if attack.situation.dm:
        dms.append(Modifier("referee's DM", attack.situation.dm))
    total_dm = skill_dm + char_dm + sum(m.dm for m in dms)
    return TwoD6Plan(
        attack=attack,
        figures=figures,
        fire=fire,
        skill=skill,
        skill_dm=skill_dm,
        characteristic=characteristic,
        characteristic_value=value,
        characteristic_dm=char_dm,
        dms=tuple(dms),
        # Reading 2D-8: 8+ after DMs, no automatic result.
        chance=chance_at_least(DICE, TABLES["target"] - total_dm),
        attacks=attacks,
        rounds=rounds,
        attacker_initiative_change=_recoil(attack, figures, fire),
    )


# -- resolution --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TwoD6Throw:
    dice: tuple[int, ...]
    total: int
    hit: bool
    effect: int


@dataclass(frozen=True, slots=True)
class TwoD6Hit:
    """One hit: the weapon's dice, the Effect (and Auto for a burst) added, the armour."""

    dice: tuple[int, ...]
    effect: int
    auto: int
    armour: int
    after_armour: int

    @property
    def rolled(self) -> int:
        return sum(self.dice)


@dataclass(frozen=True, slots=True)
class TwoD6Result:
    plan: TwoD6Plan
    throws: tuple[TwoD6Throw, ...]
    unused_die: tuple[int, ...]
    hits: tuple[TwoD6Hit, ...]
    applied: Mapping[str, int]
    condition_after: TwoD6Condition
    target_initiative_change: int
    events: tuple[Event, ...]

    @property
    def damage(self) -> int:
        return sum(hit.after_armour for hit in self.hits)


def _armour(plan: TwoD6Plan) -> int:
    """The best worn armour against this attack (reading 2D-7: a helmet is never it)."""
    target = plan.attack.target
    kind = plan.figures.armor_class
    return max((p.armour[kind] for p in target.armor if p.twod6_worn), default=0)


def _throws(plan: TwoD6Plan, dice: DiceSource) -> tuple[tuple[TwoD6Throw, ...], tuple[int, ...]]:
    """The attack throws: one, or on full auto the Auto dice in the pairs the attacker sorts
    them into (an odd die left over, unused)."""
    throws = []
    for index in range(plan.attacks):
        pair = dice.take("attack", index, DICE)
        total = sum(pair) + plan.total_dm
        target = int(TABLES["target"])
        throws.append(TwoD6Throw(pair, total, total >= target, total - target))
    auto = plan.figures.twod6.auto or 0
    odd = dice.take("attack", plan.attacks, 1) if plan.fire == FULL_AUTO and auto % DICE else ()
    return tuple(throws), odd


def resolve_2d6_attack(plan: TwoD6Plan, dice: DiceSource) -> TwoD6Result:
    """The attack's outcome from its dice (docs/combat-2d6.md, "Resolution")."""
    attack = plan.attack
    situation = attack.situation
    throws, odd = _throws(plan, dice)
    armour = _armour(plan)
    auto = (plan.figures.twod6.auto or 0) if plan.fire == BURST else 0
    condition = attack.target_condition
    applied = dict.fromkeys(("END", *OVERFLOW), 0)
    hits: list[TwoD6Hit] = []
    events: list[Event] = []
    before = state(attack.target, condition)
    for throw in (t for t in throws if t.hit):
        rolled = dice.take("damage", len(hits), plan.figures.dice)
        raw = sum(rolled) + throw.effect + auto
        after = max(raw - armour, 0)
        if throw.effect >= TABLES["effect_always_wounds"]:
            after = max(after, 1)
        hits.append(TwoD6Hit(rolled, throw.effect, auto, armour, after))
        condition, taken = take_damage(attack.target, condition, after, situation.overflow_to)
        for code, points in taken.items():
            applied[code] += points
    misses = [t for t in throws if not t.hit]
    if situation.into_combat:  # Reading 2D-15: a die for each missed attack
        rule = TABLES["stray_shot"]
        for index, _ in enumerate(misses):
            die = dice.take("stray", index, rule["dice"])[0]
            if die >= rule["from"]:
                events.append(
                    Event("stray shot", f"a miss ({die}) hits the combatant nearest the target")
                )
    if hits and blast_note(attack.weapon):
        events.append(blast_event(attack.weapon))
    now = state(attack.target, condition)
    if now != before and now != CONSCIOUS:
        events.append(Event(now, f"{attack.target.name} is {now}"))
    change = 0
    if situation.target_reaction is not None:
        change = int(TABLES["reaction_initiative"])
        events.append(
            Event(
                "reaction",
                f"{attack.target.name} reacted: initiative {change}, and "
                f"{TABLES['reaction_check_dm']} on its checks until its next round",
            )
        )
    return TwoD6Result(
        plan=plan,
        throws=throws,
        unused_die=odd,
        hits=tuple(hits),
        applied=applied,
        condition_after=condition,
        target_initiative_change=change,
        events=tuple(events),
    )
