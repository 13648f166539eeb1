"""The rules engine: a character in, a report out, every problem found at once.

``check`` runs on every keystroke of the builder, so it is written to do only arithmetic on
the character's few dozen values: catalog numbers are read once into ``Catalog.limits``,
report parts that follow from catalog data alone (an attribute value, a skill or trait line,
a cash roll) are built once per catalog in ``_Tables`` and looked up, the others are built
with ``_new`` (a NamedTuple without its Python-level constructor), and problem messages are
composed only when there is a problem.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from operator import itemgetter
from typing import Any

from .catalog import Catalog, EquipmentItem, Service, SkillDef, Species, catalog
from .document import parse_document
from .model import Character, HouseRules, SkillEntry, TraitEntry
from .notation import derived_trait_points, format_skill, format_trait
from .report import (
    ERROR,
    WARNING,
    AttributeValue,
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

_new = tuple.__new__
_HEX = itemgetter(AttributeValue._fields.index("hex"))  # an attribute value's hex digit


def _plural(count: int, word: str, plural: str | None = None) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {plural or word + 's'}"


def _credits(amount: int) -> str:
    return f"Cr{amount:,}"


class _Problems(list):
    """The problems found so far, in the order the sheet shows them."""

    errors = 0  # counted as they come, so validity needs no pass over the list

    def error(self, code: str, path: str, message: str) -> None:
        self.errors += 1
        self.append(_new(Problem, (code, ERROR, path, message)))

    def warning(self, code: str, path: str, message: str) -> None:
        self.append(_new(Problem, (code, WARNING, path, message)))


class _Tables:
    """Report parts that follow from catalog data alone, worked out once per catalog.

    ``check`` looks these up instead of rebuilding the same parts for every character; the
    rules that record problems run as before, and a value off a table (an attribute out of
    range, a skill level above any maximum) takes the general path. Each table is a function
    of the catalog over a small domain: nothing here depends on a character.
    """

    def __init__(self, cat: Catalog) -> None:
        # The catalog's read-only mappings read on every check, as dicts (cheaper to read).
        self.species = dict(cat.species)
        self.services = dict(cat.services)
        self.noble_titles = dict(cat.noble_titles)
        self.skills_by_name = dict(cat.skills_by_name)
        order = cat.attribute_order
        self.attribute_position = {code: position for position, code in enumerate(order)}
        # The UPP: the attributes' hex digits group by group, groups joined by dashes, composed
        # by one %-format ("%s%s%s-%s%s%s-%s%s%s") over the values in UPP order.
        groups = [cat.attribute_groups[group] for group in ("body", "mind", "background")]
        self.upp_order = itemgetter(*cat.upp_positions)
        self.upp_template = "-".join("%s" * len(group) for group in groups)
        self.attribute_values = {
            (species.key, npc): _attribute_value_table(cat, species, npc)
            for species in cat.species.values()
            for npc in (False, True)
        }
        # Skill name -> its report line by level, for a skill simply bought (no cascade, no
        # specialties, nothing free), up to the highest skill maximum the attribute table allows.
        top_level = max(dv for _dm, dv, _digit in cat.level_rows)
        self.bought_skill_lines = {
            skill.name: tuple(
                _bought_skill_line(cat, skill.name, level) for level in range(top_level + 1)
            )
            for skill in cat.skills
            if skill.kind != "cascade"
        }
        # (skill, specialty) -> its line by level, for a skill bought with one of its catalog
        # specialties (read only at the levels that allow a specialty).
        self.specialty_skill_lines = {
            (skill.name, specialty.name): tuple(
                _bought_skill_line(cat, skill.name, level, specialty.name)
                for level in range(top_level + 1)
            )
            for skill in cat.skills
            if skill.kind == "spec"
            for specialty in skill.specialties
        }
        # (skill, cascade, source) -> its line by level, for the skills had without buying
        # whose cascade comes from the catalog: a species' native language and culture
        # ("automatic"; the grounds name the species field) and its package skills.
        granted = {
            (skill, getattr(species, grounds), "automatic")
            for species in cat.species.values()
            for skill, grounds in cat.automatic_skills
            if grounds in ("native_language", "native_culture")
        }
        granted.update(
            (skill.skill, skill.cascade, "package")
            for species in cat.species.values()
            for skill in species.skills
        )
        self.granted_skill_lines = {
            key: tuple(_granted_skill_line(*key, level) for level in range(top_level + 1))
            for key in granted
        }
        # (type, level, frequency) -> (signed points, control score or None, notation with the
        # control score, notation without): the trait tables with their notations.
        self.traits = {
            key: (points, score, *(_trait_notation(cat, key, points, c) for c in (True, False)))
            for key, (points, score) in cat.trait_table.items()
        }
        # Service key (None: no known service) -> former rank -> (the rank, its trait line).
        self.ranks = {
            key: {
                level: _rank_parts(cat, service, level) for level in range(cat.limits.rank_max + 1)
            }
            for key, service in (*cat.services.items(), (None, None))
        }
        # Species key -> the package's trait lines and its points in all.
        self.packages = {key: _package_parts(cat, species) for key, species in cat.species.items()}
        # Catalog name -> (item, its line at quantity 1) for each tech level it is listed at.
        by_name: dict[str, list[tuple[EquipmentItem, EquipmentLine]]] = {}
        for item in cat.equipment:
            by_name.setdefault(item.name, []).append((item, _equipment_line(item, 1)))
        self.equipment_by_name = {name: tuple(stock) for name, stock in by_name.items()}
        # Service key -> cash-roll DM -> die -> the roll, for each DM the rules give
        # (none, Gambling, retirement) and each face of the die.
        lim = cat.limits
        self.cash_rolls = {
            key: {
                modifier: {
                    die: MusteringRoll(die, modifier, *cash_for(service, die, modifier, cat))
                    for die in range(lim.die_min, lim.die_max + 1)
                }
                for modifier in (0, lim.gambling_dm, lim.retirement_dm)
            }
            for key, service in cat.services.items()
        }


def _attribute_value_table(
    cat: Catalog, species: Species, npc: bool
) -> tuple[dict[int, AttributeValue], ...]:
    """Per attribute position, purchased level -> the attribute's report value, for every
    purchase the rules allow a PC or NPC of ``species`` (the catalog's ranges and floor)."""
    lim = cat.limits
    maxima = cat.purchase_maxima("npc" if npc else "pc")
    table = []
    for position, code in enumerate(cat.attribute_order):
        delta = species.attribute_deltas[position]
        by_level = {}
        for purchased in range(lim.purchase_min, maxima[position] + 1):
            final = purchased + delta
            if final >= lim.final_min:
                dm, dv, digit = cat.level_row(final)
                cost = (purchased - lim.attribute_average) * lim.points_per_attribute_level
                by_level[purchased] = AttributeValue(code, purchased, final, digit, dm, dv, cost)
        table.append(by_level)
    return tuple(table)


def _trait_notation(cat: Catalog, key: tuple[str, str, str], points: int, control: bool) -> str:
    trait_type, level, frequency = key
    trait = TraitEntry(trait_type, "", level, frequency, control=control)
    return format_trait(trait, points, cat=cat)


def _granted_skill_line(skill: str, cascade: str | None, source: str, level: int) -> SkillLine:
    """The line of a skill had without buying (automatic or from a species package)."""
    line = (format_skill(skill, level, cascade), skill, cascade, level, (), 0, 0, True, level,
            source)  # fmt: skip
    return _new(SkillLine, line)


def _bought_skill_line(
    cat: Catalog, skill: str, level: int, specialty: str | None = None
) -> SkillLine:
    """The line of a skill bought at ``level``, without cascade or free levels, with one
    specialty or none."""
    lim = cat.limits
    specialties = (specialty,) if specialty else ()
    cost = level * lim.points_per_skill_level + len(specialties) * lim.points_per_specialty
    name = format_skill(skill, level, None, specialties)
    return SkillLine(name, skill, None, level, specialties, cost, level, False, 0, "player")


@cache
def _tables(cat: Catalog) -> _Tables:
    return _Tables(cat)


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
    lim = cat.limits
    tables = _tables(cat)
    rules = house_rules or character.house_rules
    problems = _Problems()

    species = tables.species.get(character.species)
    if species is None:
        problems.error(
            "unknown_species",
            "species",
            f"Species {character.species!r} is not in the catalog; known species: "
            f"{', '.join(s.name for s in cat.species.values())}.",
        )
        species = cat.species["human"]

    values, attribute_points = _attributes(character, species, problems, tables, cat)
    upp = tables.upp_template % tuple(map(_HEX, tables.upp_order(values)))
    # The attributes other rules read, by position (cheaper than a dict per character).
    position = tables.attribute_position
    strength, dex, end = values[position["STR"]], values[position["DEX"]], values[position["END"]]
    edu, exp = values[position["EDU"]], values[position["EXP"]]
    formulas = _formulas(
        strength.level, dex.level, end.level,
        strength.dv, dex.dv, end.dv, values[position["AWA"]].dv,
    )  # fmt: skip
    trait_lines, perks, flaws, derived_bonus = _player_traits(
        character, formulas, problems, tables, cat
    )
    derived = _at_floors(formulas, derived_bonus, cat)
    skills, skill_points, effective = _skills(
        character, species, edu, exp, values[position["INT"]].dv, problems, tables, cat
    )

    exp_dv = exp.dv
    service = tables.services.get(character.service) if character.service else None
    rank, rank_line, rank_points = _rank(character, service, exp_dv, rules, problems, tables, cat)
    if rank_line is not None:
        trait_lines.append(rank_line)
    package_lines, package_points = tables.packages[species.key]
    if character.package_flaws_bought_off:
        package_lines, package_points = _package_bought_off(
            character, species, package_lines, package_points, problems, cat
        )
    trait_lines.extend(package_lines)

    if rules.one_trait_per_term:
        trait_count = len(character.traits) + (rank.level > 0)
        if trait_count < character.terms:
            problems.error(
                "too_few_traits",
                "traits",
                f"{_plural(character.terms, 'term')} of service need at least "
                f"{_plural(character.terms, 'trait')}; the character has {trait_count} "
                "(perks, flaws and former rank count).",
            )

    psionics = None
    psionic_points = 0
    if character.psionics is not None:
        psionics = _psionics(character, exp_dv, rules, problems, cat)
        psionic_points = psionics.points

    span = max(exp_dv, character.terms)
    age_minimum = lim.age_base + lim.years_per_term * span if span else None
    age = character.age if character.age is not None else age_minimum
    if age is not None and age_minimum is not None and age < age_minimum:
        problems.error(
            "age_below_minimum",
            "age",
            f"Age {age} is below the minimum {age_minimum} ({lim.age_base} + "
            f"{lim.years_per_term} x {span}, the larger of EXP DV {exp_dv} and "
            f"{_plural(character.terms, 'term')}).",
        )

    _check_service(character, service, rules, problems, cat)
    mustering = _mustering_out(character, service, effective, problems, tables, cat)
    equipment = _equipment(
        character, strength.level, mustering.credits, derived, problems, tables, cat
    )

    budget = character.budget
    if rules.budget is not None and character.kind == "pc":
        budget = rules.budget
    total = (
        attribute_points
        + skill_points
        + perks
        + flaws
        + rank_points
        + psionic_points
        + package_points
    )
    points = _new(
        Points,
        (attribute_points, skill_points, perks, flaws, rank_points, psionic_points,
         package_points, total, budget, budget - total),
    )  # fmt: skip
    if total > budget:
        problems.error(
            "budget_exceeded",
            "budget",
            f"{total} points are spent, {total - budget} more than the budget of {budget}.",
        )
    elif total < budget:
        problems.warning(
            "points_unspent", "budget", f"{budget - total} of {budget} points are unspent."
        )
    if character.terms < exp_dv:
        problems.warning(
            "terms_below_exp_dv",
            "terms",
            f"Only {_plural(character.terms, 'term')} of service for EXP DV {exp_dv}; "
            f"EXP DV {exp_dv} usually reflects {_plural(exp_dv, 'term')}.",
        )

    valid = problems.errors == 0
    soc = values[position["SOC"]].level
    return _new(
        Report,
        (character.name, character.kind, species.key,
         service.key if service else character.service, character.terms, valid, upp,
         tuple(values), derived, points, skills, tuple(trait_lines), rank,
         tables.noble_titles.get(soc), age, age_minimum, psionics, mustering, equipment,
         tuple(problems)),
    )  # fmt: skip


def _attributes(
    character: Character, species: Species, problems: _Problems, tables: _Tables, cat: Catalog
) -> tuple[list[AttributeValue], int]:
    """The attribute values in catalog order and their points."""
    lim = cat.limits
    by_position = tables.attribute_values[species.key, character.kind == "npc"]
    purchased = character.attributes
    # Every purchase in range is a ready value; a miss (None) is out of range.
    values = list(map(dict.get, by_position, purchased))
    if len(purchased) != len(by_position) or not all(values):
        values = _attributes_in_full(character, species, problems, cat)
    # Each level costs (purchased - average) x points per level, so the sum is linear.
    average, per_level = lim.attribute_average, lim.points_per_attribute_level
    return values, (sum(purchased) - len(purchased) * average) * per_level


def _attributes_in_full(character: Character, species: Species, problems: _Problems, cat: Catalog):
    """The attribute values worked out one by one, recording every level out of range."""
    lim = cat.limits
    average, per_level = lim.attribute_average, lim.points_per_attribute_level
    lowest, final_min = lim.purchase_min, lim.final_min
    maxima = cat.purchase_maxima(character.kind)
    deltas = species.attribute_deltas
    level_row = cat.level_row
    rows = cat.level_rows
    top = len(rows)
    values: list[AttributeValue] = []
    for position, (code, purchased) in enumerate(
        zip(cat.attribute_order, character.attributes, strict=True)
    ):
        cost = (purchased - average) * per_level
        final = purchased + deltas[position]
        if purchased < lowest or purchased > maxima[position] or final < final_min:
            _attribute_range_problem(
                character, species, code, purchased, final, position, problems, cat
            )
        dm, dv, digit = rows[final] if 0 <= final < top else level_row(final)
        values.append(_new(AttributeValue, (code, purchased, final, digit, dm, dv, cost)))
    return values


def _attribute_range_problem(character, species, code, purchased, final, position, problems, cat):
    lim = cat.limits
    highest = cat.purchase_maxima(character.kind)[position]
    if not lim.purchase_min <= purchased <= highest:
        npc_only = code == "SOC" and highest < purchased <= lim.npc_soc_max
        problems.error(
            "attribute_out_of_range",
            f"attributes.{code}",
            f"{code} {purchased} is outside the purchasable range {lim.purchase_min}-{highest}"
            + (f" (SOC up to {lim.npc_soc_max} is for NPCs only)." if npc_only else "."),
        )
    else:
        problems.error(
            "attribute_out_of_range",
            f"attributes.{code}",
            f"{code} {purchased} becomes {final} after the {species.name} package "
            f"({species.attribute_deltas[position]:+d}); the final level must be at least "
            f"{lim.final_min}.",
        )


def _formulas(
    str_level: int, dex_level: int, end_level: int,
    str_dv: int, dex_dv: int, end_dv: int, awa_dv: int,
) -> tuple[int, ...]:  # fmt: skip
    """DEF INI MOV TGH LIF WND by their formulas: from the DVs, LIF from the levels."""
    body = (str_dv + end_dv) // 2
    return (
        dex_dv,
        (dex_dv + awa_dv) // 2,
        dex_dv + body,
        body,
        str_level + end_level + dex_level,
        str_dv + end_dv,
    )


def _at_floors(formulas: tuple[int, ...], bonus: Mapping[str, int], cat: Catalog) -> Derived:
    """The derived attributes of the formulas plus derived-attribute traits, at their floors."""
    values = list(formulas)
    if bonus:
        for position, code in enumerate(cat.derived_order):
            values[position] += bonus.get(code, 0)
    floors = cat.derived_floor_values
    for position, floor in enumerate(floors):
        if values[position] < floor:
            values[position] = floor
    return _new(Derived, tuple(values))


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
    dv = {code: cat.dm_dv(levels[code])[1] for code in ("STR", "DEX", "END", "AWA")}
    formulas = _formulas(
        levels["STR"], levels["DEX"], levels["END"],
        dv["STR"], dv["DEX"], dv["END"], dv["AWA"],
    )  # fmt: skip
    return _at_floors(formulas, bonus or {}, cat)


def _player_traits(
    character: Character,
    formulas: tuple[int, ...],
    problems: _Problems,
    tables: _Tables,
    cat: Catalog,
):
    """The player's trait lines, perk and flaw points, and the derived-attribute changes.

    Derived-attribute flaws are credited only where they leave the attribute at 1 or more
    (ruling 15a); ``formulas`` are the derived attributes before any trait.
    """
    lines: list[TraitLine] = []
    perks = flaws = 0
    bonus: dict[str, int] = {}
    # (line position, trait index, trait, points) of each derived-attribute flaw on the table,
    # weighed against the floor once every perk has raised the attributes.
    derived_flaws: list[tuple[int, int, TraitEntry, int]] = []
    table = tables.traits
    for index, trait in enumerate(character.traits):
        if not trait.derived:
            found = table.get((trait.type, trait.level, trait.frequency))
            if found is not None:
                # The common case, a trait straight off the tables, its notation ready.
                points, score, with_score, without_score = found
                if score is not None and trait.control:
                    notation = with_score
                else:
                    score = None
                    notation = without_score
                if points < 0:
                    flaws += points
                else:
                    perks += points
                line = (notation, trait.name, points, trait.type, "player", score, True)
                lines.append(_new(TraitLine, line))
                continue
        points = _trait_points(trait, index, problems, cat)
        if points is None:
            lines.append(
                _new(TraitLine, ("[invalid]", trait.name, 0, trait.type, "player", None, False))
            )
            continue
        notation = format_trait(trait, points, cat=cat)
        line = _new(TraitLine, (notation, trait.name, points, trait.type, "player", None, True))
        if trait.type in cat.flaw_types:
            if trait.derived:
                derived_flaws.append((len(lines), index, trait, points))
            else:
                flaws += points
        else:
            perks += points
            for code, amount in trait.derived:
                bonus[code] = bonus.get(code, 0) + amount
        lines.append(line)
    for position, index, trait, points in derived_flaws:
        if _flaw_within_floor(trait, index, formulas, bonus, problems, cat):
            flaws += points
            for code, amount in trait.derived:
                bonus[code] = bonus.get(code, 0) + amount
        else:
            lines[position] = lines[position]._replace(notation="[invalid]", points=0, valid=False)
    return lines, perks, flaws, bonus


def _flaw_within_floor(
    trait: TraitEntry,
    index: int,
    formulas: tuple[int, ...],
    bonus: Mapping[str, int],
    problems: _Problems,
    cat: Catalog,
) -> bool:
    """Whether a derived-attribute flaw leaves every attribute it lowers at the floor or above
    (ruling 15a), from the formulas with ``bonus`` (perks and flaws credited so far); if not,
    a ``derived_below_floor`` problem for each attribute it would take below."""
    floor = cat.derived_flaw_floor
    lowered: dict[str, int] = {}
    for code, amount in trait.derived:
        lowered[code] = lowered.get(code, 0) + amount
    within = True
    for code, amount in lowered.items():
        before = formulas[cat.derived_order.index(code)] + bonus.get(code, 0)
        if before + amount < floor:
            within = False
            problems.error(
                "derived_below_floor",
                f"traits[{index}].derived.{code}",
                f"Flaw {trait.name!r} lowers {code} by {-amount}, from {before} to "
                f"{before + amount}; no flaw may take a derived attribute below {floor}, so "
                "it is not credited.",
            )
    return within


def _trait_points(trait: TraitEntry, index: int, problems: _Problems, cat: Catalog) -> int | None:
    """Signed points of a trait, or None (with a trait_invalid problem) when off the tables."""
    if not trait.derived:
        points = cat.trait_points(trait.type, trait.level, trait.frequency)
        if points is not None:
            return points
    path = f"traits[{index}]"
    is_perk = trait.type in cat.perk_types
    if not is_perk and trait.type not in cat.flaw_types:
        known = ", ".join((*cat.perk_types, *cat.flaw_types))
        problems.error(
            "trait_invalid",
            f"{path}.type",
            f"Trait {trait.name!r} has type {trait.type!r}; use one of {known}.",
        )
        return None
    kind = "perk" if is_perk else "flaw"
    if trait.derived:
        if trait.level is not None or trait.frequency is not None:
            problems.error(
                "trait_invalid",
                path,
                f"Trait {trait.name!r} gives both a level and frequency and derived-attribute "
                "changes; a trait has one or the other.",
            )
            return None
        points = derived_trait_points(trait, cat=cat)
        if points is None:
            direction = "raise (positive numbers)" if is_perk else "lower (negative numbers)"
            changes = ", ".join(f"{code} by {amount:+d}" for code, amount in trait.derived)
            problems.error(
                "trait_invalid",
                f"{path}.derived",
                f"Trait {trait.name!r} changes {changes}; a {kind} must {direction} only "
                f"{', '.join(cat.derived_trait_points)}.",
            )
        return points
    levels = cat.perk_levels if is_perk else cat.flaw_levels
    if trait.level not in levels:
        problems.error(
            "trait_invalid",
            f"{path}.level",
            f"Trait {trait.name!r} ({trait.type}) has level {trait.level!r}; a {kind} takes "
            f"level {', '.join(levels)}.",
        )
    else:
        problems.error(
            "trait_invalid",
            f"{path}.frequency",
            f"Trait {trait.name!r} has frequency {trait.frequency!r}; use R (rare), S (seldom) "
            "or O (often).",
        )
    return None


def _rank(
    character, service, exp_dv, rules: HouseRules, problems: _Problems, tables: _Tables, cat
) -> tuple[Rank, TraitLine | None, int]:
    """The former rank, its trait line (None below rank 1) and its points."""
    lim = cat.limits
    level = character.rank
    if not 0 <= level <= lim.rank_max:
        problems.error(
            "rank_out_of_range", "rank", f"Former rank {level} is outside 0-{lim.rank_max}."
        )
    else:
        if level > character.terms:
            problems.error(
                "rank_exceeds_terms",
                "rank",
                f"Former rank {level} needs at least {_plural(level, 'term')} of service; "
                f"the character served {character.terms}.",
            )
        if level > exp_dv:
            problems.error(
                "rank_exceeds_exp_dv", "rank", f"Former rank {level} is above EXP DV {exp_dv}."
            )
        if level > 0:
            _check_rank_table(character, service, level, problems)
        if rules.max_former_rank is not None and level > rules.max_former_rank:
            problems.error(
                "rank_above_campaign_max",
                "rank",
                f"Former rank {level} is above this campaign's highest former rank "
                f"{rules.max_former_rank}.",
            )
    parts = tables.ranks[service.key if service is not None else None].get(level)
    if parts is None:  # out of range: the problem is recorded above
        parts = _rank_parts(cat, service, level)
    return (*parts, max(level, 0) * lim.points_per_rank)


def _check_rank_table(
    character: Character, service: Service | None, level: int, problems: _Problems
) -> None:
    """Former rank is rank in the character's service, on that service's rank table (ruling
    15b). An unknown service is reported as such, not here."""
    if not character.service:
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
    problems.error("rank_not_in_service", "rank", message)


def _rank_parts(cat: Catalog, service: Service | None, level: int) -> tuple[Rank, TraitLine | None]:
    """A former rank in a service (or none) and, from rank 1, its line among the traits."""
    title = service.ranks.get(level) if service is not None and level > 0 else None
    rank = Rank(level, title)
    if level <= 0:
        return rank, None
    points = level * cat.limits.points_per_rank
    label = f"Former rank {level}"
    if title:
        label += f" ({title}, {service.name})"
    elif service is not None:
        label += f" ({service.name})"
    return rank, TraitLine(f"[Rank-{level} {points}]", label, points, "rank", "rank", None, True)


def _package_parts(cat: Catalog, species: Species) -> tuple[tuple[TraitLine, ...], int]:
    """A species package's trait lines and its points in all (the same for every character)."""
    lim = cat.limits
    lines = _package_trait_lines(cat, species)
    points = sum(species.attribute_changes.values()) * lim.points_per_attribute_level
    points += sum(line.points for line in lines)
    return lines, points + sum(s.level for s in species.skills) * lim.points_per_skill_level


def _package_bought_off(
    character: Character,
    species: Species,
    lines: tuple[TraitLine, ...],
    points: int,
    problems: _Problems,
    cat: Catalog,
) -> tuple[tuple[TraitLine, ...], int]:
    """The package's trait lines and points without the flaws bought off with IP: a flaw
    bought off is gone, and the points it gave back with it."""
    flaws = {line.name: line for line in lines if line.type in cat.flaw_types}
    gone: set[str] = set()
    for index, name in enumerate(character.package_flaws_bought_off):
        line = flaws.get(name)
        if line is None:
            known = ", ".join(flaws) or "none"
            problems.error(
                "unknown_package_flaw",
                f"package_flaws_bought_off[{index}]",
                f"{name!r} is not a flaw of the {species.name} package (its flaws: {known}).",
            )
            continue
        gone.add(name)
        points -= line.points
    return tuple(line for line in lines if line.name not in gone), points


def _package_trait_lines(cat: Catalog, species: Species) -> tuple[TraitLine, ...]:
    lines = []
    for package_trait in species.traits:
        trait = TraitEntry(
            type=package_trait.type,
            name=package_trait.name,
            level=package_trait.level,
            frequency=package_trait.frequency,
            control=package_trait.control,
        )
        points = cat.trait_points(trait.type, trait.level, trait.frequency)
        score = cat.control_score(trait.level) if trait.control else None
        notation = format_trait(trait, points, cat=cat)
        lines.append(TraitLine(notation, trait.name, points, trait.type, "package", score, True))
    return tuple(lines)


def _automatic_skills(
    character: Character, species: Species, int_dv: int, edu_dv: int, max_level: int, cat: Catalog
):
    """Skills had without buying: skill key -> (name, cascade, level, source).

    Automatic levels are capped at the character's maximum skill level; where a species package
    grants the same skill, the higher level stands. Keys are those of ``_skills``.
    """
    found: dict[tuple[str, str] | str, tuple[str, str, int, str]] = {}
    for skill, grounds in cat.automatic_skills:
        if grounds == "homeworld":
            cascade, level = character.homeworld, int_dv
        elif grounds == "native_language":
            cascade, level = character.native_language or species.native_language, edu_dv
        elif grounds == "native_culture":
            cascade, level = character.native_culture or species.native_culture, int_dv
        else:
            continue
        if cascade:
            level = level if level < max_level else max_level
            found[(skill, cascade.lower())] = (skill, cascade, level, "automatic")
    for granted in species.skills:
        cascade = granted.cascade
        key = (granted.skill, cascade.lower()) if cascade else granted.skill
        level = granted.level if granted.level < max_level else max_level
        previous = found.get(key)
        if previous is None or previous[2] < level:
            found[key] = (granted.skill, cascade, level, "package")
    return found


# Skills whose level another rule reads (the cash-roll DM, Surgery against Medical); only these
# are tracked in the "effective levels" the skill pass returns.
GAMBLING, SURGERY, MEDICAL = "Gambling", "Surgery", "Medical"
_LEVELS_READ_BY_OTHER_RULES = frozenset({GAMBLING, SURGERY, MEDICAL})


def _skills(
    character, species, edu, exp, int_dv: int, problems: _Problems, tables: _Tables, cat: Catalog
):
    lim = cat.limits
    per_level = lim.points_per_skill_level
    per_specialty = lim.points_per_specialty
    edu_dv, exp_dv = edu.dv, exp.dv
    max_level = edu_dv if edu_dv > exp_dv else exp_dv
    total_allowed = edu.level + exp.level
    automatic = _automatic_skills(character, species, int_dv, edu_dv, max_level, cat)
    used_automatic = set()
    seen: dict[tuple[str, str] | str, int] = {}
    effective: dict[str, int] = {}
    lines: list[SkillLine] = []
    total_used = zero_used = specialty_count = 0

    find_skill = cat.find_skill
    by_name = tables.skills_by_name
    bought_lines = tables.bought_skill_lines
    specialty_lines = tables.specialty_skill_lines
    specialty_min = lim.specialty_min_level
    for index, entry in enumerate(character.skills):
        skill = entry.skill
        cascade = entry.cascade
        level = entry.level
        specialties = entry.specialties
        # A catalog skill (by its catalog spelling, as the parser gives it) without a cascade,
        # and without specialties or with one of its own at a level that allows it, has nothing
        # to check here, and its line may be ready-made.
        ready = None
        # The catalog's spelling names the skill in every key below, whatever case the entry
        # was typed in (only the parser corrects it); an unknown skill is matched without case.
        name = skill
        if cascade is None:
            if not specialties:
                ready = bought_lines.get(skill)
            elif len(specialties) == 1 and level >= specialty_min:
                ready = specialty_lines.get((skill, specialties[0]))
        if ready is None:
            definition = by_name.get(skill) or find_skill(skill)
            name = definition.name if definition is not None else skill.lower()
            if definition is None:
                problems.error(
                    "unknown_skill",
                    f"skills[{index}].skill",
                    f"Skill {skill!r} is not one of the {len(cat.skills)} skills in the catalog.",
                )
            elif cascade or specialties or definition.kind == "cascade":
                # The common case is answered by set membership: a cascade off the catalog's
                # list (any, where the list is open), specialties off its list at level 2+.
                if definition.kind == "cascade":
                    fine = bool(cascade) and (
                        definition.open or cascade in definition.cascade_names
                    )
                else:
                    fine = not cascade
                if fine and specialties:
                    fine = (
                        definition.kind == "spec"
                        and level >= specialty_min
                        and definition.specialty_names.issuperset(specialties)
                    )
                if not fine:
                    _check_cascade_and_specialties(entry, index, definition, problems, cat)
        # Open cascades are free text, matched without case. A skill without a cascade is keyed
        # by its name alone.
        key = (name, cascade.lower()) if cascade else name
        if key in seen:
            problems.error(
                "duplicate_skill",
                f"skills[{index}]",
                f"{format_skill(skill, level, cascade)} is listed twice (also as "
                f"skill {seen[key] + 1}); list each skill once.",
            )
        else:
            seen[key] = index
        if specialties:
            specialty_count += len(specialties)
        if level < 0:
            problems.error(
                "skill_level_out_of_range",
                f"skills[{index}].level",
                f"{skill} has level {level}; skill levels start at 0.",
            )
            line = (format_skill(skill, level, cascade), skill, cascade, level, specialties,
                    len(specialties) * per_specialty, 0, False, 0, "player")  # fmt: skip
            lines.append(_new(SkillLine, line))
            continue
        granted = automatic.get(key)
        if granted is None:
            free = 0
            bought = level
            if level == 0:
                zero_used += 1
        else:
            used_automatic.add(key)
            free = granted[2]
            bought = level - free if level > free else 0
            if free > level:
                level = free
        if level > max_level and level > free:
            problems.error(
                "skill_level_above_max",
                f"skills[{index}].level",
                f"{format_skill(skill, level, cascade)} is above the maximum skill level "
                f"{max_level} (the higher of EDU DV {edu_dv} and EXP DV {exp_dv}).",
            )
        total_used += bought
        if name in _LEVELS_READ_BY_OTHER_RULES and effective.get(name, -1) < level:
            effective[name] = level
        if ready is not None and granted is None and level < len(ready):
            lines.append(ready[level])
            continue
        name = f"{skill} ({cascade})-{level}" if cascade else f"{skill}-{level}"
        if specialties:
            name = f"{name} ({', '.join(specialties)})"
        cost = bought * per_level + len(specialties) * per_specialty
        if granted is None:
            line = (name, skill, cascade, level, specialties, cost, bought, False, 0, "player")
        else:
            line = (name, skill, cascade, level, specialties, cost, bought, True, free,
                    granted[3])  # fmt: skip
        lines.append(_new(SkillLine, line))

    granted_lines = tables.granted_skill_lines
    for key, (skill, cascade, level, source) in automatic.items():
        if key in used_automatic:
            continue
        if skill in _LEVELS_READ_BY_OTHER_RULES and effective.get(skill, -1) < level:
            effective[skill] = level
        ready = granted_lines.get((skill, cascade, source))
        if ready is not None and 0 <= level < len(ready):
            lines.append(ready[level])
        else:
            lines.append(_granted_skill_line(skill, cascade, source, level))

    # Each line costs its counted levels and its specialties, so the sum is linear; zero-level
    # skills past the free ones cost extra.
    points = total_used * per_level + specialty_count * per_specialty
    zero_free = exp_dv
    if zero_used > zero_free:
        points += (zero_used - zero_free) * lim.points_per_extra_zero_level
    if total_used > total_allowed:
        problems.error(
            "skill_total_exceeded",
            "skills",
            f"{total_used} skill levels are counted, above the total of {total_allowed} "
            f"(EDU {edu.level} + EXP {exp.level}).",
        )
    if SURGERY in effective:
        _check_surgery(character, effective, problems)
    summary = _new(
        Skills, (max_level, total_allowed, total_used, zero_free, zero_used, tuple(lines))
    )
    return summary, points, effective


def _check_surgery(character: Character, effective: dict[str, int], problems: _Problems) -> None:
    surgery = effective[SURGERY]
    medical = effective.get(MEDICAL)
    if medical is not None and surgery <= medical:
        return
    index = next(
        (i for i, s in enumerate(character.skills) if s.skill.lower() == SURGERY.lower()), 0
    )
    has = f"Medical-{medical}" if medical is not None else "no Medical skill"
    problems.error(
        "surgery_exceeds_medical",
        f"skills[{index}].level",
        f"Surgery-{surgery} needs Medical at level {surgery} or more; the character has {has}.",
    )


def _check_cascade_and_specialties(
    entry: SkillEntry, index: int, definition: SkillDef, problems: _Problems, cat: Catalog
) -> None:
    path = f"skills[{index}]"
    label = format_skill(entry.skill, entry.level, entry.cascade)
    if definition.kind == "cascade":
        if not entry.cascade:
            choices = ", ".join(definition.cascades) or "any the referee approves"
            problems.error(
                "cascade_required",
                f"{path}.cascade",
                f"{definition.name}-{entry.level} needs a cascade ({choices}).",
            )
        elif not definition.open and definition.find_cascade(entry.cascade) is None:
            problems.error(
                "unknown_cascade",
                f"{path}.cascade",
                f"{label} names cascade {entry.cascade!r}; {definition.name} has "
                f"{', '.join(definition.cascades)}.",
            )
    elif entry.cascade:
        problems.error(
            "unknown_cascade",
            f"{path}.cascade",
            f"{label} names cascade {entry.cascade!r}, but {definition.name} has no cascades.",
        )
    if not entry.specialties:
        return
    if definition.kind != "spec":
        problems.error(
            "specialty_not_allowed",
            f"{path}.specialties",
            f"{label} lists {_plural(len(entry.specialties), 'specialty', 'specialties')}, but "
            f"{definition.name} has none.",
        )
        return
    for number, specialty in enumerate(entry.specialties):
        if definition.find_specialty(specialty) is None:
            problems.error(
                "unknown_specialty",
                f"{path}.specialties[{number}]",
                f"{label} names specialty {specialty!r}; {definition.name} has "
                f"{', '.join(s.name for s in definition.specialties)}.",
            )
    minimum = cat.limits.specialty_min_level
    if entry.level < minimum:
        problems.error(
            "specialty_requires_level_2",
            f"{path}.level",
            f"{label} has {_plural(len(entry.specialties), 'specialty', 'specialties')}, which "
            f"need {definition.name} at level {minimum} or more.",
        )


def _psionics(
    character: Character, exp_dv: int, rules: HouseRules, problems: _Problems, cat: Catalog
):
    lim = cat.limits
    psionics = character.psionics
    max_strength = psi_strength_limit(exp_dv, cat=cat)
    if not rules.psionics_allowed:
        problems.error(
            "psionics_not_allowed", "psionics", "Psionics are not allowed in this campaign."
        )
    if psionics.strength > max_strength:
        problems.error(
            "psi_strength_above_max",
            "psionics.strength",
            f"PSI strength {psionics.strength} is above the maximum {max_strength} "
            f"({lim.psi_max_base} - EXP DV {exp_dv}, never above {lim.psi_max_cap}).",
        )
    points = lim.psi_training + psionics.strength * lim.psi_per_strength
    for name, level in psionics.talents:
        points += lim.psi_per_talent + level * lim.psi_per_talent_level
        if cat.find_talent(name) is None:
            problems.error(
                "unknown_talent",
                f"psionics.talents.{name}",
                f"Talent {name!r} is not one of the {len(cat.talents)} talents: "
                f"{', '.join(cat.talents)}.",
            )
        if level > psionics.strength:
            problems.error(
                "talent_above_strength",
                f"psionics.talents.{name}",
                f"{name}-{level} is above PSI strength {psionics.strength}.",
            )
    return _new(PsionicsSummary, (psionics.strength, max_strength, psionics.talents, points))


def _check_service(
    character, service, rules: HouseRules, problems: _Problems, cat: Catalog
) -> None:
    if character.service and service is None:
        problems.error(
            "unknown_service",
            "service",
            f"Service {character.service!r} is not in the catalog; known services: "
            f"{', '.join(cat.services)}.",
        )
    if (
        service is not None
        and rules.open_services is not None
        and service.key not in rules.open_services
    ):
        problems.error(
            "service_not_open",
            "service",
            f"The {service.name} service is not open in this campaign; open services: "
            f"{', '.join(sorted(rules.open_services)) or 'none'}.",
        )


def psi_strength_limit(exp_dv: int, *, cat: Catalog | None = None) -> int:
    """The highest PSI strength at initial training: 12 - EXP DV, never above 15."""
    lim = (cat or catalog()).limits
    return min(lim.psi_max_base - exp_dv, lim.psi_max_cap)


def purchase_steps(report: Report, *, cat: Catalog | None = None) -> tuple[tuple[bool, bool], ...]:
    """Per attribute of the report, whether buying it one level higher, and one level lower,
    is a step the rules allow this character: to a level inside its kind's purchasable range,
    with a final level (after its species package) no lower than the floor; or, from a level
    outside that range, a step back towards it."""
    cat = cat or catalog()
    allowed = _tables(cat).attribute_values[report.species, report.kind == "npc"]
    steps = []
    for value, levels in zip(report.attributes, allowed, strict=True):
        purchased = value.purchased
        up = purchased + 1 in levels or (bool(levels) and purchased < min(levels))
        down = purchased - 1 in levels or (bool(levels) and purchased > max(levels))
        steps.append((up, down))
    return tuple(steps)


def mustering_modifier(
    character: Character, service: Service | None, effective: dict[str, int], cat: Catalog
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


def _mustering_out(
    character, service, effective, problems: _Problems, tables: _Tables, cat: Catalog
) -> MusteringOut:
    lim = cat.limits
    allowed = min(lim.max_mustering_rolls, character.terms)
    rolls = character.mustering_rolls
    if not rolls:
        return _new(
            MusteringOut, (allowed, mustering_modifier(character, service, effective, cat), 0, ())
        )
    modifier = mustering_modifier(character, service, effective, cat)
    if not character.service:
        problems.error(
            "mustering_without_service",
            "mustering_out.rolls",
            f"{_plural(len(rolls), 'mustering-out roll')} recorded, but the character has no "
            "service whose cash table they could be read on.",
        )
    if len(rolls) > allowed:
        problems.error(
            "too_many_mustering_rolls",
            "mustering_out.rolls",
            f"{_plural(len(rolls), 'mustering-out roll')} "
            f"{'is' if len(rolls) == 1 else 'are'} recorded, but "
            f"{_plural(character.terms, 'term')} "
            f"allow {allowed} (the lesser of {lim.max_mustering_rolls} and terms served).",
        )
    credits = 0
    results: list[MusteringRoll] = []
    # The rolls at this DM by die (none without a known service).
    by_die = tables.cash_rolls[service.key].get(modifier) if service is not None else None
    die_min, die_max = lim.die_min, lim.die_max
    for index, die in enumerate(rolls):
        if not die_min <= die <= die_max:
            problems.error(
                "invalid_roll",
                f"mustering_out.rolls[{index}]",
                f"Mustering-out roll {index + 1} is {die}; a die shows {lim.die_min} to "
                f"{lim.die_max}.",
            )
            continue
        if index >= allowed or service is None:
            continue
        if by_die is not None:
            roll = by_die[die]
        else:
            roll = _new(MusteringRoll, (die, modifier, *cash_for(service, die, modifier, cat)))
        credits += roll.credits
        results.append(roll)
    return _new(MusteringOut, (allowed, modifier, credits, tuple(results)))


def _equipment_line(item: EquipmentItem, quantity: int) -> EquipmentLine:
    cost = (item.cost or 0) * quantity
    weight = round(item.weight_kg * quantity, 3)
    return _new(EquipmentLine, (item.name, item.tl, item.table, quantity, cost, weight))


def _find_item(entry, index: int, problems: _Problems, tables: _Tables, cat: Catalog):
    """The catalog item an entry names, with its line at quantity 1 when that is ready."""
    # The parser gives catalog spellings, so the exact name almost always hits.
    candidates = tables.equipment_by_name.get(entry.item)
    if candidates is None:
        candidates = tuple((item, None) for item in cat.equipment_named(entry.item))
    if not candidates:
        problems.error(
            "unknown_equipment",
            f"equipment[{index}].item",
            f"{entry.item!r} is not in the armor, melee weapon, ranged weapon or accessory tables.",
        )
        return None
    if entry.tl is not None:
        for candidate in candidates:
            if candidate[0].tl == entry.tl:
                return candidate
        problems.error(
            "unknown_equipment",
            f"equipment[{index}].tl",
            f"{entry.item} is not in the catalog at TL {entry.tl}; it is at TL "
            f"{', '.join(str(item.tl) for item, _line in candidates)}.",
        )
        return None
    if len(candidates) > 1:
        problems.error(
            "ambiguous_equipment",
            f"equipment[{index}].tl",
            f"{entry.item} is in the catalog at {len(candidates)} tech levels (TL "
            f"{', '.join(str(item.tl) for item, _line in candidates)}); give the tech level.",
        )
        return None
    return candidates[0]


def _equipment(
    character,
    strength: int,
    credits: int,
    derived: Derived,
    problems: _Problems,
    tables: _Tables,
    cat: Catalog,
):
    lines: list[EquipmentLine] = []
    cost = 0
    load = 0.0
    for index, entry in enumerate(character.equipment):
        found = _find_item(entry, index, problems, tables, cat)
        if found is None:
            lines.append(_new(EquipmentLine, (entry.item, entry.tl, None, entry.quantity, 0, 0.0)))
            continue
        item, line = found
        if line is None or entry.quantity != 1:
            line = _equipment_line(item, entry.quantity)
        cost += line.cost
        load += line.weight_kg
        lines.append(line)
    if len(lines) > 1:
        # Line weights are rounded to grams; so is their sum (one line's weight already is).
        load = round(load, 3)
    remaining = credits - cost
    if remaining < 0:
        problems.error(
            "credits_overspent",
            "equipment",
            f"Equipment costs {_credits(cost)}, {_credits(-remaining)} more than the "
            f"{_credits(credits)} from mustering out.",
        )
    multiple = cat.limits.unencumbered_str_multiple
    unencumbered = multiple * strength
    capacity = strength * strength
    penalty = 0
    if load > unencumbered:
        penalty = int((load - unencumbered) // strength) if strength > 0 else 0
        if penalty:
            effect = f"so DEF, INI and MOV are reduced by {penalty}"
        elif strength > 0:
            effect = f"by less than {strength} kg, so DEF, INI and MOV are not reduced yet"
        else:
            effect = "so DEF, INI and MOV are not reduced"
        problems.warning(
            "encumbered",
            "equipment",
            f"The load of {load:g} kg is above {unencumbered} kg ({multiple} x STR {strength}), "
            f"{effect}.",
        )
    equipment = _new(
        Equipment,
        (cost, remaining, load, unencumbered, capacity, penalty,
         encumbered(derived, penalty, cat), tuple(lines)),
    )  # fmt: skip
    if equipment.over_capacity:
        problems.error(
            "over_capacity",
            "equipment",
            f"The load of {load:g} kg is above the carrying capacity of {capacity} kg "
            f"(STR {strength} squared).",
        )
    return equipment


# The derived attributes a load over the unencumbered limit lowers.
ENCUMBERED = ("DEF", "INI", "MOV")


def encumbered(derived: Derived, penalty: int, cat: Catalog) -> Derived:
    """``derived`` with the encumbrance ``penalty`` off DEF, INI and MOV, down to their floors."""
    if not penalty:
        return derived
    floors = cat.derived_floors
    return derived._replace(
        **{code: max(getattr(derived, code) - penalty, floors[code]) for code in ENCUMBERED}
    )


def check_document(doc: Any, *, house_rules: HouseRules | None = None) -> Report:
    """Parse a decoded character document and check it (raises MalformedDocument)."""
    return check(parse_document(doc), house_rules=house_rules)
