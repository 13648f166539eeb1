"""How the sheet's text is laid out for WeasyPrint, whose time grows with every element and
every run of text: a table is rows of cells in one flat structure, free text gets a place to
break in every long word, and long notes print as running text."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any, Final

ZERO_WIDTH_SPACE: Final = "\u200b"
PILCROW: Final = "\u00b6"  # ¶, where a line of long notes ended
# Notes up to this many lines print line by line, as typed (a page holds about 75).
NOTES_LINES_AS_TYPED: Final = 300
_LONG_WORD: Final = re.compile(r"([^\s\u200b]{30})(?=[^\s\u200b])")


def table(
    css: str,
    columns: Sequence[str],
    rows: Iterable[Sequence[Any]],
    *,
    first: int = 0,
    gaps: Iterable[int] = (),
) -> dict[str, Any]:
    """A table as the template prints it: real rows and cells, so that a screen reader reads it
    as a table (the PDF is tagged: each cell a TD under its column's TH). ``columns`` are the
    column heads; each row's cell at ``first`` is that row's header (the traits box prints the
    notation before the name); ``gaps``: the indexes of rows that start a group."""
    starts = set(gaps)
    printed = [
        {
            "cells": [(one_line(cell), place == first) for place, cell in enumerate(row)],
            "gap": index in starts,
        }
        for index, row in enumerate(rows)
    ]
    return {"css": css, "columns": tuple(columns), "rows": printed}


def breakable(text: str) -> str:
    """Free text with a place to break in every long word.

    WeasyPrint breaks a word too long for its line anywhere (overflow-wrap), but finding where
    takes it time that grows with the square of the word's length: a 20,000-character word
    would hold a web worker for seconds. A zero-width space every 30 characters is invisible.
    """
    return _LONG_WORD.sub("\\1" + ZERO_WIDTH_SPACE, text)


def notes_as_printed(text: str) -> str:
    """The notes as the sheet prints them: as typed, or, past NOTES_LINES_AS_TYPED lines, as
    running text with a pilcrow where each line ended (blank lines dropped).

    Every line is a box WeasyPrint lays out and paginates: notes of 10,000 one-letter lines,
    within the bounds, were 130 pages and seconds of rendering. As running text the most the
    bounds allow fills a few pages, like any other notes of that length.
    """
    lines = text.splitlines()
    if len(lines) > NOTES_LINES_AS_TYPED:
        text = f" {PILCROW} ".join(line.strip() for line in lines if line.strip())
    return breakable(text)


def one_per_line(rows: Iterable[str]) -> str:
    return "\n".join(rows)


def one_line(text: Any) -> str:
    # Line breaks a user typed would stretch a table row; spaces don't.
    return breakable(" ".join(str(text).split()))
