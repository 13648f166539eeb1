"""In-play rules: damage and wounds, healing and recovery, and improvement points.

Everything here is a pure function over frozen dataclasses: a :class:`Condition` in, a new
``Condition`` (and the events that explain it) out; a :class:`~rules.model.Character` and a
purchase in, a new ``Character`` out. Numbers from the rulebook's tables live in
``data/injury.json`` and ``data/improvement.json``; dice come from :mod:`rules.dice`.

Where the rulebook is silent or garbled this module follows ``docs/in-play-rulings.md``:
wounds come from lethal damage only; with several wounds the worst wound's penalty applies;
damage is marked one point at a time, so the replacement rule applies within a single blow;
a fumble on a medical test is a critical failure even when the total reaches the TN; the
attribute improvement cost is set by the referee; a light wound bleeds only on as many days
as were thrown for it when it was taken.

Typical use::

    condition = condition_for(report)                  # LIF and WND from the engine's report
    severity = blow_severity(condition, amount=9, form="L")   # None: the blow makes no wound
    lasts = severity_rules(severity).bleed_lasts if severity else None  # light wounds only
    thrown = lasts.roll(rng) if lasts else None
    condition, events = take_damage(condition, amount=9, form="L", bleed_lasts=thrown)
    test = action_test(rng=rng, skill_level=2, attribute_dm=1,
                       dm=healing_dm(supplies="kit"), tn=stabilisation_tn("light"))
    condition, events = stabilise(condition, 0, test)
    effective(report, condition).derived               # DEF, INI, MOV of the wounded character
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import cache
from types import MappingProxyType
from typing import Any

from .catalog import Catalog, catalog
from .dice import ActionTest, dice_rules
from .document import specialty_name
from .engine import check, derived_attributes, encumbered
from .model import Character, EquipmentEntry, HouseRules, SkillEntry, TraitEntry
from .notation import derived_trait_points, format_skill
from .report import Derived, Equipment, Problem, Report

STUN = "S"
LETHAL = "L"
SPECIAL = "Sp"

# -- reference data ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Period:
    """A span of game time: ``count`` of ``unit`` (turn, minute, hour, day, week, month)."""

    count: int
    unit: str

    def __str__(self) -> str:
        return f"{self.count} {self.unit}" + ("" if self.count == 1 else "s")


@dataclass(frozen=True, slots=True)
class RolledPeriod:
    """A span of time the dice decide: ``dice``D x ``multiplier`` ``unit``s."""

    dice: int
    multiplier: int
    unit: str

    def roll(self, rng: random.Random) -> Period:
        rules = dice_rules()
        thrown = sum(rng.randint(rules.lowest, rules.highest) for _ in range(self.dice))
        return Period(thrown * self.multiplier, self.unit)

    def gives(self, period: Period) -> bool:
        """Whether some throw of these dice comes to ``period``."""
        rules = dice_rules()
        thrown, left = divmod(period.count, self.multiplier)
        return (
            period.unit == self.unit
            and left == 0
            and self.dice * rules.lowest <= thrown <= self.dice * rules.highest
        )

    def __str__(self) -> str:
        if self.multiplier == 1:
            return f"{self.dice}D {self.unit}s"
        return f"{self.dice}D x {self.multiplier} {self.unit}s"


@dataclass(frozen=True, slots=True)
class SeverityRules:
    """Everything the rulebook says about one wound severity."""

    name: str
    up_to_wnd_multiple: int | None  # None: no upper bound (fatal)
    bleed_points: int  # LIF lost each period while unstabilised; 0 for superficial
    bleed_every: Period | None
    bleed_lasts: RolledPeriod | None  # light wounds stop bleeding after 1D days
    body_until_stabilised: int
    body_until_treated: int
    mind_until_treated: int
    stabilisation_tn: int | None
    stabilisation_rethrow: Period | None
    treatment_tn: int | None
    treatment_time: RolledPeriod | None

    def bleed_time(self, periods: int) -> Period:
        """How long ``periods`` of this severity's bleeding periods take."""
        if self.bleed_every is None:
            raise ValueError(f"A {self.name} wound does not bleed.")
        return Period(periods * self.bleed_every.count, self.bleed_every.unit)


@dataclass(frozen=True, slots=True)
class InjuryRules:
    severities: tuple[SeverityRules, ...]
    protection: Mapping[str, tuple[str, ...]]
    stun_threshold_divisor: int
    stunned_def: int
    dying_loss_per_turn: int
    stabilisation_time: Period
    supplies_dms: Mapping[str, int]
    ample_dm_per_tl: int
    ample_above_tl: int
    unsanitary_dm: int
    other_species_dm: int  # a medical test on a patient of another species
    close_physiology_dm: int  # ... of a species whose physiology is close to the medic's
    close_physiology: frozenset[str]  # those species (human, the minor humans, Vargr)
    xeno_skill: str  # the skill that offsets the DM: Xeno Medicine
    recovery: Mapping[str, Mapping[str, Period]]  # care -> damage form -> period
    care_names: Mapping[str, str]

    def severity(self, name: str) -> SeverityRules:
        for severity in self.severities:
            if severity.name == name:
                return severity
        known = ", ".join(s.name for s in self.severities)
        raise ValueError(f"Unknown wound severity {name!r}; use one of {known}.")

    def worse(self, name: str) -> str:
        """The next severity up; fatal stays fatal."""
        names = [s.name for s in self.severities]
        return names[min(names.index(self.severity(name).name) + 1, len(names) - 1)]


def _period(raw: Mapping[str, Any] | None) -> Period | None:
    return None if raw is None else Period(raw["count"], raw["unit"])


def _required_period(raw: Mapping[str, Any]) -> Period:
    return Period(raw["count"], raw["unit"])


def _rolled(raw: Mapping[str, Any] | None) -> RolledPeriod | None:
    return None if raw is None else RolledPeriod(raw["dice"], raw["multiplier"], raw["unit"])


def _load(name: str) -> Any:
    return catalog().play_tables[name.removesuffix(".json")]


@cache
def injury_rules() -> InjuryRules:
    """The injury and healing tables of ``data/injury.json``, read once."""
    data = _load("injury.json")
    bands = data["wound_bands"]["up_to_wnd_multiple"]
    effects = data["effects"]
    severities = []
    for name in data["severities"]:
        effect = effects[name]
        while isinstance(effect, str):  # "treat this as a critical wound"
            effect = effects[effect]
        bleeding = data["bleeding"][name]
        every = _period(bleeding["every"]) if bleeding else None
        lasts = _rolled(bleeding.get("lasts")) if bleeding else None
        if lasts is not None and (every is None or lasts.unit != every.unit):
            # A wound counts the bleeding periods it has left; a thrown time converts to
            # them only when both are in one unit.
            raise ValueError(
                f"A {name} wound bleeds every {every} for {lasts}: give both in one unit."
            )
        stabilisation = data["stabilisation"].get(name)
        treatment = data["treatment"].get(name)
        severities.append(
            SeverityRules(
                name=name,
                up_to_wnd_multiple=bands.get(name),
                bleed_points=bleeding["points"] if bleeding else 0,
                bleed_every=every,
                bleed_lasts=lasts,
                body_until_stabilised=effect["body_until_stabilised"],
                body_until_treated=effect["body_until_treated"],
                mind_until_treated=effect["mind_until_treated"],
                stabilisation_tn=stabilisation["tn"] if stabilisation else None,
                stabilisation_rethrow=_period(stabilisation["rethrow_every"])
                if stabilisation
                else None,
                treatment_tn=treatment["tn"] if treatment else None,
                treatment_time=_rolled(treatment["time"]) if treatment else None,
            )
        )
    dms = data["healing_dms"]
    recovery = {
        care: MappingProxyType(
            {form: _required_period(raw[form]) for form in (STUN, LETHAL, SPECIAL)}
        )
        for care, raw in data["recovery"].items()
        if care != "note"
    }
    return InjuryRules(
        severities=tuple(severities),
        protection=MappingProxyType(
            {kind: tuple(parts) for kind, parts in data["protection"].items() if kind != "note"}
        ),
        stun_threshold_divisor=data["stun"]["threshold_divisor"],
        stunned_def=data["stun"]["stunned_def"],
        dying_loss_per_turn=data["dying"]["loss_per_turn"],
        stabilisation_time=_required_period(data["stabilisation"]["time"]),
        supplies_dms=MappingProxyType(dms["supplies"]),
        ample_dm_per_tl=dms["ample"]["dm_per_tl"],
        ample_above_tl=dms["ample"]["above_tl"],
        unsanitary_dm=dms["unsanitary"],
        other_species_dm=dms["other_species"]["dm"],
        close_physiology_dm=dms["other_species"]["close_physiology_dm"],
        close_physiology=frozenset(dms["other_species"]["close_physiology"]),
        xeno_skill=dms["other_species"]["offset_by"],
        recovery=MappingProxyType(recovery),
        care_names=MappingProxyType(
            {care: raw["name"] for care, raw in data["recovery"].items() if care != "note"}
        ),
    )


def severity_rules(severity: str) -> SeverityRules:
    return injury_rules().severity(severity)


def stabilisation_tn(severity: str) -> int:
    """The TN of the Medical test that stabilises a wound (Stabilization Table)."""
    tn = severity_rules(severity).stabilisation_tn
    if tn is None:
        raise ValueError(f"A {severity} wound needs no stabilisation.")
    return tn


def treatment_tn(severity: str) -> int:
    """The TN of the Medical or Surgery test that treats a wound (Treatment Table)."""
    tn = severity_rules(severity).treatment_tn
    if tn is None:
        raise ValueError(f"A {severity} wound needs no treatment.")
    return tn


def recovery_period(form: str, care: str = "natural") -> Period:
    """How long it takes to heal END DV points of damage of ``form`` (Recovery Rate Table).

    ``care``: ``natural`` (natural healing), ``slow_drug`` (slow drug and artificial
    replacements) or ``cloning`` (cloning and reanimation).
    """
    rules = injury_rules()
    if care not in rules.recovery:
        raise ValueError(f"Unknown care {care!r}; use one of {', '.join(rules.recovery)}.")
    if form not in rules.recovery[care]:
        raise ValueError(f"Unknown damage form {form!r}; use S, L or Sp.")
    return rules.recovery[care][form]


def healing_dm(
    *,
    supplies: str,
    tl: int | None = None,
    unsanitary: bool = False,
    medic_species: str | None = None,
    patient_species: str | None = None,
    xeno_medicine: int | None = None,
) -> int:
    """The situational DM of a medical test (Healing DM Table).

    ``supplies``: ``kit`` (adequate medical supplies), ``none``, or ``ample`` (sick bay,
    ambulance, hospital: +1 per TL above 5, so ``tl`` is required). ``unsanitary``: very
    dirty conditions, as in the field. With both species given, a patient of another species
    adds :func:`xeno_medicine_dm` (``xeno_medicine``: the medic's Xeno Medicine level).
    """
    rules = injury_rules()
    if supplies == "ample":
        if tl is None:
            raise ValueError("Ample medical supplies give +1 per TL above 5: give the TL.")
        dm = max(tl - rules.ample_above_tl, 0) * rules.ample_dm_per_tl
    elif supplies in rules.supplies_dms:
        dm = rules.supplies_dms[supplies]
    else:
        known = ", ".join((*rules.supplies_dms, "ample"))
        raise ValueError(f"Unknown medical supplies {supplies!r}; use one of {known}.")
    if unsanitary:
        dm += rules.unsanitary_dm
    if medic_species is not None and patient_species is not None:
        dm += xeno_medicine_dm(medic_species, patient_species, xeno_medicine)
    return dm


def xeno_medicine_dm(
    medic_species: str, patient_species: str, xeno_medicine: int | None = None
) -> int:
    """The DM of a Medical, Surgery or Psychology test on a patient of another species.

    -5; -2 where the patient's physiology is close (human, the minor human races, Vargr). The
    medic's Xeno Medicine level (None: no such skill) offsets it, never past 0. A patient of
    the medic's own species: 0.
    """
    if xeno_medicine is not None and xeno_medicine < 0:
        raise ValueError(f"Xeno Medicine {xeno_medicine} is below level 0.")
    medic, patient = medic_species.strip().lower(), patient_species.strip().lower()
    if medic == patient:
        return 0
    rules = injury_rules()
    base = (
        rules.close_physiology_dm if patient in rules.close_physiology else rules.other_species_dm
    )
    return min(base + (xeno_medicine or 0), 0)


def xeno_medicine_level(report: Report) -> int | None:
    """The character's Xeno Medicine level, None without the skill."""
    skill = injury_rules().xeno_skill
    levels = [line.level for line in report.skills.lines if line.skill == skill]
    return max(levels) if levels else None


# -- damage and wounds -------------------------------------------------------------------------


def damage_after_protection(damage: int, *, damage_type: str, armor: int = 0, tgh: int = 0) -> int:
    """What reaches LIF: blunt damage less armor and TGH, penetrating damage less armor."""
    parts = injury_rules().protection.get(damage_type)
    if parts is None:
        raise ValueError(
            f"Damage type {damage_type!r} does not reduce LIF; blunt (B) and penetrating (P) do."
        )
    subtract = {"armor": armor, "TGH": tgh}
    return max(damage - sum(subtract[part] for part in parts), 0)


@dataclass(frozen=True, slots=True)
class WoundBand:
    """The damage one wound of a severity takes, for one WND: ``lowest`` to ``highest`` points
    (None: no upper bound), that is above ``above_wnd_multiple`` x WND and up to the
    severity's ``up_to_wnd_multiple`` x WND."""

    severity: SeverityRules
    lowest: int
    highest: int | None
    above_wnd_multiple: int


def wound_bands(wnd: int) -> tuple[WoundBand, ...]:
    """Each severity's band of damage for a WND, in order, the last one open-ended; together
    they hold every damage from 1 up, each exactly once.

    A severity no damage reaches is left out: at WND 0 every band but the last is empty, so
    every wound is of the last severity. The last severity takes whatever lies above the
    bands before it, whether or not the tables give it a bound.
    """
    if wnd < 0:
        raise ValueError(f"WND {wnd} is negative.")
    severities = injury_rules().severities
    bands = []
    lowest, above = 1, 0
    for severity in severities:
        bound = severity.up_to_wnd_multiple
        if bound is None or severity is severities[-1]:
            bands.append(WoundBand(severity, lowest, None, above))
            break
        highest = bound * wnd
        if highest >= lowest:
            bands.append(WoundBand(severity, lowest, highest, above))
            lowest = highest + 1
        above = bound
    return tuple(bands)


def wound_severity(damage: int, wnd: int) -> str:
    """The severity of a wound of ``damage`` points (after armor and TGH) for a WND."""
    if damage < 1:
        raise ValueError(f"A wound takes at least 1 point of damage, not {damage}.")
    return next(
        band.severity.name
        for band in wound_bands(wnd)
        if band.highest is None or damage <= band.highest
    )


@dataclass(frozen=True, slots=True)
class Wound:
    """One wound. ``lethal``: the lethal LIF lost to it (the blow, then bleeding) not yet healed.

    ``bleed_periods``: how many bleeding periods the wound bleeds at most, thrown when it was
    taken for a severity whose bleeding lasts a thrown time (light: 1D days); None: it bleeds
    until stabilised. ``bled``: how many of them it has bled.
    """

    severity: str
    damage: int
    lethal: int
    stabilised: bool = False
    treated: bool = False
    bleed_periods: int | None = None
    bled: int = 0

    def __post_init__(self) -> None:
        if self.bled < 0 or (self.bleed_periods is not None and self.bled > self.bleed_periods):
            raise ValueError(
                f"A wound cannot have bled {self.bled} of {self.bleed_periods} periods."
            )

    @property
    def bleeds_left(self) -> int | None:
        """The bleeding periods still to come while unstabilised; None: until stabilised."""
        return None if self.bleed_periods is None else self.bleed_periods - self.bled

    @property
    def bleeds(self) -> bool:
        """Loses LIF each bleeding period: not stabilised, of a severity that bleeds, and not
        yet through the periods it was thrown to bleed."""
        return (
            not self.stabilised
            and severity_rules(self.severity).bleed_points > 0
            and self.bleeds_left != 0
        )

    @property
    def needs_treatment(self) -> bool:
        """Not yet treated, and of a severity the Treatment Table lists."""
        return not self.treated and severity_rules(self.severity).treatment_tn is not None

    @property
    def clearable(self) -> bool:
        """Treated, with all the LIF it took healed: it can be struck off the sheet."""
        return self.treated and self.lethal == 0


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened to a character, for the play log: a code and a sentence."""

    code: str
    message: str


Events = tuple[Event, ...]


@dataclass(frozen=True, slots=True)
class Condition:
    """A character's LIF track in play.

    ``stun`` and ``lethal`` count the marks ("/" and "x"); the current LIF is
    ``maximum - stun - lethal`` and runs from ``maximum`` down to ``-maximum`` (dead).
    ``dying_halted`` is set when medical help (a successful stabilisation or treatment)
    reaches a character below 0 LIF, and cleared by new lethal damage below 0.
    """

    maximum: int
    wnd: int
    stun: int = 0
    lethal: int = 0
    wounds: tuple[Wound, ...] = ()
    stunned: bool = False
    dying_halted: bool = False

    def __post_init__(self) -> None:
        if self.maximum < 1:
            raise ValueError(f"LIF maximum {self.maximum} must be at least 1.")
        if self.stun < 0 or self.lethal < 0:
            raise ValueError("Stun and lethal marks cannot be negative.")
        if self.stun + self.lethal > 2 * self.maximum:
            raise ValueError(f"More marks than LIF {self.maximum} down to -{self.maximum}.")

    @property
    def lif(self) -> int:
        return self.maximum - self.stun - self.lethal

    @property
    def dead(self) -> bool:
        return self.lif <= -self.maximum

    @property
    def unconscious(self) -> bool:
        """At 0 LIF or below (and alive): out until LIF is back to 1 or more."""
        return self.lif <= 0 and not self.dead

    @property
    def dying(self) -> bool:
        """Below 0 LIF, alive, and not yet reached by medical help: loses LIF every turn."""
        return self.lif < 0 and not self.dead and not self.dying_halted

    @property
    def bleeding(self) -> tuple[int, ...]:
        """Indexes of the wounds that bleed (:attr:`Wound.bleeds`)."""
        return tuple(i for i, wound in enumerate(self.wounds) if wound.bleeds)

    @property
    def unattached_lethal(self) -> int:
        """Lethal marks not charged to a wound (lost while dying)."""
        return self.lethal - sum(wound.lethal for wound in self.wounds)


def condition_for(source: Report | Derived) -> Condition:
    """An unhurt condition with the LIF and WND of a report (or its derived attributes)."""
    derived = source.derived if isinstance(source, Report) else source
    return Condition(maximum=derived.LIF, wnd=derived.WND)


def boxes(condition: Condition) -> tuple[str, ...]:
    """One mark per LIF box for the sheet: "x" (lethal) first, then "/" (stun), then "".

    LIF below 0 has no boxes: every box then shows "x" and ``condition.lif`` says how far below.
    """
    lethal = min(condition.lethal, condition.maximum)
    stun = min(condition.stun, condition.maximum - lethal)
    return ("x",) * lethal + ("/",) * stun + ("",) * (condition.maximum - lethal - stun)


def rescale(condition: Condition, *, maximum: int, wnd: int) -> Condition:
    """The condition of a character whose LIF or WND changed in play (an END raise bought with
    IP, a restored revision, a new trait): the marks and wounds stay as recorded and the new
    figures apply from now on; a wound keeps the severity it was given.

    Only marks beyond the new death line (-``maximum``) are struck, stun marks first, then
    lethal marks held by no wound, then those of the latest wounds.
    """
    if (condition.maximum, condition.wnd) == (maximum, wnd):
        return condition
    limit = 2 * maximum
    stun, lethal = condition.stun, condition.lethal
    stun -= min(stun, max(stun + lethal - limit, 0))
    excess = max(lethal - limit, 0)
    lethal -= excess
    excess -= min(excess, condition.unattached_lethal)
    wounds = list(condition.wounds)
    for index in reversed(range(len(wounds))):
        if excess == 0:
            break
        part = min(excess, wounds[index].lethal)
        wounds[index] = replace(wounds[index], lethal=wounds[index].lethal - part)
        excess -= part
    return replace(
        condition, maximum=maximum, wnd=wnd, stun=stun, lethal=lethal, wounds=tuple(wounds)
    )


def condition_as_dict(condition: Condition) -> dict[str, Any]:
    """A JSON-ready dict of a condition (read back by :func:`condition_from_dict`)."""
    return {
        "maximum": condition.maximum,
        "wnd": condition.wnd,
        "stun": condition.stun,
        "lethal": condition.lethal,
        "stunned": condition.stunned,
        "dying_halted": condition.dying_halted,
        "wounds": [
            {
                "severity": wound.severity,
                "damage": wound.damage,
                "lethal": wound.lethal,
                "stabilised": wound.stabilised,
                "treated": wound.treated,
                "bleed_periods": wound.bleed_periods,
                "bled": wound.bled,
            }
            for wound in condition.wounds
        ],
    }


def _stored_int(data: Mapping[str, Any], key: str, where: str) -> int:
    value = data.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{where}{key} must be a whole number, not {value!r}.")
    return value


def condition_from_dict(data: Mapping[str, Any]) -> Condition:
    """The condition a dict of :func:`condition_as_dict` describes; ValueError when it is not
    one (a wrong type, an unknown severity, more marks than the LIF track holds, a wound
    bled more periods than it was to bleed)."""
    if not isinstance(data, Mapping):
        raise ValueError(f"A condition is a mapping, not {type(data).__name__}.")
    wounds = []
    for index, raw in enumerate(data.get("wounds") or ()):
        where = f"wounds[{index}]."
        if not isinstance(raw, Mapping):
            raise ValueError(f"{where[:-1]} is not a mapping.")
        severity = raw.get("severity")
        severity_rules(str(severity))  # raises for an unknown severity
        # A wound stored before bleeding periods were thrown has no count: it bleeds until
        # stabilised, as it did then, rather than on a throw nobody made.
        periods = raw.get("bleed_periods")
        wounds.append(
            Wound(
                severity=str(severity),
                damage=_stored_int(raw, "damage", where),
                lethal=_stored_int(raw, "lethal", where),
                stabilised=bool(raw.get("stabilised")),
                treated=bool(raw.get("treated")),
                bleed_periods=None if periods is None else _stored_int(raw, "bleed_periods", where),
                bled=_stored_int(raw, "bled", where) if "bled" in raw else 0,
            )
        )
    return Condition(
        maximum=_stored_int(data, "maximum", ""),
        wnd=_stored_int(data, "wnd", ""),
        stun=_stored_int(data, "stun", ""),
        lethal=_stored_int(data, "lethal", ""),
        wounds=tuple(wounds),
        stunned=bool(data.get("stunned")),
        dying_halted=bool(data.get("dying_halted")),
    )


def _mark(condition: Condition, amount: int, form: str) -> tuple[int, int, int, int]:
    """Mark ``amount`` points of one event, as "Recording Damage" says.

    Stun points fill empty boxes while LIF is above 0; what is left of the blow that brings
    LIF to 0 is lost (stunning damage alone cannot kill). Lethal points, one at a time, fill
    empty boxes while LIF is above 0, then replace stun marks, then take LIF below 0, down to
    -maximum. Returns the new stun and lethal counts, the lethal points marked and the stun
    marks they replaced. (Stunning damage of an event that starts at 0 LIF or below is
    lethal: the caller passes it as such.)
    """
    stun, lethal, maximum = condition.stun, condition.lethal, condition.maximum
    lif = maximum - stun - lethal
    if form == STUN:
        return stun + min(amount, max(lif, 0)), lethal, 0, 0
    fill = min(amount, max(lif, 0))
    lif -= fill
    rest = amount - fill
    replaced = min(rest, stun)
    rest -= replaced
    below = min(rest, lif + maximum)
    marked = fill + replaced + below
    return stun - replaced, lethal + marked, marked, replaced


def _state_events(before: Condition, after: Condition) -> list[Event]:
    if after.dead and not before.dead:
        return [Event("dead", f"LIF {after.lif} has reached -{after.maximum}: dead.")]
    if after.lif < 0 <= before.lif or (after.dying and not before.dying):
        return [
            Event(
                "dying",
                f"LIF {after.lif} is below 0: dying, losing "
                f"{injury_rules().dying_loss_per_turn} LIF each turn until medical help arrives; "
                f"dead at -{after.maximum}.",
            )
        ]
    if after.lif <= 0 < before.lif:
        return [Event("unconscious", f"LIF {after.lif}: unconscious until LIF is 1 or more.")]
    return []


def _after_lethal(before: Condition, after: Condition) -> Condition:
    """New lethal damage below 0 LIF starts the dying clock again."""
    if after.lif < 0 and after.lif < before.lif and after.dying_halted:
        return replace(after, dying_halted=False)
    return after


def blow_severity(condition: Condition, *, amount: int, form: str) -> str | None:
    """The severity of the wound one event's damage (after armor and TGH) makes, None when it
    makes none: lethal damage wounds, and so does stunning damage that lands at 0 LIF or below;
    nothing wounds the dead. ``form``: ``"S"`` stunning or ``"L"`` lethal."""
    if form not in (STUN, LETHAL):
        raise ValueError(
            f"Damage form {form!r} does not reduce LIF; mark stunning (S) or lethal (L) damage."
        )
    if amount < 0:
        raise ValueError(f"Damage {amount} is negative.")
    wounds = amount > 0 and not condition.dead and (form == LETHAL or condition.lif <= 0)
    return wound_severity(amount, condition.wnd) if wounds else None


def _bleed_periods(severity: str | None, thrown: Period | None) -> int | None:
    """How many bleeding periods a new wound bleeds at most, from its thrown bleeding time."""
    if thrown is None:
        return None
    if severity is None:
        raise ValueError(f"The blow makes no wound to bleed for {thrown}.")
    rules = severity_rules(severity)
    if rules.bleed_lasts is None or rules.bleed_every is None:
        raise ValueError(
            f"A {severity} wound bleeds until stabilised, not for a thrown time ({thrown})."
        )
    if not rules.bleed_lasts.gives(thrown):
        raise ValueError(
            f"A {severity} wound bleeds for {rules.bleed_lasts}; no throw gives {thrown}."
        )
    return thrown.count // rules.bleed_every.count


def _each(period: Period) -> str:
    return period.unit if period.count == 1 else str(period)


def take_damage(
    condition: Condition, *, amount: int, form: str, bleed_lasts: Period | None = None
) -> tuple[Condition, Events]:
    """Mark one event's damage (after armor and TGH) on the LIF track.

    ``form``: ``"S"`` stunning or ``"L"`` lethal (special damage does not reduce LIF).
    Damage above half the current LIF (rounded up) stuns. Lethal damage makes a wound whose
    severity is read from the event's damage against WND (:func:`blow_severity`). Stunning
    damage makes no wound, except when the event starts at 0 LIF or below: then it is treated
    as lethal in full.

    ``bleed_lasts``: for a wound of a severity that bleeds for a thrown time
    (``SeverityRules.bleed_lasts``), that time as thrown; the wound stops bleeding once it has
    bled for it. Without it such a wound bleeds until stabilised. ValueError when the blow
    makes no wound of such a severity, or when the dice cannot give that time.
    Returns the new condition and the events, in order, as :class:`Event` s.
    """
    severity = blow_severity(condition, amount=amount, form=form)
    periods = _bleed_periods(severity, bleed_lasts)
    if amount == 0 or condition.dead:
        return condition, ()
    events: list[Event] = []
    rules = injury_rules()
    lif = condition.lif
    threshold = -(-lif // rules.stun_threshold_divisor)
    stunned = condition.stunned
    if amount > threshold:
        stunned = True
        events.append(
            Event(
                "stunned",
                f"{amount} damage in one blow is more than half the current LIF {lif} "
                f"({threshold}): stunned, DEF {rules.stunned_def}, the next action lost.",
            )
        )
    if form == STUN and lif <= 0:
        form = LETHAL
        events.append(
            Event(
                "stun_as_lethal",
                f"LIF is at {lif}, so {amount} points of stunning damage are treated as lethal.",
            )
        )
    stun, lethal, marked, replaced = _mark(condition, amount, form)
    wounds = condition.wounds
    if severity is not None:
        table = severity_rules(severity)
        settled = table.bleed_points == 0  # superficial: nothing to do
        wound = Wound(
            severity, amount, marked, stabilised=settled, treated=settled, bleed_periods=periods
        )
        wounds = (*wounds, wound)
        events.append(
            Event("wound", f"A {severity} wound: {amount} damage against WND {condition.wnd}.")
        )
        if not settled:
            lasting = "until stabilised" if periods is None else f"for {table.bleed_time(periods)}"
            events.append(
                Event(
                    "bleeds",
                    f"It bleeds {table.bleed_points} LIF every {_each(table.bleed_time(1))} "
                    f"{lasting}.",
                )
            )
    if replaced:
        events.append(
            Event(
                "stun_replaced",
                f"{replaced} lethal {'mark replaces' if replaced == 1 else 'marks replace'} "
                "stun marks, as LIF is at 0.",
            )
        )
    after = replace(condition, stun=stun, lethal=lethal, wounds=wounds, stunned=stunned)
    after = _after_lethal(condition, after)
    return after, tuple(events + _state_events(condition, after))


def end_stun(condition: Condition) -> Condition:
    """The stunned character has spent a turn recovering and acts normally again."""
    return replace(condition, stunned=False)


def _wound(condition: Condition, index: int) -> Wound:
    if not 0 <= index < len(condition.wounds):
        raise ValueError(f"There is no wound {index}; the character has {len(condition.wounds)}.")
    return condition.wounds[index]


def _with_wound(condition: Condition, index: int, wound: Wound) -> tuple[Wound, ...]:
    wounds = list(condition.wounds)
    wounds[index] = wound
    return tuple(wounds)


def _lose_to_wound(
    condition: Condition, index: int, points: int, code: str, message: str
) -> tuple[Condition, Events]:
    """Lethal points charged to a wound (bleeding, a failed medical test)."""
    wound = condition.wounds[index]
    stun, lethal, marked, replaced = _mark(condition, points, LETHAL)
    wounds = _with_wound(condition, index, replace(wound, lethal=wound.lethal + marked))
    after = replace(condition, stun=stun, lethal=lethal, wounds=wounds)
    after = _after_lethal(condition, after)
    events = [Event(code, message)] if marked else []
    if replaced:
        events.append(Event("stun_replaced", f"{replaced} lethal mark replaces a stun mark."))
    return after, tuple(events + _state_events(condition, after))


def bleed(condition: Condition, wound_index: int) -> tuple[Condition, Events]:
    """The wound's additional damage for one period: one lethal point.

    The caller calls it when a bleeding wound's period has passed (see ``severity_rules``:
    a light wound every day for the days thrown when it was taken, serious every hour,
    critical every minute, fatal every turn), and the wound counts it. ValueError for a wound
    that does not bleed (:attr:`Wound.bleeds`): a stabilised one, a superficial one, or one
    that has bled every period it was thrown to bleed.
    """
    wound = _wound(condition, wound_index)
    table = severity_rules(wound.severity)
    if not wound.bleeds:
        if not table.bleed_points:
            raise ValueError(f"A {wound.severity} wound does not bleed.")
        if wound.stabilised:
            raise ValueError(f"The {wound.severity} wound is stabilised: it does not bleed.")
        raise ValueError(
            f"The {wound.severity} wound has bled the {table.bleed_time(wound.bled)} it was "
            "to bleed: it bleeds no more."
        )
    counted = replace(wound, bled=wound.bled + 1)
    message = f"The {wound.severity} wound bleeds: {table.bleed_points} more lethal damage."
    if counted.bleeds_left == 0:
        message += " That was its last: it stops bleeding."
    elif counted.bleeds_left is not None:
        message += f" It bleeds for {table.bleed_time(counted.bleeds_left)} more."
    return _lose_to_wound(
        replace(condition, wounds=_with_wound(condition, wound_index, counted)),
        wound_index,
        table.bleed_points,
        "bleed",
        message,
    )


def dying_turn(condition: Condition) -> tuple[Condition, Events]:
    """A turn passes for a dying character: 1 LIF lost (not charged to any wound)."""
    if not condition.dying:
        return condition, ()
    loss = injury_rules().dying_loss_per_turn
    stun, lethal, _, _ = _mark(condition, loss, LETHAL)
    after = replace(condition, stun=stun, lethal=lethal)
    events = [Event("dying_loss", f"Dying: {loss} LIF lost this turn.")]
    return after, tuple(events + _state_events(condition, after))


# -- wound effects -----------------------------------------------------------------------------


def wound_penalty(wound: Wound) -> tuple[int, int]:
    """(change to body attribute levels, DM on mind-group tests) of one wound now."""
    if wound.treated:
        return 0, 0
    rules = severity_rules(wound.severity)
    body = rules.body_until_treated if wound.stabilised else rules.body_until_stabilised
    return body, rules.mind_until_treated


def wound_penalties(condition: Condition) -> tuple[int, int]:
    """The worst wound's body change and mind DM; several wounds do not add up."""
    body = mind = 0
    for wound in condition.wounds:
        wound_body, wound_mind = wound_penalty(wound)
        body = min(body, wound_body)
        mind = min(mind, wound_mind)
    return body, mind


@dataclass(frozen=True, slots=True)
class Incapacity:
    """Why a character cannot act: its ``state`` (dead, unconscious, stunned) and what ends it
    (``until``; None when nothing does)."""

    state: str
    until: str | None


def incapacity(condition: Condition) -> Incapacity | None:
    """Why the character cannot act now (an action test, medical aid), the worst state first;
    None when it can. A dying character is unconscious too."""
    if condition.dead:
        return Incapacity("dead", None)
    if condition.unconscious:
        return Incapacity("unconscious", f"until LIF is 1 or more (it is {condition.lif})")
    if condition.stunned:
        return Incapacity("stunned", "until the stun ends (the next action is spent recovering)")
    return None


def condition_states(condition: Condition) -> tuple[str, ...]:
    """The condition's states, worst first, as codes: ``dead`` alone, else any of ``dying``
    (or ``halted``: below 0 LIF, the dying halted by medical help), ``unconscious``,
    ``stunned``, ``bleeding`` (a wound bleeds) and ``wounded`` (a wound's penalty applies now).
    Empty: the character is fit to act, its wounds (if any) imposing nothing."""
    if condition.dead:
        return ("dead",)
    flags = (
        ("dying", condition.dying),
        ("halted", condition.lif < 0 and not condition.dying),
        ("unconscious", condition.unconscious),
        ("stunned", condition.stunned),
        ("bleeding", bool(condition.bleeding)),
        ("wounded", any(wound_penalties(condition))),
    )
    return tuple(code for code, applies in flags if applies)


@dataclass(frozen=True, slots=True)
class Effective:
    """A character as wounds leave it.

    ``levels``: attribute levels with the body attributes lowered (not below 0).
    ``derived``: DEF, INI and MOV recomputed from the lowered levels by the engine's formulas,
    less any encumbrance penalty, at their floors (DEF is 1 while stunned); TGH, LIF and WND
    unchanged.
    ``test_dms``: the DM each attribute gives an action test now, the mind-group DM included.
    """

    levels: Mapping[str, int]
    derived: Derived
    body_penalty: int
    mind_dm: int
    stunned: bool
    test_dms: Mapping[str, int]

    def test_dm(self, code: str) -> int:
        return self.test_dms[code]


_RECOMPUTED = ("DEF", "INI", "MOV")


def effective(
    source: Report | Mapping[str, int],
    condition: Condition,
    *,
    derived_bonus: Mapping[str, int] | None = None,
    encumbrance_penalty: int = 0,
    armor_str_short: int = 0,
    cat: Catalog | None = None,
) -> Effective:
    """The character's attributes and derived attributes under its wounds and its load.

    ``source`` is the engine's report (its derived-attribute traits are kept) or a mapping of
    final attribute levels, with ``derived_bonus`` for derived-attribute traits if any.
    ``encumbrance_penalty`` is the engine's for what the character carries now
    (``carried_load``); it lowers DEF, INI and MOV after the wounds, down to their floors.
    ``armor_str_short`` is how far the character's STR DV is below its worn armor's STRmin
    (``Equipment.armor_str_short``): each point lowers the body attributes by 2 levels (their
    DMs in action tests) and DEF, INI and MOV by 1 more, with the encumbrance penalty. The
    derived attributes are worked out from the levels the wounds leave; the armor's own
    change to DEF, INI and MOV is the rulebook's, not worked out again from the lowered levels.
    """
    cat = cat or catalog()
    if isinstance(source, Report):
        levels = {value.code: value.level for value in source.attributes}
        original = source.derived
        # The traits' share of each derived attribute, recovered from the report. Where a
        # floor hid part of a flaw, the recovered share is smaller, but a floor hides it again.
        plain = derived_attributes(levels, cat=cat)
        bonus = {code: getattr(original, code) - getattr(plain, code) for code in _RECOMPUTED}
    else:
        levels = dict(source)
        bonus = dict(derived_bonus or {})
        original = derived_attributes(levels, bonus, cat=cat)
    body_penalty, mind_dm = wound_penalties(condition)
    body, mind = cat.attribute_groups["body"], cat.attribute_groups["mind"]
    wounded_levels = {
        code: max(level + body_penalty, 0) if code in body else level
        for code, level in levels.items()
    }
    wounded = derived_attributes(wounded_levels, bonus, cat=cat)
    now = {code: getattr(wounded, code) for code in _RECOMPUTED}
    lim = cat.limits
    armor_body = armor_str_short * lim.armor_body_levels_per_point
    lowered = {
        code: max(level - armor_body, 0) if code in body else level
        for code, level in wounded_levels.items()
    }
    penalty = encumbrance_penalty + armor_str_short * lim.armor_derived_per_point
    derived = encumbered(original._replace(**now), penalty, cat)
    if condition.stunned:
        derived = derived._replace(DEF=injury_rules().stunned_def)
    test_dms = {
        code: cat.dm_dv(level)[0] + (mind_dm if code in mind else 0)
        for code, level in lowered.items()
    }
    return Effective(
        levels=MappingProxyType(lowered),
        derived=derived,
        body_penalty=body_penalty,
        mind_dm=mind_dm,
        stunned=condition.stunned,
        test_dms=MappingProxyType(test_dms),
    )


# -- healing -----------------------------------------------------------------------------------


def _require_tn(test: ActionTest, tn: int, what: str) -> None:
    if test.tn != tn:
        raise ValueError(
            f"{what} needs TN {tn}, but the test was thrown against TN {test.tn}; "
            "put modifiers in the test's DM."
        )


def _halt_dying(condition: Condition) -> Condition:
    return replace(condition, dying_halted=True) if condition.lif < 0 else condition


def untreated_wound(condition: Condition, wound_index: int) -> Wound:
    """The wound a stabilisation or treatment test is for; ValueError when it is treated
    already, stable for good, so that neither test applies to it any more."""
    wound = _wound(condition, wound_index)
    if wound.treated:
        raise ValueError(f"The {wound.severity} wound is already treated.")
    return wound


def stabilise(condition: Condition, wound_index: int, test: ActionTest) -> tuple[Condition, Events]:
    """Apply a Medical test to stabilise a wound (Stabilization Table TN).

    Success: the wound stops bleeding until its re-throw period ends (then stabilise again).
    Failure: the wound is not stable and the character suffers its additional damage.
    Fumble (a critical failure, even if the total reaches the TN): the wound becomes one
    category worse, and is not stable; a fatal wound cannot get worse, so it counts as a
    failure.
    """
    rules = injury_rules()
    tn = stabilisation_tn(_wound(condition, wound_index).severity)  # superficial: none
    wound = untreated_wound(condition, wound_index)
    _require_tn(test, tn, f"Stabilising a {wound.severity} wound")
    worse = rules.worse(wound.severity)
    if test.fumble and worse != wound.severity:
        # The worse severity bleeds until stabilised: in the tables only light wounds bleed
        # for a thrown time, and a superficial wound has no stabilisation test to fumble.
        worsened = replace(wound, severity=worse, stabilised=False, bleed_periods=None, bled=0)
        after = replace(condition, wounds=_with_wound(condition, wound_index, worsened))
        event = Event("wound_worsened", f"A fumble: the {wound.severity} wound becomes {worse}.")
        return after, (event,)
    if test.success and not test.fumble:
        settled = replace(wound, stabilised=True)
        after = _halt_dying(replace(condition, wounds=_with_wound(condition, wound_index, settled)))
        every = severity_rules(wound.severity).stabilisation_rethrow
        event = Event(
            "stabilised", f"The {wound.severity} wound is stabilised; throw again in {every}."
        )
        return after, (event,)
    unsettled = replace(
        condition, wounds=_with_wound(condition, wound_index, replace(wound, stabilised=False))
    )
    return _lose_to_wound(
        unsettled,
        wound_index,
        severity_rules(wound.severity).bleed_points,
        "stabilisation_failed",
        f"Stabilisation fails: the {wound.severity} wound's additional damage is suffered.",
    )


def treat(condition: Condition, wound_index: int, test: ActionTest) -> tuple[Condition, Events]:
    """Apply a Medical or Surgery test at the end of a wound's treatment time.

    Success: the wound is stabilised for good and treated, and the LIF lost to it heals by
    the effect number (at most what it took). Failure: the wound's additional damage.
    Fumble (a critical failure): the wound is no longer stable, and the additional damage is
    suffered at once.
    """
    tn = treatment_tn(_wound(condition, wound_index).severity)  # superficial wounds need none
    wound = untreated_wound(condition, wound_index)
    _require_tn(test, tn, f"Treating a {wound.severity} wound")
    points = severity_rules(wound.severity).bleed_points
    if test.fumble:
        opened = replace(
            condition, wounds=_with_wound(condition, wound_index, replace(wound, stabilised=False))
        )
        return _lose_to_wound(
            opened,
            wound_index,
            points,
            "wound_reopened",
            f"A fumble: the {wound.severity} wound is no longer stable and bleeds at once.",
        )
    if not test.success:
        return _lose_to_wound(
            condition,
            wound_index,
            points,
            "treatment_failed",
            f"Treatment fails: the {wound.severity} wound's additional damage is suffered.",
        )
    healed = min(test.effect, wound.lethal)
    treated = replace(wound, stabilised=True, treated=True, lethal=wound.lethal - healed)
    after = replace(
        condition,
        lethal=condition.lethal - healed,
        wounds=_with_wound(condition, wound_index, treated),
    )
    after = _halt_dying(after)
    event = Event(
        "treated",
        f"The {wound.severity} wound is treated: stable for good, {healed} LIF healed "
        f"(EN {test.effect}).",
    )
    return after, (event,)


def recover(condition: Condition, *, form: str, end_dv: int) -> Condition:
    """One recovery period (see ``recovery_period``): heal END DV points of ``form`` damage.

    Stun marks heal freely. Lethal points heal first where no wound holds them (LIF lost while
    dying), then from wounds in the order taken; a wound that still bleeds
    (:attr:`Wound.bleeds`) does not heal. LIF never rises above its maximum.
    """
    if end_dv < 0:
        raise ValueError(f"END DV {end_dv} is negative.")
    if form == STUN:
        return replace(condition, stun=condition.stun - min(condition.stun, end_dv))
    if form != LETHAL:
        raise ValueError(f"Recovery heals stunning (S) or lethal (L) damage, not {form!r}.")
    left = end_dv
    healed = min(left, condition.unattached_lethal)
    left -= healed
    wounds = list(condition.wounds)
    for index, wound in enumerate(wounds):
        if left == 0:
            break
        if not wound.bleeds and wound.lethal:
            part = min(left, wound.lethal)
            wounds[index] = replace(wound, lethal=wound.lethal - part)
            healed += part
            left -= part
    after = replace(condition, lethal=condition.lethal - healed, wounds=tuple(wounds))
    return after if after.lif < 0 else replace(after, dying_halted=False)


def recovery_dv(report: Report, condition: Condition, *, cat: Catalog | None = None) -> int:
    """The LIF one recovery period heals: the END DV as the character's wounds leave it.

    END is a body attribute, and a wound's penalty "reduces the character's DM and DV", so an
    untreated wound slows recovery too.
    """
    cat = cat or catalog()
    return cat.dm_dv(effective(report, condition, cat=cat).levels["END"])[1]


def clear_wound(condition: Condition, index: int) -> Condition:
    """Strike a treated wound whose LIF has all healed off the sheet."""
    wound = _wound(condition, index)
    if not wound.clearable:
        raise ValueError(
            f"Only a treated, healed wound is cleared; this {wound.severity} wound is "
            f"{'treated' if wound.treated else 'untreated'} with {wound.lethal} LIF still lost."
        )
    return replace(condition, wounds=condition.wounds[:index] + condition.wounds[index + 1 :])


# -- equipment in play ------------------------------------------------------------------------


def carried_load(
    character: Character, equipment: Iterable[EquipmentEntry], *, cat: Catalog | None = None
) -> Equipment:
    """The engine's equipment figures for the character carrying ``equipment`` (its creation
    equipment with what it bought or sold in play): load, the unencumbered limit, capacity,
    the encumbrance penalty and the encumbered derived attributes.

    Only the load figures are meant: ``cost`` and ``credits_remaining`` count every item
    against the mustering-out credits, but gear bought in play is paid from the credits ledger.
    """
    return check(replace(character, equipment=tuple(equipment)), cat=cat).equipment


# -- improvement points ------------------------------------------------------------------------


class ImprovementError(ValueError):
    """A purchase that cannot be made as asked; the message says why."""


@dataclass(frozen=True, slots=True)
class RaiseSkill:
    """Raise a skill (or learn a new one) to ``to_level``.

    Each level gained costs the new level x 5 IP. A new skill at level 0 has no figure in the
    rulebook, so the referee sets its cost: ``ip``.
    """

    skill: str
    cascade: str | None
    to_level: int
    ip: int | None = None


@dataclass(frozen=True, slots=True)
class AddSpecialty:
    skill: str
    specialty: str


@dataclass(frozen=True, slots=True)
class AddPerk:
    trait: TraitEntry


@dataclass(frozen=True, slots=True)
class RaisePerk:
    """Raise the perk at ``index`` of the character's traits to level ``to_level`` (C, E, G)."""

    index: int
    to_level: str


@dataclass(frozen=True, slots=True)
class BuyOffFlaw:
    index: int


@dataclass(frozen=True, slots=True)
class BuyOffPackageFlaw:
    """Buy off the flaw ``name`` of the character's species package (the Vargr's racial pride):
    like any flaw, at its value in IP with the referee's permission."""

    name: str


@dataclass(frozen=True, slots=True)
class RaiseAttribute:
    """Raise an attribute's final level to ``to_level`` at a referee-set cost ``ip``."""

    attribute: str
    to_level: int
    ip: int | None = None


Purchase = (
    RaiseSkill
    | AddSpecialty
    | AddPerk
    | RaisePerk
    | BuyOffFlaw
    | BuyOffPackageFlaw
    | RaiseAttribute
)


@dataclass(frozen=True, slots=True)
class ImprovementCosts:
    ip_per_new_skill_level: int
    new_zero_level_skill: int | None  # None: the referee sets it
    specialty: int
    ip_per_trait_point: int
    attribute: int | None  # None: the referee sets it


@cache
def improvement_costs() -> ImprovementCosts:
    """The IP costs of ``data/improvement.json``; "referee" reads as None."""
    data = _load("improvement.json")

    def figure(value: Any) -> int | None:
        return None if value == "referee" else value

    return ImprovementCosts(
        ip_per_new_skill_level=data["skill"]["ip_per_new_level"],
        new_zero_level_skill=figure(data["skill"]["new_zero_level"]),
        specialty=data["specialty"]["ip"],
        ip_per_trait_point=data["trait"]["ip_per_point"],
        attribute=figure(data["attribute"]["ip"]),
    )


def _same(a: str | None, b: str | None) -> bool:
    return " ".join((a or "").lower().split()) == " ".join((b or "").lower().split())


def _skill_level(character: Character, skill: str, cascade: str | None, cat: Catalog) -> int | None:
    """The level the character has in a skill now, automatic and package skills included."""
    for line in check(character, cat=cat).skills.lines:
        if _same(line.skill, skill) and _same(line.cascade, cascade):
            return line.level
    return None


def _skill_entry(character: Character, skill: str, cascade: str | None) -> int | None:
    for index, entry in enumerate(character.skills):
        if _same(entry.skill, skill) and _same(entry.cascade, cascade):
            return index
    return None


def _trait(character: Character, index: int) -> TraitEntry:
    if not 0 <= index < len(character.traits):
        raise ImprovementError(
            f"There is no trait {index}; the character has {len(character.traits)}."
        )
    return character.traits[index]


def _trait_points(trait: TraitEntry, cat: Catalog) -> int | None:
    if trait.derived:
        return derived_trait_points(trait, cat=cat)
    return cat.trait_points(trait.type, trait.level or "", trait.frequency or "")


def _referee_ip(ip: int | None, what: str) -> int:
    if ip is None or ip < 1:
        raise ImprovementError(
            f"The rulebook gives no readable IP cost for {what}; the referee sets it (ip >= 1)."
        )
    return ip


def _price(character: Character, purchase: Purchase, cat: Catalog) -> int | None:
    """The IP cost; None for a trait off the tables (the check then says trait_invalid).

    Raises ImprovementError for a purchase that cannot be made as asked.
    """
    costs = improvement_costs()
    if isinstance(purchase, RaiseSkill):
        return _skill_price(character, purchase, costs, cat)
    if isinstance(purchase, AddSpecialty):
        index, specialty = _specialty(character, purchase, cat)
        entry = character.skills[index]
        definition = cat.find_skill(entry.skill)
        if any(_same(specialty_name(definition, s), specialty) for s in entry.specialties):
            raise ImprovementError(f"{entry.skill} already has the specialty {specialty!r}.")
        return costs.specialty
    if isinstance(purchase, AddPerk | RaisePerk):
        return _perk_price(character, purchase, costs, cat)
    if isinstance(purchase, BuyOffFlaw):
        trait = _trait(character, purchase.index)
        if trait.type not in cat.flaw_types:
            raise ImprovementError(f"Trait {purchase.index} ({trait.name!r}) is not a flaw.")
        points = _trait_points(trait, cat)
        return None if points is None else -points * costs.ip_per_trait_point
    if isinstance(purchase, BuyOffPackageFlaw):
        return -_package_flaw(character, purchase.name, cat)[1] * costs.ip_per_trait_point
    if isinstance(purchase, RaiseAttribute):
        return _attribute_price(character, purchase, costs, cat)
    raise ImprovementError(f"{purchase!r} is not a purchase.")


def _skill_price(
    character: Character, purchase: RaiseSkill, costs: ImprovementCosts, cat: Catalog
) -> int:
    label = format_skill(purchase.skill, purchase.to_level, purchase.cascade)
    current = _skill_level(character, purchase.skill, purchase.cascade, cat)
    if purchase.to_level < 0:
        raise ImprovementError(f"{label}: skill levels start at 0.")
    if current is not None and purchase.to_level <= current:
        raise ImprovementError(
            f"{label} is no raise: the character has the skill at level {current}."
        )
    if purchase.to_level == 0:
        if costs.new_zero_level_skill is not None:
            return costs.new_zero_level_skill
        return _referee_ip(purchase.ip, "a new level-0 skill")
    if purchase.ip is not None:
        raise ImprovementError(
            f"{label} costs new level x {costs.ip_per_new_skill_level} IP by the rulebook; "
            "ip is only for what the referee prices."
        )
    start = 1 if current is None else current + 1
    # The sum of the new levels start..to_level, in closed form: a typed level of any size
    # costs no more time than a small one.
    levels = max(0, purchase.to_level - start + 1)
    return costs.ip_per_new_skill_level * (start + purchase.to_level) * levels // 2


def _perk_price(
    character: Character, purchase: AddPerk | RaisePerk, costs: ImprovementCosts, cat: Catalog
) -> int | None:
    if isinstance(purchase, AddPerk):
        trait = purchase.trait
        if trait.type not in cat.perk_types:
            raise ImprovementError(
                f"{trait.name!r} ({trait.type}) is not a perk; IP buy perks "
                f"({', '.join(cat.perk_types)}). A new flaw is the referee's to allow."
            )
        points = _trait_points(trait, cat)
        return None if points is None else points * costs.ip_per_trait_point
    trait = _trait(character, purchase.index)
    if trait.type not in cat.perk_types:
        raise ImprovementError(f"Trait {purchase.index} ({trait.name!r}) is not a perk.")
    if trait.derived:
        raise ImprovementError(
            f"{trait.name!r} changes derived attributes and has no level; add a perk instead."
        )
    old = _trait_points(trait, cat)
    new = _trait_points(replace(trait, level=purchase.to_level), cat)
    if old is None or new is None:
        return None
    if new <= old:
        raise ImprovementError(
            f"{trait.name!r} at level {purchase.to_level} is worth {new} points, no more "
            f"than its {old} now; a raise goes higher."
        )
    return (new - old) * costs.ip_per_trait_point


def _attribute_price(
    character: Character, purchase: RaiseAttribute, costs: ImprovementCosts, cat: Catalog
) -> int:
    code = cat.attribute_aliases.get(purchase.attribute, purchase.attribute)
    if code not in cat.attribute_order:
        raise ImprovementError(f"Unknown attribute {purchase.attribute!r}.")
    current = _final_level(character, code, cat)
    if purchase.to_level <= current:
        raise ImprovementError(
            f"{code} {purchase.to_level} is no raise: the character has {code} {current}."
        )
    if costs.attribute is not None:
        return costs.attribute
    return _referee_ip(purchase.ip, "raising an attribute")


def _specialty(character: Character, purchase: AddSpecialty, cat: Catalog) -> tuple[int, str]:
    """The skill entry a specialty is added to, and the specialty as a document writes it (the
    catalog's spelling, as the document parser gives it)."""
    index = _skill_entry(character, purchase.skill, None)
    if index is None:
        raise ImprovementError(
            f"The character has no {purchase.skill} skill to add a specialty to."
        )
    definition = cat.find_skill(character.skills[index].skill)
    specialty = specialty_name(definition, purchase.specialty)
    if not specialty:
        raise ImprovementError(f"Name the specialty to add to {purchase.skill}.")
    return index, specialty


def _package_flaw(character: Character, name: str, cat: Catalog) -> tuple[str, int]:
    """The name and (negative) value of a flaw of the character's package not yet bought off."""
    species = cat.species.get(character.species) or cat.species["human"]
    flaws = {
        trait.name: cat.trait_points(trait.type, trait.level, trait.frequency)
        for trait in species.traits
        if trait.type in cat.flaw_types
    }
    wanted = " ".join(name.split()).lower()
    found = next((flaw for flaw in flaws if flaw.lower() == wanted), None)
    if found is None:
        raise ImprovementError(
            f"The {species.name} package has no flaw {name!r} to buy off"
            + (f" (its flaws: {', '.join(flaws)})." if flaws else ".")
        )
    if found in character.package_flaws_bought_off:
        raise ImprovementError(f"{found!r} of the {species.name} package is already bought off.")
    return found, flaws[found] or 0  # the catalog's package traits are all on the tables


def _final_level(character: Character, code: str, cat: Catalog) -> int:
    position = cat.attribute_order.index(code)
    species = cat.species.get(character.species) or cat.species["human"]
    return character.attributes[position] + species.attribute_deltas[position]


def improvement_cost(
    character: Character, purchase: Purchase, *, cat: Catalog | None = None
) -> int:
    """The IP a purchase costs (Character Skill and Trait Improvement Costs Tables).

    Raises :class:`ImprovementError` when it cannot be made as asked (not a raise, no such
    trait, a flaw offered as a perk, a referee-set cost missing, a trait off the tables).
    """
    cat = cat or catalog()
    cost = _price(character, purchase, cat)
    if cost is None:
        raise ImprovementError(f"{purchase!r} names a trait that is not on the trait tables.")
    return cost


def apply_improvement(
    character: Character, purchase: Purchase, *, cat: Catalog | None = None
) -> Character:
    """The character with the purchase made; the budget is left as it was (see
    :func:`check_improvement` for how the web app keeps creation points balanced)."""
    cat = cat or catalog()
    _price(character, purchase, cat)
    if isinstance(purchase, RaiseSkill):
        index = _skill_entry(character, purchase.skill, purchase.cascade)
        skills = list(character.skills)
        if index is None:
            definition = cat.find_skill(purchase.skill)
            name = definition.name if definition is not None else purchase.skill
            skills.append(SkillEntry(name, purchase.to_level, purchase.cascade))
        else:
            skills[index] = replace(skills[index], level=purchase.to_level)
        return replace(character, skills=tuple(skills))
    if isinstance(purchase, AddSpecialty):
        index, specialty = _specialty(character, purchase, cat)
        skills = list(character.skills)
        entry = skills[index]
        skills[index] = replace(entry, specialties=(*entry.specialties, specialty))
        return replace(character, skills=tuple(skills))
    if isinstance(purchase, AddPerk):
        return replace(character, traits=(*character.traits, purchase.trait))
    if isinstance(purchase, RaisePerk):
        traits = list(character.traits)
        traits[purchase.index] = replace(traits[purchase.index], level=purchase.to_level)
        return replace(character, traits=tuple(traits))
    if isinstance(purchase, BuyOffFlaw):
        index = purchase.index
        return replace(character, traits=character.traits[:index] + character.traits[index + 1 :])
    if isinstance(purchase, BuyOffPackageFlaw):
        name = _package_flaw(character, purchase.name, cat)[0]
        bought_off = (*character.package_flaws_bought_off, name)
        return replace(character, package_flaws_bought_off=bought_off)
    code = cat.attribute_aliases.get(purchase.attribute, purchase.attribute)
    position = cat.attribute_order.index(code)
    delta = _final_level(character, code, cat) - character.attributes[position]
    attributes = list(character.attributes)
    attributes[position] = purchase.to_level - delta
    return replace(character, attributes=tuple(attributes))


# Problems that are not the purchase's to answer for: the budget (IP pay for the purchase) and
# creation-time rules about the character's history.
NOT_PURCHASE_PROBLEMS = frozenset(
    {"budget_exceeded", "points_unspent", "too_few_traits", "terms_below_exp_dv"}
)

_TRAIT_PATH = re.compile(r"^traits\[(\d+)\]")


def _problem_key(problem: Problem, removed_trait: int | None) -> tuple[str, str, str] | None:
    path = problem.path
    if removed_trait is not None:
        match = _TRAIT_PATH.match(path)
        if match:
            index = int(match[1])
            if index == removed_trait:
                return None
            if index > removed_trait:
                path = f"traits[{index - 1}]{path[match.end() :]}"
    return problem.code, path, problem.message


def check_improvement(
    character: Character,
    purchase: Purchase,
    *,
    house_rules: HouseRules | None = None,
    cat: Catalog | None = None,
) -> tuple[int, tuple[Problem, ...]]:
    """The purchase's IP cost and the problems it introduces among the creation caps.

    The improved character is checked by the engine; problems it already had (compared by
    code, path and message, so a cap breached further counts as new) are left out, and so
    are ``NOT_PURCHASE_PROBLEMS``. A cost of 0 comes with a ``trait_invalid`` problem.

    Budget: IP, not creation points, pay for a purchase, so an overrun of the creation budget
    is no problem here. The web app keeps the books balanced by raising the character's
    budget by the creation points each accepted purchase adds (``creation_points_added``:
    +1 for a skill level, +1 for a specialty, a perk's points, a flaw's value), both in the
    stored document and in a campaign's ``HouseRules.budget`` override when it applies, and
    by recording the IP spent separately. Checked that way the improved character stays
    within its budget, and ``remaining`` still shows creation points left unspent.
    """
    cat = cat or catalog()
    cost = _price(character, purchase, cat)
    improved = apply_improvement(character, purchase, cat=cat)
    before = check(character, house_rules=house_rules, cat=cat)
    if improved.age is None:
        # No age recorded: the sheet shows the minimum age, and the improved character is
        # that age still (a raise of EXP does not make anyone older), so the minimum-age rule
        # holds for EXP raised with IP as for EXP bought at creation.
        improved = replace(improved, age=before.age)
    after = check(improved, house_rules=house_rules, cat=cat)
    removed = purchase.index if isinstance(purchase, BuyOffFlaw) else None
    had = Counter(_problem_key(p, removed) for p in before.problems)
    introduced = []
    for problem in after.problems:
        if problem.code in NOT_PURCHASE_PROBLEMS:
            continue
        key = _problem_key(problem, None)
        if had[key]:
            had[key] -= 1
            continue
        introduced.append(problem)
    return (0 if cost is None else cost), tuple(introduced)


def creation_points_added(
    character: Character,
    purchase: Purchase,
    *,
    house_rules: HouseRules | None = None,
    cat: Catalog | None = None,
) -> int:
    """How many creation points the purchase adds to the character's total (by the engine)."""
    cat = cat or catalog()
    improved = apply_improvement(character, purchase, cat=cat)
    before = check(character, house_rules=house_rules, cat=cat).points.total
    return check(improved, house_rules=house_rules, cat=cat).points.total - before
