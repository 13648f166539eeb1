"""Character documents for engine tests: an average human, changed only where a test says."""

from __future__ import annotations

import copy
from typing import Any

from rules import Report, check_document

AVERAGE_HUMAN: dict[str, Any] = {
    "format": "ffa-character/1",
    "name": "Average citizen",
    "attributes": dict.fromkeys(("STR", "DEX", "END", "INT", "PRE", "AWA", "EDU", "SOC", "EXP"), 7),
}


def document(**changes: Any) -> dict[str, Any]:
    """The average human with ``changes``; ``attributes`` given as a dict are merged in."""
    doc = copy.deepcopy(AVERAGE_HUMAN)
    attributes = changes.pop("attributes", {})
    doc["attributes"].update(attributes)
    doc.update(changes)
    return doc


def report(**changes: Any) -> Report:
    return check_document(document(**changes))


def codes(result: Report, severity: str = "error") -> list[str]:
    return sorted(p.code for p in result.problems if p.severity == severity)


def problem(result: Report, code: str):
    matches = [p for p in result.problems if p.code == code]
    assert matches, f"expected a {code} problem, got {[p.code for p in result.problems]}"
    return matches[0]
