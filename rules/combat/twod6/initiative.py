"""2D6 initiative (the seed's "Combat", "Dynamic Initiative", "Delay", "Tactics and
Leadership"; docs/combat-2d6.md, "The round"): thrown once, then changed by reactions, recoil
and hastening, for one round only, and by Tactics and Leadership for the fight.

Each fighter's initiative is a frozen :class:`Initiative`; every function returns a new one.
The encounter keeps them between rounds."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from ...attack import Modifier
from ...catalog import catalog
from ...fighters import CombatRefused
from ..conversion import characteristic_dm
from ..sheet import FighterSheet
from ..tables import twod6_tables
from .condition import TwoD6Condition, current

TABLES = twod6_tables()
TACTICS = "Tactics (ground)"
LEADERSHIP = "Leadership"


@dataclass(frozen=True, slots=True)
class Initiative:
    """A fighter's initiative in a 2D6 fight.

    ``base``: thrown at the start (or set by a delay); ``lasting``: changes for the whole fight
    (the INI trait, Tactics, Leadership); ``this_round`` and ``next_round``: one-round changes
    (reactions, recoil, hastening), each applying to this round if the fighter has not acted
    yet, else to the next (the seed's "Dynamic Initiative"). ``dex``: current DEX, which breaks
    ties."""

    fighter: str
    dex: int
    base: int
    lasting: int = 0
    this_round: int = 0
    next_round: int = 0
    acted: bool = False
    hastened: bool = False

    @property
    def current(self) -> int:
        return self.base + self.lasting + self.this_round


def starting_initiative(
    fighter: str,
    sheet: FighterSheet,
    condition: TwoD6Condition,
    dice: tuple[int, int],
    *,
    prepared: bool = False,
) -> Initiative:
    """2D6 + DEX DM; a prepared fighter (an ambush) counts the dice as 12. The INI trait lasts
    the fight (spec §1.3)."""
    dex = sheet.attacking("DEX", current(sheet, condition, "DEX"))
    thrown = TABLES["prepared_initiative"] if prepared else sum(dice)
    return Initiative(fighter, dex, thrown + characteristic_dm(dex), lasting=sheet.ini_dm)


@dataclass(frozen=True, slots=True)
class SkillCheck:
    """A 2D6 check outside attacks: 2D6 + skill + the DM of its governing attribute (reading
    2D-3); the Effect when it succeeds, 0 when it fails."""

    skill: str
    dice: tuple[int, int]
    dms: tuple[Modifier, ...]

    @property
    def total(self) -> int:
        return sum(self.dice) + sum(m.dm for m in self.dms)

    @property
    def effect(self) -> int:
        """What a success adds to initiative; a failure adds nothing (reading 2D-3)."""
        return max(self.total - int(TABLES["target"]), 0)


def skill_check(
    sheet: FighterSheet, skill: str, governing: str, dice: tuple[int, int]
) -> SkillCheck:
    """``skill`` thrown by ``sheet`` with its governing FFA attribute (Tactics INT, Leadership
    PRE: ``skills.json``); no level is -3 (reading 2D-2)."""
    level = sheet.skill_level(skill)
    if level is None and not sheet.jack_of_all_trades:
        level = int(TABLES["unskilled_dm"])
    attribute = sheet.attribute_levels[governing]
    return SkillCheck(
        skill,
        dice,
        (
            Modifier(skill, level or 0),
            Modifier(f"{governing} {attribute}", characteristic_dm(attribute)),
        ),
    )


def _governing(skill: str) -> str:
    found = catalog().find_skill(skill.split(" (")[0])
    assert found is not None, skill  # both are catalog skills
    return found.governing


def tactics_check(commander: FighterSheet, dice: tuple[int, int]) -> SkillCheck:
    """A side's unit commander throws Tactics at the start of the fight; a success's Effect is
    added to the initiative of everyone of the side in communication, for the fight."""
    return skill_check(commander, TACTICS, _governing(TACTICS), dice)


def leadership_check(leader: FighterSheet, dice: tuple[int, int]) -> SkillCheck:
    """Leadership as a significant action: a success's Effect is added to one ally's
    initiative for the fight (reading 2D-3)."""
    return skill_check(leader, LEADERSHIP, _governing(LEADERSHIP), dice)


def lasting_boost(initiative: Initiative, effect: int) -> Initiative:
    """A Tactics or Leadership Effect added for the fight (a fighter cut off from its commander
    loses the Tactics boost again: a negative ``effect``)."""
    return replace(initiative, lasting=initiative.lasting + effect)


def change(initiative: Initiative, amount: int) -> Initiative:
    """A one-round change (a reaction's -2, recoil): this round's if the fighter has not acted
    yet, else the next round's."""
    if initiative.acted:
        return replace(initiative, next_round=initiative.next_round + amount)
    return replace(initiative, this_round=initiative.this_round + amount)


def hasten(initiative: Initiative) -> Initiative:
    """Acting hastily, declared at the start of a round: +2 this round (and -1 on the fighter's
    actions, the attack's ``hasty``); once a round (reading 2D-11)."""
    if initiative.hastened:
        raise CombatRefused("hasten", f"{initiative.fighter} already hastens this round")
    hurried = change(initiative, TABLES["hasty"]["initiative"])
    return replace(hurried, hastened=True)


def acted(initiative: Initiative) -> Initiative:
    return replace(initiative, acted=True)


def act_at(initiative: Initiative, count: int) -> Initiative:
    """A delayed fighter acting on ``count``: its initiative is set to that count, its lasting
    changes kept (reading 2D-17)."""
    return replace(initiative, base=count - initiative.lasting - initiative.this_round, acted=True)


def act_first_next_round(
    everyone: Sequence[Initiative], delayed: Iterable[str]
) -> tuple[Initiative, ...]:
    """Delayed fighters who did not act take the first place next round: initiative one above
    the current first's (all of them equal; DEX then orders them; reading 2D-17)."""
    waiting = set(delayed)
    first = max((i.current for i in everyone if i.fighter not in waiting), default=0)
    wanted = first + TABLES["delay_ahead_of_first"]
    return tuple(
        replace(i, base=wanted - i.lasting - i.next_round) if i.fighter in waiting else i
        for i in everyone
    )


def order(everyone: Sequence[Initiative]) -> tuple[tuple[str, ...], ...]:
    """This round's order: highest initiative first, ties by higher DEX, then simultaneous
    (each group acts together)."""
    keys = sorted({(i.current, i.dex) for i in everyone}, reverse=True)
    return tuple(tuple(i.fighter for i in everyone if (i.current, i.dex) == key) for key in keys)


def next_round(initiative: Initiative) -> Initiative:
    """The round ends: the next round's changes become this round's."""
    return replace(
        initiative, this_round=initiative.next_round, next_round=0, acted=False, hastened=False
    )
