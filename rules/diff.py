"""What changed between two character documents, field by field, in the rulebook's notation.

The web app keeps every saved document as a revision; this compares two of them for a person
to read: attributes by code (``STR 7 → 9``), skills in notation (``Pilot-2 → Pilot-3``),
traits in bracket notation, equipment lines with their quantities, and every other field of
the document. Pure functions over plain dicts; documents are compared as stored (normalised by
the engine), and a field a document leaves out reads as absent.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .catalog import Catalog, catalog
from .document import MalformedDocument, read_trait
from .improvement import trait_points
from .notation import format_skill, format_trait

# The document's plain fields, in the order a sheet shows them, with their labels.
DETAILS: tuple[tuple[str, str], ...] = (
    ("name", "Name"),
    ("kind", "Kind"),
    ("budget", "Budget"),
    ("species", "Species"),
    ("homeworld", "Homeworld"),
    ("native_language", "Native language"),
    ("native_culture", "Native culture"),
    ("service", "Service"),
    ("terms", "Terms"),
    ("rank", "Rank"),
    ("age", "Age"),
    ("house_rules", "House rules"),
    ("package_flaws_bought_off", "Package flaws bought off"),
)
NOTES_SHOWN = 80
# Sections that list entries (each change names its entry); the others are single fields.
LISTS = frozenset(
    {"Skills", "Traits", "Equipment"}
)  # characters of the notes shown before and after a change


@dataclass(frozen=True, slots=True)
class Change:
    """One difference: ``before`` is None for something added, ``after`` for something removed."""

    section: str
    label: str
    before: str | None
    after: str | None

    @property
    def kind(self) -> str:
        if self.before is None:
            return "added"
        if self.after is None:
            return "removed"
        return "changed"

    def describe(self) -> str:
        """The change in a few words: "STR 7 → 9", "Homeworld — → Regina", "added Medical-1"."""
        if self.section in LISTS:
            return str(self)
        return f"{self.label} {self.before or '—'} → {self.after or '—'}"

    def __str__(self) -> str:
        if self.before is None:
            return f"added {self.after}"
        if self.after is None:
            return f"removed {self.before}"
        return f"{self.before} → {self.after}"


def _text(value: Any) -> str:
    if isinstance(value, Mapping):
        return ", ".join(f"{key}: {_text(item)}" for key, item in value.items()) or "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        return ", ".join(_text(item) for item in value) or "—"
    return str(value)


def _shorten(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= NOTES_SHOWN else text[: NOTES_SHOWN - 1] + "…"


def _keyed(items: Sequence[tuple[Any, str]]) -> dict[tuple[Any, int], str]:
    """Entries by (key, occurrence), so that two equal entries are two entries."""
    seen: Counter[Any] = Counter()
    out = {}
    for key, text in items:
        out[(key, seen[key])] = text
        seen[key] += 1
    return out


def _compare(
    section: str, old: Sequence[tuple[Any, str]], new: Sequence[tuple[Any, str]]
) -> list[Change]:
    """Changes between two lists of (key, text), in the order of the new list then the old."""
    before, after = _keyed(old), _keyed(new)
    changes = []
    for key, text in after.items():
        previous = before.get(key)
        if previous != text:
            label = text if previous is None else previous
            changes.append(Change(section, label, previous, text))
    changes.extend(
        Change(section, text, text, None) for key, text in before.items() if key not in after
    )
    return changes


def _fold(text: Any) -> str:
    return " ".join(str(text or "").lower().split())


def _skills(document: Mapping[str, Any]) -> list[tuple[Any, str]]:
    return [
        (
            (_fold(entry.get("skill")), _fold(entry.get("cascade"))),
            format_skill(
                entry.get("skill", "?"),
                entry.get("level", 0),
                entry.get("cascade"),
                entry.get("specialties") or (),
            ),
        )
        for entry in document.get("skills") or ()
        if isinstance(entry, Mapping)
    ]


def _trait_text(entry: Mapping[str, Any], cat: Catalog) -> str:
    try:
        trait = read_trait(entry, "trait", cat)
    except MalformedDocument:  # an old revision may hold what the reader now refuses
        return f"{entry.get('name', '')} [{entry.get('type', '')}]".strip()
    points = trait_points(trait, cat)
    if points is None:
        code = "-".join(str(part) for part in (trait.type, trait.level, trait.frequency) if part)
        return f"{trait.name} [{code}]".strip()
    return f"{trait.name} {format_trait(trait, points, cat=cat)}".strip()


def _traits(document: Mapping[str, Any], cat: Catalog) -> list[tuple[Any, str]]:
    return [
        ((entry.get("type"), _fold(entry.get("name"))), _trait_text(entry, cat))
        for entry in document.get("traits") or ()
        if isinstance(entry, Mapping)
    ]


def _equipment(document: Mapping[str, Any]) -> list[tuple[Any, str]]:
    lines = []
    for entry in document.get("equipment") or ():
        if not isinstance(entry, Mapping):
            continue
        tl = f" (TL {entry['tl']})" if entry.get("tl") is not None else ""
        quantity = entry.get("quantity", 1)
        count = f" x{quantity}" if quantity != 1 else ""
        worn = ", worn" if entry.get("worn") is True else ""
        lines.append(
            (
                (_fold(entry.get("item")), entry.get("tl")),
                f"{entry.get('item')}{tl}{count}{worn}",
            )
        )
    return lines


def _psionics(document: Mapping[str, Any]) -> str | None:
    psionics = document.get("psionics")
    if not isinstance(psionics, Mapping):
        return None
    talents = psionics.get("talents") or {}
    return ", ".join(
        [f"PSI {psionics.get('strength')}", *(f"{name}-{level}" for name, level in talents.items())]
    )


def _rolls(document: Mapping[str, Any]) -> str | None:
    mustering = document.get("mustering_out")
    if not isinstance(mustering, Mapping) or not mustering.get("rolls"):
        return None
    return ", ".join(str(roll) for roll in mustering["rolls"])


def _credits_given(document: Mapping[str, Any]) -> str | None:
    mustering = document.get("mustering_out")
    if not isinstance(mustering, Mapping) or mustering.get("credits") is None:
        return None
    return f"Cr{mustering['credits']:,}"


def _single(section: str, label: str, before: str | None, after: str | None) -> list[Change]:
    return [] if before == after else [Change(section, label, before, after)]


def document_changes(
    old: Mapping[str, Any], new: Mapping[str, Any], *, cat: Catalog | None = None
) -> tuple[Change, ...]:
    """Every difference from ``old`` to ``new``, sheet order: details, attributes, skills,
    traits, psionics, mustering out, equipment, notes. Equal documents give ``()``."""
    cat = cat or catalog()
    changes: list[Change] = []
    for key, label in DETAILS:
        before = _text(old[key]) if old.get(key) is not None else None
        after = _text(new[key]) if new.get(key) is not None else None
        changes += _single("Details", label, before, after)
    old_attributes = old.get("attributes") or {}
    new_attributes = new.get("attributes") or {}
    present = set(old_attributes) | set(new_attributes)
    codes = [code for code in cat.attribute_order if code in present]
    codes += sorted(present - set(codes))
    for code in codes:
        before, after = old_attributes.get(code), new_attributes.get(code)
        changes += _single(
            "Attributes",
            code,
            None if before is None else _text(before),
            None if after is None else _text(after),
        )
    changes += _compare("Skills", _skills(old), _skills(new))
    changes += _compare("Traits", _traits(old, cat), _traits(new, cat))
    changes += _single("Psionics", "Psionics", _psionics(old), _psionics(new))
    changes += _single("Mustering out", "Cash rolls", _rolls(old), _rolls(new))
    changes += _single("Mustering out", "Credits given", _credits_given(old), _credits_given(new))
    changes += _compare("Equipment", _equipment(old), _equipment(new))
    old_notes, new_notes = old.get("notes") or "", new.get("notes") or ""
    if old_notes != new_notes:
        changes.append(
            Change(
                "Notes",
                "Notes",
                _shorten(old_notes) if old_notes else None,
                _shorten(new_notes) if new_notes else None,
            )
        )
    return tuple(changes)


def summarise(changes: Sequence[Change], *, limit: int = 4) -> str:
    """The first ``limit`` changes in one line, e.g. "STR 7 → 9; added Medical-1 (and 2 more)"."""
    if not changes:
        return "no change"
    shown = "; ".join(change.describe() for change in changes[:limit])
    more = len(changes) - limit
    return shown + (f" (and {more} more)" if more > 0 else "")
