"""The mustering-out cash rolls as every page reads them: the dice rolled, each as the rules
engine reads it now, and when and how it was rolled. The builder and the sheet show these."""

from collections.abc import Iterable
from itertools import zip_longest
from typing import Any

from characters.models import MusteringRoll
from rules import Report


def mustering_rolls(
    document: dict[str, Any], report: Report, records: Iterable[MusteringRoll] = ()
) -> list[dict[str, Any]]:
    """Each cash roll the document holds, with the engine's reading of it now (DM, table row,
    credits), or None where it no longer counts (fewer terms, no service); and, rolled in
    this app, its ``record`` (when, for which service and terms). The record's own DM and
    credits are those at roll time, which a later change of skills or service leaves behind:
    only the die is read from it. The engine reads the first valid dice in order, so its rows
    pair up with the dice by value."""
    counted = iter(report.mustering_out.rolls)
    reading = next(counted, None)
    rolls = []
    dice = document.get("mustering_out", {}).get("rolls", ())
    for index, (die, record) in enumerate(zip_longest(dice, records)):
        now = reading if reading is not None and reading.die == die else None
        if now is not None:
            reading = next(counted, None)
        rolls.append({"index": index, "die": die, "now": now, "record": record})
    return rolls
