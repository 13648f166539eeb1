"""A character's condition under T4 or 2D6 as one kind of record (reading X-2: each system keeps
its own, beside FFA's LIF track): read from its JSON and written back, unhurt when none is
kept yet, and what it leaves the character able to do. The web app stores and shows records
through here, whichever of the two systems a campaign fights under."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .command import T4, TWOD6
from .sheet import PHYSICAL, FighterSheet
from .t4 import condition as t4
from .twod6 import condition as twod6

Record = t4.T4Condition | twod6.TwoD6Condition


@dataclass(frozen=True, slots=True)
class RecordKind:
    """How one system's record is read, written and judged."""

    system: str
    unhurt: Callable[[], Record]
    from_dict: Callable[[Any, str], Record]
    as_dict: Callable[[Any], dict[str, Any]]
    state: Callable[[FighterSheet, Any], str]
    current: Callable[[FighterSheet, Any, str], int]


KINDS: Mapping[str, RecordKind] = {
    T4: RecordKind(
        T4, t4.T4Condition, t4.condition_from_dict, t4.condition_as_dict, t4.state, t4.current
    ),
    TWOD6: RecordKind(
        TWOD6,
        twod6.TwoD6Condition,
        twod6.condition_from_dict,
        twod6.condition_as_dict,
        twod6.state,
        twod6.current,
    ),
}
SYSTEMS_WITH_RECORDS: tuple[str, ...] = tuple(KINDS)
CONSCIOUS, STUNNED, UNCONSCIOUS, DEAD = "conscious", "stunned", "unconscious", "dead"


def kind_of(system: str) -> RecordKind:
    return KINDS[system]


def record_from_dict(system: str, value: Any) -> Record:
    """The system's record stored as ``value`` (None: none kept yet, unhurt);
    :class:`~rules.fighters.InputRefused` names what is wrong with a stored one."""
    kind = kind_of(system)
    return kind.unhurt() if value is None else kind.from_dict(value, system)


def record_as_dict(system: str, record: Record) -> dict[str, Any]:
    return kind_of(system).as_dict(record)


def is_unhurt(system: str, record: Record) -> bool:
    """Whether the record says nothing happened: what a record not kept yet says."""
    return record_as_dict(system, record) == record_as_dict(system, kind_of(system).unhurt())


def record_state(system: str, sheet: FighterSheet, record: Record) -> str:
    """conscious, stunned (T4 only), unconscious or dead."""
    return kind_of(system).state(sheet, record)


def out_of_action(system: str, sheet: FighterSheet, record: Record) -> bool:
    """Unconscious or dead: the fight passes the fighter by and its side's morale counts it
    (reading X-3). A T4 fighter stunned is not out: it loses this round's turn only."""
    return record_state(system, sheet, record) in (UNCONSCIOUS, DEAD)


def characteristics_now(system: str, sheet: FighterSheet, record: Record) -> dict[str, int]:
    """The physical characteristics now (and, under T4, INT, EDU and PSI, which head hits
    lower), by code."""
    codes = t4.DAMAGED if system == T4 else PHYSICAL
    current = kind_of(system).current
    return {code: current(sheet, record, code) for code in codes if code in sheet.levels}
