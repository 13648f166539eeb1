"""Action tests as the rulebook throws them: Dice Highest, Dice Lowest and the level-0 re-throw.

Which dice a test uses depends on what the character has (ACTION TESTS):

========================================  ============  ===========================
call                                      kind          dice
========================================  ============  ===========================
``skill_level=n`` (n >= 1)                ``skill``     nDH
``skill_level=0``                         ``level-0``   2DL, re-thrown once on a 1
``skill_level=None``                      ``unskilled`` 2DL
``skill_level=None, attribute_test=True`` ``attribute`` 2DH
========================================  ============  ===========================

So ``skill_level=None`` means "the character has no level in the skill" unless
``attribute_test=True`` says the test is an attribute test, which uses no skill at all.
A complementary skill that adds a die, or lets an unskilled character act at level 0, is the
caller's business: pass the level the character acts at.

Reading the dice (DIE ROLL CONVENTIONS): nDH takes the highest die; when more than one six
shows, the result is 6 plus one for each additional six. DL takes the lowest die. Either way a
result of 1 before DMs is a fumble. The level-0 re-throw is always taken: the rulebook says the
character *may* re-throw, but the first result is then a fumble, which no throw can do worse
than, so a player never declines it.

Randomness is injected (a :class:`random.Random`), so a seeded test gives a fixed result, and
:func:`result_distribution` gives the exact odds by enumerating every outcome of the dice.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import combinations_with_replacement
from math import factorial, prod

from .catalog import Catalog, catalog

SKILL = "skill"
LEVEL_ZERO = "level-0"
UNSKILLED = "unskilled"
ATTRIBUTE = "attribute"
KINDS = (SKILL, LEVEL_ZERO, UNSKILLED, ATTRIBUTE)

# Enumeration groups outcomes by the multiset of faces, so 20 dice are 53,130 multisets: far
# beyond any skill level, small enough to answer at once. A skill level throws as many dice, so a
# character document takes skill levels up to this bound and no higher.
MAX_ENUMERATED_DICE = catalog().bounds.skill_level


@dataclass(frozen=True, slots=True)
class DiceRules:
    """The die-roll conventions, read from ``data/dice.json`` and the catalog's die faces."""

    lowest: int  # a die's lowest face; a result equal to it is a fumble
    highest: int  # a die's highest face; extra ones add to a DH result
    attribute_test_dice: int
    unskilled_dice: int
    level_zero_rethrows: int
    exceptional_effect: int

    @property
    def faces(self) -> range:
        return range(self.lowest, self.highest + 1)


@cache
def dice_rules() -> DiceRules:
    data = catalog().play_tables["dice"]
    limits = catalog().limits
    return DiceRules(
        lowest=limits.die_min,
        highest=limits.die_max,
        attribute_test_dice=data["attribute_test_dice"],
        unskilled_dice=data["unskilled_dice"],
        level_zero_rethrows=data["level_zero_rethrows"],
        exceptional_effect=data["exceptional_effect"],
    )


@dataclass(frozen=True, slots=True)
class Difficulty:
    """One row of the Difficulty Levels & Target Numbers Table."""

    name: str
    tn: int

    def __str__(self) -> str:
        return f"{self.name} (TN {self.tn})"


@cache
def difficulties() -> tuple[Difficulty, ...]:
    """The referee's difficulty levels, easiest first: Simple (TN 2) to Near-impossible (TN 10).

    The rulebook writes the ends of the table as "2-" and "10+"; the TN of each row is the
    figure written, and a referee may still set any TN.
    """
    levels = catalog().play_tables["dice"]["difficulties"]["levels"]
    return tuple(Difficulty(level["name"], level["tn"]) for level in levels)


def usual_difficulty() -> Difficulty:
    """The difficulty a roller offers first (Average)."""
    name = catalog().play_tables["dice"]["difficulties"]["usual"]
    return next(d for d in difficulties() if d.name == name)


def difficulty_for(tn: int) -> Difficulty | None:
    """The table's row for a TN, or None for a TN the table does not name."""
    return next((d for d in difficulties() if d.tn == tn), None)


def governing_attribute(skill: str, *, cat: Catalog | None = None) -> str:
    """The attribute a test of ``skill`` is suggested with: the catalog's for the skill, by any
    name the catalog knows it by (in-play ruling 5a; the player may choose another), else the
    first attribute for a name that is no skill."""
    cat = cat or catalog()
    found = cat.find_skill(skill)
    return found.governing if found is not None else cat.attribute_order[0]


def automatic_success(*, modifier: int, tn: int) -> bool:
    """Whether no action test is needed: "If the target number for any task is lower than the
    character's combined attribute DM + other DMs, no action test is required" (``modifier``
    is that sum)."""
    return tn < modifier


def read_highest(dice: tuple[int, ...] | list[int]) -> int:
    """Dice Highest: the highest die, plus one for each six beyond the first."""
    top = dice_rules().highest
    best = max(dice)
    if best == top:
        return top + dice.count(top) - 1
    return best


def read_lowest(dice: tuple[int, ...] | list[int]) -> int:
    """Dice Lowest: the lowest die."""
    return min(dice)


@dataclass(frozen=True, slots=True)
class ActionTest:
    """One action test, thrown.

    ``dice`` holds every die thrown, in order, the level-0 re-throw included (then the
    result is read from the last two). ``effect`` is ``total - tn``: the effect number when
    the test succeeds, negative by the margin of failure when it fails. ``fumble`` depends on
    the die result alone, so a fumble can still reach the TN with large DMs: the rulebook
    leaves its consequences to the referee (the healing rules treat it as a critical failure).
    """

    kind: str
    dice: tuple[int, ...]
    result: int
    attribute_dm: int
    dm: int
    total: int
    tn: int
    success: bool
    effect: int
    fumble: bool
    exceptional: bool

    @property
    def rethrown(self) -> bool:
        """Whether a level-0 test was re-thrown after a 1."""
        return self.kind == LEVEL_ZERO and len(self.dice) > dice_rules().unskilled_dice


def kind_of_test(skill_level: int | None, *, attribute_test: bool = False) -> str:
    """The kind of action test for a skill level (None: no level) or an attribute test."""
    if attribute_test:
        if skill_level is not None:
            raise ValueError(
                f"An attribute test uses no skill, but skill level {skill_level} was given; "
                "pass skill_level=None with attribute_test=True."
            )
        return ATTRIBUTE
    if skill_level is None:
        return UNSKILLED
    if skill_level < 0:
        raise ValueError(f"Skill level {skill_level} is below 0; pass None for no skill.")
    return LEVEL_ZERO if skill_level == 0 else SKILL


def dice_thrown(kind: str, skill_level: int | None = None) -> int:
    """How many dice a test of ``kind`` throws (a level-0 re-throw throws as many again)."""
    rules = dice_rules()
    if kind == SKILL:
        if skill_level is None or skill_level < 1:
            raise ValueError(f"A skill test needs a skill level of 1 or more, not {skill_level}.")
        return skill_level
    if kind == ATTRIBUTE:
        return rules.attribute_test_dice
    if kind in (LEVEL_ZERO, UNSKILLED):
        return rules.unskilled_dice
    raise ValueError(f"Unknown kind of action test {kind!r}; use one of {', '.join(KINDS)}.")


def reads_highest(kind: str) -> bool:
    """Whether a test of ``kind`` reads its highest die (Dice Highest), else its lowest."""
    return kind in (SKILL, ATTRIBUTE)


def dice_notation(kind: str, skill_level: int | None = None) -> str:
    """The dice of a test of ``kind`` in the rulebook's notation: "3DH", "2DL"; a level-0 test
    says that its 1s are thrown again."""
    notation = f"{dice_thrown(kind, skill_level)}{'DH' if reads_highest(kind) else 'DL'}"
    return notation + (", a 1 thrown again" if kind == LEVEL_ZERO else "")


def throw(rng: random.Random, count: int) -> list[int]:
    """``count`` dice thrown with ``rng``, in order."""
    rules = dice_rules()
    return [rng.randint(rules.lowest, rules.highest) for _ in range(count)]


def throw_attribute_test(rng: random.Random) -> list[int]:
    """The dice of an attribute test (2DH), thrown with ``rng``: a side's surprise throw, a
    morale test."""
    return throw(rng, dice_thrown(ATTRIBUTE))


def action_test(
    *,
    rng: random.Random,
    skill_level: int | None,
    attribute_dm: int,
    dm: int = 0,
    tn: int,
    attribute_test: bool = False,
) -> ActionTest:
    """Throw an action test and read it against ``tn``.

    ``skill_level``: the level the character acts at, 0 for a level-0 skill, None for no
    level (unskilled, 2DL) or for an attribute test, which ``attribute_test=True`` marks
    (2DH). ``attribute_dm`` is the governing attribute's DM; ``dm`` is every other DM summed
    (difficulty, time taken, tools, wounds...). Total = die result + attribute DM + DM.
    """
    rules = dice_rules()
    kind = kind_of_test(skill_level, attribute_test=attribute_test)
    count = dice_thrown(kind, skill_level)
    dice = throw(rng, count)
    if reads_highest(kind):
        result = read_highest(dice)
    else:
        result = read_lowest(dice)
        if kind == LEVEL_ZERO:
            for _ in range(rules.level_zero_rethrows):
                if result != rules.lowest:
                    break
                again = throw(rng, count)
                dice.extend(again)
                result = read_lowest(again)
    total = result + attribute_dm + dm
    effect = total - tn
    return ActionTest(
        kind=kind,
        dice=tuple(dice),
        result=result,
        attribute_dm=attribute_dm,
        dm=dm,
        total=total,
        tn=tn,
        success=effect >= 0,
        effect=effect,
        fumble=result == rules.lowest,
        exceptional=effect >= rules.exceptional_effect,
    )


# -- exact odds --------------------------------------------------------------------------------


def _outcomes(count: int) -> Iterator[tuple[tuple[int, ...], int]]:
    """Every outcome of ``count`` dice, grouped by its faces: (sorted faces, orderings)."""
    whole = factorial(count)
    for faces in combinations_with_replacement(dice_rules().faces, count):
        orderings = whole // prod(factorial(n) for n in Counter(faces).values())
        yield faces, orderings


def _read_distribution(count: int, read: Callable[[tuple[int, ...]], int]) -> dict[int, Fraction]:
    weights: Counter[int] = Counter()
    for faces, orderings in _outcomes(count):
        weights[read(faces)] += orderings
    outcomes = len(dice_rules().faces) ** count
    return {result: Fraction(weights[result], outcomes) for result in sorted(weights)}


@cache
def _distribution(kind: str, count: int) -> tuple[tuple[int, Fraction], ...]:
    if kind in (SKILL, ATTRIBUTE):
        return tuple(_read_distribution(count, read_highest).items())
    single = _read_distribution(count, read_lowest)
    if kind == UNSKILLED:
        return tuple(single.items())
    # Level 0: a first 1 is thrown again (as many times as the rules allow); the last stands.
    lowest = dice_rules().lowest
    result = dict(single)
    for _ in range(dice_rules().level_zero_rethrows):
        rethrow = result.pop(lowest, Fraction(0))
        for value, chance in single.items():
            result[value] = result.get(value, Fraction(0)) + rethrow * chance
    return tuple(sorted(result.items()))


def result_distribution(kind: str, n: int | None = None) -> dict[int, Fraction]:
    """The exact chance of each die result (before DMs), by enumerating every outcome.

    ``n`` is the number of dice: required for ``skill`` (the skill level, 1 or more);
    for the others it defaults to the rulebook's two dice. Results with no chance are left
    out; the chances sum to 1.
    """
    if kind == SKILL or n is None:
        count = dice_thrown(kind, n)
    elif kind in KINDS:
        count = n
    else:
        dice_thrown(kind)  # raises: an unknown kind
    if not 1 <= count <= MAX_ENUMERATED_DICE:
        raise ValueError(f"Odds are enumerated for 1 to {MAX_ENUMERATED_DICE} dice, not {count}.")
    return dict(_distribution(kind, count))


def success_chance(kind: str, n: int | None = None, *, modifier: int, tn: int) -> Fraction:
    """The exact chance that the result plus ``modifier`` (attribute DM + DMs) reaches ``tn``."""
    return sum(
        (
            chance
            for result, chance in result_distribution(kind, n).items()
            if result + modifier >= tn
        ),
        Fraction(0),
    )
