"""Psionics, age, service and terms, and the mustering-out cash."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from .. import wording
from ..catalog import Catalog, Limits, Service, catalog
from ..model import Character
from ..report import MusteringOut, MusteringRoll, Problem, PsionicsSummary
from ..wording import plural, verb
from .context import _CACHE_SIZE, _Context, _Problems
from .skills import GAMBLING


def _psionics(ctx: _Context, exp_dv: int) -> PsionicsSummary | None:
    psionics = ctx.character.psionics
    if psionics is None:
        return None
    lim = ctx.limits
    max_strength = psi_strength_limit(exp_dv, cat=ctx.cat)
    if not ctx.rules.psionics_allowed:
        ctx.problems.error(
            "psionics_not_allowed", "psionics", "Psionics are not allowed in this campaign."
        )
    if psionics.strength > max_strength:
        ctx.problems.error(
            "psi_strength_above_max",
            "psionics.strength",
            f"PSI strength {psionics.strength} is above the maximum {max_strength} "
            f"({lim.psi_max_base} - EXP DV {exp_dv}, never above {lim.psi_max_cap}).",
        )
    points = lim.psi_training + psionics.strength * lim.psi_per_strength
    for name, level in psionics.talents:
        points += lim.psi_per_talent + level * lim.psi_per_talent_level
        _check_talent(ctx, name, level, psionics.strength)
    return PsionicsSummary(
        strength=psionics.strength,
        max_strength=max_strength,
        talents=psionics.talents,
        points=points,
    )


def _check_talent(ctx: _Context, name: str, level: int, strength: int) -> None:
    cat = ctx.cat
    if cat.find_talent(name) is None:
        ctx.problems.error(
            "unknown_talent",
            f"psionics.talents.{name}",
            f"Talent {name!r} is not one of the {len(cat.talents)} talents: "
            f"{', '.join(cat.talents)}.",
        )
    if level > strength:
        ctx.problems.error(
            "talent_above_strength",
            f"psionics.talents.{name}",
            f"{name}-{level} is above PSI strength {strength}.",
        )


def psi_strength_limit(exp_dv: int, *, cat: Catalog | None = None) -> int:
    """The highest PSI strength at initial training: 12 - EXP DV, never above 15."""
    lim = (cat or catalog()).limits
    return min(lim.psi_max_base - exp_dv, lim.psi_max_cap)


def _age(ctx: _Context, exp_dv: int) -> tuple[int | None, int | None]:
    """The age (the minimum when the document gives none) and the minimum age (ruling 18)."""
    lim, character = ctx.limits, ctx.character
    span = max(exp_dv, character.terms)
    minimum = lim.age_base + lim.years_per_term * span if span else None
    age = character.age if character.age is not None else minimum
    if age is not None and minimum is not None and age < minimum:
        ctx.problems.error(
            "age_below_minimum",
            "age",
            f"Age {age} is below the minimum {minimum} ({lim.age_base} + "
            f"{lim.years_per_term} x {span}, the larger of EXP DV {exp_dv} and "
            f"{plural(character.terms, 'term')}).",
        )
    return age, minimum


def _check_service(ctx: _Context) -> None:
    character, service, open_services = ctx.character, ctx.service, ctx.rules.open_services
    if character.service and service is None:
        ctx.problems.error(
            "unknown_service",
            "service",
            f"Service {character.service!r} is not in the catalog; known services: "
            f"{', '.join(ctx.cat.services)}.",
        )
    if service is not None and open_services is not None and service.key not in open_services:
        ctx.problems.error(
            "service_not_open",
            "service",
            f"The {service.name} service is not open in this campaign; open services: "
            f"{', '.join(sorted(open_services)) or 'none'}.",
        )


def _check_terms(ctx: _Context, exp_dv: int) -> None:
    terms = ctx.character.terms
    if terms < exp_dv:
        ctx.problems.add(_terms_below_exp_dv(terms, exp_dv))


# Cached, like _budget_problems: formatting the message costs some twenty cache hits (timeit),
# and a character being built carries the warning on every check.
@lru_cache(maxsize=_CACHE_SIZE)
def _terms_below_exp_dv(terms: int, exp_dv: int) -> tuple[Problem, ...]:
    problems = _Problems()
    problems.warning(
        "terms_below_exp_dv",
        "terms",
        f"Only {plural(terms, 'term')} of service for EXP DV {exp_dv}; "
        f"EXP DV {exp_dv} usually reflects {plural(exp_dv, 'term')}.",
    )
    return tuple(problems.found)


def mustering_modifier(
    character: Character, service: Service | None, effective: Mapping[str, int], cat: Catalog
) -> int:
    """The cash-roll DM: Gambling-1+, or retirement from a Supplement 4 service; not cumulative."""
    lim = cat.limits
    modifier = 0
    if effective.get(GAMBLING, -1) >= lim.gambling_min_level:
        modifier = lim.gambling_dm
    if service is not None and service.retirement_dm and character.terms >= lim.retirement_terms:
        modifier = max(modifier, lim.retirement_dm)
    return modifier


def cash_for(service: Service, die: int, modifier: int, cat: Catalog) -> tuple[int, int]:
    """Table row and credits of one cash roll; rolls past the last row read the last row."""
    rows = cat.cash_table_rows
    row = min(max(die + modifier, rows[0]), rows[-1])
    return row, service.cash[row - rows[0]]


def _mustering_out(ctx: _Context, effective: Mapping[str, int]) -> MusteringOut:
    character, service = ctx.character, ctx.service
    mustering, problems = _mustering_parts(
        ctx.cat,
        service.key if service is not None else None,
        bool(character.service),
        character.terms,
        mustering_modifier(character, service, effective, ctx.cat),
        character.mustering_rolls,
    )
    if problems:
        ctx.problems.add(problems)
    given = character.mustering_credits
    if given is None:
        return mustering
    # The reader takes credits only in place of rolls, so nothing was rolled here.
    if character.kind != "npc":
        ctx.problems.error(
            "credits_given_to_pc",
            "mustering_out.credits",
            f"{wording.credits(given)} of credits are given, but a player character rolls for its "
            "mustering-out cash: only an NPC's credits are given.",
        )
        return mustering
    return mustering._replace(credits=given)


@lru_cache(maxsize=_CACHE_SIZE)
def _mustering_parts(
    cat: Catalog,
    service_key: str | None,
    has_service: bool,
    terms: int,
    modifier: int,
    rolls: tuple[int, ...],
) -> tuple[MusteringOut, tuple[Problem, ...]]:
    """The cash rolls on a service's table (``service_key`` None: no service, or one the
    catalog does not know, when ``has_service``) after ``terms``, and their problems."""
    lim = cat.limits
    service = cat.services[service_key] if service_key is not None else None
    problems = _Problems()
    allowed = min(lim.max_mustering_rolls, terms)
    if rolls:
        _check_mustering_rolls(problems, lim, has_service, terms, len(rolls), allowed)
    credits = 0
    results = []
    for index, die in enumerate(rolls):
        if not lim.die_min <= die <= lim.die_max:
            problems.error(
                "invalid_roll",
                f"mustering_out.rolls[{index}]",
                f"Mustering-out roll {index + 1} is {die}; a die shows {lim.die_min} to "
                f"{lim.die_max}.",
            )
        elif index < allowed and service is not None:
            row, cash = cash_for(service, die, modifier, cat)
            results.append(MusteringRoll(die=die, modifier=modifier, row=row, credits=cash))
            credits += cash
    mustering = MusteringOut(
        rolls_allowed=allowed, modifier=modifier, credits=credits, rolls=tuple(results)
    )
    return mustering, tuple(problems.found)


def _check_mustering_rolls(
    problems: _Problems, lim: Limits, has_service: bool, terms: int, count: int, allowed: int
) -> None:
    if not has_service:
        problems.error(
            "mustering_without_service",
            "mustering_out.rolls",
            f"{plural(count, 'mustering-out roll')} {verb(count, 'is', 'are')} recorded, but the "
            f"character has no service whose cash table {verb(count, 'it', 'they')} could be "
            "read on.",
        )
    if count > allowed:
        problems.error(
            "too_many_mustering_rolls",
            "mustering_out.rolls",
            f"{plural(count, 'mustering-out roll')} {verb(count, 'is', 'are')} recorded, "
            f"but {plural(terms, 'term')} {verb(terms, 'allows', 'allow')} {allowed} "
            f"(the lesser of {lim.max_mustering_rolls} and terms served).",
        )
