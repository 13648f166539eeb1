"""The T4 hit location chart (VI.2) and what a location does to a character: the row a d66
throw reads, moved by an aimed snapshot or a snipe, the armor covering it, and the effect the
wound category reached leaves there (reading T4-5)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..figures import ArmorFigures
from ..sheet import FighterSheet
from ..tables import t4_tables
from .condition import DEAD, SERIOUS, SUPERFICIAL, WOUNDS, Bleeding, Injury

_BLEEDS = re.compile(r"^(?P<effect>.+?) (?P<points>\d+)p/r$")
_STUNS = re.compile(r"^Stuns (?P<rounds>\d+) rd$")


@dataclass(frozen=True, slots=True)
class Location:
    """A row of column 1: its d66 ``roll``, name, ``region`` (cranium, face, torso, arm, hand,
    leg; None for Incidental) and the effects at superficial, minor and serious wounds."""

    roll: int
    name: str
    region: str | None
    effects: tuple[str | None, ...]

    @property
    def body_part(self) -> str | None:
        """The part cover hides: head, arm, torso or leg."""
        return None if self.region is None else str(t4_tables()["regions"][self.region])

    @property
    def incidental(self) -> bool:
        return self.region is None

    @property
    def head(self) -> bool:
        return self.body_part == "head"


COLUMN_1: tuple[Location, ...] = tuple(
    Location(row["roll"], row["location"], row["region"], tuple(row["effects"]))
    for row in t4_tables()["hit_locations"]
)
_BY_ROLL = {location.roll: index for index, location in enumerate(COLUMN_1)}
BODY_PARTS: tuple[str, ...] = tuple(dict.fromkeys(t4_tables()["regions"].values()))


def location_rolled(dice: tuple[int, ...], moved: int = 0) -> tuple[Location, int]:
    """The column-1 row of a d66 throw (tens, units), moved ``moved`` rows along the chart
    (negative toward the head; never past Cranium/Ear or Ankle/Foot; Incidental stays put,
    reading T4-21). Returns the row and the roll read."""
    roll = dice[0] * 10 + dice[1]
    index = _BY_ROLL[roll]
    if COLUMN_1[index].incidental or not moved:
        return COLUMN_1[index], roll
    last_body = len(COLUMN_1) - 2
    return COLUMN_1[min(max(index + moved, 0), last_body)], roll


def covering_armor(
    target: FighterSheet, location: Location, attack_class: str
) -> ArmorFigures | None:
    """The armor worn over ``location`` that stops most of this attack: the most T4 dice
    against its class, rigid before flexible among equals (§1.6)."""
    covering = [piece for piece in target.armor if location.region in piece.covers]
    return max(covering, key=lambda p: (p.t4_av[attack_class], p.rigid), default=None)


@dataclass(frozen=True, slots=True)
class LocationEffect:
    """What the wound category reached leaves at a location: the effect as the chart writes it,
    and what it does (stun rounds, bleeding, an injury, an event)."""

    location: str
    effect: str
    stunned_rounds: int = 0
    bleeding: Bleeding | None = None
    injury: Injury | None = None
    event: bool = False


def effect_at(location: Location, wound: str | None, *, energy: bool) -> LocationEffect | None:
    """The effect at ``location`` for the wound category ``wound`` (dead reads serious); energy
    weapons cauterize: their hits start no bleeding (reading T4-7)."""
    if wound is None:
        return None
    column = WOUNDS.index(SERIOUS if wound == DEAD else wound) - WOUNDS.index(SUPERFICIAL)
    text = location.effects[column]
    if text is None:
        return None
    stuns = _STUNS.match(text)
    if stuns:
        return LocationEffect(location.name, text, stunned_rounds=int(stuns["rounds"]))
    bleeds = _BLEEDS.match(text)
    if bleeds and not energy:
        per_round = int(bleeds["points"])
        return LocationEffect(
            location.name, text, bleeding=Bleeding(location.name, bleeds["effect"], per_round)
        )
    if bleeds:
        return LocationEffect(location.name, text, injury=Injury(location.name, bleeds["effect"]))
    is_event = text in t4_tables()["event_effects"]
    return LocationEffect(location.name, text, injury=Injury(location.name, text), event=is_event)
