"""The rules engine: a character in, a report out, every problem found at once.

``check`` reads a :class:`~rules.model.Character` with the catalog's tables and builds a
:class:`~rules.report.Report`. Each rule is a small function over a :class:`_Context` (the
character, the catalog, the campaign's rules and the problems found so far); ``check`` calls
them in the order the sheet shows their problems. Report parts that follow from catalog data
alone (a species package's lines) are worked out once per catalog with ``functools.cache``.

The rules live in a module each, in the order ``check`` calls them: ``attributes`` (and the
derived attributes), ``traits`` (with the former rank and the species package), ``skills``,
``career`` (psionics, age, service and terms, the mustering-out cash) and ``equipment`` (with
carrying and gravity); ``context`` is what they all read and write. The points are summed
here.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..catalog import Catalog, catalog
from ..document import parse_document
from ..model import Character, HouseRules
from ..report import Points, Problem, Report
from ..wording import plural, verb
from .attributes import _at_floors, _attributes, derived_attributes, purchase_steps
from .career import (
    _age,
    _check_service,
    _check_terms,
    _mustering_out,
    _psionics,
    cash_for,
    mustering_modifier,
    psi_strength_limit,
)
from .context import _CACHE_SIZE, _Context, _Problems
from .equipment import (
    ENCUMBERED,
    WornArmor,
    _equipment,
    carrying,
    encumbered,
    encumbrance_penalty,
    over_capacity,
    world_gravity,
    worn_armor,
)
from .skills import MEDICAL, SURGERY, _skills
from .traits import _check_trait_count, _package, _player_traits, _rank

# What the rest of rules/ and the app import from the engine.
__all__ = [
    "ENCUMBERED",
    "MEDICAL",
    "SURGERY",
    "WornArmor",
    "carrying",
    "cash_for",
    "check",
    "check_document",
    "derived_attributes",
    "encumbered",
    "encumbrance_penalty",
    "mustering_modifier",
    "over_capacity",
    "psi_strength_limit",
    "purchase_steps",
    "world_gravity",
    "worn_armor",
]


def check(
    character: Character,
    *,
    house_rules: HouseRules | None = None,
    cat: Catalog | None = None,
) -> Report:
    """Work out everything the rulebook says about ``character``.

    ``house_rules`` are a campaign's settings; when given they replace the document's own.
    """
    cat = cat or catalog()
    ctx = _context(character, house_rules or character.house_rules, cat)
    attributes = _attributes(ctx)
    levels = attributes.levels
    exp_dv = levels["EXP"].dv
    traits = _player_traits(ctx, attributes.formulas)
    derived = _at_floors(attributes.formulas, traits.bonus, cat)
    skills = _skills(ctx, levels)
    rank, rank_line, rank_points = _rank(ctx, exp_dv)
    package_lines, package_points = _package(ctx)
    trait_lines = (*traits.lines, *((rank_line,) if rank_line else ()), *package_lines)
    _check_trait_count(ctx, rank)
    psionics = _psionics(ctx, exp_dv)
    age, age_minimum = _age(ctx, exp_dv)
    _check_service(ctx)
    mustering = _mustering_out(ctx, skills.effective)
    equipment = _equipment(ctx, levels, mustering.credits, derived)
    points = _points(
        ctx,
        attributes=attributes.points,
        skills=skills.points,
        perks=traits.perks,
        flaws=traits.flaws,
        rank=rank_points,
        psionics=psionics.points if psionics else 0,
        package=package_points,
    )
    _check_terms(ctx, exp_dv)
    return Report(
        name=character.name,
        kind=character.kind,
        species=ctx.species.key,
        service=ctx.service.key if ctx.service else character.service,
        terms=character.terms,
        valid=ctx.problems.errors == 0,
        upp=attributes.upp,
        attributes=attributes.values,
        derived=derived,
        points=points,
        skills=skills.summary,
        traits=trait_lines,
        rank=rank,
        noble_title=cat.noble_title(levels["SOC"].level),
        age=age,
        age_minimum=age_minimum,
        psionics=psionics,
        mustering_out=mustering,
        equipment=equipment,
        problems=tuple(ctx.problems.found),
    )


def check_document(doc: Any, *, house_rules: HouseRules | None = None) -> Report:
    """Parse a decoded character document and check it (raises MalformedDocument)."""
    return check(parse_document(doc), house_rules=house_rules)


def _context(character: Character, rules: HouseRules, cat: Catalog) -> _Context:
    problems = _Problems()
    species = cat.species.get(character.species)
    if species is None:
        problems.error(
            "unknown_species",
            "species",
            f"Species {character.species!r} is not in the catalog; known species: "
            f"{', '.join(s.name for s in cat.species.values())}.",
        )
        species = cat.species["human"]
    service = cat.services.get(character.service) if character.service else None
    return _Context(
        character=character,
        cat=cat,
        limits=cat.limits,
        rules=rules,
        species=species,
        service=service,
        problems=problems,
    )


def _points(
    ctx: _Context,
    *,
    attributes: int,
    skills: int,
    perks: int,
    flaws: int,
    rank: int,
    psionics: int,
    package: int,
) -> Points:
    """The points spent, part by part, against the budget (ruling 19)."""
    character = ctx.character
    budget = character.budget
    if ctx.rules.budget is not None and character.kind == "pc":
        budget = ctx.rules.budget
    total = attributes + skills + perks + flaws + rank + psionics + package
    if total != budget:
        ctx.problems.add(_budget_problems(total, budget))
    return Points(
        attributes=attributes,
        skills=skills,
        perks=perks,
        flaws=flaws,
        rank=rank,
        psionics=psionics,
        package=package,
        total=total,
        budget=budget,
        remaining=budget - total,
    )


# Cached: formatting the message costs some twenty cache hits (timeit), and a character being
# built has points unspent on every check.
@lru_cache(maxsize=_CACHE_SIZE)
def _budget_problems(total: int, budget: int) -> tuple[Problem, ...]:
    """Points spent over the budget, or left unspent."""
    problems = _Problems()
    if total > budget:
        problems.error(
            "budget_exceeded",
            "budget",
            f"{plural(total, 'point')} {verb(total, 'is', 'are')} spent, {total - budget} more "
            f"than the budget of {budget}.",
        )
    elif total < 0:
        # More given back than spent: "125 of 100 points" would be no share of the budget.
        problems.warning(
            "points_unspent",
            "budget",
            f"{plural(budget - total, 'point')} {verb(budget - total, 'is', 'are')} unspent: "
            f"the parts come to {total} against the budget of {budget}.",
        )
    elif total < budget:
        problems.warning(
            "points_unspent",
            "budget",
            f"{budget - total} of {plural(budget, 'point')} {verb(budget - total, 'is', 'are')} "
            "unspent.",
        )
    return tuple(problems.found)
