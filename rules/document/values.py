"""Reading a document's values: each where the document holds it, named by its path when it is
malformed (:class:`MalformedDocument`), within the bounds the catalog sets."""

from __future__ import annotations

from typing import Any, NamedTuple, TypeVar

from ..model import EquipmentEntry, SkillEntry, TraitEntry

TOP_LEVEL_FIELDS = (
    "format",
    "name",
    "kind",
    "budget",
    "species",
    "homeworld",
    "native_language",
    "native_culture",
    "service",
    "terms",
    "rank",
    "age",
    "attributes",
    "skills",
    "traits",
    "package_flaws_bought_off",
    "psionics",
    "mustering_out",
    "equipment",
    "house_rules",
    "notes",
)
# A name is read with its runs of spaces made one before its length is judged: the raw text
# may be this many times longer (a pasted name with line breaks), never more.
_RAW_TEXT_SLACK = 4
# The largest whole number a document may hold, of either sign: the largest integer a JSON number
# keeps exactly everywhere (a JavaScript number, I-JSON). Far above any figure of the rules, and
# small enough that every sum and message the engine makes of it stays cheap and short.
WHOLE_MAX = 2**53 - 1
# Digits of an attribute level written as text ("07"): enough for any whole number above.
_DIGITS_MAX = len(str(WHOLE_MAX))
_LOG10_2 = 0.30102999566398120


class MalformedDocument(ValueError):
    """The document cannot be read: not the format's shape. ``path`` names the field."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path
        self.message = message


def describe_value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f'the text "{printable(shown)}"'
    if isinstance(value, int) and abs(value) > WHOLE_MAX:
        return f"a number of {_digits(value)} digits"
    if isinstance(value, _UnkeptNumber):
        written = value.text if len(value.text) <= 40 else value.text[:37] + "..."
        return f"the number {written}"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def printable(text: Any) -> str:
    """``text`` for a one-line message: a line break, a control character or a lone surrogate
    is written as its escape."""
    written = str(text)
    if written.isprintable():
        return written
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in written)


def _digits(value: int) -> int:
    """How many decimal digits ``value`` has, without writing it out (Python refuses to write
    integers of more than a few thousand digits)."""
    magnitude = abs(value)
    digits = int((magnitude.bit_length() - 1) * _LOG10_2) + 1
    return digits + 1 if magnitude >= 10**digits else digits


class _Fields(NamedTuple):
    """The fields an object of the document may have: in order (for messages) and as a set."""

    names: tuple[str, ...]
    known: frozenset[str]


def _fields(*names: str) -> _Fields:
    return _Fields(names=names, known=frozenset(names))


_TOP_LEVEL = _fields(*TOP_LEVEL_FIELDS)
_SKILL = _fields("skill", "level", "cascade", "specialties")
_TRAIT = _fields("type", "name", "level", "frequency", "derived", "control")
_EQUIPMENT = _fields("item", "quantity", "tl", "worn")
_PSIONICS = _fields("strength", "talents")
_MUSTERING_OUT = _fields("rolls", "credits")
_HOUSE_RULES = _fields("one_trait_per_term")


# Where a value is in the document: a path ("psionics.strength"), or an item of a list as the
# list's path and the item's index, written out ("skills[3]") only for a message: a path made
# for every entry of every list read would be made for nothing nearly every time.
Path = str | tuple[str, int]
_Entry = TypeVar("_Entry", SkillEntry, TraitEntry, EquipmentEntry)


def _written(path: Path) -> str:
    return path if isinstance(path, str) else f"{path[0]}[{path[1]}]"


def _at(path: Path, field: Path | None) -> str:
    """The path of ``field`` inside the object at ``path`` (the object itself without one)."""
    if field is None:
        return _written(path)
    written = _written(path)
    return f"{written}.{_written(field)}" if written else _written(field)


def _object(value: Any, path: Path, fields: _Fields) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise MalformedDocument(_at(path, None), f"expected an object, got {describe_value(value)}")
    # A set asked of a dict is quicker than the dict's key view compared with a set.
    if not fields.known.issuperset(value):
        key = _key_written(next(key for key in value if key not in fields.known))
        raise MalformedDocument(
            _at(path, key), f"unknown field '{key}' (allowed: {', '.join(fields.names)})"
        )
    return value


# The most of an unknown key a message repeats: enough to recognise a typo, and a key of any
# length still makes a message of one short line.
_KEY_SHOWN = 40


def _key_written(key: str) -> str:
    """An unknown key as a path and a message write it: escaped onto one line, cut short."""
    written = printable(key)
    return written if len(written) <= _KEY_SHOWN else written[: _KEY_SHOWN - 3] + "..."


def _list(value: Any, path: Path, field: str | None = None, *, most: int) -> list[Any]:
    """A list of at most ``most`` items."""
    if not isinstance(value, list):
        raise MalformedDocument(_at(path, field), f"expected a list, got {describe_value(value)}")
    if len(value) > most:
        raise MalformedDocument(_at(path, field), f"at most {most} entries, got {len(value):,}")
    return value


def read_int(
    value: Any,
    path: Path,
    field: str | None = None,
    *,
    minimum: int = -WHOLE_MAX,
    maximum: int = WHOLE_MAX,
) -> int:
    """A whole number (a float without a fraction is one) from ``minimum`` to ``maximum``."""
    # A bool is not a number here, though Python counts it as one.
    number: int = value if type(value) is int else _whole_float(value, path, field)
    if minimum <= number <= maximum:
        return number
    raise MalformedDocument(
        _at(path, field),
        f"expected a whole number {_whole_range(minimum, maximum)}, got {describe_value(number)}",
    )


def _whole_range(minimum: int, maximum: int) -> str:
    """The whole numbers a field takes, in words: "from 0 to 15", or "of at most 9,007,..." for
    a field that takes any whole number a document may hold (of either sign)."""
    if minimum <= -WHOLE_MAX and maximum >= WHOLE_MAX:
        return f"of at most {WHOLE_MAX:,}"
    return f"from {minimum} to {maximum}"


def _whole_float(value: Any, path: Path, field: str | None) -> int:
    """A float without a fraction as the whole number it is; anything else is malformed."""
    if isinstance(value, float) and value.is_integer() and not isinstance(value, _UnkeptNumber):
        return int(value)
    raise MalformedDocument(
        _at(path, field), f"expected a whole number, got {describe_value(value)}"
    )


def read_text(value: Any, path: Path, field: Path | None = None, *, longest: int) -> str:
    """Text of at most ``longest`` characters, holding characters only (no lone surrogate, no
    NUL)."""
    if not isinstance(value, str):
        raise MalformedDocument(_at(path, field), f"expected text, got {describe_value(value)}")
    if len(value) > longest:
        raise MalformedDocument(
            _at(path, field), f"at most {longest:,} characters, got {len(value):,}"
        )
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise MalformedDocument(
                _at(path, field),
                "contains a lone surrogate (\\ud800-\\udfff), which is not a character",
            ) from None
    if "\x00" in value:
        raise MalformedDocument(
            _at(path, field), "contains a NUL character (\\u0000), which text may not"
        )
    return value


class _UnkeptNumber(float):
    """A number of the JSON text that a float does not keep, as Python reads it (1e400 as inf,
    1e-400 as 0, 30.0000000000000001 as 30, NaN), with the text it was written as: no field
    takes it, and a message quotes the text rather than a number nobody wrote."""

    text: str

    def __new__(cls, value: float, text: str) -> _UnkeptNumber:
        number = super().__new__(cls, value)
        number.text = text
        return number


def _name_length(length: int, longest: int) -> MalformedDocument:
    return MalformedDocument("name", f"must be 1-{longest} characters, got {length:,}")
