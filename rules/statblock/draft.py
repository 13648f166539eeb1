"""The draft a stat block's reading makes: a character document whose own stat block is the
one read, its skills bought as the rules price them and its credits as written."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from itertools import combinations_with_replacement
from typing import Any

from ..catalog import Catalog
from ..document import MalformedDocument, parse_document, to_document
from ..engine import cash_for, check
from ..model import Character, SkillEntry
from ..report import Report
from .lines import ParsedStatBlock, UnreadLine, _Reading, _resolve_traits


def _draft(reading: _Reading, kind: str) -> ParsedStatBlock:
    cat = reading.cat
    named_package, rank_line = _resolve_traits(reading)
    if reading.rank is None:
        reading.rank = rank_line
    deltas = cat.species[reading.species].attribute_deltas
    assert reading.final_levels is not None
    assert reading.name is not None
    base = Character(
        name=reading.name,
        kind=kind,
        attributes=tuple(f - d for f, d in zip(reading.final_levels, deltas, strict=True)),
        species=reading.species,
        service=reading.service,
        terms=reading.terms,
        rank=reading.rank or 0,
        traits=tuple(trait for _line, trait in reading.traits),
        package_flaws_bought_off=_bought_off(cat, reading.species, named_package),
        psionics=reading.psionics,
        equipment=tuple(reading.equipment or ()),
        notes="\n".join(reading.notes)[: cat.bounds.notes_length],
    )
    character = _with_skills(base, [entry for _line, entry in reading.skills or ()], cat)
    probe = check(character, cat=cat)
    character = replace(character, age=None if reading.age == probe.age_minimum else reading.age)
    if kind == "npc":
        character = replace(character, mustering_credits=_given_credits(reading, probe))
    else:
        character = replace(character, mustering_rolls=_rolls_for(reading, character, probe))
    report = check(character, cat=cat)
    if kind == "npc":
        budget = min(max(report.points.total, 0), cat.limits.max_budget)
        character = replace(character, budget=budget)
    else:
        character = replace(character, budget=cat.limits.default_budget)
    _compare(reading, report)
    return _checked(reading, character)


def _bought_off(cat: Catalog, species: str, named: tuple[str, ...]) -> tuple[str, ...]:
    """The package flaws a traits line leaves out, where it lists the package at all."""
    if not named:
        return ()
    return tuple(
        t.name
        for t in cat.species[species].traits
        if t.type in cat.flaw_types and t.name not in named
    )


def _with_skills(base: Character, entries: list[SkillEntry], cat: Catalog) -> Character:
    """``base`` with its background read from the automatic skills written, and only the skills
    it has to buy: a skill the character has without buying (its homeworld's Area Knowledge,
    its language, the species package's) is listed only where it is higher than that."""
    # Keyed by the catalog's grounds of the automatic skills, which are Character fields.
    background: dict[str, Any] = {}
    species = cat.species[base.species]
    for skill, grounds in cat.automatic_skills:
        default = getattr(species, grounds, None)
        candidates = [e for e in entries if _canonical(e.skill, cat) == skill and e.cascade]
        candidates.sort(key=lambda e: (e.cascade or "").lower() != (default or "").lower())
        for entry in candidates:
            probe = replace(base, skills=(), **dict[str, Any]({grounds: entry.cascade}))
            if entry.level >= _free_levels(probe, cat).get(_key(entry, cat), entry.level + 1):
                same = (entry.cascade or "").lower() == (default or "").lower()
                background[grounds] = None if same else entry.cascade
                break
    character = replace(base, **background)
    free = _free_levels(character, cat)
    # A skill written twice stays twice, as the engine's duplicate_skill names it: dropping
    # one copy would change the stat block without a word.
    written = Counter(_key(e, cat) for e in entries)
    kept = tuple(
        e
        for e in entries
        if e.level > free.get(_key(e, cat), -1) or e.specialties or written[_key(e, cat)] > 1
    )
    return replace(character, skills=kept)


def _canonical(skill: str, cat: Catalog) -> str:
    found = cat.find_skill(skill)
    return found.name if found is not None else skill.lower()


def _key(entry: SkillEntry, cat: Catalog) -> tuple[str, str]:
    return _canonical(entry.skill, cat), (entry.cascade or "").lower()


def _free_levels(character: Character, cat: Catalog) -> dict[tuple[str, str], int]:
    """The skills ``character`` has without buying, by skill and cascade, at their levels."""
    report = check(replace(character, skills=()), cat=cat)
    return {
        (_canonical(line.skill, cat), (line.cascade or "").lower()): line.free_level
        for line in report.skills.lines
        if line.automatic
    }


def _rolls_for(reading: _Reading, character: Character, probe: Report) -> tuple[int, ...]:
    """Mustering-out dice whose cash, less what the belongings cost, is the credits written:
    the fewest rolls, lowest dice first. A stat block gives the credits, not the dice."""
    if reading.credits is None or probe.service is None:
        return ()
    service = reading.cat.services.get(probe.service)
    if service is None:
        return ()
    lim = reading.cat.limits
    target = reading.credits + probe.equipment.cost
    dice = range(lim.die_min, lim.die_max + 1)
    modifier = probe.mustering_out.modifier
    for count in range(probe.mustering_out.rolls_allowed + 1):
        for rolls in combinations_with_replacement(dice, count):
            if sum(cash_for(service, die, modifier, reading.cat)[1] for die in rolls) == target:
                return rolls
    return ()


def _given_credits(reading: _Reading, probe: Report) -> int | None:
    """An NPC's cash: the credits written with its belongings' price on top, as an NPC's
    belongings are its own whatever it carries besides; None when that is nothing. Credits no
    NPC is given (below Cr0, or past a document's bound) are left out, for _compare to name."""
    cost = probe.equipment.cost
    most = reading.cat.bounds.credits
    written = reading.credits or 0
    cash = written + cost if 0 <= written <= most - cost else cost
    return min(cash, most) or None


def _compare(reading: _Reading, report: Report) -> None:
    """Name every figure written that the draft does not come to."""
    line = reading.attributes_line
    assert line is not None
    drawn = report.derived.as_dict()
    for code, written in reading.derived.items():
        if drawn[code] != written:
            reading.skip(
                line,
                f"{code} {written} is written, but the draft's attributes and "
                f"traits give {code} {drawn[code]}.",
            )
    credits = report.equipment.credits_remaining
    if reading.credits is not None and credits != reading.credits:
        why = (
            f"an NPC is given Cr0 to Cr{reading.cat.bounds.credits:,} besides its belongings"
            if report.kind == "npc"
            else "no mustering-out rolls of the draft's service leave that after its belongings"
        )
        reading.skip(
            line, f"Cr{reading.credits:,} is written, but {why}; the draft has Cr{credits:,}."
        )
    if reading.age is not None and report.age != reading.age:
        reading.skip(line, f"Age {reading.age} is written; the draft's age is {report.age}.")


def _checked(reading: _Reading, character: Character) -> ParsedStatBlock:
    """The draft's document, read back as any document is, so it is one the app can store."""
    document = to_document(character, cat=reading.cat)
    try:
        parse_document(document, cat=reading.cat)
    except MalformedDocument as error:
        reading.unread.append(UnreadLine(0, "", f"The draft cannot be made: {error}"))
        return ParsedStatBlock(None, tuple(reading.unread))
    return ParsedStatBlock(document, tuple(sorted(reading.unread, key=lambda u: u.line_no)))
