"""The rules engine: a character in, a report out, every problem found at once.

``check`` reads a :class:`~rules.model.Character` with the catalog's tables and builds a
:class:`~rules.report.Report`. Each rule is a small function over a :class:`_Context` (the
character, the catalog, the campaign's rules and the problems found so far); ``check`` calls
them in the order the sheet shows their problems. Report parts that follow from catalog data
alone (a species package's lines) are worked out once per catalog with ``functools.cache``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache, lru_cache
from types import MappingProxyType
from typing import Any, NamedTuple

from . import wording
from .catalog import Catalog, EquipmentItem, Limits, Service, SkillDef, Species, catalog
from .document import cascade_name, parse_document
from .model import Character, EquipmentEntry, HouseRules, SkillEntry, TraitEntry
from .notation import derived_trait_points, format_skill, format_trait
from .report import (
    ERROR,
    WARNING,
    AttributeValue,
    Carrying,
    Derived,
    Equipment,
    EquipmentLine,
    MusteringOut,
    MusteringRoll,
    Points,
    Problem,
    PsionicsSummary,
    Rank,
    Report,
    SkillLine,
    Skills,
    TraitLine,
)
from .wording import any_of, did_you_mean, plural, verb


@dataclass(slots=True)
class _Problems:
    """The problems found so far, in the order the sheet shows them."""

    found: list[Problem] = field(default_factory=list)
    errors: int = 0

    def error(self, code: str, path: str, message: str) -> None:
        self.errors += 1
        self.found.append(Problem(code=code, severity=ERROR, path=path, message=message))

    def warning(self, code: str, path: str, message: str) -> None:
        self.found.append(Problem(code=code, severity=WARNING, path=path, message=message))

    def add(self, problems: tuple[Problem, ...]) -> None:
        """Problems a cached rule found (the same ones for the same values)."""
        self.found.extend(problems)
        for problem in problems:
            if problem.severity == ERROR:
                self.errors += 1


@dataclass(slots=True)
class _Context:
    """What every rule of one check reads, and where it records problems."""

    character: Character
    cat: Catalog
    limits: Limits
    rules: HouseRules
    species: Species
    service: Service | None
    problems: _Problems


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


# -- attributes ----------------------------------------------------------------------------------


class _Attributes(NamedTuple):
    """The attribute values in catalog order, what they cost, and what follows from them
    alone: by code, the UPP, the derived attributes' formulas, and the problems of their
    ranges."""

    values: tuple[AttributeValue, ...]
    points: int
    levels: Mapping[str, AttributeValue]
    upp: str
    formulas: tuple[int, ...]
    problems: tuple[Problem, ...]


def _attributes(ctx: _Context) -> _Attributes:
    character = ctx.character
    attributes = _attribute_parts(ctx.cat, ctx.species.key, character.kind, character.attributes)
    if attributes.problems:
        ctx.problems.add(attributes.problems)
    return attributes


# The report parts below are pure functions of the catalog and a few small values, and a
# builder's keystroke re-checks a character with nearly all of them the same: each is cached.
# The caches are bounded, as some of the values come from the document.
_CACHE_SIZE = 4096


@lru_cache(maxsize=_CACHE_SIZE)
def _attribute_parts(
    cat: Catalog, species_key: str, kind: str, purchased_levels: tuple[int, ...]
) -> _Attributes:
    """The nine purchased levels of a ``kind`` of ``species_key`` worked out once: every
    keystroke of the builder that is not an attribute's re-checks the same nine."""
    lim = cat.limits
    species = cat.species[species_key]
    maxima = cat.purchase_maxima(kind)
    deltas = species.attribute_deltas
    problems = _Problems()
    values = []
    points = 0
    for position, (code, purchased) in enumerate(
        zip(cat.attribute_order, purchased_levels, strict=True)
    ):
        final = purchased + deltas[position]
        if not lim.purchase_min <= purchased <= maxima[position]:
            _purchase_out_of_range(problems, lim, code, purchased, maxima[position])
        elif final < lim.final_min:
            _final_level_too_low(problems, lim, species, code, purchased, deltas[position])
        value = _attribute_value(cat, code, purchased, final)
        values.append(value)
        points += value.cost
    levels = MappingProxyType(dict(zip(cat.attribute_order, values, strict=True)))
    return _Attributes(
        values=tuple(values),
        points=points,
        levels=levels,
        upp=_upp(cat, levels),
        formulas=_formulas(levels),
        problems=tuple(problems.found),
    )


@lru_cache(maxsize=_CACHE_SIZE)
def _attribute_value(cat: Catalog, code: str, purchased: int, final: int) -> AttributeValue:
    """An attribute bought at ``purchased`` and ``final`` after the species package."""
    lim = cat.limits
    dm, dv, digit = cat.level_row(final)
    return AttributeValue(
        code=code,
        purchased=purchased,
        level=final,
        hex=digit,
        dm=dm,
        dv=dv,
        cost=(purchased - lim.attribute_average) * lim.points_per_attribute_level,
    )


def _purchase_out_of_range(
    problems: _Problems, lim: Limits, code: str, purchased: int, highest: int
) -> None:
    npc_only = code == "SOC" and highest < purchased <= lim.npc_soc_max
    problems.error(
        "attribute_out_of_range",
        f"attributes.{code}",
        f"{code} {purchased} is outside the purchasable range {lim.purchase_min}-{highest}"
        + (f" (SOC up to {lim.npc_soc_max} is for NPCs only)." if npc_only else "."),
    )


def _final_level_too_low(
    problems: _Problems, lim: Limits, species: Species, code: str, purchased: int, delta: int
) -> None:
    problems.error(
        "attribute_out_of_range",
        f"attributes.{code}",
        f"{code} {purchased} becomes {purchased + delta} after the {species.name} package "
        f"({delta:+d}); the final level must be at least {lim.final_min}.",
    )


def _upp(cat: Catalog, levels: Mapping[str, AttributeValue]) -> str:
    """The attributes' hex digits group by group (body, mind, background), joined by dashes."""
    return "-".join(
        "".join(levels[code].hex for code in cat.attribute_groups[group])
        for group in ("body", "mind", "background")
    )


def purchase_steps(report: Report, *, cat: Catalog | None = None) -> tuple[tuple[bool, bool], ...]:
    """Per attribute of the report, whether buying it one level higher, and one level lower,
    is a step the rules allow this character: to a level inside its kind's purchasable range,
    with a final level (after its species package) no lower than the floor; or, from a level
    outside that range, a step back towards it."""
    cat = cat or catalog()
    species = cat.species[report.species]
    steps = []
    for value, (lowest, highest) in zip(
        report.attributes, _purchasable(cat, species.key, report.kind), strict=True
    ):
        purchased = value.purchased
        if lowest > highest:  # no level of this attribute is allowed at all
            steps.append((False, False))
            continue
        up = lowest <= purchased + 1 <= highest or purchased < lowest
        down = lowest <= purchased - 1 <= highest or purchased > highest
        steps.append((up, down))
    return tuple(steps)


@cache
def _purchasable(cat: Catalog, species: str, kind: str) -> tuple[tuple[int, int], ...]:
    """Per attribute position, the lowest and highest level a ``kind`` of ``species`` may buy:
    inside the purchasable range, with a final level no lower than the floor."""
    lim = cat.limits
    deltas = cat.species[species].attribute_deltas
    return tuple(
        (max(lim.purchase_min, lim.final_min - delta), highest)
        for delta, highest in zip(deltas, cat.purchase_maxima(kind), strict=True)
    )


# -- derived attributes --------------------------------------------------------------------------


def _formulas(levels: Mapping[str, AttributeValue]) -> tuple[int, ...]:
    """DEF INI MOV TGH LIF WND by their formulas: from the DVs, LIF from the levels."""
    strength, dex, end = levels["STR"], levels["DEX"], levels["END"]
    body = (strength.dv + end.dv) // 2
    return (
        dex.dv,
        (dex.dv + levels["AWA"].dv) // 2,
        dex.dv + body,
        body,
        strength.level + end.level + dex.level,
        strength.dv + end.dv,
    )


def _at_floors(formulas: tuple[int, ...], bonus: Mapping[str, int], cat: Catalog) -> Derived:
    """The derived attributes of the formulas plus derived-attribute traits, at their floors."""
    if bonus:
        formulas = tuple(
            value + bonus.get(code, 0)
            for value, code in zip(formulas, cat.derived_order, strict=True)
        )
    return _floored(cat, formulas)


# Cached though it is six max() calls: building the Derived again costs some twenty cache hits
# (timeit), and every check calls it.
@lru_cache(maxsize=_CACHE_SIZE)
def _floored(cat: Catalog, values: tuple[int, ...]) -> Derived:
    return Derived(
        *(max(value, floor) for value, floor in zip(values, cat.derived_floor_values, strict=True))
    )


def derived_attributes(
    levels: Mapping[str, int],
    bonus: Mapping[str, int] | None = None,
    *,
    cat: Catalog | None = None,
) -> Derived:
    """The derived attributes of final attribute levels, by the formulas ``check`` uses.

    ``bonus`` adds derived-attribute traits (``{"INI": 1}``); floors apply after it. In-play
    rules call this for a wounded character's lowered levels, so there is one set of formulas.
    """
    cat = cat or catalog()
    values = {
        code: _attribute_value(cat, code, levels[code], levels[code])
        for code in ("STR", "DEX", "END", "AWA")
    }
    return _at_floors(_formulas(values), bonus or {}, cat)


# -- traits --------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Traits:
    """The player's traits: their lines, perk and flaw points, and derived-attribute changes."""

    lines: list[TraitLine] = field(default_factory=list)
    perks: int = 0
    flaws: int = 0
    bonus: dict[str, int] = field(default_factory=dict)

    def add_points(self, points: int) -> None:
        if points < 0:
            self.flaws += points
        else:
            self.perks += points

    def add_changes(self, trait: TraitEntry) -> None:
        for code, amount in trait.derived:
            self.bonus[code] = self.bonus.get(code, 0) + amount


def _player_traits(ctx: _Context, formulas: tuple[int, ...]) -> _Traits:
    """The player's trait lines, perk and flaw points, and the derived-attribute changes.

    Derived-attribute flaws are credited only where they leave the attribute at 1 or more
    (ruling 15a), weighed once every perk has raised the attributes; ``formulas`` are the
    derived attributes before any trait.
    """
    cat = ctx.cat
    traits = _Traits()
    derived_flaws: list[tuple[int, int, TraitEntry, int]] = []  # line, index, trait, points
    for index, trait in enumerate(ctx.character.traits):
        listed = (
            None
            if trait.derived
            else _listed_trait_line(
                cat, trait.type, trait.name, trait.level, trait.frequency, trait.control
            )
        )
        if listed is not None:  # a trait of the perk cost or flaw value table
            traits.add_points(listed.points)
            traits.lines.append(listed)
            continue
        points = _trait_points(ctx, trait, index)
        if points is None:
            traits.lines.append(_trait_line(trait, "[invalid]", 0, None, valid=False))
            continue
        line = _trait_line(trait, format_trait(trait, points, cat=cat), points, None)
        if trait.type in cat.flaw_types:
            derived_flaws.append((len(traits.lines), index, trait, points))
        else:
            traits.add_points(points)
            traits.add_changes(trait)
        traits.lines.append(line)
    for position, index, trait, points in derived_flaws:
        if _flaw_within_floor(ctx, trait, index, formulas, traits.bonus):
            traits.add_points(points)
            traits.add_changes(trait)
        else:
            traits.lines[position] = _trait_line(trait, "[invalid]", 0, None, valid=False)
    return traits


def _trait_line(
    trait: TraitEntry, notation: str, points: int, score: int | None, *, valid: bool = True
) -> TraitLine:
    return TraitLine(
        notation=notation,
        name=trait.name,
        points=points,
        type=trait.type,
        source="player",
        control_score=score,
        valid=valid,
    )


# Keyed by the trait's fields rather than the trait: a frozen dataclass hashes in Python, field
# by field, on every look-up.
@lru_cache(maxsize=_CACHE_SIZE)
def _listed_trait_line(
    cat: Catalog,
    trait_type: str,
    name: str,
    level: str | None,
    frequency: str | None,
    control: bool,
) -> TraitLine | None:
    """The line of a trait by its level and frequency, with its control score where it
    applies; None when the tables do not list it."""
    points = cat.trait_points(trait_type, level or "", frequency or "")
    if points is None:
        return None
    trait = TraitEntry(
        type=trait_type, name=name, level=level, frequency=frequency, control=control
    )
    score = cat.control_score(level or "") if control else None
    return _trait_line(trait, format_trait(trait, points, cat=cat), points, score)


def _flaw_within_floor(
    ctx: _Context,
    trait: TraitEntry,
    index: int,
    formulas: tuple[int, ...],
    bonus: Mapping[str, int],
) -> bool:
    """Whether a derived-attribute flaw leaves every attribute it lowers at the floor or above
    (ruling 15a), from the formulas with ``bonus`` (perks and flaws credited so far); if not,
    a ``derived_below_floor`` problem for each attribute it would take below."""
    cat = ctx.cat
    floor = cat.derived_flaw_floor
    lowered: dict[str, int] = {}
    for code, amount in trait.derived:
        lowered[code] = lowered.get(code, 0) + amount
    within = True
    for code, amount in lowered.items():
        before = formulas[cat.derived_order.index(code)] + bonus.get(code, 0)
        if before + amount < floor:
            within = False
            ctx.problems.error(
                "derived_below_floor",
                f"traits[{index}].derived.{code}",
                f"Flaw {trait.name!r} lowers {code} by {-amount}, from {before} to "
                f"{before + amount}; no flaw may take a derived attribute below {floor}, so "
                "it is not credited.",
            )
    return within


def _trait_points(ctx: _Context, trait: TraitEntry, index: int) -> int | None:
    """Signed points of a trait, or None (with a trait_invalid problem) when off the tables."""
    cat = ctx.cat
    if not trait.derived:
        points = cat.trait_points(trait.type, trait.level or "", trait.frequency or "")
        if points is not None:
            return points
    path = f"traits[{index}]"
    is_perk = trait.type in cat.perk_types
    if not is_perk and trait.type not in cat.flaw_types:
        known = ", ".join((*cat.perk_types, *cat.flaw_types))
        ctx.problems.error(
            "trait_invalid",
            f"{path}.type",
            f"Trait {trait.name!r} has type {trait.type!r}; use one of {known}.",
        )
        return None
    kind = "perk" if is_perk else "flaw"
    if trait.derived:
        return _derived_trait_points(ctx, trait, path, kind)
    levels = tuple(cat.perk_levels if is_perk else cat.flaw_levels)
    named = any_of(levels)
    if trait.level is None:  # nor derived-attribute changes: either would do
        ctx.problems.error(
            "trait_invalid",
            f"{path}.level",
            f"Trait {trait.name!r} ({trait.type}) gives no level; a {kind} takes level {named} and "
            "a frequency, or derived-attribute changes.",
        )
    elif trait.level not in levels:
        ctx.problems.error(
            "trait_invalid",
            f"{path}.level",
            f"Trait {trait.name!r} ({trait.type}) has level {trait.level!r}; a {kind} takes "
            f"level {named}.",
        )
    else:
        given = (
            "gives no frequency"
            if trait.frequency is None
            else f"has frequency {trait.frequency!r}"
        )
        ctx.problems.error(
            "trait_invalid",
            f"{path}.frequency",
            f"Trait {trait.name!r} {given}; use R (rare), S (seldom) or O (often).",
        )
    return None


def _derived_trait_points(ctx: _Context, trait: TraitEntry, path: str, kind: str) -> int | None:
    if trait.level is not None or trait.frequency is not None:
        ctx.problems.error(
            "trait_invalid",
            path,
            f"Trait {trait.name!r} gives both a level and frequency and derived-attribute "
            "changes; a trait has one or the other.",
        )
        return None
    points = derived_trait_points(trait, cat=ctx.cat)
    if points is None:
        direction = "raise (positive numbers)" if kind == "perk" else "lower (negative numbers)"
        changes = ", ".join(f"{code} by {amount:+d}" for code, amount in trait.derived)
        ctx.problems.error(
            "trait_invalid",
            f"{path}.derived",
            f"Trait {trait.name!r} changes {changes}; a {kind} must {direction} only "
            f"{', '.join(ctx.cat.derived_trait_points)}.",
        )
    return points


def _check_trait_count(ctx: _Context, rank: Rank) -> None:
    """At least one trait per term served (ruling 16), where the campaign keeps that rule."""
    character = ctx.character
    if not ctx.rules.one_trait_per_term:
        return
    count = len(character.traits) + (rank.level > 0)
    if count < character.terms:
        ctx.problems.error(
            "too_few_traits",
            "traits",
            f"{plural(character.terms, 'term')} of service "
            f"{verb(character.terms, 'needs', 'need')} at least "
            f"{plural(character.terms, 'trait')}; the character has {count} "
            "(perks, flaws and former rank count).",
        )


# -- former rank ---------------------------------------------------------------------------------


def _rank(ctx: _Context, exp_dv: int) -> tuple[Rank, TraitLine | None, int]:
    """The former rank, its trait line (None below rank 1) and its points."""
    lim = ctx.limits
    level = ctx.character.rank
    if not 0 <= level <= lim.rank_max:
        ctx.problems.error(
            "rank_out_of_range", "rank", f"Former rank {level} is outside 0-{lim.rank_max}."
        )
    else:
        _check_rank(ctx, level, exp_dv)
    service_key = ctx.service.key if ctx.service is not None else None
    rank, line = _rank_parts(ctx.cat, service_key, level)
    return rank, line, max(level, 0) * lim.points_per_rank


def _check_rank(ctx: _Context, level: int, exp_dv: int) -> None:
    terms = ctx.character.terms
    if level > terms:
        ctx.problems.error(
            "rank_exceeds_terms",
            "rank",
            f"Former rank {level} needs at least {plural(level, 'term')} of service; "
            f"the character served {terms}.",
        )
    if level > exp_dv:
        ctx.problems.error(
            "rank_exceeds_exp_dv", "rank", f"Former rank {level} is above EXP DV {exp_dv}."
        )
    if level > 0:
        _check_rank_table(ctx, level)
    highest = ctx.rules.max_former_rank
    if highest is not None and level > highest:
        ctx.problems.error(
            "rank_above_campaign_max",
            "rank",
            f"Former rank {level} is above this campaign's highest former rank {highest}.",
        )


def _check_rank_table(ctx: _Context, level: int) -> None:
    """Former rank is rank in the character's service, on that service's rank table (ruling
    15b). An unknown service is reported as such, not here."""
    service = ctx.service
    if not ctx.character.service:
        message = f"Former rank {level} is rank in a service, and the character has none."
    elif service is None or level <= service.highest_rank:
        return
    elif service.highest_rank == 0:
        message = f"Former rank {level} is not possible: the {service.name} service has no ranks."
    else:
        message = (
            f"Former rank {level} is above the {service.name} service's highest rank, "
            f"{service.highest_rank}."
        )
    ctx.problems.error("rank_not_in_service", "rank", message)


@lru_cache(maxsize=_CACHE_SIZE)
def _rank_parts(cat: Catalog, service_key: str | None, level: int) -> tuple[Rank, TraitLine | None]:
    """A former rank in a service (or none) and, from rank 1, its line among the traits."""
    service = cat.services[service_key] if service_key is not None else None
    title = service.rank_title(level) if service is not None and level > 0 else None
    rank = Rank(level=level, title=title)
    if level <= 0:
        return rank, None
    points = level * cat.limits.points_per_rank
    label = f"Former rank {level}"
    if title:
        label += f" ({title}, {service.name})"  # type: ignore[union-attr]  # a title has one
    elif service is not None:
        label += f" ({service.name})"
    line = TraitLine(
        notation=f"[Rank-{level} {points}]",
        name=label,
        points=points,
        type="rank",
        source="rank",
        control_score=None,
        valid=True,
    )
    return rank, line


# -- the species package -------------------------------------------------------------------------


def _package(ctx: _Context) -> tuple[tuple[TraitLine, ...], int]:
    """The species package's trait lines and points, without the flaws bought off with IP."""
    lines, points = _package_parts(ctx.cat, ctx.species.key)
    bought_off = ctx.character.package_flaws_bought_off
    if not bought_off:
        return lines, points
    flaws = {line.name: line for line in lines if line.type in ctx.cat.flaw_types}
    gone: set[str] = set()
    for index, name in enumerate(bought_off):
        line = flaws.get(name)
        if line is None:
            known = ", ".join(flaws) or "none"
            ctx.problems.error(
                "unknown_package_flaw",
                f"package_flaws_bought_off[{index}]",
                f"{name!r} is not a flaw of the {ctx.species.name} package (its flaws: {known}).",
            )
            continue
        # A flaw bought off is gone, and the points it gave back with it.
        gone.add(name)
        points -= line.points
    return tuple(line for line in lines if line.name not in gone), points


@cache
def _package_parts(cat: Catalog, species_key: str) -> tuple[tuple[TraitLine, ...], int]:
    """A species package's trait lines and its points in all (the same for every character)."""
    lim = cat.limits
    species = cat.species[species_key]
    lines = []
    for package_trait in species.traits:
        trait = TraitEntry(
            type=package_trait.type,
            name=package_trait.name,
            level=package_trait.level,
            frequency=package_trait.frequency,
            control=package_trait.control,
        )
        points = cat.trait_points(trait.type, package_trait.level, package_trait.frequency) or 0
        lines.append(
            TraitLine(
                notation=format_trait(trait, points, cat=cat),
                name=trait.name,
                points=points,
                type=trait.type,
                source="package",
                control_score=cat.control_score(package_trait.level) if trait.control else None,
                valid=True,
            )
        )
    points = sum(species.attribute_changes.values()) * lim.points_per_attribute_level
    points += sum(line.points for line in lines)
    points += sum(s.level for s in species.skills) * lim.points_per_skill_level
    return tuple(lines), points


# -- skills --------------------------------------------------------------------------------------

# Skills whose level another rule reads (the cash-roll DM, Surgery against Medical); only these
# are tracked in the "effective levels" the skill pass returns.
GAMBLING, SURGERY, MEDICAL = "Gambling", "Surgery", "Medical"
_LEVELS_READ_BY_OTHER_RULES = frozenset({GAMBLING, SURGERY, MEDICAL})

SkillKey = tuple[str, str] | str  # (skill, cascade in lower case), or the skill alone


class _Granted(NamedTuple):
    """A skill had without buying: automatic, or from the species package."""

    skill: str
    cascade: str | None
    level: int
    source: str  # "automatic" or "package"
    line: SkillLine  # its line where the document does not list the skill


def _granted_skill(
    cat: Catalog, skill: str, cascade: str | None, level: int, source: str
) -> _Granted:
    line = _skill_line(cat, skill, cascade, (), level, 0, level, source)
    return _Granted(skill=skill, cascade=cascade, level=level, source=source, line=line)


@dataclass(slots=True)
class _SkillTally:
    """The skill pass so far: lines, counts, and the levels other rules read."""

    max_level: int
    granted: Mapping[SkillKey, _Granted]
    problems: _Problems = field(default_factory=_Problems)
    lines: list[SkillLine] = field(default_factory=list)
    seen: dict[SkillKey, int] = field(default_factory=dict)  # key -> index of its first entry
    used_granted: set[SkillKey] = field(default_factory=set)
    effective: dict[str, int] = field(default_factory=dict)
    counted: int = 0
    zero_level_lines: list[int] = field(default_factory=list)  # positions in ``lines``
    points: int = 0

    def read_level(self, skill: str, level: int) -> None:
        if skill in _LEVELS_READ_BY_OTHER_RULES and self.effective.get(skill, -1) < level:
            self.effective[skill] = level


class _SkillResult(NamedTuple):
    summary: Skills
    points: int
    effective: Mapping[str, int]  # the levels other rules read, by skill
    problems: tuple[Problem, ...]


def _skills(ctx: _Context, levels: Mapping[str, AttributeValue]) -> _SkillResult:
    character = ctx.character
    result = _skill_pass(
        ctx.cat,
        character.skills,
        ctx.species.key,
        character.homeworld,
        character.native_language,
        character.native_culture,
        levels["INT"].dv,
        levels["EDU"],
        levels["EXP"],
    )
    if result.problems:
        ctx.problems.add(result.problems)
    return result


# The whole pass over the skills is cached, like the attributes': it is the largest part of a
# check, and a builder's keystroke anywhere but the skills re-checks the same skills. The
# parser gives back the same entry objects, so a hit hashes each entry but compares none.
@lru_cache(maxsize=_CACHE_SIZE)
def _skill_pass(
    cat: Catalog,
    skills: tuple[SkillEntry, ...],
    species_key: str,
    homeworld: str | None,
    language: str | None,
    culture: str | None,
    int_dv: int,
    edu: AttributeValue,
    exp: AttributeValue,
) -> _SkillResult:
    """The skills' lines, points and problems, and the levels other rules read, for a character
    of ``species_key`` with that background, INT DV, EDU and EXP."""
    lim = cat.limits
    max_level = max(edu.dv, exp.dv)
    granted = _granted(cat, species_key, homeworld, language, culture, int_dv, edu.dv, max_level)
    tally = _SkillTally(max_level=max_level, granted=granted)
    for index, entry in enumerate(skills):
        _skill_entry(cat, tally, index, entry, edu, exp)
    _granted_lines(tally)
    zero_free = exp.dv
    # The first level-0 skills listed are the free ones; each past them carries its point on
    # its own line, so the lines add up to the skills' points.
    for position in tally.zero_level_lines[max(zero_free, 0) :]:
        line = tally.lines[position]
        tally.lines[position] = line._replace(cost=line.cost + lim.points_per_extra_zero_level)
        tally.points += lim.points_per_extra_zero_level
    total_allowed = edu.level + exp.level
    if tally.counted > total_allowed:
        tally.problems.error(
            "skill_total_exceeded",
            "skills",
            f"{plural(tally.counted, 'skill level')} {verb(tally.counted, 'is', 'are')} "
            f"counted, above the total of {total_allowed} "
            f"(EDU {edu.level} + EXP {exp.level}).",
        )
    if SURGERY in tally.effective:
        _check_surgery(tally.problems, skills, tally.effective)
    summary = Skills(
        max_level=max_level,
        total_allowed=total_allowed,
        total_used=tally.counted,
        zero_level_free=zero_free,
        zero_level_used=len(tally.zero_level_lines),
        lines=tuple(tally.lines),
    )
    return _SkillResult(
        summary=summary,
        points=tally.points,
        effective=MappingProxyType(tally.effective),
        problems=tuple(tally.problems.found),
    )


@lru_cache(maxsize=_CACHE_SIZE)
def _granted(
    cat: Catalog,
    species_key: str,
    homeworld: str | None,
    language: str | None,
    culture: str | None,
    int_dv: int,
    edu_dv: int,
    max_level: int,
) -> Mapping[SkillKey, _Granted]:
    """The automatic skills and the species package's, keyed as the document's skills are.

    Automatic levels are capped at the maximum skill level; where the package grants the same
    skill, the higher level stands. Read-only, as every check of these values shares it.
    """
    species = cat.species[species_key]
    grounds_of = {
        "homeworld": (homeworld, int_dv),
        "native_language": (language or species.native_language, edu_dv),
        "native_culture": (culture or species.native_culture, int_dv),
    }
    found: dict[SkillKey, _Granted] = {}
    for skill, grounds in cat.automatic_skills:
        cascade, level = grounds_of.get(grounds, (None, 0))
        if cascade:
            found[(skill, cascade.lower())] = _granted_skill(
                cat, skill, cascade, min(level, max_level), "automatic"
            )
    for granted in species.skills:
        key: SkillKey = (
            (granted.skill, granted.cascade.lower()) if granted.cascade else granted.skill
        )
        level = min(granted.level, max_level)
        previous = found.get(key)
        if previous is None or previous.level < level:
            found[key] = _granted_skill(cat, granted.skill, granted.cascade, level, "package")
    return MappingProxyType(found)


def _skill_entry(
    cat: Catalog,
    tally: _SkillTally,
    index: int,
    entry: SkillEntry,
    edu: AttributeValue,
    exp: AttributeValue,
) -> None:
    """Check one skill of the document and add its line to the tally."""
    facts = _entry_facts(cat, index, entry.skill, entry.level, entry.cascade, entry.specialties)
    if facts.problems:
        tally.problems.add(facts.problems)
    first = tally.seen.setdefault(facts.key, index)
    if first != index:
        _duplicate_skill(tally.problems, index, entry, first)
    line = facts.line
    if entry.level < 0:
        tally.problems.error(
            "skill_level_out_of_range",
            f"skills[{index}].level",
            f"{entry.skill} has level {entry.level}; skill levels start at 0.",
        )
    else:
        granted = tally.granted.get(facts.key)
        if granted is not None:
            tally.used_granted.add(facts.key)
            line = _granted_entry_line(cat, entry, granted)
        elif entry.level == 0:
            tally.zero_level_lines.append(len(tally.lines))
        if line.counted and line.level > tally.max_level:
            tally.problems.error(
                "skill_level_above_max",
                f"skills[{index}].level",
                f"{format_skill(entry.skill, line.level, entry.cascade)} is above the maximum "
                f"skill level {tally.max_level} (the higher of EDU DV {edu.dv} and "
                f"EXP DV {exp.dv}).",
            )
        if facts.name in _LEVELS_READ_BY_OTHER_RULES:
            tally.read_level(facts.name, line.level)
    tally.lines.append(line)
    tally.counted += line.counted
    tally.points += line.cost


def _granted_entry_line(cat: Catalog, entry: SkillEntry, granted: _Granted) -> SkillLine:
    """The line of a skill the document lists that was also had without buying: the levels
    bought above the free level count, and a level at or below it adds nothing."""
    free = granted.level
    level, counted = (entry.level, entry.level - free) if entry.level > free else (free, 0)
    return _skill_line(
        cat, entry.skill, entry.cascade, entry.specialties, level, counted, free, granted.source
    )


class _EntryFacts(NamedTuple):
    """What the catalog says of a skill entry, whatever the character's other values."""

    name: str  # the skill in keys
    key: SkillKey
    problems: tuple[Problem, ...]  # an unknown skill, cascade or specialty
    # The entry's line when nothing is granted of the skill: every level bought and counted
    # (none of a level below 0, which is a problem of its own).
    line: SkillLine


@lru_cache(maxsize=_CACHE_SIZE)
def _entry_facts(
    cat: Catalog,
    index: int,
    skill: str,
    level: int,
    cascade: str | None,
    specialties: tuple[str, ...],
) -> _EntryFacts:
    """The skill entry at ``index`` against the skills table: the same for every check of it."""
    definition = cat.find_skill(skill)
    problems = _Problems()
    if definition is None or cascade or specialties or definition.is_cascade:
        entry = SkillEntry(skill=skill, level=level, cascade=cascade, specialties=specialties)
        _check_skill_definition(problems, cat, entry, index, definition)
    # The catalog's spelling names the skill and a fixed list's cascade in every key, however
    # the entry spells them ("sword" is Blade Combat's "swords": a character built in code, or
    # changed by a purchase, is not read by the document parser that would write it so); open
    # cascades are free text, matched without case or extra spaces.
    name = definition.name if definition is not None else skill.lower()
    key: SkillKey = (name, cascade_name(definition, cascade).lower()) if cascade else name
    line = _skill_line(cat, skill, cascade, specialties, level, max(level, 0), 0, "player")
    return _EntryFacts(name=name, key=key, problems=tuple(problems.found), line=line)


@lru_cache(maxsize=_CACHE_SIZE)
def _skill_line(
    cat: Catalog,
    skill: str,
    cascade: str | None,
    specialties: tuple[str, ...],
    level: int,
    counted: int,
    free_level: int,
    source: str,
) -> SkillLine:
    """The line of a skill at ``level``: ``counted`` levels bought above the ``free_level``
    that came without points (automatic or from the package), and its specialties."""
    lim = cat.limits
    return SkillLine(
        name=format_skill(skill, level, cascade, specialties),
        skill=skill,
        cascade=cascade,
        level=level,
        specialties=specialties,
        cost=counted * lim.points_per_skill_level + len(specialties) * lim.points_per_specialty,
        counted=counted,
        automatic=source != "player",
        free_level=free_level,
        source=source,
    )


def _duplicate_skill(problems: _Problems, index: int, entry: SkillEntry, first: int) -> None:
    problems.error(
        "duplicate_skill",
        f"skills[{index}]",
        f"{format_skill(entry.skill, entry.level, entry.cascade)} is listed twice (also as "
        f"skill {first + 1}); list each skill once.",
    )


def _granted_lines(tally: _SkillTally) -> None:
    """The lines of the skills had without buying that the document does not list."""
    for key, granted in tally.granted.items():
        if key in tally.used_granted:
            continue
        tally.read_level(granted.skill, granted.level)
        tally.lines.append(granted.line)


def _check_surgery(
    problems: _Problems, skills: tuple[SkillEntry, ...], effective: Mapping[str, int]
) -> None:
    surgery = effective[SURGERY]
    medical = effective.get(MEDICAL)
    if medical is not None and surgery <= medical:
        return
    index = next((i for i, s in enumerate(skills) if s.skill.lower() == SURGERY.lower()), 0)
    has = f"Medical-{medical}" if medical is not None else "no Medical skill"
    problems.error(
        "surgery_exceeds_medical",
        f"skills[{index}].level",
        f"Surgery-{surgery} needs Medical at level {surgery} or more; the character has {has}.",
    )


def _check_skill_definition(
    problems: _Problems, cat: Catalog, entry: SkillEntry, index: int, definition: SkillDef | None
) -> None:
    """An unknown skill, or a cascade or specialties the skill does not take."""
    if definition is None:
        problems.error(
            "unknown_skill",
            f"skills[{index}].skill",
            f"Skill {entry.skill!r} is not one of the {len(cat.skills)} skills in the catalog."
            + did_you_mean(cat.skills_like(entry.skill)),
        )
        return
    _check_cascade(problems, cat, entry, index, definition)
    if entry.specialties:
        _check_specialties(problems, cat, entry, index, definition)


def _check_cascade(
    problems: _Problems, cat: Catalog, entry: SkillEntry, index: int, definition: SkillDef
) -> None:
    cascade = entry.cascade
    if definition.kind != "cascade":
        if cascade:
            problems.error(
                "unknown_cascade",
                f"skills[{index}].cascade",
                f"{format_skill(entry.skill, entry.level, cascade)} names cascade "
                f"{cascade!r}, but {definition.name} has no cascades.",
            )
    elif not cascade:
        choices = ", ".join(definition.cascades) or "any the referee approves"
        problems.error(
            "cascade_required",
            f"skills[{index}].cascade",
            f"{definition.name}-{entry.level} needs a cascade ({choices}).",
        )
    elif not definition.open and definition.find_cascade(cascade) is None:
        problems.error(
            "unknown_cascade",
            f"skills[{index}].cascade",
            f"{format_skill(entry.skill, entry.level, cascade)} names cascade "
            f"{cascade!r}; {definition.name} has {', '.join(definition.cascades)}.",
        )


def _check_specialties(
    problems: _Problems, cat: Catalog, entry: SkillEntry, index: int, definition: SkillDef
) -> None:
    if definition.kind != "spec":
        problems.error(
            "specialty_not_allowed",
            f"skills[{index}].specialties",
            f"{format_skill(entry.skill, entry.level, entry.cascade)} lists "
            f"{plural(len(entry.specialties), 'specialty', 'specialties')}, but "
            f"{definition.name} has none.",
        )
        return
    for number, specialty in enumerate(entry.specialties):
        if definition.find_specialty(specialty) is None:
            problems.error(
                "unknown_specialty",
                f"skills[{index}].specialties[{number}]",
                f"{format_skill(entry.skill, entry.level, entry.cascade)} names specialty "
                f"{specialty!r}; {definition.name} has "
                f"{', '.join(s.name for s in definition.specialties)}.",
            )
    minimum = cat.limits.specialty_min_level
    if entry.level < minimum:
        problems.error(
            "specialty_requires_level_2",
            f"skills[{index}].level",
            f"{format_skill(entry.skill, entry.level, entry.cascade)} has "
            f"{plural(len(entry.specialties), 'specialty', 'specialties')}, which "
            f"{verb(len(entry.specialties), 'needs', 'need')} "
            f"{definition.name} at level {minimum} or more.",
        )


# -- psionics, age, service and terms ------------------------------------------------------------


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


# -- points --------------------------------------------------------------------------------------


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


# -- mustering out -------------------------------------------------------------------------------


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


# -- equipment -----------------------------------------------------------------------------------


def _find_item(ctx: _Context, entry: EquipmentEntry, index: int) -> EquipmentItem | None:
    """The catalog item an entry names, or None with the problem recorded."""
    candidates = ctx.cat.equipment_named(entry.item)
    natural = ctx.cat.natural_weapon_named(entry.item) if not candidates else None
    if natural is not None:
        # The melee table lists it, so "not in the tables" would be untrue.
        ctx.problems.error(
            "unknown_equipment",
            f"equipment[{index}].item",
            f"{natural.name} is a natural weapon, part of a body, and is not bought.",
        )
        return None
    if not candidates:
        ctx.problems.error(
            "unknown_equipment",
            f"equipment[{index}].item",
            f"{entry.item!r} is not in the armor, melee weapon, ranged weapon, ammunition or "
            "accessory tables.",
        )
        return None
    if entry.tl is not None:
        for item in candidates:
            if item.tl == entry.tl:
                return item
        ctx.problems.error(
            "unknown_equipment",
            f"equipment[{index}].tl",
            f"{entry.item} is not in the catalog at TL {entry.tl}; it is at TL "
            f"{_tech_levels(candidates)}.",
        )
        return None
    if len(candidates) > 1:
        ctx.problems.error(
            "ambiguous_equipment",
            f"equipment[{index}].tl",
            f"{entry.item} is in the catalog at {len(candidates)} tech levels (TL "
            f"{_tech_levels(candidates)}); give the tech level.",
        )
        return None
    return candidates[0]


def _tech_levels(items: tuple[EquipmentItem, ...]) -> str:
    return ", ".join(str(item.tl) for item in items)


@lru_cache(maxsize=_CACHE_SIZE)
def _equipment_line(item: EquipmentItem, quantity: int, attack_dm: int) -> EquipmentLine:
    return EquipmentLine(
        item=item.name,
        tl=item.tl,
        table=item.table,
        quantity=quantity,
        cost=(item.cost or 0) * quantity,
        weight_kg=round(item.weight_kg * quantity, 3),
        attack_dm=attack_dm,
    )


def _unknown_line(entry: EquipmentEntry) -> EquipmentLine:
    return EquipmentLine(
        item=entry.item,
        tl=entry.tl,
        table=None,
        quantity=entry.quantity,
        cost=0,
        weight_kg=0.0,
        attack_dm=0,
    )


@dataclass(frozen=True, slots=True)
class WornArmor:
    """The armor a character wears: one body armor, reflec worn under it, a helmet (which FFA
    personal combat never counts: it has no hit locations)."""

    body: EquipmentItem | None = None
    under: EquipmentItem | None = None
    head: EquipmentItem | None = None

    @property
    def pieces(self) -> tuple[EquipmentItem, ...]:
        return tuple(item for item in (self.body, self.under, self.head) if item is not None)


def _best(items: Iterable[EquipmentItem]) -> EquipmentItem | None:
    """The best AV of ``items``, the first listed of equals; None for none."""
    best = None
    for item in items:
        if best is None or (item.av or 0) > (best.av or 0):
            best = item
    return best


def worn_armor(
    entries: Iterable[EquipmentEntry], items: Iterable[EquipmentItem | None]
) -> WornArmor:
    """The armor worn of the armor carried (``items``: the catalog's item of each entry, None
    where it has none). With no armor marked worn, the best body armor carried (the first
    listed of equals); else the armor marked: its body armor (the best, if several are marked,
    which the report refuses), reflec marked with another body armor under it, a helmet."""
    armor = [
        (entry, item)
        for entry, item in zip(entries, items, strict=True)
        if item is not None and item.is_worn_armor
    ]
    if not any(entry.worn for entry, _ in armor):
        return WornArmor(body=_best(item for _, item in armor if item.is_body_armor))
    marked = [item for entry, item in armor if entry.worn]
    outer = _best(item for item in marked if item.is_body_armor and not item.worn_under)
    under = _best(item for item in marked if item.is_body_armor and item.worn_under)
    return WornArmor(
        body=outer or under,
        under=under if outer is not None else None,
        head=_best(item for item in marked if item.is_head_armor),
    )


def _check_worn(
    ctx: _Context, entries: tuple[EquipmentEntry, ...], items: list[EquipmentItem | None]
) -> None:
    """Marks the armor worn cannot carry: a mark on what is not armor, two body armors worn
    at once (but for reflec under another), two helmets."""
    seen: dict[str, EquipmentItem] = {}  # the first marked worn of each place on the body
    for index, (entry, item) in enumerate(zip(entries, items, strict=True)):
        if not entry.worn or item is None or item.row.get("add_on"):
            continue  # an add-on is worn with the armor it fits
        path = f"equipment[{index}].worn"
        if not item.is_worn_armor:
            ctx.problems.error(
                "worn_not_armor", path, f"{item.label} is not armor: only armor is worn."
            )
            continue
        place = "head" if item.is_head_armor else "under" if item.worn_under else "body"
        other = seen.get(place)
        if other is None:
            seen[place] = item
        else:
            one = (
                "one helmet is worn at a time"
                if place == "head"
                else "one body armor is worn at a time (reflec may be worn under it)"
            )
            ctx.problems.error(
                "armor_worn_twice",
                path,
                f"{other.label} and {item.label} are both marked worn; {one}.",
            )


def _equipment(
    ctx: _Context, levels: Mapping[str, AttributeValue], credits: int, derived: Derived
) -> Equipment:
    entries = ctx.character.equipment
    items = [_find_item(ctx, entry, index) for index, entry in enumerate(entries)]
    _check_worn(ctx, entries, items)
    worn = worn_armor(entries, items)
    armor = worn.body
    strength = levels["STR"]
    # Battle dress gives its STR while worn: for the load and for wielding weapons.
    carrying_str = strength.level
    if armor is not None and armor.provides_str is not None:
        carrying_str = max(carrying_str, armor.provides_str)
    weapon_dv = ctx.cat.level_row(carrying_str)[1]
    lines = []
    cost = 0
    load = 0.0
    for index, (entry, item) in enumerate(zip(entries, items, strict=True)):
        if item is None:
            lines.append(_unknown_line(entry))
            continue
        attack_dm = _weapon_str_dm(ctx, item, index, weapon_dv)
        _check_armor_required(ctx, item, index, armor)
        line = _equipment_line(item, entry.quantity, attack_dm)
        lines.append(line)
        cost += line.cost
        load += line.weight_kg
    load = round(load, 3)  # line weights are rounded to grams; so is their sum
    remaining = credits - cost
    if remaining < 0:
        ctx.problems.error(
            "credits_overspent",
            "equipment",
            f"Equipment costs {wording.credits(cost)}, {wording.credits(-remaining)} more than the "
            f"{wording.credits(credits)} from mustering out.",
        )
    # The worn piece its wearer is weakest for (reflec under combat armor: combat armor's).
    heaviest = max(worn.pieces, key=lambda piece: piece.str_min or 0, default=None)
    short = _armor_str_short(ctx, heaviest, items.index(heaviest) if heaviest else 0, strength)
    carry = carrying(carrying_str, cat=ctx.cat)
    penalty = encumbrance_penalty(load, carry)
    if load > carry.unencumbered_kg:
        _warn_encumbered(ctx, load, carry, penalty)
    over = over_capacity(load, carry)
    if over:
        ctx.problems.error(
            "over_capacity",
            "equipment",
            f"The load of {_kg_text(load)} kg is above the carrying capacity of "
            f"{_kg_text(carry.capacity_kg)} kg (STR {carrying_str} squared).",
        )
    lim = ctx.limits
    return Equipment(
        cost=cost,
        credits_remaining=remaining,
        load_kg=load,
        unencumbered_kg=carry.unencumbered_kg,
        capacity_kg=carry.capacity_kg,
        over_capacity=over,
        encumbrance_penalty=penalty,
        encumbered_derived=encumbered(
            derived, penalty + short * lim.armor_derived_per_point, ctx.cat
        ),
        lines=tuple(lines),
        carrying_str=carrying_str,
        lift_kg=carry.lift_kg,
        drag_kg=carry.drag_kg,
        armor_worn=armor.label if armor is not None else None,
        armor_av=(armor.av or 0) if armor is not None else 0,
        armor_under=worn.under.label if worn.under is not None else None,
        armor_under_av=(worn.under.av or 0) if worn.under is not None else 0,
        helmet_worn=worn.head.label if worn.head is not None else None,
        armor_str_short=short,
        armor_body_penalty=short * lim.armor_body_levels_per_point,
    )


def _weapon_str_dm(ctx: _Context, item: EquipmentItem, index: int, str_dv: int) -> int:
    """A weapon's DM to its attacks for a STR DV below its STRmin (a warning says so)."""
    if not item.is_weapon or item.str_min is None or str_dv >= item.str_min:
        return 0
    short = item.str_min - str_dv
    dm = short * ctx.limits.weapon_dm_per_point
    ctx.problems.warning(
        "weapon_str_min",
        f"equipment[{index}]",
        f"{item.label} needs STR DV {item.str_min}; the STR DV that wields it is {str_dv}, "
        f"{short} short, so its attacks take {dm:+d}.",
    )
    return dm


def _check_armor_required(
    ctx: _Context, item: EquipmentItem, index: int, armor: EquipmentItem | None
) -> None:
    """A weapon made to be fired from battle dress (the PGMP-13 and FGMP-14, note "BD") is
    carried to no purpose without it: a warning, not an error, since carrying it breaks no
    rule."""
    required = item.requires_armor
    if required is None or (armor is not None and armor.name == required):
        return
    worn = armor.label if armor is not None else "no armor"
    ctx.problems.warning(
        "battle_dress_required",
        f"equipment[{index}]",
        f"{item.label} is fired only from {required.lower()}, and the character wears {worn}.",
    )


def _armor_str_short(
    ctx: _Context, armor: EquipmentItem | None, index: int, strength: AttributeValue
) -> int:
    """How far the wearer's own STR DV is below the worn armor's STRmin (a warning says what
    that costs)."""
    if armor is None or armor.str_min is None or strength.dv >= armor.str_min:
        return 0
    lim = ctx.limits
    short = armor.str_min - strength.dv
    body = short * lim.armor_body_levels_per_point
    derived = short * lim.armor_derived_per_point
    ctx.problems.warning(
        "armor_str_min",
        f"equipment[{index}]",
        f"{armor.label} needs STR DV {armor.str_min}; STR {strength.level} gives DV "
        f"{strength.dv}, {short} short, so while it is worn STR, DEX and END are {body} "
        f"{'level' if body == 1 else 'levels'} lower and DEF, INI and MOV {derived} lower.",
    )
    return short


def _warn_encumbered(ctx: _Context, load: float, carry: Carrying, penalty: int) -> None:
    step = carry.step_kg
    if penalty:
        effect = f"so DEF, INI and MOV are reduced by {penalty}"
    elif step > 0:
        effect = f"by less than {_kg_text(step)} kg, so DEF, INI and MOV are not reduced yet"
    else:
        effect = "so DEF, INI and MOV are not reduced"
    ctx.problems.warning(
        "encumbered",
        "equipment",
        f"The load of {_kg_text(load)} kg is above {_kg_text(carry.unencumbered_kg)} kg "
        f"({ctx.limits.unencumbered_str_multiple} x STR {carry.strength}), {effect}.",
    )


# The derived attributes a load over the unencumbered limit (or armor too heavy) lowers.
ENCUMBERED = ("DEF", "INI", "MOV")


def encumbered(derived: Derived, penalty: int, cat: Catalog) -> Derived:
    """``derived`` with ``penalty`` off DEF, INI and MOV, down to their floors."""
    if not penalty:
        return derived
    floors = cat.derived_floors
    return derived._replace(
        **{code: max(getattr(derived, code) - penalty, floors[code]) for code in ENCUMBERED}
    )


# -- carrying and gravity ------------------------------------------------------------------------


def carrying(strength: int, gravity: float = 1.0, *, cat: Catalog | None = None) -> Carrying:
    """What STR ``strength`` carries at ``gravity`` (in g).

    At 1 g: STR x 2 kg unencumbered, a step of STR kg per point of encumbrance, STR squared kg
    at most, twice that lifted and twice the lift dragged. Elsewhere STR is divided by the
    gravity for all of them, so each figure is scaled by 1 / gravity, but never past the
    rulebook's 400% of the 1-g figure (a world of no gravity at all included).
    """
    if gravity < 0:
        raise ValueError(f"Gravity {gravity:g} g is negative.")
    if math.isnan(gravity):  # it would compare false with every bound and carry 4 times as much
        raise ValueError("Gravity NaN is not a number of g.")
    return _carrying(cat or catalog(), strength, gravity)


@lru_cache(maxsize=_CACHE_SIZE)
def _carrying(cat: Catalog, strength: int, gravity: float) -> Carrying:
    lim = cat.limits
    most = lim.gravity_max_capacity_multiple
    scale = min(1 / gravity, most) if gravity > 0 else most
    # A STR below 0 (a species package on a level already refused, or injury) carries nothing:
    # squared, STR -1 would carry what STR 1 does, and doubled it would be a negative load.
    carried = max(strength, 0)
    capacity = carried * carried * scale
    lift = capacity * lim.lift_capacity_multiple
    return Carrying(
        strength=strength,
        gravity=gravity,
        scale=_kg(scale),
        unencumbered_kg=_kg(lim.unencumbered_str_multiple * carried * scale),
        step_kg=_kg(carried * scale),
        capacity_kg=_kg(capacity),
        lift_kg=_kg(lift),
        drag_kg=_kg(lift * lim.drag_lift_multiple),
    )


def world_gravity(size: int, *, cat: Catalog | None = None) -> float:
    """A world's gravity (in g) when only its size is known: size / 8."""
    if size < 0:
        raise ValueError(f"World size {size} is negative.")
    return size / (cat or catalog()).limits.gravity_size_divisor


def encumbrance_penalty(load_kg: float, carry: Carrying) -> int:
    """DEF, INI and MOV lost to a load: 1 for each whole step beyond the unencumbered load."""
    load, step = _load_and_step(load_kg, carry)
    if step <= 0:
        return 0
    return max(load // step - catalog().limits.unencumbered_str_multiple, 0)


def over_capacity(load_kg: float, carry: Carrying) -> bool:
    """Whether a load is more than ``carry`` lets the character carry at all."""
    load, step = _load_and_step(load_kg, carry)
    return load > step * max(carry.strength, 0)


def _load_and_step(load_kg: float, carry: Carrying) -> tuple[int, int]:
    """A load (to the gram) and the step of encumbrance, STR / gravity kg, as whole numbers of
    one exact unit: the step is a fraction where the gravity makes it one (STR 1 at 0.6 g:
    5/3 kg), so both are counted in thirds of a gram there.

    The figures are shown to the gram, but a load is weighed against the rulebook's own: with
    the shown ones, 5 kg at 0.6 g is a gram short of 3.333 + 1.667 kg and costs nothing."""
    scale = _exact_scale(carry.gravity, catalog().limits.gravity_max_capacity_multiple)
    grams = round(load_kg * 1000)
    return grams * scale.denominator, max(carry.strength, 0) * 1000 * scale.numerator


@lru_cache(maxsize=_CACHE_SIZE)
def _exact_scale(gravity: float, most: int) -> Fraction:
    """1 / gravity, reading the gravity as the decimal it is written as (0.6 is 3/5, not the
    float nearest it), at most ``most``; a world of no gravity gets the limit."""
    if gravity <= 0:
        return Fraction(most)
    if math.isinf(gravity):
        return Fraction(0)
    return min(1 / Fraction(repr(gravity)), Fraction(most))


def _kg_text(value: float) -> str:
    """A weight in a message, to the gram and never in exponent form: a load of tons is
    "1199880.25 kg", where ``:g`` would write "1.19988e+06"."""
    return f"{value:.3f}".rstrip("0").rstrip(".")


def _kg(value: float) -> float:
    """A weight as the sheet writes it: a whole number where it is one, else to the gram."""
    return int(value) if value == int(value) else round(value, 3)
