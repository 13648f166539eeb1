"""What the referee says about an attack (a :class:`Situation`), read from the attack
command's JSON, and the DMs it gives (:class:`Modifier`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from ..fighters import CombatRefused, Refusals, field_name


@dataclass(frozen=True, slots=True)
class Modifier:
    """One DM and why it applies."""

    label: str
    dm: int

    def as_dict(self) -> dict[str, Any]:
        return {"label": self.label, "dm": self.dm}


@dataclass(frozen=True, slots=True)
class Situation:
    """What the referee says about the attack; every field's default is the ordinary case.

    ``movement``: the attacker's this turn (stationary, stepping, moving). ``aim_turns``: full
    turns spent aiming before this one. ``cover``, ``lighting``, ``visibility``,
    ``target_size``: a row of their tables or None. ``facing``: where the target is from the
    attacker (front, side, rear squares). ``attacker_in_target_rear``: the attack comes from
    the target's rear squares (its DEF -2). ``target_surprised``: DEF 1. ``extra_actions``:
    actions beyond the first this turn. ``dm``: any other DM the referee adds; ``def_dm``: any
    change to the target's DEF (diving, crawling, evading). ``autofire_rounds``: rounds fired
    on autofire (0: a single shot); ``targets`` and ``squares_between_targets`` for autofire at
    several targets. ``target_squares_per_turn``: how fast the target moves. ``ammunition``: a
    load the weapon's notes offer (HEAP, DS, TR, GS, EX).
    """

    movement: str = "stationary"
    aim_turns: int = 0
    cover: str | None = None
    lighting: str | None = None
    visibility: str | None = None
    target_size: str | None = None
    facing: str = "front"
    target_surprised: bool = False
    extra_actions: int = 0
    dm: int = 0
    autofire_rounds: int = 0
    targets: int = 1
    squares_between_targets: int = 0
    attacker_braced: bool = False
    target_prone: bool = False
    target_higher: bool = False
    attacker_in_target_rear: bool = False
    target_squares_per_turn: int = 0
    def_dm: int = 0
    ammunition: str | None = None

    @property
    def rounds_fired(self) -> int:
        """The rounds the attack fires from a weapon that counts them: its burst, else one."""
        return max(self.autofire_rounds, 1)


SITUATION_KEYS: tuple[str, ...] = tuple(f.name for f in fields(Situation))


# The largest count or DM a situation takes: far beyond any fight, small enough to print.
LARGEST_SITUATION_FIGURE = 1000


def _situation_value(key: str, value: Any, default: Any) -> Any:
    field_name = f"situation.{key}"
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise CombatRefused(field_name, "must be true or false")
    elif isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise CombatRefused(field_name, "must be a whole number")
        if abs(value) > LARGEST_SITUATION_FIGURE:
            raise CombatRefused(
                field_name, f"must be at most {LARGEST_SITUATION_FIGURE} either way"
            )
    elif not isinstance(value, str):
        raise CombatRefused(field_name, "must be text or null")
    return value


def situation_from_mapping(data: Mapping[str, Any]) -> Situation:
    """A Situation from a JSON object; InputRefused names every key or value it cannot take. A
    null value leaves the key's default."""
    values: dict[str, Any] = {}
    defaults = Situation()
    refusals = Refusals()
    for key, value in data.items():
        if key not in SITUATION_KEYS:
            refusals.add(
                f"situation.{field_name(key)}", f"unknown key; use {', '.join(SITUATION_KEYS)}"
            )
        elif value is not None:
            values[key] = refusals.attempt(_situation_value, key, value, getattr(defaults, key))
    refusals.raise_any()
    return Situation(**values)
