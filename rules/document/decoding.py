"""Decoding the JSON a person uploads or pastes: a character document, or one inside a
Foundry actor, with repeated keys and numbers JSON cannot keep named before they mislead."""

from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Any

from .values import MalformedDocument, _at, _key_written, _UnkeptNumber, describe_value

_BYTE_ORDER_MARK = "\ufeff"
_UTF16_MARKS = (b"\xff\xfe", b"\xfe\xff")


def decode_json(data: str | bytes, *, document: bool = True) -> Any:
    """Decode a document's JSON text; raises MalformedDocument in one sentence a person can act on.

    The command line and the web import both read documents through here, so a bad file gets
    the same message wherever it is checked. The app's own Foundry VTT export is read too: it
    carries the character document it was made from (see :func:`_document_in_foundry_actor`).
    ``document=False``: JSON that is not a document (an attack's input, whose ``system`` key
    names its combat system, not Foundry's data), decoded as it is.
    """
    decoded = _decoded_json(data)
    return _document_in_foundry_actor(decoded) if document else decoded


# The file name the app gives a character's own JSON export, and the button that downloads it.
_JSON_EXPORT = '"Export JSON" on the character\'s sheet (<name>.json)'


def _document_in_foundry_actor(value: Any) -> Any:
    """The character document a Foundry VTT actor made by this app carries under
    ``flags.ffa.document``; any other Foundry actor is refused with a message naming the file to
    use instead. Anything else is returned as it is, for parse_document to judge.

    What was changed in Foundry is not read back: Twodsix's fields cannot hold FFA's rules.
    """
    # A Foundry actor keeps its data in a "system" object; an attack's input names its combat
    # system there as a word.
    if (
        not isinstance(value, dict)
        or "format" in value
        or not isinstance(value.get("system"), dict)
    ):
        return value
    flags = value.get("flags")
    ffa = flags.get("ffa") if isinstance(flags, dict) else None
    document = ffa.get("document") if isinstance(ffa, dict) else None
    if isinstance(document, dict):
        return document
    raise MalformedDocument(
        "",
        "is a Foundry VTT actor, not a character document; import the character's own JSON "
        f"export instead: {_JSON_EXPORT}",
    )


def _decoded_json(data: str | bytes) -> Any:
    if isinstance(data, bytearray | memoryview):
        data = bytes(data)
    if not isinstance(data, str | bytes):
        raise MalformedDocument("", f"is not JSON text, got {describe_value(data)}")
    if isinstance(data, bytes):
        if data.startswith(_UTF16_MARKS):  # Windows Notepad's "Unicode"
            raise MalformedDocument("", "is UTF-16 text, not UTF-8; save it as UTF-8")
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            raise MalformedDocument("", "is not UTF-8 text") from None
    # A byte-order mark first is how Windows Notepad marks UTF-8 text, not part of the text; the
    # JSON standard lets a reader pass over it, so the file is read as its author sees it.
    data = data.removeprefix(_BYTE_ORDER_MARK)
    if not data.strip():  # the decoder would say it expected a value at line 1, column 1
        raise MalformedDocument("", "is empty; a character document is a JSON object")
    if data.lstrip().startswith(_BYTE_ORDER_MARK):  # Python would advise a Python decoder
        raise MalformedDocument(
            "",
            "is not valid JSON: a byte-order mark (U+FEFF) is only read as the first "
            "character; remove this one",
        )
    try:
        return _decoded(_DECODER, data)
    except _RepeatedKey:
        fault: type = _Repeated
    except _NumberTooLong:
        fault = _LongNumber
    # Decoded again, marking each object that repeats a key and each number too long to read,
    # to name where the first fault of the kind found is.
    marked = _decoded(_MARKING_DECODER, data)
    try:
        path, found = _marked_path(marked, "", fault) or ("", None)
    except RecursionError:  # nested almost as deep as the decoder goes: name no path
        path, found = "", None
    if fault is _LongNumber:
        digits = f" ({found.digits:,} digits)" if found is not None else ""
        raise MalformedDocument(path, f"holds a number too long to read{digits}")
    raise MalformedDocument(path, "is given twice; give each field once")


def _decoded(decoder: json.JSONDecoder, text: str) -> Any:
    try:
        return decoder.decode(text)
    except json.JSONDecodeError as error:
        raise MalformedDocument(
            "", f"is not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})"
        ) from None
    except ValueError:
        # Python refuses to read an integer of thousands of digits (its int-string limit).
        raise _NumberTooLong from None
    except RecursionError:
        raise MalformedDocument("", "is nested too deeply to be a character document") from None


class _RepeatedKey(Exception):
    """An object of the JSON text gives a key twice."""


class _NumberTooLong(Exception):
    """The JSON text holds an integer of more digits than Python will read."""


class _LongNumber:
    """An integer of the JSON text too long to read, as the marking decoder keeps it: its
    length, so the message can say which number it is."""

    def __init__(self, digits: int) -> None:
        self.digits = digits


def _marked_int(text: str) -> int | _LongNumber:
    try:
        return int(text)
    except ValueError:
        return _LongNumber(len(text.lstrip("-")))


def _object_of_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object of the JSON text. JSON would keep only the last value of a key given twice,
    dropping the others without a word, so a repeated key stops the decoding."""
    decoded = dict(pairs)
    if len(decoded) != len(pairs):
        raise _RepeatedKey
    return decoded


def _float_of(text: str) -> float:
    """A JSON number with a fraction or an exponent; one a float does not keep is marked."""
    value = float(text)
    # A float that is whole where the text is not (a fraction too small to keep) is the only
    # finite one that matters: a fraction a float keeps roughly is refused as a fraction still.
    if math.isfinite(value) and not (value.is_integer() and not _whole_text(text)):
        return value
    return _UnkeptNumber(value, text)


def _whole_text(text: str) -> bool:
    """Whether a JSON number's text is a whole number, exactly."""
    try:
        written = Decimal(text)
        return written == written.to_integral_value()
    except ArithmeticError:  # an exponent of more digits than Decimal takes: no figure of ours
        return False


def _constant_of(text: str) -> float:
    """NaN, Infinity and -Infinity, which Python reads though JSON has no such numbers."""
    return _UnkeptNumber(float(text), text)


# One decoder for every document, as json.loads keeps its own: making one per call would cost
# more than the decoding of a character.
_DECODER = json.JSONDecoder(
    object_pairs_hook=_object_of_pairs, parse_float=_float_of, parse_constant=_constant_of
)


class _Repeated(dict[str, Any]):
    """A decoded object that gives ``key`` more than once."""

    key: str


def _marked_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    decoded = dict(pairs)
    if len(decoded) == len(pairs):
        return decoded
    marked = _Repeated(decoded)
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            marked.key = key
            break
        seen.add(key)
    return marked


# Decodes as the document's decoder does, but marks what that one stops at instead.
_MARKING_DECODER = json.JSONDecoder(
    object_pairs_hook=_marked_object,
    parse_int=_marked_int,
    parse_float=_float_of,
    parse_constant=_constant_of,
)


def _marked_path(value: Any, path: str, fault: type) -> tuple[str, Any] | None:
    """The path of the first ``fault`` (a ``_Repeated`` object: its key given twice; a
    ``_LongNumber``) inside ``value`` (at ``path``) in document order, and the fault; None
    when there is none."""
    if isinstance(value, _Repeated) and fault is _Repeated:
        return _at(path, _key_written(value.key)), value
    if isinstance(value, _LongNumber):
        return (path, value) if fault is _LongNumber else None
    if not isinstance(value, dict | list):
        return None
    children = value.items() if isinstance(value, dict) else enumerate(value)
    for key, child in children:
        inner = _at(path, _key_written(key)) if isinstance(key, str) else f"{path}[{key}]"
        found = _marked_path(child, inner, fault)
        if found is not None:
            return found
    return None
