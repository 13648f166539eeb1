"""The attributes: their purchased and final levels, their cost, the UPP, and the derived
attributes their formulas give."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache, lru_cache
from types import MappingProxyType
from typing import NamedTuple

from ..catalog import Catalog, Limits, Species, catalog
from ..report import AttributeValue, Derived, Problem, Report
from .context import _CACHE_SIZE, _Context, _Problems


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
