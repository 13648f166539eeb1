"""The rulebook's notation for skills and traits, written and read.

Skills: ``Pilot-2``, ``Blade Combat (swords)-1``, ``Pilot-3 (small craft)``; several
specialties are joined with commas: ``Gunnery-3 (ship's lasers, screens)``.
Traits: ``[PP-C-S 2]``, ``[PF-H-R CS4 -2]``, ``[PP INI+1 5]``; ``0`` is read as ``O``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .catalog import Catalog, catalog
from .document import WHOLE_MAX
from .model import SkillEntry, TraitEntry
from .wording import plural


class NotationError(ValueError):
    """Text that is not in the rulebook's notation; the message says what was expected."""


# Enough digits for any whole number a character document holds.
_DIGITS_MOST = len(str(WHOLE_MAX))
_SHOWN = 40


def _whole(digits: str, text: str) -> int:
    """A number written in a notation (signed, perhaps spaced: "- 2"), refused past the whole
    numbers a character document holds: no figure of the rules is so large, and Python will
    not read one of thousands of digits at all."""
    written = digits.replace(" ", "")
    length = len(written.lstrip("+-"))
    if length > _DIGITS_MOST or abs(number := int(written)) > WHOLE_MAX:
        shown = text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."
        raise NotationError(
            f"{shown!r} holds a number of {length:,} digits, past any figure of the rules."
        )
    return number


def format_skill(
    skill: str, level: int, cascade: str | None = None, specialties: Sequence[str] = ()
) -> str:
    text = f"{skill} ({cascade})-{level}" if cascade else f"{skill}-{level}"
    if specialties:
        text += f" ({', '.join(specialties)})"
    return text


_SKILL = re.compile(
    r"^(?P<skill>[^()]+?)\s*(?:\((?P<cascade>[^()]+)\))?\s*-\s*(?P<level>\d+)"
    r"\s*(?:\((?P<specialties>[^()]+)\))?$"
)


def parse_skill(text: str) -> SkillEntry:
    """Read ``Skill (cascade)-# (specialty, ...)``; names are kept as written."""
    match = _SKILL.match(text.strip())
    if match is None:
        raise NotationError(
            f"{text!r} is not a skill in the rulebook's notation, such as "
            "'Pilot-2 (small craft)' or 'Blade Combat (swords)-1'."
        )
    specialties = match["specialties"]
    return SkillEntry(
        skill=" ".join(match["skill"].split()),
        level=_whole(match["level"], text),
        cascade=" ".join(match["cascade"].split()) if match["cascade"] else None,
        specialties=tuple(s.strip() for s in specialties.split(",") if s.strip())
        if specialties
        else (),
    )


def _signed(value: int) -> str:
    return f"+{value}" if value > 0 else str(value)


def format_trait(trait: TraitEntry, points: int, *, cat: Catalog | None = None) -> str:
    """The bracket notation of a trait worth ``points`` (negative for flaws)."""
    cat = cat or catalog()
    if trait.derived:
        changes = " ".join(f"{code}{_signed(amount)}" for code, amount in trait.derived)
        return f"[{trait.type} {changes} {points}]"
    code = f"{trait.type}-{trait.level}-{trait.frequency}"
    if trait.control and trait.type in cat.flaw_types:
        score = cat.control_score(trait.level or "")
        if score is not None:
            code += f" CS{score}"
    return f"[{code} {points}]"


# Any case, as players type it: the codes are upper-cased once read.
_TRAIT = re.compile(
    r"^\[?\s*(?P<type>[A-Z]{2})-(?P<level>[A-Z])-(?P<frequency>[A-Z0])"
    r"(?:\s+CS\s*(?P<control>\d+))?\s+(?P<points>[+-]?\d+)\s*\]?$",
    re.IGNORECASE,
)
_DERIVED_TRAIT = re.compile(
    r"^\[?\s*(?P<type>[A-Za-z]{2})\s+(?P<changes>(?:[A-Za-z]{3}\s*[+-]\s*\d+\s*)+?)\s*(?P<points>[+-]?\d+)\s*\]?$"
)
_DERIVED_CHANGE = re.compile(r"([A-Za-z]{3})\s*([+-]\s*\d+)")


# A description written before the brackets, as the rulebook lists traits: "Loud [PF-I-S -2]".
_DESCRIBED = re.compile(r"^(?P<name>[^\[\]]*?\S)\s*(?P<notation>\[[^\[\]]*\])$")


def parse_trait(text: str, name: str = "", *, cat: Catalog | None = None) -> TraitEntry:
    """Read a bracket notation, checking its points against the tables.

    A description before the brackets names the trait when ``name`` does not. Raises
    :class:`NotationError` when the text is not a trait notation or when the points written in
    it disagree with the perk cost, flaw value or derived-attribute tables.
    """
    cat = cat or catalog()
    stripped = text.replace("*", "").strip()  # the rulebook italicises some notations
    described = _DESCRIBED.match(stripped)
    if described is not None:
        name = name or " ".join(described["name"].split())
        stripped = described["notation"]
    match = _TRAIT.match(stripped)
    if match is not None:
        trait_type = match["type"].upper()
        level = match["level"].upper()
        frequency = match["frequency"].upper()
        frequency = cat.frequency_aliases.get(frequency, frequency)
        trait = TraitEntry(
            type=trait_type,
            name=name,
            level=level,
            frequency=frequency,
            control=match["control"] is not None,
        )
        expected = cat.trait_points(trait_type, level, frequency)
        if expected is None:
            raise NotationError(
                f"{stripped} does not fit the trait tables: perks are PP, MP or HP at level C, E "
                "or G; flaws are PF, MF or HF at level I, H or P; frequency is R, S or O."
            )
        score = match["control"]
        if score is not None and _whole(score, text) != cat.control_score(level):
            raise NotationError(
                f"{stripped} gives control score {score}, but a level {level} flaw has control "
                f"score {cat.control_score(level)}."
            )
    else:
        match = _DERIVED_TRAIT.match(stripped)
        if match is None:
            raise NotationError(
                f"{text!r} is not a trait in the rulebook's notation, such as '[PP-C-S 2]', "
                "'[PF-H-R CS4 -2]' or '[PP INI+1 5]'."
            )
        trait_type = match["type"].upper()
        changes = tuple(
            (code.upper(), _whole(amount, text))
            for code, amount in _DERIVED_CHANGE.findall(match["changes"])
        )
        codes = [code for code, _ in changes]
        twice = next((code for code in codes if codes.count(code) > 1), None)
        if twice is not None:
            raise NotationError(f"{stripped} changes {twice} twice; give each attribute once.")
        trait = TraitEntry(type=trait_type, name=name, derived=changes)
        expected = derived_trait_points(trait, cat=cat)
        if expected is None:
            raise NotationError(
                f"{stripped} does not fit the derived-attribute table: perks raise and flaws "
                "lower DEF, INI, LIF, TGH, WND or MOV."
            )
    written = _whole(match["points"], text)
    if written != expected:
        raise NotationError(
            f"{stripped} is written as {plural(written, 'point')}, but the tables give {expected}."
        )
    return trait


def derived_trait_points(trait: TraitEntry, *, cat: Catalog | None = None) -> int | None:
    """Signed points of a derived-attribute trait, or None when it does not fit the table."""
    cat = cat or catalog()
    is_perk = trait.type in cat.perk_types
    if not is_perk and trait.type not in cat.flaw_types:
        return None
    total = 0
    for code, amount in trait.derived:
        per_point = cat.derived_trait_points.get(code)
        if per_point is None or amount == 0 or (amount > 0) != is_perk:
            return None
        total += per_point * amount
    return total if trait.derived else None
