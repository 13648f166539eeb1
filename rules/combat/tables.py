"""The data files of the other combat systems, read once: ``data/t4.json`` and
``data/twod6.json`` (each system's own tables and the choices that carry FFA characters into
it, typed once from the seeds and the spec) and ``data/systems.json`` (the conversion figures
of every FFA weapon and armor, generated from them by :mod:`rules.combat.conversion`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from typing import Any

from ..catalog import DATA_DIR, _freeze

FIGURES_FILE = DATA_DIR / "systems.json"


def _load(name: str) -> Mapping[str, Any]:
    with (DATA_DIR / name).open(encoding="utf-8") as handle:
        loaded: Mapping[str, Any] = _freeze(json.load(handle))
    return loaded


@cache
def t4_tables() -> Mapping[str, Any]:
    """T4 basic combat's tables (``data/t4.json``)."""
    return _load("t4.json")


@cache
def twod6_tables() -> Mapping[str, Any]:
    """2D6 combat's tables (``data/twod6.json``)."""
    return _load("twod6.json")


@cache
def system_figures() -> Mapping[str, Any]:
    """The generated conversion figures (``data/systems.json``)."""
    return _load(FIGURES_FILE.name)
