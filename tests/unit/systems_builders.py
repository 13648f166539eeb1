"""Characters for the T4 and 2D6 tests: average humans (every attribute 7) changed only where a
test says, read into their T4/2D6 sheet."""

from __future__ import annotations

from typing import Any

from rules import parse_document
from rules.combat.sheet import FighterSheet, fighter_sheet
from rules.combat.throws import GivenDice

from .builders import document


def sheet(*skills: tuple[Any, ...] | dict[str, Any], **changes: Any) -> FighterSheet:
    """An average human with ``skills`` (name, level[, cascade], or a document's entry),
    ``attributes`` merged in, ``carrying=[...]`` items (names or entries) and any other
    document ``changes``."""
    carrying = changes.pop("carrying", ())
    entries = []
    for skill in skills:
        if isinstance(skill, dict):
            entries.append(skill)
            continue
        entry: dict[str, Any] = {"skill": skill[0], "level": skill[1]}
        if len(skill) == 3:
            entry["cascade"] = skill[2]
        entries.append(entry)
    equipment = [item if isinstance(item, dict) else {"item": item} for item in carrying]
    return fighter_sheet(parse_document(document(skills=entries, equipment=equipment, **changes)))


def dice(**throws: list[list[int]]) -> GivenDice:
    return GivenDice({name: tuple(tuple(t) for t in lists) for name, lists in throws.items()})


def dm_of(dms: Any, label_start: str) -> int | None:
    """The DM whose label starts with ``label_start``; None when no such DM applies."""
    found = [m.dm for m in dms if m.label.startswith(label_start)]
    assert len(found) <= 1, dms
    return found[0] if found else None


AVERAGE = sheet()
