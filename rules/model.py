"""The character as the engine sees it: frozen dataclasses built from a character document."""

from __future__ import annotations

from dataclasses import dataclass, field

FORMAT = "ffa-character/1"


@dataclass(frozen=True, slots=True)
class SkillEntry:
    skill: str
    level: int
    cascade: str | None = None
    specialties: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TraitEntry:
    """A perk or flaw: either ``level`` + ``frequency`` or ``derived`` changes."""

    type: str
    name: str
    level: str | None = None
    frequency: str | None = None
    derived: tuple[tuple[str, int], ...] = ()
    # Whether a flaw's control score applies (see control_by_default).
    control: bool = False


def control_by_default(trait_type: str) -> bool:
    """Personal flaws are overcome with a control throw; material and historical ones are not.

    The rulebook's examples write ``[PF-H-R CS4 -2]`` but ``[HF-H-R -2]``; a document can
    override this with the trait's ``control`` field.
    """
    return trait_type == "PF"


@dataclass(frozen=True, slots=True)
class Psionics:
    strength: int
    talents: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, slots=True)
class EquipmentEntry:
    item: str
    quantity: int = 1
    tl: int | None = None
    # The character wears this armor (at most one body armor, reflec under it, a helmet).
    worn: bool = False


@dataclass(frozen=True, slots=True)
class HouseRules:
    """Switches a campaign may set; ``None`` fields leave the rulebook's rule in force."""

    one_trait_per_term: bool = True
    psionics_allowed: bool = True
    max_former_rank: int | None = None
    open_services: frozenset[str] | None = None
    budget: int | None = None  # overrides a player character's budget


@dataclass(frozen=True, slots=True)
class Character:
    name: str
    attributes: tuple[int, ...]  # purchased levels in the catalog's attribute order
    kind: str = "pc"
    budget: int = 100
    species: str = "human"
    homeworld: str | None = None
    native_language: str | None = None
    native_culture: str | None = None
    service: str | None = None
    terms: int = 0
    rank: int = 0
    age: int | None = None
    skills: tuple[SkillEntry, ...] = ()
    traits: tuple[TraitEntry, ...] = ()
    # Flaws of the species package bought off with improvement points, by name.
    package_flaws_bought_off: tuple[str, ...] = ()
    psionics: Psionics | None = None
    mustering_rolls: tuple[int, ...] = ()
    # An NPC's mustering-out cash as the referee gives it (a stat block's credits), not rolled.
    mustering_credits: int | None = None
    has_mustering_out: bool = False
    equipment: tuple[EquipmentEntry, ...] = ()
    house_rules: HouseRules = field(default_factory=HouseRules)
    notes: str = ""
