"""One T4 attack planned (docs/combat-t4.md, "The attack"): the difficulty in dice, the
to-hit number with every DM named, the exact odds of one throw, or a refusal naming the field.
:mod:`rules.combat.t4.resolve` then takes its dice.

    plan = plan_t4_attack(T4Attack(attacker, target, weapon, "short", "aimed"))
    plan.chance                                    # Fraction: one throw at or under to-hit

Readings are cited as "Reading T4-n"; the seed's sections as (IV.10), (V.6)...
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from ...attack import Modifier
from ...fighters import Weapon
from ..common import check_able, refuse_unless
from ..figures import WeaponFigures, weapon_figures
from ..sheet import FighterSheet, SkillUse
from ..tables import t4_tables
from ..throws import chance_at_most
from .condition import (
    DEAD,
    UNCONSCIOUS,
    T4Condition,
    current,
    out_of_action,
    state,
)

TABLES = t4_tables()
BANDS: tuple[str, ...] = tuple(band["name"] for band in TABLES["range_bands"])
RANGE_NUMBERS: Mapping[str, int] = {band["name"]: band["number"] for band in TABLES["range_bands"]}
STRIKE = "strike"
SNAP, AIMED, SNIPE, AUTOFIRE = "snap", "aimed", "snipe", "autofire"
RANGED_ROUTINES: tuple[str, ...] = (SNAP, AIMED, SNIPE, AUTOFIRE)
ROUTINES: tuple[str, ...] = (*RANGED_ROUTINES, STRIKE)
MOVEMENTS: tuple[str, ...] = tuple(TABLES["attacker_movement"])
TARGET_MOVEMENTS: tuple[str, ...] = tuple(TABLES["target_movement"])
STATIONARY = "stationary"
COVERS: tuple[str, ...] = tuple(TABLES["cover"])
LIGHTING: tuple[str, ...] = tuple(TABLES["darkness"])
TARGET_SIZES: tuple[str, ...] = tuple(TABLES["target_size"])
ACCESSORIES: tuple[str, ...] = tuple(TABLES["accessories"])
HANDS: tuple[str, ...] = tuple(TABLES["two_weapons"])


@dataclass(frozen=True, slots=True)
class Difficulty:
    """A T4 difficulty: whole dice, and a half die for Difficult (reading T4-1)."""

    name: str
    dice: int
    half_die: bool

    @property
    def rule(self) -> str:
        return f"{self.dice}.5D" if self.half_die else f"{self.dice}D"

    @property
    def count(self) -> int:
        """The dice thrown: the whole ones and the half die."""
        return self.dice + self.half_die


DIFFICULTIES: Mapping[str, Difficulty] = {
    row["name"]: Difficulty(row["name"], row["dice"], row["half_die"])
    for row in TABLES["difficulties"]
}


@dataclass(frozen=True, slots=True)
class T4Situation:
    """What the referee says about the attack (docs/combat-t4.md, "Input"); every default is
    the ordinary case. ``target_weapon``: the weapon the target blocks with."""

    movement: str = STATIONARY
    target_movement: str = STATIONARY
    target_evading: bool = False
    target_prone: bool = False
    cover: str | None = None
    cover_regions: frozenset[str] = frozenset()
    concealed: bool = False
    into_melee: bool = False
    lighting: str | None = None
    target_size: str | None = None
    burst: int | None = None
    accessories: frozenset[str] = frozenset()
    pistol_braced: bool = False
    drew_this_round: bool = False
    two_weapons: str | None = None
    target_index: int = 1
    location_skew: int = 0
    snipe_shift: int = 0
    weakened: bool = False
    to_stun: bool = False
    target_weapon: Weapon | None = None
    pure_defense: bool = False
    with_surprise: bool = False
    first_round: bool = False
    weapon_used_at_contact: bool = False
    dm: int = 0


@dataclass(frozen=True, slots=True)
class T4Attack:
    """One attack as asked: who, with what, at which range band, by which routine (None: snap
    for a ranged weapon, strike for a melee one), the situation, both conditions and the
    target's choice of where damage goes (``allocation``; None: reading T4-10's default)."""

    attacker: FighterSheet
    target: FighterSheet
    weapon: Weapon
    range_band: str
    routine: str | None = None
    situation: T4Situation = field(default_factory=T4Situation)
    attacker_condition: T4Condition = field(default_factory=T4Condition)
    target_condition: T4Condition = field(default_factory=T4Condition)
    allocation: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class T4Plan:
    """An attack before its dice: the difficulty, the to-hit number (``to_hit_base`` + the
    ``dms``), the exact ``chance`` of one throw succeeding, and how many throws it makes (0: a
    strike on an unconscious target needs none, IV.6)."""

    attack: T4Attack
    figures: WeaponFigures
    routine: str
    range_number: int
    difficulty: Difficulty
    skill: SkillUse
    skill_level: int
    attribute: str
    attribute_value: int
    to_hit_base: int
    dms: tuple[Modifier, ...]
    chance: Fraction
    throws: int
    burst: int | None
    fatigue_after: int | None
    stun: bool

    @property
    def dm(self) -> int:
        return sum(m.dm for m in self.dms)

    @property
    def to_hit(self) -> int:
        return self.to_hit_base + self.dm

    @property
    def strike(self) -> bool:
        return self.routine == STRIKE


# -- planning ----------------------------------------------------------------------------------


def _routine(attack: T4Attack) -> str:
    weapon = attack.weapon
    routine = attack.routine or (STRIKE if weapon.melee else SNAP)
    if weapon.melee:
        refuse_unless(routine == STRIKE, "routine", f"the {weapon.label} strikes: use strike")
    else:
        refuse_unless(
            routine in RANGED_ROUTINES,
            "routine",
            f"the {weapon.label} is fired: use {', '.join(RANGED_ROUTINES)}",
        )
    return routine


def _check_movement(attack: T4Attack, routine: str) -> str:
    """The attacker's movement as it counts (riding in a vehicle as walking, III.3; reading
    T4-23), and what it forbids (a trotting attacker strikes not: reading T4-24)."""
    movement = attack.situation.movement
    row = TABLES["attacker_movement"][movement]
    counted = str(row.get("as", movement))
    row = TABLES["attacker_movement"][counted]
    refuse_unless(
        row.get("attacks", True),
        "situation.movement",
        f"a {movement} attacker makes no attack this round (III.3)",
    )
    refuse_unless(
        routine != STRIKE or row.get("strikes", True),
        "situation.movement",
        f"a {movement} attacker makes no strike, only snapshots (III.3)",
    )
    refuse_unless(
        routine not in (AIMED, SNIPE) or counted == STATIONARY,
        "situation.movement",
        f"{routine} fire needs a stationary attacker (V.4)",
    )
    return counted


def throw_range_m(attacker: FighterSheet, condition: T4Condition, kg: float) -> float:
    """How far the attacker throws ``kg`` (V.10; reading T4-20): 1 kg or less STR x 5 m, up to
    STR kg half that, up to twice STR kg a tenth; heavier is refused."""
    rule = TABLES["throw_range"]
    strength = attacker.attacking("STR", current(attacker, condition, "STR"))
    full = float(strength * int(rule["m_per_str"]))
    if kg <= rule["light_kg"]:
        return full
    if kg <= strength:
        return full / int(rule["up_to_str_divisor"])
    refuse_unless(
        kg <= 2 * strength,
        "weapon",
        f"a {kg:g} kg weapon is more than twice STR {strength} in kg: it cannot be thrown (V.10)",
    )
    return full / int(rule["up_to_double_str_divisor"])


def _difficulty(attack: T4Attack, figures: WeaponFigures, routine: str) -> Difficulty:
    band, weapon = attack.range_band, attack.weapon
    if routine == STRIKE:
        refuse_unless(band == BANDS[0], "range", f"a strike is made at {BANDS[0]} range (IV.2)")
        return DIFFICULTIES[TABLES["strike_difficulty"]]
    thrown_kg = figures.t4.thrown_kg
    if thrown_kg is not None:  # T4 V.10: a thrown weapon by the thrown-weapon table
        reach = throw_range_m(attack.attacker, attack.attacker_condition, thrown_kg)
        start = TABLES["range_bands"][BANDS.index(band)]["from_m"]
        table = TABLES["thrown_difficulty"]
        refuse_unless(
            band in table and start <= reach,
            "range",
            f"the {weapon.label} is thrown {reach:g} m at most; {band} range starts at {start} m",
        )
        return DIFFICULTIES[table[band]]
    bands = figures.t4.bands or ()
    # Reading T4-15: one range table for every weapon, limited by the FFA MAX.
    refuse_unless(
        band in bands,
        "range",
        f"the {weapon.label} reaches {weapon.max_range_m:g} m; {band} range starts beyond it",
    )
    return DIFFICULTIES[TABLES["range_bands"][BANDS.index(band)]["difficulty"]]


def _burst(attack: T4Attack, figures: WeaponFigures, routine: str) -> int | None:
    burst = attack.situation.burst
    fired = figures.t4.autofire
    if routine != AUTOFIRE:
        refuse_unless(burst is None, "situation.burst", "a burst is fired by autofire only")
        return None
    refuse_unless(bool(fired), "routine", f"the {attack.weapon.label} has no autofire")
    chosen = burst if burst is not None else min(fired)
    refuse_unless(
        chosen in fired,
        "situation.burst",
        f"the {attack.weapon.label} fires bursts of {', '.join(map(str, fired))} rounds",
    )
    return chosen


def _check_melee(attack: T4Attack, figures: WeaponFigures, routine: str) -> None:
    situation = attack.situation
    for name in ("weakened", "to_stun", "pure_defense", "first_round"):
        refuse_unless(
            routine == STRIKE or not getattr(situation, name),
            f"situation.{name}",
            "is for strikes only",
        )
    refuse_unless(
        routine == STRIKE or situation.target_weapon is None,
        "situation.target_weapon",
        "only a strike is blocked",
    )
    if routine != STRIKE:
        return
    blocker = situation.target_weapon
    blocker_reach = weapon_figures(blocker).t4.reach if blocker is not None else None
    # IV.3: a short weapon does not attack a long one in the fight's first round.
    refuse_unless(
        not (situation.first_round and figures.t4.reach == "short" and blocker_reach == "long"),
        "situation.first_round",
        f"the {attack.weapon.label} is short against a long weapon: no attack in the first round",
    )
    # IV.4: a weapon over 3000 mm is used at contact once a fight.
    refuse_unless(
        not (
            situation.weapon_used_at_contact and figures.t4.length_mm > TABLES["clumsy_length_mm"]
        ),
        "situation.weapon_used_at_contact",
        f"the {attack.weapon.label} is too long to use at contact again (IV.4)",
    )
    # IV.9: against a weapon, pure defense needs one.
    refuse_unless(
        not situation.pure_defense
        or attack.weapon.natural
        or (blocker is not None and not blocker.natural),
        "situation.target_weapon",
        "pure defense against an armed strike needs the weapon the target defends with",
    )


def _check_targets(attack: T4Attack) -> None:
    index = attack.situation.target_index
    dex = attack.attacker.attacking(
        "DEX", current(attack.attacker, attack.attacker_condition, "DEX")
    )
    most = max(row["most"] for row in TABLES["targets_by_dex"] if dex >= row["from_dex"])
    refuse_unless(
        index <= most,
        "situation.target_index",
        f"DEX {dex} attacks at most {most} target{'s' if most > 1 else ''} a round (V.27)",
    )


def _check_ranged_options(attack: T4Attack, figures: WeaponFigures, routine: str) -> None:
    situation = attack.situation
    ranged = routine != STRIKE
    for name in ("into_melee", "pistol_braced", "drew_this_round"):
        refuse_unless(
            ranged or not getattr(situation, name), f"situation.{name}", "is for shots only"
        )
    refuse_unless(
        ranged or not situation.accessories, "situation.accessories", "are for shots only"
    )
    pistol = figures.twod6.profile == "Pistol"
    refuse_unless(
        not situation.pistol_braced or pistol, "situation.pistol_braced", "is for pistols only"
    )
    for name in sorted(situation.accessories):
        row = TABLES["accessories"][name]
        fits = (
            (not row.get("pistols") or pistol)
            and (
                not row.get("long_guns")
                or (not pistol and not attack.weapon.skill.startswith("Bow"))
            )
            and attack.weapon.name in row.get("weapons", (attack.weapon.name,))
        )
        refuse_unless(
            fits,
            "situation.accessories",
            f"a {name.lower()} does not fit the {attack.weapon.label}",
        )
    refuse_unless(
        routine == SNIPE or not situation.snipe_shift,
        "situation.snipe_shift",
        "is for a snipe only",
    )
    refuse_unless(
        situation.cover is not None or not situation.cover_regions,
        "situation.cover_regions",
        "are the regions partial cover hides: give situation.cover too",
    )
    movement = TABLES["target_movement"][situation.target_movement]
    # Reading T4-25: only a moving target evades.
    refuse_unless(
        not situation.target_evading or movement.get("evades", False),
        "situation.target_evading",
        "an evading target moves (III.4): give situation.target_movement",
    )


def _skill(attack: T4Attack, figures: WeaponFigures) -> tuple[SkillUse, int]:
    """The skill thrown and its level (reading T4-3: none counts 0), a soldier's rifle skill
    one lower for a bayonet when better (IV.15)."""
    used = attack.attacker.weapon_skill(attack.weapon, figures)
    level = used.level or 0
    rifle = TABLES["military_rifle"]
    if attack.weapon.name in rifle["weapons"] and attack.attacker.service in rifle["services"]:
        rifle_level = attack.attacker.skill_level(rifle["skill"])
        if rifle_level is not None and rifle_level - rifle["levels_lower"] > level:
            level = rifle_level - rifle["levels_lower"]
            used = SkillUse(f"{rifle['skill']} (military rifle skill, IV.15)", level)
    return used, level


def _check_skill_moves(attack: T4Attack, level: int) -> None:
    for name in ("location_skew", "snipe_shift"):
        moved = abs(getattr(attack.situation, name))
        refuse_unless(
            moved <= level,
            f"situation.{name}",
            f"moves {moved} rows; the skill level is {level} (VI.3, V.5)",
        )


def _movement_dms(attack: T4Attack, counted: str, routine: str, number: int) -> list[Modifier]:
    situation = attack.situation
    out: list[Modifier] = []
    snap = TABLES["attacker_movement"][counted].get("snap_dm", 0)
    if routine in (SNAP, AUTOFIRE) and snap:
        out.append(Modifier(f"attacker {situation.movement} (III.3)", snap))
    target = TABLES["target_movement"][situation.target_movement]
    target_row = TABLES["target_movement"].get(target.get("as"), target)
    prone = situation.target_prone or target.get("as_prone", False)
    if "dm" in target_row:
        out.append(Modifier(f"target {situation.target_movement} (III.3)", target_row["dm"]))
    if situation.target_evading and number:
        out.append(
            Modifier("target evading (III.4)", number * TABLES["evading_dm_per_range_number"])
        )
    if prone:
        rule = TABLES["prone"]
        dm = rule["strike_dm"] if routine == STRIKE else number * rule["shot_dm_per_range_number"]
        if dm:
            out.append(Modifier("target prone (III.4)", dm))
    return out


def _sight_dms(attack: T4Attack, figures: WeaponFigures, number: int) -> list[Modifier]:
    """Sights (+4 once, IS as electronic sights), stocks, and darkness (reading T4-29)."""
    situation, band = attack.situation, attack.range_band
    accessories = set(situation.accessories)
    if TABLES["integrated_sights"]["note"] in attack.weapon.notes:
        accessories.add(TABLES["integrated_sights"]["as"])
    out: list[Modifier] = []
    sight = max(
        (
            TABLES["accessories"][name]["dms"].get(band, 0)
            for name in accessories
            if "sights" in name
        ),
        default=0,
    )
    if sight:
        out.append(Modifier("sights at long range (V.17)", sight))
    for name in ("Shoulder stock", "Folding stock"):
        dm = TABLES["accessories"][name]["dms"].get(band, 0) if name in accessories else 0
        if dm:
            out.append(Modifier(f"{name.lower()} (V.17)", dm))
    if situation.lighting is not None:
        rule = TABLES["darkness"][situation.lighting]
        sees = any(TABLES["accessories"][name].get("sees_in_dark") for name in accessories)
        if number > RANGE_NUMBERS[rule["beyond"]] and not sees:
            out.append(
                Modifier(f"{situation.lighting} beyond {rule['beyond']} range (V.19)", rule["dm"])
            )
    return out


def _situation_dms(
    attack: T4Attack, figures: WeaponFigures, routine: str, number: int
) -> list[Modifier]:
    situation = attack.situation
    out: list[Modifier] = []
    if routine in (AIMED, SNIPE) and figures.t4.aimed_dm:
        out.append(
            Modifier(f"{routine} fire with the {attack.weapon.label} (V.4)", figures.t4.aimed_dm)
        )
    if routine == AUTOFIRE and number:
        out.append(
            Modifier(
                "autofire recoil (V.6)", number * TABLES["autofire_recoil_dm_per_range_number"]
            )
        )
    if situation.cover is not None:
        out.append(Modifier(f"{situation.cover} cover (V.18)", TABLES["cover"][situation.cover]))
    if situation.concealed:
        out.append(Modifier("target concealed (V.18)", TABLES["concealed_dm"]))
    if routine != STRIKE:
        out.extend(_sight_dms(attack, figures, number))
    if situation.target_size is not None:
        out.append(
            Modifier(
                f"target {situation.target_size} (V.20)",
                TABLES["target_size"][situation.target_size],
            )
        )
    flags = {
        "into_melee": ("firing into hand-to-hand combat (V.21)", TABLES["into_melee_dm"]),
        "drew_this_round": ("drew and fires this round (V.22)", TABLES["drew_this_round_dm"]),
        "pistol_braced": ("pistol braced with both hands (V.25)", TABLES["pistol_braced_dm"]),
    }
    out.extend(
        Modifier(label, dm) for name, (label, dm) in flags.items() if getattr(situation, name)
    )
    if situation.two_weapons is not None:
        # Reading T4-13: the dominant hand is the main one.
        out.append(
            Modifier(
                f"two weapons, {situation.two_weapons} hand (V.26)",
                TABLES["two_weapons"][situation.two_weapons],
            )
        )
    index_dm = TABLES["target_index_dms"][situation.target_index - 1]
    if index_dm:
        out.append(Modifier(f"target {situation.target_index} this round (V.27)", index_dm))
    if situation.location_skew:
        moved = abs(situation.location_skew)
        out.append(
            Modifier(
                f"aimed snapshot: {moved} skill level(s) moved to the location (VI.3)",
                moved * TABLES["location_skew_dm_per_level"],
            )
        )
    return out


def _defender_dm(attack: T4Attack, routine: str) -> list[Modifier]:
    """IV.10 and IV.11: the target's skill against a strike it is aware of, blocking with a
    weapon (unarmed: its Brawling)."""
    situation, target = attack.situation, attack.target
    # Readings T4-17 and T4-25: an unaware or evading target does not block.
    aware = not (situation.with_surprise or situation.pure_defense or situation.target_evading)
    if routine != STRIKE or not aware:
        return []
    blocker = situation.target_weapon
    if attack.weapon.natural:
        skill = "Brawling"
    elif blocker is not None and not blocker.natural:
        skill = blocker.skill
    else:
        return []  # only a defender with a weapon blocks an armed strike
    level = target.skill_level(skill) or 0
    return [Modifier(f"{target.name}'s {skill} (IV.10, IV.11)", -level)] if level else []


def _strike_dms(attack: T4Attack, figures: WeaponFigures) -> tuple[list[Modifier], int]:
    """The weakened-blow, fatigue and stun DMs of a strike, and the attacker's fatigue after
    it (reading T4-8)."""
    situation, attacker = attack.situation, attack.attacker
    out: list[Modifier] = []
    if situation.weakened and figures.t4.weak_blow:
        out.append(
            Modifier(f"weakened blow with the {attack.weapon.label} (IV.5)", figures.t4.weak_blow)
        )
    fatigue = attack.attacker_condition.fatigue
    full_strength = not (situation.weakened or situation.with_surprise)
    after = fatigue + (TABLES["fatigue"]["strike"] if full_strength else 0)
    limit = attacker.attacking("END", current(attacker, attack.attacker_condition, "END"))
    counted = after if full_strength else fatigue
    if counted > limit:
        out.append(Modifier(f"fatigue {counted} over END {limit} (IV.1)", limit - counted))
    if situation.to_stun:
        out.append(Modifier("attacking to stun (VI.12)", TABLES["to_stun_dm"]))
    return out, after


def _weapon_dms(attack: T4Attack, figures: WeaponFigures, skill: SkillUse) -> list[Modifier]:
    out: list[Modifier] = []
    if skill.specialty is not None:
        out.append(Modifier(f"specialty: {skill.specialty}", TABLES["specialty_dm"]))
    if figures.acc_dm:
        out.append(Modifier(f"ACC of the {attack.weapon.label} (FFA reading 8)", figures.acc_dm))
    if attack.target.def_dm:
        out.append(Modifier(f"{attack.target.name}'s DEF trait", -attack.target.def_dm))
    if attack.situation.dm:
        out.append(Modifier("referee's DM", attack.situation.dm))
    return out


def _stuns(attack: T4Attack) -> bool:
    """Stun damage (VI.12; reading T4-28): a weapon of FFA form S (bare hands and feet unless
    armored, the staff) or a strike to stun."""
    weapon = attack.weapon
    damage_type = weapon.damage_type
    if weapon.armored_type and attack.attacker.armored_hands:
        damage_type = weapon.armored_type
    return attack.situation.to_stun or damage_type.endswith("/" + TABLES["stun_form"])


def plan_t4_attack(attack: T4Attack) -> T4Plan:
    """Everything about a T4 attack but its dice; CombatRefused (naming the field) when the
    rules do not allow it (docs/combat-t4.md, "Refusals")."""
    figures = weapon_figures(attack.weapon)
    routine = _routine(attack)
    check_able(
        attack.attacker, attack.weapon, out_of_action(attack.attacker, attack.attacker_condition)
    )
    counted = _check_movement(attack, routine)
    burst = _burst(attack, figures, routine)
    difficulty = _difficulty(attack, figures, routine)
    _check_melee(attack, figures, routine)
    _check_ranged_options(attack, figures, routine)
    _check_targets(attack)
    skill, level = _skill(attack, figures)
    _check_skill_moves(attack, level)
    number = RANGE_NUMBERS[attack.range_band]
    attribute = "STR" if routine == STRIKE else "DEX"  # Reading T4-4
    value = attack.attacker.attacking(
        attribute, current(attack.attacker, attack.attacker_condition, attribute)
    )
    dms = _movement_dms(attack, counted, routine, number)
    dms += _situation_dms(attack, figures, routine, number)
    dms += _defender_dm(attack, routine)
    fatigue_after = None
    if routine == STRIKE:
        strike_dms, fatigue_after = _strike_dms(attack, figures)
        dms += strike_dms
    dms += _weapon_dms(attack, figures, skill)
    base = 2 * level + -(-value // 2)  # KBv1.1 (I.2)
    to_hit = base + sum(m.dm for m in dms)
    target_down = state(attack.target, attack.target_condition) in (UNCONSCIOUS, DEAD)
    throws = 0 if routine == STRIKE and target_down else figures.t4.autofire.get(burst or 0, 1)
    if routine == STRIKE and target_down:
        fatigue_after = attack.attacker_condition.fatigue  # IV.6: a special strike costs none
    return T4Plan(
        attack=attack,
        figures=figures,
        routine=routine,
        range_number=number,
        difficulty=difficulty,
        skill=skill,
        skill_level=level,
        attribute=attribute,
        attribute_value=value,
        to_hit_base=base,
        dms=tuple(dms),
        chance=chance_at_most(difficulty.dice, difficulty.half_die, to_hit),
        throws=throws,
        burst=burst,
        fatigue_after=fatigue_after,
        stun=_stuns(attack),
    )
