"""The injury and healing tables of the rulebook (``data/injury.json``) as frozen data:
wound severities, periods, TNs and healing DMs, and Xeno Medicine's offsets."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType
from typing import Any

from .catalog import catalog
from .dice import dice_rules
from .report import Report

STUN = "S"


LETHAL = "L"


SPECIAL = "Sp"


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
    species_aliases: Mapping[str, str]  # other names of one of them (Solomani: human)
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


@cache
def injury_rules() -> InjuryRules:
    """The injury and healing tables of ``data/injury.json``, read once."""
    data = catalog().play_tables["injury"]
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
        species_aliases=MappingProxyType(dms["other_species"]["species_aliases"]),
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
    rules = injury_rules()
    medic, patient = (_species_key(name, rules) for name in (medic_species, patient_species))
    if medic == patient:
        return 0
    base = (
        rules.close_physiology_dm if patient in rules.close_physiology else rules.other_species_dm
    )
    return min(base + (xeno_medicine or 0), 0)


def _species_key(name: str, rules: InjuryRules) -> str:
    """A species as Xeno Medicine compares them: case and spacing aside, Solomani and Vilani
    are the one human race the rulebook names them as."""
    key = " ".join(name.lower().split())
    return rules.species_aliases.get(key, key)


def xeno_medicine_level(report: Report) -> int | None:
    """The character's Xeno Medicine level, None without the skill."""
    skill = injury_rules().xeno_skill
    levels = [line.level for line in report.skills.lines if line.skill == skill]
    return max(levels) if levels else None
