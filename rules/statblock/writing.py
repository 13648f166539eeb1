"""Writing a character's stat block from its report, with a header on each later line."""

from __future__ import annotations

from ..catalog import Catalog, catalog
from ..model import Character
from ..report import Report
from ..wording import plural


def stat_block(
    character: Character,
    report: Report,
    *,
    cat: Catalog | None = None,
    credits: str | None = None,
) -> str:
    """Name, terms and service; age, UPP, credits, derived; skills; belongings; traits.

    ``credits``: written instead of the credits the report leaves (a sheet for pencil leaves a
    blank there: the credits change in play)."""
    cat = cat or catalog()
    service = cat.find_service(character.service) if character.service else None
    service_name = service.name if service else (character.service or NO_SERVICE)
    first = f"{report.name}, {plural(character.terms, 'term')} {service_name}"
    if report.rank.title:
        first += f" ({report.rank.title})"
    elif report.rank.level:
        first += f" (rank {report.rank.level})"
    if report.species != "human":
        first += f", {cat.species[report.species].name}"
    derived = " ".join(f"{code} {value}" for code, value in report.derived.as_dict().items())
    age = f"Age {report.age}" if report.age is not None else f"Age {NO_AGE}"
    if credits is None:
        credits = f"Cr{report.equipment.credits_remaining:,}"
    second = f"{age}  {report.upp}  {credits}  {derived}"
    skills = sorted(report.skills.lines, key=lambda line: line.name.lower())
    third = ", ".join(line.name for line in skills) or NO_SKILLS
    belongings = []
    for line in report.equipment.lines:
        # An item the catalog has at several tech levels is named with its TL, so the block
        # says which one it is (and reads back as that one).
        name = line.item
        if line.tl is not None and len(cat.equipment_named(line.item)) > 1:
            name += f" (TL {line.tl})"
        belongings.append(name if line.quantity == 1 else f"{name} x{line.quantity}")
    fourth = ", ".join(belongings) if belongings else NO_BELONGINGS
    traits = "; ".join(f"{t.name} {t.notation}" for t in report.traits)
    lines = [first, second, f"Skills: {third}.", f"Belongings: {fourth}."]
    if report.psionics:
        talents = ", ".join(f"{name}-{level}" for name, level in report.psionics.talents)
        lines.append(
            f"Psionics: PSI {report.psionics.strength}" + (f"; {talents}" if talents else "") + "."
        )
    if traits:
        lines.append(f"Traits: {traits}.")
    return "\n".join(lines)


NO_SERVICE = "no service"
NO_AGE = "—"
NO_SKILLS = "No skills"
NO_BELONGINGS = "No belongings"
