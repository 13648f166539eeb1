"""Traits: the player's perks and flaws, the former rank's trait, and the species package's."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache

from ..catalog import Catalog
from ..model import TraitEntry
from ..notation import derived_trait_points, format_trait
from ..report import Rank, TraitLine
from ..wording import any_of, plural, verb
from .context import _CACHE_SIZE, _Context


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
