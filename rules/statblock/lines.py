"""Reading a stat block line by line: the name line, the attributes line, the skills, the
belongings, psionics and traits, each into a :class:`_Reading`, and every part no line could
carry into the draft named with its reason."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..catalog import AMMUNITION, NO_DIGIT, Catalog, catalog
from ..engine import check
from ..model import Character, EquipmentEntry, Psionics, SkillEntry, TraitEntry
from ..notation import NotationError, parse_skill, parse_trait
from .writing import NO_AGE, NO_BELONGINGS, NO_SERVICE, NO_SKILLS


class UnreadLine(NamedTuple):
    """A part of the pasted text the draft does not carry: its line (1 is the first), the
    line as pasted, and why."""

    line_no: int
    line: str
    reason: str


@dataclass(frozen=True, slots=True)
class ParsedStatBlock:
    """A pasted stat block: the character document of the draft it makes (None when the text
    has no name or no UPP to make one from) and every part of it that was not read."""

    document: dict[str, Any] | None
    unread: tuple[UnreadLine, ...]


class _Line(NamedTuple):
    number: int
    text: str


@dataclass(slots=True)
class _Reading:
    """What the lines gave so far, and what they could not give."""

    cat: Catalog
    unread: list[UnreadLine] = field(default_factory=list)
    name: str | None = None
    terms: int = 0
    service: str | None = None
    rank: int | None = None
    species: str = "human"
    attributes_line: _Line | None = None
    age: int | None = None
    final_levels: tuple[int, ...] | None = None
    credits: int | None = None
    derived: dict[str, int] = field(default_factory=dict)
    skills: list[tuple[_Line, SkillEntry]] | None = None
    equipment: list[EquipmentEntry] | None = None
    psionics: Psionics | None = None
    traits: list[tuple[_Line, TraitEntry]] = field(default_factory=list)
    trait_notations: list[tuple[_Line, str, str]] = field(default_factory=list)  # name, notation
    notes: list[str] = field(default_factory=list)

    def skip(self, line: _Line, reason: str) -> None:
        self.unread.append(UnreadLine(line.number, line.text, reason))


# The headers of the later lines, as this app writes them and as people do ("Equipment:").
_HEADER = re.compile(r"^(?P<header>[A-Za-z]+)\s*:\s*(?P<body>.*)$", re.DOTALL)
# A UPP's digits, with the mark of a level no digit writes: a block of a character with such a
# level is still read, and the digit named as unreadable.
_DIGITS = f"0-9A-Za-z{re.escape(NO_DIGIT)}"
_UPP = re.compile(
    rf"(?<![{_DIGITS}-])[{_DIGITS}]{{3}}-[{_DIGITS}]{{3}}-[{_DIGITS}]{{3}}(?![{_DIGITS}-])"
)


def _read_line(reading: _Reading, line: _Line) -> None:
    if reading.name is None:
        # A block opens with its name line whatever the name says ("Traits: Ann").
        _read_identity(reading, line)
        return
    header = _HEADER.match(line.text)
    reader = _HEADED.get(header["header"].lower()) if header else None
    if reader is not None and header is not None:
        reader(reading, line, _without_full_stop(header["body"]))
    elif reading.final_levels is None and _UPP.search(line.text):
        _read_attributes(reading, line)
    elif reading.skills is None and _all_read(line.text, _skill_item):
        _read_skills(reading, line, _without_full_stop(line.text))
    elif reading.equipment is None and _belongings_line(line.text, reading.cat):
        _read_belongings(reading, line, _without_full_stop(line.text), headed=False)
    else:
        _read_description(reading, line)


def _without_full_stop(text: str) -> str:
    return text[:-1].rstrip() if text.endswith(".") else text


_IDENTITY = re.compile(r"^(?P<name>.+),\s*(?P<terms>\d{1,4})\s+terms?\b[\s,]*(?P<rest>.*)$")
_RANK = re.compile(r"^(?P<service>.*?)\s*\((?P<rank>[^()]*)\)$")
_RANK_NUMBER = re.compile(r"^rank\s+(?P<level>-?\d{1,3})$", re.IGNORECASE)


def _read_identity(reading: _Reading, line: _Line) -> None:
    cat = reading.cat
    match = _IDENTITY.match(line.text)
    name = " ".join((match["name"] if match else line.text).split())
    if len(name) > cat.bounds.name_length:
        reading.skip(
            line,
            f"The name is {len(name):,} characters long; a name has at most "
            f"{cat.bounds.name_length}.",
        )
        name = name[: cat.bounds.name_length].rstrip()
    reading.name = name
    if match is None:
        return
    terms = int(match["terms"])
    if terms > cat.bounds.terms:
        reading.skip(
            line,
            f"{terms} terms is more than the {cat.bounds.terms} a character "
            "may serve; the draft has none.",
        )
    else:
        reading.terms = terms
    rest = match["rest"].strip()
    species, comma, last = rest.rpartition(",")
    found = cat.find_species(last) if comma else None
    if found is not None:
        reading.species, rest = found.key, species.strip()
    _read_service(reading, line, rest)


def _read_service(reading: _Reading, line: _Line, text: str) -> None:
    cat = reading.cat
    rank = _RANK.match(text)
    service_text = rank["service"] if rank else text
    if service_text and service_text.lower() != NO_SERVICE:
        found = cat.find_service(service_text)
        if found is None and len(service_text) > cat.bounds.label_length:
            reading.skip(line, f"The service {service_text[:40]!r}… is too long to be one.")
        else:
            reading.service = found.key if found else service_text
    if rank is None:
        return
    number = _RANK_NUMBER.match(rank["rank"].strip())
    if number is not None:
        reading.rank = int(number["level"])
        return
    service = cat.services.get(reading.service or "")
    titles = {title.lower(): level for level, title in service.ranks.items()} if service else {}
    level = titles.get(rank["rank"].strip().lower())
    if level is None:
        where = f"the {service.name} service's ranks" if service else "no service's ranks"
        reading.skip(
            line, f"The rank {rank['rank']!r} is not one of {where}; the draft has no former rank."
        )
    else:
        reading.rank = level


_AGE = re.compile(rf"\bAge\s+(?P<age>\d{{1,4}}|{NO_AGE}|-)", re.IGNORECASE)
_CREDITS = re.compile(r"\bCr\s*(?P<credits>-?\d{1,3}(?:,\d{3}){0,4}|-?\d{1,15})(?![\d,])")


def _derived_figure(cat: Catalog) -> re.Pattern[str]:
    codes = "|".join(cat.derived_order)
    return re.compile(rf"\b(?P<code>{codes})\s*(?P<value>-?\d{{1,4}})\b")


def _read_attributes(reading: _Reading, line: _Line) -> None:
    cat = reading.cat
    reading.attributes_line = line
    taken: list[tuple[int, int]] = []
    upp = _UPP.search(line.text)
    assert upp is not None  # _read_line saw it
    taken.append(upp.span())
    _read_upp(reading, line, upp.group())
    age = _AGE.search(line.text)
    if age is not None:
        taken.append(age.span())
        reading.age = int(age["age"]) if age["age"].isdigit() else None
        if reading.age is not None and reading.age > cat.bounds.age:
            reading.skip(
                line,
                f"Age {reading.age} is above the {cat.bounds.age} a document "
                "keeps; the draft takes the minimum age.",
            )
            reading.age = None
    credits = _CREDITS.search(line.text)
    if credits is not None:
        taken.append(credits.span())
        reading.credits = int(credits["credits"].replace(",", ""))
    for figure in _derived_figure(cat).finditer(line.text):
        taken.append(figure.span())
        reading.derived[figure["code"]] = int(figure["value"])
    _left_over(reading, line, taken)


def _read_upp(reading: _Reading, line: _Line, upp: str) -> None:
    cat = reading.cat
    read = [cat.from_hex(digit) for digit in upp.replace("-", "")]
    if None in read:
        reading.skip(
            line,
            f"{upp} is not a UPP: each attribute is one hex digit "
            f"({cat.hex_digits[0]}-{cat.hex_digits[-1]}, without I and O); the "
            f"draft has {cat.limits.attribute_average} for each digit it could not read.",
        )
    final = [0] * len(cat.attribute_order)
    for position, level in zip(cat.upp_positions, read, strict=True):
        final[position] = cat.limits.attribute_average if level is None else level
    reading.final_levels = tuple(final)


def _left_over(reading: _Reading, line: _Line, taken: list[tuple[int, int]]) -> None:
    """Name what is left of ``line`` once the ``taken`` spans are read."""
    text = line.text
    rest = []
    position = 0
    for start, end in sorted(taken):
        rest.append(text[position:start])
        position = max(position, end)
    rest.append(text[position:])
    left = " ".join(" ".join(rest).split())
    if left:
        reading.skip(
            line,
            f"{left!r} was not read: this line holds the age, the UPP, the "
            "credits (Cr) and the derived attributes.",
        )


def _items(text: str) -> list[str]:
    """The comma-separated items of a list, commas inside brackets kept with their item."""
    items, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(depth - 1, 0)
        elif char == "," and depth == 0:
            items.append(text[start:index].strip())
            start = index + 1
    items.append(text[start:].strip())
    return [item for item in items if item]


def _all_read(text: str, read: Callable[[str], object | None]) -> bool:
    items = _items(_without_full_stop(text))
    return bool(items) and all(read(item) is not None for item in items)


_NEGATIVE_LEVEL = re.compile(r"-\s*-\s*\d")


def _skill_item(item: str) -> SkillEntry | None:
    if _NEGATIVE_LEVEL.search(item):
        return None
    try:
        return parse_skill(item)
    except NotationError:
        return None


def _read_skills(reading: _Reading, line: _Line, body: str) -> None:
    cat = reading.cat
    reading.skills = reading.skills or []
    if body.strip().lower() == NO_SKILLS.lower():
        return
    for item in _items(body):
        entry = _skill_item(item)
        if entry is None:
            reading.skip(
                line,
                f"{item!r} is not a skill in the rulebook's notation, such as "
                "'Pilot-2 (small craft)' or 'Blade Combat (swords)-1' (levels from 0).",
            )
        elif not _skill_fits(entry, cat):
            reading.skip(
                line, f"{item!r} is longer, or its level higher, than a character document keeps."
            )
        elif len(reading.skills) >= cat.bounds.skills:
            reading.skip(
                line, f"{item!r} is past the {cat.bounds.skills} skills a character may list."
            )
        else:
            reading.skills.append((line, entry))


def _skill_fits(entry: SkillEntry, cat: Catalog) -> bool:
    bounds = cat.bounds
    texts = (entry.skill, entry.cascade or "", *entry.specialties)
    return (
        entry.level <= bounds.level
        and len(entry.specialties) <= bounds.specialties
        and all(len(text) <= bounds.label_length for text in texts)
    )


_ITEM = re.compile(
    r"^(?:(?P<count>\d{1,6})\s*[x\u00d7]?\s+)?(?P<name>.+?)(?:\s*\(TL\s*(?P<tl>\d{1,3})\))?"
    r"(?:\s+[x\u00d7]\s*(?P<quantity>\d{1,6}))?$",
    re.IGNORECASE,
)
# Ordinary words for what the catalog calls a weapon's ammunition ("2 SMG magazines") and for a
# suit of armor named by its material ("Cloth armor").
_AMMUNITION_WORDS = re.compile(
    r"\s+(?:magazines?|mags?|clips?|power\s+packs?|ammo|rounds?|cartridges?)$", re.IGNORECASE
)
_ARMOR_WORD = re.compile(r"\s+armou?r$", re.IGNORECASE)


def catalog_item_name(text: str, cat: Catalog | None = None) -> str | None:
    """The catalog's name for an item written in ordinary words: as the catalog writes it, in
    the plural ("daggers"), its ammunition as magazines, clips or power packs ("SMG magazines"
    is "SMG ammunition"), armor named with the word armor ("Cloth armor"). None when the
    catalog has no such item."""
    cat = cat or catalog()
    name = " ".join(text.split())
    singular = name[:-1] if name.lower().endswith("s") and not name.lower().endswith("ss") else name
    for written in (name, singular):
        for candidate in (
            written,
            _AMMUNITION_WORDS.sub(" " + AMMUNITION.format(weapon="").strip(), written),
            _ARMOR_WORD.sub("", written),
        ):
            found = cat.equipment_named(candidate)
            if found:
                return found[0].name
    return None


# The words that join and open the items of a list in ordinary writing: "Cloth armor, SMG and
# 2 SMG magazines", "a cloth armor, an SMG".
_AND = re.compile(r"^and\s+|\s+and\s+", re.IGNORECASE)
_ARTICLE = re.compile(r"^(?:an?|the)\s+(?=\S)", re.IGNORECASE)


def _belongings(text: str, cat: Catalog) -> list[str]:
    """The items of a belongings list, separated by commas or "and" (", and" too). An item is
    split at "and" only where the catalog knows one of the parts, so a name of the player's own
    ("Salt and pepper") stays whole: kept under ``Belongings:``, listed as not read without."""
    items: list[str] = []
    for item in _items(text):
        parts = [part for part in _AND.split(item) if part.strip()]
        if len(parts) > 1 and any(_item_parts(part, cat)[0] is not None for part in parts):
            items.extend(part.strip() for part in parts)
        else:
            items.append(_AND.sub("", item, count=1) if _AND.match(item) else item)
    return items


def _belongings_line(text: str, cat: Catalog) -> bool:
    """Whether a line without a header lists belongings: every item on it is one the catalog
    knows, or (a list of several) some are."""
    items = _belongings(_without_full_stop(text), cat)
    known = [item for item in items if _item_parts(item, cat)[0] is not None]
    return bool(known) and (len(known) == len(items) or len(items) > 1)


def _item_parts(item: str, cat: Catalog) -> tuple[str | None, str, int, int | None]:
    """An item of a belongings list: the catalog's name for it (None when it has none), the
    name as written (without a leading "a", "an" or "the": one of it), the quantity (0 when
    none can be read) and the TL written."""
    match = _ITEM.match(_ARTICLE.sub("", item))
    if match is None:
        return None, "", 0, None
    written = " ".join(match["name"].split())
    quantity = int(match["quantity"] or match["count"] or 1)
    tl = int(match["tl"]) if match["tl"] else None
    return catalog_item_name(written, cat), written, quantity, tl


def _read_belongings(reading: _Reading, line: _Line, body: str, *, headed: bool = True) -> None:
    """A belongings list. Under a header (``Belongings:``) an item the catalog lacks is kept
    under its own name; in a list without one it is listed as not read."""
    cat = reading.cat
    reading.equipment = reading.equipment or []
    if body.strip().lower() == NO_BELONGINGS.lower():
        return
    bounds = cat.bounds
    for item in _belongings(body, cat):
        known, name, quantity, tl = _item_parts(item, cat)
        if known is None and not headed:
            reading.skip(
                line,
                f"{item[:80]!r} is not an item of the catalog; write it after 'Belongings:' "
                "to keep it as an item of its own.",
            )
        elif not name or len(name) > bounds.label_length:
            reading.skip(line, f"{item[:80]!r} is not an item the belongings can hold.")
        elif not 1 <= quantity <= bounds.quantity or (tl is not None and tl > bounds.tl):
            reading.skip(
                line, f"{item!r}: a quantity is 1-{bounds.quantity} and a TL at most {bounds.tl}."
            )
        elif len(reading.equipment) >= bounds.equipment:
            reading.skip(
                line, f"{item!r} is past the {bounds.equipment} items a character may list."
            )
        else:
            reading.equipment.append(EquipmentEntry(item=known or name, quantity=quantity, tl=tl))


_PSI = re.compile(r"^PSI\s+(?P<strength>\d{1,3})\s*(?:;\s*(?P<talents>.*))?$", re.IGNORECASE)
_TALENT = re.compile(r"^(?P<name>[^-]+?)\s*-\s*(?P<level>\d{1,3})$")


def _read_psionics(reading: _Reading, line: _Line, body: str) -> None:
    cat = reading.cat
    match = _PSI.match(body.strip())
    # A document holds levels to this bound; past the rulebook's cap is the rules' to name.
    most = cat.bounds.level
    if match is None or int(match["strength"]) > most:
        reading.skip(
            line,
            f"{body!r} is not read: psionics are written 'PSI 6; Telepathy-2, "
            f"Awareness-1' (strength at most {most}).",
        )
        return
    talents: dict[str, int] = {}
    for item in _items(match["talents"] or ""):
        talent = _TALENT.match(item)
        level = int(talent["level"]) if talent else 0
        if talent is None or level > most:
            reading.skip(line, f"{item!r} is not a talent and its level, such as 'Telepathy-2'.")
        elif len(talents) >= cat.bounds.talents or len(talent["name"]) > cat.bounds.label_length:
            reading.skip(line, f"{item!r} is past what a character document keeps.")
        else:
            name = cat.find_talent(talent["name"]) or " ".join(talent["name"].split())
            talents[name] = level
    order = {name: position for position, name in enumerate(cat.talents)}
    ordered = sorted(talents.items(), key=lambda item: (order.get(item[0], len(order)), item[0]))
    reading.psionics = Psionics(strength=int(match["strength"]), talents=tuple(ordered))


_TRAIT_ITEM = re.compile(r"\s*(?P<name>[^\[\]]*?)\s*(?P<notation>\[[^\[\]]*\])")
_NOTATION = re.compile(r"\[[^\[\]]*\]")
# What joins a trait to the one before it in running text ("hearing [..] and sight [..]").
_SENTENCE_END = re.compile(r"[.!?;:]\s+")
_JOINING = re.compile(r"^(?:[\s,;:.]|and\b|or\b|but\b)+", re.IGNORECASE)


# The rulebook's other way to write a trait: its description inside the brackets, before the
# notation ("[attacks with teeth (optimal distance 0 squares) PP-E-R 2]").
_DESCRIBED_NOTATION = re.compile(
    r"^\[\s*(?P<name>[^\[\]]*?)[\s;,]+(?P<code>\*?(?:PP|MP|HP|PF|MF|HF)\b[^\[\]]*)\]$",
    re.IGNORECASE,
)


_BETWEEN_TRAITS = re.compile(r"(?:[\s,;:.]|and\b|or\b|but\b)+", re.IGNORECASE)


def _read_traits(reading: _Reading, line: _Line, body: str) -> None:
    """Traits as their name (or description) and notation, one after another: separated by
    semicolons as this app writes them, or by commas, full stops or "and" as the rulebook's
    running text does ("exceptional hearing [PP-C-S 2] and sight [PP-C-S 2]")."""
    position = 0
    while position < len(body):
        match = _TRAIT_ITEM.match(body, position)
        if match is None:
            reading.skip(
                line,
                f"{body[position:].strip()[:80]!r} is not a trait written as its name "
                "and bracket notation, such as 'Steady under pressure [MP-C-S 2]'.",
            )
            return
        name, notation = " ".join(match["name"].split()), match["notation"]
        described = _DESCRIBED_NOTATION.match(notation)
        if described is not None and not name:
            name, notation = " ".join(described["name"].split()), f"[{described['code']}]"
        reading.trait_notations.append((line, name, notation))
        joining = _BETWEEN_TRAITS.match(body, match.end())
        position = joining.end() if joining else match.end()


def _read_description(reading: _Reading, line: _Line) -> None:
    """A line of the description: kept in the notes, with any trait it defines ("exceptional
    hearing [PP-C-S 2]") read as a trait named by the words before it. A line that defines
    none is listed too, so no line goes into the notes without a word."""
    reading.notes.append(line.text)
    if not _NOTATION.search(line.text):
        reading.skip(line, "Not read as figures: kept, as written, in the draft's notes.")
    start = 0
    for notation in _NOTATION.finditer(line.text):
        clause = _SENTENCE_END.split(line.text[start : notation.start()])[-1]
        words = _JOINING.sub("", clause).strip()
        start = notation.end()
        code = notation.group()[1:3].upper()
        if code in reading.cat.perk_types or code in reading.cat.flaw_types:
            reading.trait_notations.append((line, words, notation.group()))


def _resolve_traits(reading: _Reading) -> tuple[tuple[str, ...], int | None]:
    """Read every trait written; return the species package's traits named among them, and the
    former rank a rank line gives."""
    cat = reading.cat
    package = {(t.name, notation) for t, notation in _package_notations(cat, reading.species)}
    named_package: list[str] = []
    rank_level = None
    for line, name, notation in reading.trait_notations:
        rank = _RANK_LINE.match(notation)
        if rank is not None and name.lower().startswith("former rank"):
            rank_level = int(rank["level"])
        elif (name, notation) in package:
            named_package.append(name)
        else:
            _read_trait(reading, line, name, notation)
    return tuple(named_package), rank_level


_RANK_LINE = re.compile(r"^\[Rank-(?P<level>\d{1,3})\s+-?\d{1,4}\]$", re.IGNORECASE)


def _read_trait(reading: _Reading, line: _Line, name: str, notation: str) -> None:
    cat = reading.cat
    label = name or "Trait from the description"
    if notation.strip("[] ").lower() == "invalid":
        reading.skip(
            line,
            f"{label} {notation}: the trait's level and frequency are off the "
            "tables, so the stat block does not say what it is.",
        )
        return
    try:
        trait = parse_trait(notation, label[: cat.bounds.trait_name_length], cat=cat)
    except NotationError as error:
        reading.skip(line, f"{label}: {error}")
        return
    if len(reading.traits) >= cat.bounds.traits:
        reading.skip(line, f"{label} is past the {cat.bounds.traits} traits a character may list.")
    else:
        reading.traits.append((line, trait))


def _package_notations(cat: Catalog, species: str) -> tuple[tuple[Any, str], ...]:
    """The species package's traits with their notations, as the report writes them."""
    average = (cat.limits.attribute_average,) * len(cat.attribute_order)
    base = Character(name="package", attributes=average, species=species)
    lines = [t for t in check(base, cat=cat).traits if t.source == "package"]
    by_name = {t.name: t for t in cat.species[species].traits}
    return tuple((by_name[line.name], line.notation) for line in lines)


_HEADED = {
    "skills": _read_skills,
    "belongings": _read_belongings,
    "equipment": _read_belongings,
    "psionics": _read_psionics,
    "traits": _read_traits,
}
