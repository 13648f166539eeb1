"""Dice for the other systems: the throws an attack takes, given or thrown, and exact odds.

An attack takes its dice by name and position (``attack`` 0, ``location`` 1, ``damage`` 0…)
from a :class:`DiceSource`: :class:`GivenDice` reads the ``dice`` object of the command's input
and names the throw that is missing or has the wrong number of dice; :class:`RandomDice` throws
them. The resolution records every die it took, so any result can be replayed."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import product
from typing import Protocol

from ..fighters import CombatRefused
from ..wording import plural

FACES = range(1, 7)


class DiceSource(Protocol):
    def take(self, throw: str, index: int, count: int) -> tuple[int, ...]:
        """The ``index``-th throw of ``count`` dice named ``throw``."""
        ...


@dataclass(frozen=True, slots=True)
class GivenDice:
    """The dice of the input: each named throw a list of throws, each a list of dice."""

    throws: Mapping[str, tuple[tuple[int, ...], ...]]

    def take(self, throw: str, index: int, count: int) -> tuple[int, ...]:
        given = self.throws.get(throw, ())
        field = f"dice.{throw}[{index}]"
        if index >= len(given):
            raise CombatRefused(field, f"{plural(count, 'die', 'dice')} needed, none given")
        dice = given[index]
        if len(dice) != count:
            raise CombatRefused(field, f"{plural(count, 'die', 'dice')} needed, got {len(dice)}")
        return dice


@dataclass(frozen=True, slots=True)
class RandomDice:
    """Dice thrown as they are needed."""

    rng: random.Random

    def take(self, throw: str, index: int, count: int) -> tuple[int, ...]:
        return tuple(self.rng.randint(FACES.start, FACES.stop - 1) for _ in range(count))


def half_die(die: int) -> int:
    """A half die reads ⌈d ÷ 2⌉: 1-2 is 1, 3-4 is 2, 5-6 is 3 (reading T4-1)."""
    return -(-die // 2)


@cache
def sum_distribution(dice: int, with_half_die: bool = False) -> Mapping[int, Fraction]:
    """The exact chance of each total of ``dice`` d6 (and a half die), by enumerating them."""
    counts: dict[int, int] = {}
    faces = [FACES] * dice + ([FACES] if with_half_die else [])
    for outcome in product(*faces):
        whole = outcome[:dice]
        total = sum(whole) + (half_die(outcome[-1]) if with_half_die else 0)
        counts[total] = counts.get(total, 0) + 1
    outcomes = 6 ** len(faces)
    return {total: Fraction(count, outcomes) for total, count in sorted(counts.items())}


@cache
def chance_at_most(dice: int, with_half_die: bool, most: int) -> Fraction:
    """The chance the dice read ``most`` or less (T4: at or under the to-hit number; cached, as
    an encounter asks the same odds again and again)."""
    return sum(
        (p for total, p in sum_distribution(dice, with_half_die).items() if total <= most),
        Fraction(0),
    )


@cache
def chance_at_least(dice: int, least: int) -> Fraction:
    """The chance ``dice`` d6 total ``least`` or more (2D6: 8+ after DMs)."""
    return sum(
        (p for total, p in sum_distribution(dice).items() if total >= least),
        Fraction(0),
    )
