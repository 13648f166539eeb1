"""The stat block the rulebook describes for write-ups of characters and NPCs."""

from __future__ import annotations

from .catalog import Catalog, catalog
from .model import Character
from .report import Report


def stat_block(character: Character, report: Report, *, cat: Catalog | None = None) -> str:
    """Name, terms and service; age, UPP, credits, derived; skills; belongings; traits."""
    cat = cat or catalog()
    service = cat.find_service(character.service) if character.service else None
    service_name = service.name if service else (character.service or "no service")
    first = (
        f"{report.name}, {character.terms} term{'s' if character.terms != 1 else ''} {service_name}"
    )
    if report.rank.title:
        first += f" ({report.rank.title})"
    elif report.rank.level:
        first += f" (rank {report.rank.level})"
    if report.species != "human":
        first += f", {cat.species[report.species].name}"
    derived = " ".join(f"{code} {value}" for code, value in report.derived.as_dict().items())
    age = f"Age {report.age}" if report.age is not None else "Age —"
    credits = report.equipment.credits_remaining
    second = f"{age}  {report.upp}  Cr{credits:,}  {derived}"
    skills = sorted(report.skills.lines, key=lambda line: line.name.lower())
    third = ", ".join(line.name for line in skills) or "No skills"
    belongings = []
    for line in report.equipment.lines:
        name = line.item if line.quantity == 1 else f"{line.item} x{line.quantity}"
        belongings.append(name)
    fourth = ", ".join(belongings) if belongings else "No belongings"
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
