"""Improvement points: what a purchase costs, applying it to a character, and checking the
improved character (``data/improvement.json``)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from .catalog import Catalog, catalog
from .document import cascade_name, specialty_name
from .engine import MEDICAL, SURGERY, check
from .model import Character, HouseRules, SkillEntry, TraitEntry
from .notation import derived_trait_points, format_skill
from .report import Problem, Report, SkillLine
from .wording import plural


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


def raised_level(purchase: RaisePerk) -> str:
    """The perk level a raise goes to, read as a document's trait level is ("e" is E)."""
    return purchase.to_level.strip().upper()


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
    data = catalog().play_tables["improvement"]

    def figure(value: Any) -> int | None:
        return None if value == "referee" else value

    return ImprovementCosts(
        ip_per_new_skill_level=data["skill"]["ip_per_new_level"],
        new_zero_level_skill=figure(data["skill"]["new_zero_level"]),
        specialty=data["specialty"]["ip"],
        ip_per_trait_point=data["trait"]["ip_per_point"],
        attribute=figure(data["attribute"]["ip"]),
    )


def same_name(a: str | None, b: str | None) -> bool:
    return " ".join((a or "").lower().split()) == " ".join((b or "").lower().split())


def _cascade(skill: str, cascade: str | None, cat: Catalog) -> str | None:
    """A purchase's cascade as the document parser writes it ("sword" on Blade Combat is
    "swords"), so a purchase finds the skill however the cascade is spelled."""
    if cascade is None:
        return None
    return cascade_name(cat.find_skill(skill), cascade) or None


def skill_level_now(
    character: Character, skill: str, cascade: str | None, cat: Catalog
) -> int | None:
    """The level the character has in a skill now, automatic and package skills included."""
    line = skill_line_now(character, skill, cascade, cat)
    return None if line is None else line.level


def skill_line_now(
    character: Character, skill: str, cascade: str | None, cat: Catalog
) -> SkillLine | None:
    """The sheet's line of a skill the character has now, automatic and package skills
    included; None when it has none."""
    cascade = _cascade(skill, cascade, cat)
    for line in check(character, cat=cat).skills.lines:
        if same_name(line.skill, skill) and same_name(_cascade(skill, line.cascade, cat), cascade):
            return line
    return None


def _skill_entry(character: Character, skill: str, cascade: str | None, cat: Catalog) -> int | None:
    cascade = _cascade(skill, cascade, cat)
    for index, entry in enumerate(character.skills):
        if same_name(entry.skill, skill) and same_name(
            _cascade(skill, entry.cascade, cat), cascade
        ):
            return index
    return None


def trait_at(character: Character, index: int) -> TraitEntry:
    if not 0 <= index < len(character.traits):
        raise ImprovementError(
            f"There is no trait {index}; the character has {len(character.traits)}."
        )
    return character.traits[index]


def trait_points(trait: TraitEntry, cat: Catalog) -> int | None:
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
        index, specialty = specialty_entry(character, purchase, cat)
        entry = character.skills[index]
        definition = cat.find_skill(entry.skill)
        if any(same_name(specialty_name(definition, s), specialty) for s in entry.specialties):
            raise ImprovementError(f"{entry.skill} already has the specialty {specialty!r}.")
        return costs.specialty
    if isinstance(purchase, AddPerk | RaisePerk):
        return _perk_price(character, purchase, costs, cat)
    if isinstance(purchase, BuyOffFlaw):
        trait = trait_at(character, purchase.index)
        if trait.type not in cat.flaw_types:
            raise ImprovementError(f"Trait {purchase.index} ({trait.name!r}) is not a flaw.")
        points = trait_points(trait, cat)
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
    current = skill_level_now(character, purchase.skill, purchase.cascade, cat)
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
        points = trait_points(trait, cat)
        return None if points is None else points * costs.ip_per_trait_point
    trait = trait_at(character, purchase.index)
    if trait.type not in cat.perk_types:
        raise ImprovementError(f"Trait {purchase.index} ({trait.name!r}) is not a perk.")
    if trait.derived:
        raise ImprovementError(
            f"{trait.name!r} changes derived attributes and has no level; add a perk instead."
        )
    old = trait_points(trait, cat)
    new = trait_points(replace(trait, level=raised_level(purchase)), cat)
    if old is None or new is None:
        return None
    if new <= old:
        raise ImprovementError(
            f"{trait.name!r} at level {raised_level(purchase)} is worth "
            f"{plural(new, 'point')}, no more than its {old} now; a raise goes higher."
        )
    return (new - old) * costs.ip_per_trait_point


def _attribute_price(
    character: Character, purchase: RaiseAttribute, costs: ImprovementCosts, cat: Catalog
) -> int:
    code = cat.attribute_aliases.get(purchase.attribute, purchase.attribute)
    if code not in cat.attribute_order:
        raise ImprovementError(f"Unknown attribute {purchase.attribute!r}.")
    current = final_attribute_level(character, code, cat)
    if purchase.to_level <= current:
        raise ImprovementError(
            f"{code} {purchase.to_level} is no raise: the character has {code} {current}."
        )
    if costs.attribute is not None:
        return costs.attribute
    return _referee_ip(purchase.ip, "raising an attribute")


def specialty_entry(character: Character, purchase: AddSpecialty, cat: Catalog) -> tuple[int, str]:
    """The skill entry a specialty is added to, and the specialty as a document writes it (the
    catalog's spelling, as the document parser gives it)."""
    index = _skill_entry(character, purchase.skill, None, cat)
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


def final_attribute_level(character: Character, code: str, cat: Catalog) -> int:
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
        index = _skill_entry(character, purchase.skill, purchase.cascade, cat)
        skills = list(character.skills)
        if index is None:
            had = skill_line_now(character, purchase.skill, purchase.cascade, cat)
            skills.append(new_skill_entry(purchase, had, cat))
        else:
            skills[index] = replace(skills[index], level=purchase.to_level)
        return replace(character, skills=tuple(skills))
    if isinstance(purchase, AddSpecialty):
        index, specialty = specialty_entry(character, purchase, cat)
        skills = list(character.skills)
        entry = skills[index]
        skills[index] = replace(entry, specialties=(*entry.specialties, specialty))
        return replace(character, skills=tuple(skills))
    if isinstance(purchase, AddPerk):
        return replace(character, traits=(*character.traits, purchase.trait))
    if isinstance(purchase, RaisePerk):
        traits = list(character.traits)
        traits[purchase.index] = replace(traits[purchase.index], level=raised_level(purchase))
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
    delta = final_attribute_level(character, code, cat) - character.attributes[position]
    attributes = list(character.attributes)
    attributes[position] = purchase.to_level - delta
    return replace(character, attributes=tuple(attributes))


def new_skill_entry(purchase: RaiseSkill, had: SkillLine | None, cat: Catalog) -> SkillEntry:
    """The entry a raise adds for a skill the document does not list: one had without buying
    (``had``, its line: automatic, or the package's) is written as the sheet writes it,
    "Language (Anglic)" however the purchase spells the open cascade; a new one in the
    catalog's spelling."""
    if had is not None:
        return SkillEntry(had.skill, purchase.to_level, had.cascade)
    definition = cat.find_skill(purchase.skill)
    name = definition.name if definition is not None else purchase.skill
    return SkillEntry(name, purchase.to_level, _cascade(purchase.skill, purchase.cascade, cat))


# Problems that are not the purchase's to answer for: the budget (IP pay for the purchase) and
# creation-time rules about the character's history.
NOT_PURCHASE_PROBLEMS = frozenset(
    {"budget_exceeded", "points_unspent", "too_few_traits", "terms_below_exp_dv"}
)


_TRAIT_PATH = re.compile(r"^traits\[(\d+)\]")
# Problems a purchase never makes worse, whose messages carry figures that a purchase may still
# change: a flaw refused at the floor of a derived attribute (ruling 15a) is refused "from 3 to
# 0" once a perk, a raise of DEX or a flaw bought off lifts DEF, and no purchase lowers one.
_COMPARED_WITHOUT_MESSAGE = frozenset({"derived_below_floor"})


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
    if problem.code in _COMPARED_WITHOUT_MESSAGE:
        return problem.code, path, ""
    return problem.code, path, problem.message


def check_improvement(
    character: Character,
    purchase: Purchase,
    *,
    house_rules: HouseRules | None = None,
    cat: Catalog | None = None,
    before: Report | None = None,
) -> tuple[int, tuple[Problem, ...]]:
    """The purchase's IP cost and the problems it introduces among the creation caps.
    ``before``: the character's report under ``house_rules``, when the caller has it already.

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
    before = before or check(character, house_rules=house_rules, cat=cat)
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
        how_far = _HOW_FAR_PAST.get(problem.code)
        if how_far is not None:
            # A cap whose message carries figures a purchase can move without breaking it
            # further (EDU raised under a skill still above the maximum): measured instead.
            had_it = any(p.code == problem.code and p.path == problem.path for p in before.problems)
            if not had_it or how_far(after, problem.path) > how_far(before, problem.path):
                introduced.append(problem)
            continue
        key = _problem_key(problem, None)
        if had[key]:
            had[key] -= 1
            continue
        introduced.append(problem)
    return (0 if cost is None else cost), tuple(introduced)


_SKILL_PATH = re.compile(r"^skills\[(\d+)\]")


def _past_skill_total(report: Report, path: str) -> tuple[int, ...]:
    """How far the counted skill levels are above EDU + EXP."""
    return (report.skills.total_used - report.skills.total_allowed,)


def _skill_line_at(report: Report, path: str) -> SkillLine:
    """The line of the skill at ``path`` (``skills[i]...``): a skill's line is at its index in
    the document's list, and the lines of skills had without buying come after."""
    match = _SKILL_PATH.match(path)
    if match is None:
        raise ValueError(f"{path!r} is not the path of a skill.")
    return report.skills.lines[int(match[1])]


def _past_skill_maximum(report: Report, path: str) -> tuple[int, ...]:
    """How far the skill at ``path`` is above the maximum skill level."""
    return (_skill_line_at(report, path).level - report.skills.max_level,)


def _short_of_specialty_level(report: Report, path: str) -> tuple[int, ...]:
    """How far the skill at ``path`` is below the level its specialties need, then how many
    specialties it has so (a second one on a skill too low is further)."""
    line = _skill_line_at(report, path)
    return (catalog().limits.specialty_min_level - line.level, len(line.specialties))


def _past_exp_dv(report: Report, path: str) -> tuple[int, ...]:
    """How far the former rank is above EXP DV."""
    return (report.rank.level - report.attribute("EXP").dv,)


def _past_medical(report: Report, path: str) -> tuple[int, ...]:
    """How far Surgery is above Medical (no Medical counts as below level 0)."""

    def level(skill: str) -> int:
        return max((line.level for line in report.skills.lines if line.skill == skill), default=-1)

    return (level(SURGERY) - level(MEDICAL),)


# Caps a purchase may leave broken with other figures in their message, by how far past the
# cap the character is (compared in order): a purchase is blamed only for going further.
_HOW_FAR_PAST: Mapping[str, Callable[[Report, str], tuple[int, ...]]] = {
    "skill_total_exceeded": _past_skill_total,
    "skill_level_above_max": _past_skill_maximum,
    "specialty_requires_level_2": _short_of_specialty_level,
    "rank_exceeds_exp_dv": _past_exp_dv,
    "surgery_exceeds_medical": _past_medical,
}


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
