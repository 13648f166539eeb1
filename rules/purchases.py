"""Improvement-point purchases as an app keeps them: who must allow one, how to store one, and
how to say what it buys.

The prices, the changes and the checks are :mod:`rules.play`'s; this module adds what a web
app or a log needs around them:

- :func:`permission_needed`: the Character Trait Improvement Costs Table asks for the
  referee's permission to buy a new perk or buy off a flaw, SPENDING IMPROVEMENT POINTS asks
  for it to "develop completely new skills", and the referee sets the cost of what the
  rulebook gives no readable figure for (a new level-0 skill, an attribute raise). Raising a
  skill or a perk the character has, and adding a specialty, need no one's permission.
- :func:`purchase_as_dict` and :func:`purchase_from_dict`: a purchase as JSON and back.
- :func:`describe_purchase`: one line for a ledger, e.g. "Pilot-2 → Pilot-3".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from .catalog import Catalog, catalog
from .document import (
    MalformedDocument,
    describe_value,
    printable,
    read_int,
    read_text,
    read_trait,
    trait_document,
)
from .improvement import (
    AddPerk,
    AddSpecialty,
    BuyOffFlaw,
    BuyOffPackageFlaw,
    ImprovementError,
    Purchase,
    RaiseAttribute,
    RaisePerk,
    RaiseSkill,
    final_attribute_level,
    improvement_costs,
    new_skill_entry,
    raised_level,
    same_name,
    skill_level_now,
    skill_line_now,
    specialty_entry,
    trait_at,
    trait_points,
)
from .model import Character, TraitEntry
from .notation import format_skill, format_trait

KINDS: Mapping[str, type] = {
    "raise_skill": RaiseSkill,
    "add_specialty": AddSpecialty,
    "add_perk": AddPerk,
    "raise_perk": RaisePerk,
    "buy_off_flaw": BuyOffFlaw,
    "buy_off_package_flaw": BuyOffPackageFlaw,
    "raise_attribute": RaiseAttribute,
}
_KIND_OF = {cls: kind for kind, cls in KINDS.items()}


def referee_prices(purchase: Purchase) -> bool:
    """Whether the referee sets this purchase's IP cost (the rulebook gives no figure)."""
    costs = improvement_costs()
    if isinstance(purchase, RaiseAttribute):
        return costs.attribute is None
    if isinstance(purchase, RaiseSkill) and purchase.to_level == 0:
        return costs.new_zero_level_skill is None
    return False


def permission_needed(
    character: Character, purchase: Purchase, *, cat: Catalog | None = None
) -> str | None:
    """Why the purchase needs the referee, in a sentence; None when the player may just buy it."""
    cat = cat or catalog()
    if isinstance(purchase, BuyOffFlaw | BuyOffPackageFlaw):
        return "Buying off a flaw needs the referee's permission."
    if isinstance(purchase, AddPerk):
        return "A new perk needs the referee's permission."
    if isinstance(purchase, RaiseAttribute) and referee_prices(purchase):
        return "The referee sets the cost of an attribute raise."
    is_new_skill = isinstance(purchase, RaiseSkill) and (
        skill_level_now(character, purchase.skill, purchase.cascade, cat) is None
    )
    if is_new_skill and referee_prices(purchase):
        return "A new level-0 skill needs the referee's permission, and the referee sets its cost."
    if is_new_skill:
        return "A completely new skill needs the referee's permission."
    return None


def purchase_as_dict(purchase: Purchase) -> dict[str, Any]:
    """A JSON-ready dict of a purchase, with its ``kind``."""
    kind = _KIND_OF.get(type(purchase))
    if kind is None:
        raise ImprovementError(f"{purchase!r} is not a purchase.")
    if isinstance(purchase, AddPerk):
        return {"kind": kind, "trait": trait_document(purchase.trait)}
    fields = {name: getattr(purchase, name) for name in purchase.__slots__}
    return {"kind": kind, **fields}


def purchase_from_dict(data: Any) -> Purchase:
    """The purchase a dict of :func:`purchase_as_dict` describes.

    Raises ImprovementError, saying which field is wrong, for anything else: not a mapping, an
    unknown ``kind``, a missing or unknown field, or a field of the wrong type (``to_level``
    must be a whole number, not ``"3"``).
    """
    if not isinstance(data, Mapping):
        raise ImprovementError(
            f"Not a stored purchase: expected an object, got {describe_value(data)}."
        )
    kind_name = data.get("kind")
    kind = KINDS.get(kind_name) if isinstance(kind_name, str) else None
    if kind is None:
        raise ImprovementError(
            f"Not a stored purchase: kind is {describe_value(kind_name)}; it is one of "
            f"{', '.join(KINDS)}."
        )
    fields = {field.name: field for field in dataclasses.fields(kind)}
    for name in data:
        if name != "kind" and name not in fields:
            raise ImprovementError(
                f"Not a stored purchase: {kind_name} has no field {printable(name)!r} "
                f"(its fields: {', '.join(fields)})."
            )
    values = {}
    for name, field in fields.items():
        if name not in data:
            if field.default is dataclasses.MISSING:
                raise ImprovementError(f"Not a stored purchase: {kind_name} needs {name}.")
            continue
        values[name] = _stored_field(str(kind_name), name, data[name])
    purchase: Purchase = kind(**values)
    return purchase


# What each field of a stored purchase holds, and whether it may be null.
_FIELD_TYPES: Mapping[str, tuple[type, bool]] = {
    "skill": (str, False),
    "cascade": (str, True),
    "to_level": (int, False),  # RaisePerk's is a level code; see _stored_field
    "ip": (int, True),
    "specialty": (str, False),
    "index": (int, False),
    "attribute": (str, False),
    "name": (str, False),
    "trait": (dict, False),
}


def _stored_field(kind_name: str, name: str, value: Any) -> Any:
    """One field of a stored purchase, read with the document's readers; ImprovementError
    naming the field when it holds the wrong thing."""
    expected, nullable = _FIELD_TYPES[name]
    if kind_name == "raise_perk" and name == "to_level":
        expected = str  # a perk level code, "E"
    try:
        if value is None and nullable:
            return None
        if expected is dict:
            # A stored perk is a document's trait, read back by the document's own reader.
            return read_trait(value, name, catalog())
        if expected is int:
            return read_int(value, name)
        return read_text(value, name, longest=catalog().bounds.trait_name_length)
    except MalformedDocument as error:
        raise ImprovementError(f"Not a stored purchase: {kind_name} {error}.") from None


def _trait_label(trait: TraitEntry, cat: Catalog) -> str:
    points = trait_points(trait, cat)
    notation = format_trait(trait, points, cat=cat) if points is not None else f"[{trait.type}]"
    return f"{trait.name} {notation}".strip()


def describe_purchase(
    character: Character, purchase: Purchase, *, cat: Catalog | None = None
) -> str:
    """What a purchase buys, in one line, as the character stands before it."""
    cat = cat or catalog()
    if isinstance(purchase, RaiseSkill | AddSpecialty):
        return _describe_skill_purchase(character, purchase, cat)
    if isinstance(purchase, AddPerk | RaisePerk | BuyOffFlaw):
        return _describe_trait_purchase(character, purchase, cat)
    if isinstance(purchase, BuyOffPackageFlaw):
        return _describe_package_flaw(character, purchase, cat)
    if isinstance(purchase, RaiseAttribute):
        code = cat.attribute_aliases.get(purchase.attribute, purchase.attribute)
        if code in cat.attribute_order:
            return f"{code} {final_attribute_level(character, code, cat)} → {purchase.to_level}"
        return f"{purchase.attribute} → {purchase.to_level}"
    raise ImprovementError(f"{purchase!r} is not a purchase.")


def _describe_skill_purchase(
    character: Character, purchase: RaiseSkill | AddSpecialty, cat: Catalog
) -> str:
    if isinstance(purchase, RaiseSkill):
        # Named as the sheet names the skill, before the purchase and after it.
        now = skill_line_now(character, purchase.skill, purchase.cascade, cat)
        if now is None:
            entry = new_skill_entry(purchase, None, cat)
            return f"new skill {format_skill(entry.skill, entry.level, entry.cascade)}"
        after = format_skill(now.skill, purchase.to_level, now.cascade)
        return f"{format_skill(now.skill, now.level, now.cascade)} → {after}"
    try:
        index, specialty = specialty_entry(character, purchase, cat)
    except ImprovementError:
        return f"specialty {purchase.specialty} in {purchase.skill}"
    return f"specialty {specialty} in {character.skills[index].skill}"


def _describe_trait_purchase(
    character: Character, purchase: AddPerk | RaisePerk | BuyOffFlaw, cat: Catalog
) -> str:
    if isinstance(purchase, AddPerk):
        return f"new perk {_trait_label(purchase.trait, cat)}"
    if isinstance(purchase, RaisePerk):
        try:
            trait = trait_at(character, purchase.index)
        except ImprovementError:
            return f"raise perk {purchase.index} to level {purchase.to_level}"
        raised = replace(trait, level=raised_level(purchase))
        return f"perk {_trait_label(trait, cat)} → {_trait_label(raised, cat)}"
    try:
        return f"buy off flaw {_trait_label(trait_at(character, purchase.index), cat)}"
    except ImprovementError:
        return f"buy off flaw {purchase.index}"


def _describe_package_flaw(character: Character, purchase: BuyOffPackageFlaw, cat: Catalog) -> str:
    species = cat.species.get(character.species) or cat.species["human"]
    package_trait = next((t for t in species.traits if same_name(t.name, purchase.name)), None)
    if package_trait is None:
        return f"buy off package flaw {purchase.name}"
    entry = TraitEntry(
        type=package_trait.type,
        name=package_trait.name,
        level=package_trait.level,
        frequency=package_trait.frequency,
        control=package_trait.control,
    )
    return f"buy off {species.name} package flaw {_trait_label(entry, cat)}"
