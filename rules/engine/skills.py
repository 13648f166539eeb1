"""Skills: levels and their cost, cascades and specialties, the skills a service or package
grants, and the levels other rules read."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import NamedTuple

from ..catalog import Catalog, SkillDef
from ..document import cascade_name
from ..model import SkillEntry
from ..notation import format_skill
from ..report import AttributeValue, Problem, SkillLine, Skills
from ..wording import did_you_mean, plural, verb
from .context import _CACHE_SIZE, _Context, _Problems

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
