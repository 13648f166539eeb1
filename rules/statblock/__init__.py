"""The stat block the rulebook describes for write-ups of characters and NPCs: written from a
character and its report, and read back into a character document.

The rulebook's layout: the name, terms and service; the age, the attributes in hex in groups
of three, the credits and the derived attributes; the skills; the belongings; then a description
with the traits in their bracket notation. :func:`stat_block` writes it with a header on each
later line (``Skills:``, ``Belongings:``, ``Psionics:``, ``Traits:``); :func:`parse_stat_block`
reads that, and hand-written blocks in the same order, into a draft whose stat block is the
one read. What a stat block does not carry (points budget, notes, how credits were rolled) the
draft takes from the rulebook's defaults; every part of the text that could not be carried
into the draft is named, line by line, in ``unread``.

``writing`` writes a block; ``lines`` reads one line by line and ``draft`` makes the draft of
what they read.
"""

from __future__ import annotations

from ..catalog import Catalog, catalog
from .draft import _draft
from .lines import ParsedStatBlock, UnreadLine, _Line, _read_line, _Reading, catalog_item_name
from .writing import stat_block

# What the rest of the code imports from here.
__all__ = [
    "ParsedStatBlock",
    "UnreadLine",
    "catalog_item_name",
    "parse_stat_block",
    "stat_block",
]


def parse_stat_block(text: str, *, kind: str = "pc", cat: Catalog | None = None) -> ParsedStatBlock:
    """Read a stat block (this app's, or one written by hand in the rulebook's order) into the
    document of a draft ``kind`` ("pc" or "npc") character. Never raises on any text.

    A player character's budget is the rulebook's; an NPC's is what the draft spends, as NPCs
    are built on whatever points they need.
    """
    cat = cat or catalog()
    reading = _Reading(cat=cat)
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if stripped:
            _read_line(reading, _Line(number, stripped))
    if reading.name is None or reading.final_levels is None:
        return ParsedStatBlock(None, tuple(_missing(reading)))
    return _draft(reading, "npc" if kind == "npc" else "pc")


def _missing(reading: _Reading) -> list[UnreadLine]:
    """Why no draft could be made: the unread parts, and what no line gave."""
    unread = list(reading.unread)
    if reading.name is None:
        unread.append(
            UnreadLine(
                0,
                "",
                "No line gives a name: the first line of a stat block "
                "is the name, terms and service, e.g. 'Jory Kade, 2 terms "
                "Merchants'.",
            )
        )
    elif reading.final_levels is None:
        unread.append(
            UnreadLine(
                0,
                "",
                "No line gives the attributes: a stat block's second "
                "line holds the UPP in three groups, e.g. 'Age 34  777-997-878  "
                "Cr0  DEF 3 INI 3 MOV 6 TGH 3 LIF 21 WND 6'.",
            )
        )
    return unread
