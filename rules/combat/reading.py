"""Reading the JSON of the other systems' attack command and conditions: each reader takes a
value and the field it came from, and either returns it typed or raises
:class:`~rules.fighters.CombatRefused` naming that field. Whatever JSON arrives, nothing else
is raised."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, TypeVar

from ..catalog import catalog
from ..document import MalformedDocument, parse_document
from ..fighters import (
    CombatRefused,
    Refusals,
    Weapon,
    field_name,
    weapon_from_item,
    weapon_named,
)
from .sheet import FighterSheet, fighter_sheet

# No figure of a fight comes near this; larger ones are refused before any arithmetic.
LARGEST = 1000
DIE_FACES = range(1, 7)

_T = TypeVar("_T")
# A reader: the value and the field it came from, to the value typed (or CombatRefused).
Reader = Callable[[Any, str], _T]


def obj(value: Any, field: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise CombatRefused(field, "must be a JSON object")
    return value


def whole(value: Any, field: str, *, least: int = 0, most: int = LARGEST) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise CombatRefused(field, "must be a whole number")
    if not least <= value <= most:
        raise CombatRefused(field, f"must be between {least} and {most}, not {value}")
    return value


def objects(value: Any, field: str) -> list[Mapping[str, Any]]:
    """A list of JSON objects."""
    if not isinstance(value, list):
        raise CombatRefused(field, "must be a list of objects")
    return [obj(item, f"{field}[{index}]") for index, item in enumerate(value)]


def system_of(value: Any, field: str, system: str) -> str:
    """The ``system`` key of a condition or an attack: it must be the system being used."""
    if not isinstance(value, str):
        raise CombatRefused(field, f"must be {system!r}")
    if value != system:
        raise CombatRefused(
            field, f"is {field_name(repr(value))}; a {system} fight reads {system!r} here"
        )
    return system


def boolean(value: Any, field: str) -> bool:
    if not isinstance(value, bool):
        raise CombatRefused(field, "must be true or false")
    return value


def text(value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise CombatRefused(field, "must be a string")
    return value


def one_of(value: Any, field: str, choices: Iterable[str]) -> str:
    names = tuple(choices)
    if not isinstance(value, str):
        raise CombatRefused(field, f"must be one of {', '.join(names)}")
    if value not in names:
        shown = field_name(repr(value))
        raise CombatRefused(field, f"unknown {shown}; use one of {', '.join(names)}")
    return value


def names_of(value: Any, field: str, choices: Iterable[str]) -> frozenset[str]:
    """A list of names, each one of ``choices``."""
    if not isinstance(value, list):
        raise CombatRefused(field, f"must be a list of {', '.join(choices)}")
    return frozenset(one_of(item, f"{field}[{index}]", choices) for index, item in enumerate(value))


def unknown_keys(
    refusals: Refusals, data: Mapping[str, Any], known: Iterable[str], prefix: str
) -> None:
    allowed = tuple(known)
    for key in data:
        if key not in allowed:
            where = f"{prefix}.{field_name(key)}" if prefix else field_name(key)
            refusals.add(where, f"unknown key; use {', '.join(allowed)}")


def read_fields(
    data: Mapping[str, Any],
    prefix: str,
    readers: Mapping[str, Callable[[Any, str], Any]],
    refusals: Refusals,
) -> dict[str, Any]:
    """Each key of ``data`` with a reader, read (null keeps the default: the key is left out);
    unknown keys and every fault are kept in ``refusals``."""
    unknown_keys(refusals, data, readers, prefix)
    values: dict[str, Any] = {}
    for key, reader in readers.items():
        if data.get(key) is not None:
            field = f"{prefix}.{key}" if prefix else key
            value = refusals.attempt(reader, data[key], field)
            if value is not None:
                values[key] = value
    return values


def character(value: Any, field: str) -> FighterSheet:
    """A character document read into its T4/2D6 sheet; animals are refused in this version."""
    if isinstance(value, dict) and "animal" in value:
        raise CombatRefused(f"{field}.animal", "animals fight only under FFA in this version")
    try:
        document = parse_document(value)
    except MalformedDocument as error:
        raise CombatRefused(
            f"{field}.{error.path}" if error.path else field, error.message
        ) from None
    return fighter_sheet(document)


def weapon(value: Any, field: str, tl: int | None = None) -> Weapon:
    """The catalog weapon of that name (and TL): its exact name first, so "Spear" is the melee
    spear and "Spear (thrown)" the thrown one (FFA reading 10), then as the FFA command
    matches names."""
    name = text(value, field)
    exact = [
        item
        for item in (*catalog().natural_weapons, *catalog().equipment)
        if item.is_weapon or item.table == "melee"
        if item.name.lower() == name.strip().lower() and (tl is None or item.tl == tl)
    ]
    if len(exact) == 1:
        return weapon_from_item(exact[0])
    try:
        return weapon_named(name, tl)
    except CombatRefused as refused:
        where = field if refused.field == "weapon" else refused.field
        raise CombatRefused(where, refused.message) from None


def record(build: Callable[..., _T], readers: Mapping[str, Reader[Any]]) -> Reader[_T]:
    """A reader of a JSON object into ``build(**fields)``, each key read by its reader (a key
    left out or null keeps the default); every fault is named at once."""

    def read(value: Any, field: str) -> _T:
        refusals = Refusals()
        values = read_fields(obj(value, field), field, readers, refusals)
        refusals.raise_any()
        return build(**values)

    return read


def points(codes: Sequence[str]) -> Reader[Mapping[str, int]]:
    """A reader of an object of points by characteristic ({"STR": 2, "END": 5})."""
    return record(lambda **read: MappingProxyType(read), dict.fromkeys(codes, whole))


def die_list(value: Any, field: str) -> tuple[int, ...]:
    """One throw: a list of dice, each 1 to 6."""
    if not isinstance(value, list):
        raise CombatRefused(field, "must be a list of dice, e.g. [5, 3]")
    for index, die in enumerate(value):
        if isinstance(die, bool) or not isinstance(die, int) or die not in DIE_FACES:
            raise CombatRefused(f"{field}[{index}]", "must be a die, a whole number from 1 to 6")
    return tuple(value)


def throws(value: Any, field: str) -> tuple[tuple[int, ...], ...]:
    """A named throw of ``dice``: a list of throws, each a list of dice."""
    if not isinstance(value, list):
        raise CombatRefused(field, "must be a list of throws, each a list of dice, e.g. [[5, 3]]")
    return tuple(die_list(item, f"{field}[{index}]") for index, item in enumerate(value))


def dice_object(
    value: Any, field: str, names: Sequence[str]
) -> dict[str, tuple[tuple[int, ...], ...]]:
    """``dice``: an object of named throws, each a list of throws."""
    data = obj(value, field)
    refusals = Refusals()
    read = read_fields(data, field, dict.fromkeys(names, throws), refusals)
    refusals.raise_any()
    return read
