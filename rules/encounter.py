"""The rest of a fight around the attacks: initiative (1D + INI once per combat, ties thrown
off, delaying), whose turn comes, surprise (a contested AWA test won by 3 or more, lasting until
the referee says it is lost), the encounter range DMs the sheets settle, each side's leader and
morale (the EXP test a side makes once a fifth of it is out of action). Figures from
``data/combat.json``."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from . import condition
from .attack import Modifier
from .condition import Condition
from .dice import ATTRIBUTE, dice_rules, read_highest, result_distribution, throw
from .fighters import CombatRefused, Fighter, combat_tables

# A side's fighters for a choice among them: (key, fighter, condition now), as they act.
SideFighters = Sequence[tuple[str, Fighter, Condition]]


@dataclass(frozen=True, slots=True)
class InitiativeRoll:
    """One combatant's place: ``total`` = ``die`` + ``ini``; ``tie_breaks``: the dice thrown to
    break ties with others of the same total, in order."""

    key: str
    ini: int
    die: int
    total: int
    tie_breaks: tuple[int, ...] = ()

    def as_dict(self) -> dict[str, object]:
        return {
            "key": self.key,
            "ini": self.ini,
            "die": self.die,
            "total": self.total,
            "tie_breaks": list(self.tie_breaks),
        }


def _die(rng: random.Random) -> int:
    (die,) = throw(rng, 1)
    return die


def _break_ties(group: list[InitiativeRoll], rng: random.Random) -> list[InitiativeRoll]:
    """Throw 1D for each of a group tied so far until each stands alone, highest first."""
    if len(group) < 2:
        return group
    thrown = [
        InitiativeRoll(r.key, r.ini, r.die, r.total, (*r.tie_breaks, _die(rng))) for r in group
    ]
    ordered: list[InitiativeRoll] = []
    for face in sorted({r.tie_breaks[-1] for r in thrown}, reverse=True):
        ordered.extend(_break_ties([r for r in thrown if r.tie_breaks[-1] == face], rng))
    return ordered


def throw_initiative(
    entries: Sequence[tuple[str, int]], rng: random.Random
) -> tuple[InitiativeRoll, ...]:
    """Each combatant's 1D + INI, in the order they act (highest first); ties are thrown off
    with 1D each until resolved. ``entries``: (key, INI) pairs, keys distinct."""
    keys = [key for key, _ in entries]
    if len(set(keys)) != len(keys):
        raise CombatRefused("entries", "each combatant's key must be distinct")
    rolls = []
    for key, ini in entries:
        die = _die(rng)
        rolls.append(InitiativeRoll(key, ini, die, die + ini))
    ordered: list[InitiativeRoll] = []
    for total in sorted({r.total for r in rolls}, reverse=True):
        ordered.extend(_break_ties([r for r in rolls if r.total == total], rng))
    return tuple(ordered)


def join_initiative(
    order: Sequence[tuple[str, int]], newcomers: Sequence[tuple[str, int]], rng: random.Random
) -> tuple[tuple[InitiativeRoll, ...], tuple[str, ...]]:
    """Fighters who join a fight under way: each throws 1D + INI (ties among them thrown off)
    and takes its place in the stored ``order`` ((key, total) pairs, as they act) by its total,
    after those already there with the same total (they were first). Returns the newcomers'
    rolls and the whole order's keys. ``newcomers``: (key, INI) pairs."""
    known = [key for key, _ in order]
    clash = set(known) & {key for key, _ in newcomers}
    if len(set(known)) != len(known) or clash:
        raise CombatRefused("newcomers", "each combatant's key must be distinct")
    rolls = throw_initiative(newcomers, rng)
    merged: list[tuple[str, int]] = list(order)
    for roll in rolls:
        at = next((i for i, (_, total) in enumerate(merged) if total < roll.total), len(merged))
        # A newcomer tied with an earlier newcomer went after it already (they are in order).
        merged.insert(at, (roll.key, roll.total))
    return rolls, tuple(key for key, _ in merged)


def delay_keys(order: Sequence[str], key: str, *, acts: str, other: str) -> tuple[str, ...]:
    """The order (its keys, as they act) after ``key`` delays to act just ``"before"`` or
    ``"after"`` ``other``: for an order stored without its dice."""
    if acts not in ("before", "after"):
        raise CombatRefused("acts", f"a delay acts before or after, not {acts!r}")
    if len(set(order)) != len(order):
        raise CombatRefused("order", "each combatant's key must be distinct")
    for name in (key, other):
        if name not in order:
            raise CombatRefused("key", f"{name!r} is not in the initiative order")
    if key == other:
        raise CombatRefused("other", "a combatant cannot delay for itself")
    rest = [name for name in order if name != key]
    at = rest.index(other) + (acts == "after")
    return (*rest[:at], key, *rest[at:])


def delay(
    order: Sequence[InitiativeRoll], key: str, *, acts: str, other: str
) -> tuple[InitiativeRoll, ...]:
    """The order after ``key`` delays to act just ``"before"`` or ``"after"`` ``other``."""
    found = {roll.key: roll for roll in order}
    keys = delay_keys([roll.key for roll in order], key, acts=acts, other=other)
    return tuple(found[name] for name in keys)


def _best(
    side: SideFighters, dm: Callable[[Fighter], Any]
) -> tuple[str, Fighter, Condition] | None:
    """The fighter with the best ``dm``, the first of them on a tie; None for no one."""
    return max(side, key=lambda entry: dm(entry[1]), default=None)


def _best_standing(side: SideFighters, dm: Callable[[Fighter], int]) -> str | None:
    """The key of the fighter with the best ``dm`` among those not out of action, the first of
    them on a tie; None when every one is out."""
    # Through the module: the morale functions below name a count ``out_of_action``.
    best = _best([entry for entry in side if not condition.out_of_action(entry[2])], dm)
    return best[0] if best is not None else None


def spotter(side: SideFighters) -> str | None:
    """Who throws for a side in the surprise test: its best AWA DM among those not out of
    action (reading 27); None when every one is out."""
    return _best_standing(side, lambda fighter: fighter.awa_dm)


@dataclass(frozen=True, slots=True)
class SurpriseResult:
    """A contested AWA test: each side's total, the margin, and the side that surprises the
    other (None: neither)."""

    totals: tuple[int, int]
    margin: int
    surprising: str | None
    surprised: str | None


def surprise(
    first: tuple[str, int],
    second: tuple[str, int],
    *,
    first_dice: Sequence[int],
    second_dice: Sequence[int],
) -> SurpriseResult:
    """Each side (name, AWA DM + any DMs) throws its dice (2DH for AWA; a skill's dice when
    the side may throw Survival or Tactics instead); the higher total surprises the other when
    it wins by the table's margin (3) or more."""
    rules = dice_rules()
    for label, dice in (("first_dice", first_dice), ("second_dice", second_dice)):
        if not dice or any(
            isinstance(d, bool) or not isinstance(d, int) or not rules.lowest <= d <= rules.highest
            for d in dice
        ):
            raise CombatRefused(
                label, f"give one or more dice, each {rules.lowest} to {rules.highest}"
            )
    totals = (
        read_highest(tuple(first_dice)) + first[1],
        read_highest(tuple(second_dice)) + second[1],
    )
    margin = abs(totals[0] - totals[1])
    if margin < combat_tables()["surprise"]["margin"]:
        return SurpriseResult(totals, margin, None, None)
    winner, loser = (first, second) if totals[0] > totals[1] else (second, first)
    return SurpriseResult(totals, margin, winner[0], loser[0])


def takes_turn(now: Condition, *, side_surprised: bool) -> bool:
    """Whether a fighter (its condition ``now``) takes its turn: not when it is out of action
    (reading 32), nor while its side is surprised, which lasts until the referee says it is
    lost (reading 27). A stunned fighter takes its turn, to recover."""
    return not condition.out_of_action(now) and not side_surprised


def raises_alarm(*, surprised: bool, hit: bool, now: Condition) -> bool:
    """Whether an attack on a fighter of the surprised side (``surprised``) ends its side's
    surprise: a fighter hit and not put out of action (``now``: its condition after the blow)
    cries out and raises the alarm (SURPRISE: "hit but not rendered unconscious"). An alarm
    the app cannot see (a shot heard, a comrade seen falling) is the referee's to give."""
    return surprised and hit and not condition.out_of_action(now)


def _standing(side: SideFighters) -> list[tuple[str, Fighter, Condition]]:
    return [entry for entry in side if not condition.out_of_action(entry[2])]


def encounter_range_dms(
    side: SideFighters, *, combat_experience: bool = False
) -> tuple[Modifier, ...]:
    """The DMs of the Encounter Range DMs Table that a side's sheets settle, for its own
    surprise test (reading 27): the armor every one of it able to act wears (battle dress +3;
    combat armor, or battle dress and combat armor mixed, +2), a chameleon surface on every
    one, its combat experience (``combat_experience``: its leader's, or the referee's word),
    4 or more characters or 8 or more animals able to act (-1). The terrain, the vehicles and
    the rest are the referee's."""
    table = combat_tables()["encounter_range"]
    able = [fighter for _, fighter, _ in _standing(side)]
    found: list[Modifier] = []
    covered: set[str] = set()
    for row in table["armor"]:
        covered.add(row["name"])
        if able and all(f.armor is not None and f.armor.catalog_name in covered for f in able):
            found.append(Modifier(row["label"], row["dm"]))
            break
    chameleon = table["chameleon"]
    if able and all(fighter.chameleon for fighter in able):
        found.append(Modifier(chameleon["label"], chameleon["dm"]))
    if combat_experience:
        found.append(
            Modifier(table["combat_experience"]["label"], table["combat_experience"]["dm"])
        )
    for key, kind in (("members", "character"), ("animals", "animal")):
        row = table[key]
        if sum(fighter.kind == kind for fighter in able) >= row["at_least"]:
            found.append(Modifier(row["label"], row["dm"]))
    return tuple(found)


def _share(key: str) -> Fraction:
    numerator, denominator = combat_tables()["morale"][key]
    return Fraction(numerator, denominator)


def morale_check(side_size: int, out_of_action: int) -> bool:
    """Whether a side must test its morale: a fifth (20%) or more of it is out of action."""
    if side_size < 1 or not 0 <= out_of_action <= side_size:
        raise CombatRefused(
            "out_of_action", f"{out_of_action} out of action on a side of {side_size}"
        )
    return Fraction(out_of_action, side_size) >= _share("casualty_share")


def _exp_dm(fighter: Fighter) -> int:
    """The EXP DM a side's lead is chosen by: an animal has no EXP and counts as DM 0."""
    return fighter.exp_dm or 0


def side_leader(side: SideFighters) -> str | None:
    """The side's leader when the referee names none (reading 28): the best Leadership level,
    then the best EXP DM, the first of them on a tie; chosen among the whole side, the fallen
    too, so that a leader who falls is still the one the side followed. None for no one."""
    best = _best(
        side,
        lambda fighter: (
            fighter.leadership if fighter.leadership is not None else -1,
            _exp_dm(fighter),
        ),
    )
    return best[0] if best is not None else None


def _entry(side: SideFighters, key: str | None) -> tuple[str, Fighter, Condition] | None:
    return next((entry for entry in side if entry[0] == key), None)


def leader_present(side: SideFighters, leader: str | None) -> bool:
    """Whether "a leader (leader skill) is present" for a side's morale test (reading 28): its
    leader (``leader``: its key) stands and has the Leadership skill."""
    found = _entry(side, leader)
    return found is not None and found[1].leadership_skill and not condition.out_of_action(found[2])


def leader_killed(side: SideFighters, leader: str | None) -> bool:
    """Whether the side's leader is "killed" for its morale test (reading 28): dead, or out of
    action, until the referee names a new leader who stands."""
    found = _entry(side, leader)
    return found is not None and condition.out_of_action(found[2])


def morale_thrower(side: SideFighters, leader: str | None) -> str | None:
    """Whose EXP the side's morale test throws: its leader's while it stands, else the best EXP
    DM among those standing (the first of them on a tie); None when every one is out."""
    found = _entry(side, leader)
    if found is not None and not condition.out_of_action(found[2]):
        return found[0]
    return _best_standing(side, _exp_dm)


@dataclass(frozen=True, slots=True)
class MoraleResult:
    tn: int
    dms: tuple[Modifier, ...]
    dice: tuple[int, ...]
    result: int
    total: int
    fumble: bool
    passed: bool


def morale_dms(
    *,
    side_size: int,
    out_of_action: int,
    combat_experience: bool = False,
    leader_present: bool = False,
    leader_has_tactics: bool = False,
    leader_killed: bool = False,
    referee_dm: int = 0,
) -> tuple[Modifier, ...]:
    """The morale test's DMs, each with its reason (``referee_dm``: any the referee adds)."""
    morale_check(side_size, out_of_action)
    table = combat_tables()["morale"]["dms"]
    applies = {
        "combat_experience": combat_experience,
        "leader_present": leader_present and not leader_killed,
        "leader_tactics": leader_has_tactics and not leader_killed,
        "leader_killed": leader_killed,
        "heavy_casualties": Fraction(out_of_action, side_size) > _share("heavy_casualty_share"),
    }
    found = [Modifier(table[key]["label"], table[key]["dm"]) for key, on in applies.items() if on]
    if referee_dm:
        found.append(Modifier("referee's DM", referee_dm))
    return tuple(found)


def morale_test(
    dice: Sequence[int],
    *,
    exp_dm: int | None,
    side_size: int,
    out_of_action: int,
    combat_experience: bool = False,
    leader_present: bool = False,
    leader_has_tactics: bool = False,
    leader_killed: bool = False,
    referee_dm: int = 0,
) -> MoraleResult:
    """The side's average (TN 4) EXP test to stand: an attribute test (2DH) + EXP DM (None:
    an animal's, which has no EXP, DM 0) + the DMs of :func:`morale_dms`. A fumble fails, as a
    fumbled attack misses."""
    dms = (
        Modifier("EXP DM", exp_dm or 0),
        *morale_dms(
            side_size=side_size,
            out_of_action=out_of_action,
            combat_experience=combat_experience,
            leader_present=leader_present,
            leader_has_tactics=leader_has_tactics,
            leader_killed=leader_killed,
            referee_dm=referee_dm,
        ),
    )
    return _read_morale(dice, dms)


def _read_morale(dice: Sequence[int], dms: tuple[Modifier, ...]) -> MoraleResult:
    rules = dice_rules()
    count = rules.attribute_test_dice
    if len(dice) != count or any(
        isinstance(d, bool) or not isinstance(d, int) or not rules.lowest <= d <= rules.highest
        for d in dice
    ):
        raise CombatRefused(
            "dice", f"an EXP test reads {count} dice, each {rules.lowest} to {rules.highest}"
        )
    result = read_highest(tuple(dice))
    total = result + sum(m.dm for m in dms)
    tn = combat_tables()["morale"]["tn"]
    fumble = result == rules.lowest
    return MoraleResult(tn, dms, tuple(dice), result, total, fumble, total >= tn and not fumble)


def morale_chance(dms: Sequence[Modifier]) -> Fraction:
    """The exact chance a morale test with ``dms`` (its EXP DM among them) holds: 2DH + the
    DMs reach the TN, and a fumble (the lowest face on every die) fails whatever the DMs."""
    tn = combat_tables()["morale"]["tn"]
    modifier = sum(m.dm for m in dms)
    return sum(
        (
            chance
            for result, chance in result_distribution(ATTRIBUTE).items()
            if result != dice_rules().lowest and result + modifier >= tn
        ),
        Fraction(0),
    )


@dataclass(frozen=True, slots=True)
class SideMorale:
    """A side's morale test as its leader and the referee's word make it: the leader
    (``leader``), whose EXP is thrown (``thrower``), whether the side has combat experience,
    and the test."""

    leader: str | None
    thrower: str
    combat_experience: bool
    result: MoraleResult


@dataclass(frozen=True, slots=True)
class MoraleOdds:
    """A side's morale test before its dice: its leader (``leader``), whose EXP is thrown
    (``thrower``), whether it has combat experience, every DM (the EXP DM first), the TN and
    the exact ``chance`` it holds."""

    leader: str | None
    thrower: str
    combat_experience: bool
    dms: tuple[Modifier, ...]
    tn: int
    chance: Fraction


def morale_odds(
    side: SideFighters,
    *,
    leader: str | None = None,
    combat_experience: bool | None = None,
    referee_dm: int = 0,
) -> MoraleOdds:
    """A side's morale test before the dice (reading 28): its leader (``leader``, the
    referee's choice; None: :func:`side_leader`) is present, adds its tactical skill and,
    fallen, costs -2; the EXP thrown is the leader's while it stands (:func:`morale_thrower`);
    combat experience is the leader's trait unless the referee says otherwise
    (``combat_experience``). CombatRefused when nobody of the side is left to throw."""
    leader = leader if _entry(side, leader) is not None else side_leader(side)
    thrower = morale_thrower(side, leader)
    if thrower is None:
        raise CombatRefused("side", "nobody of the side is left to throw its morale test")
    lead = _entry(side, leader)
    standing = lead is not None and not condition.out_of_action(lead[2])
    if combat_experience is None:
        combat_experience = lead is not None and lead[1].combat_experience
    throwing = _entry(side, thrower)
    assert throwing is not None
    dms = (
        Modifier("EXP DM", throwing[1].exp_dm or 0),
        *morale_dms(
            side_size=len(side),
            out_of_action=sum(condition.out_of_action(entry[2]) for entry in side),
            combat_experience=combat_experience,
            leader_present=leader_present(side, leader),
            leader_has_tactics=standing and lead is not None and lead[1].tactical_skill,
            leader_killed=leader_killed(side, leader),
            referee_dm=referee_dm,
        ),
    )
    tn = int(combat_tables()["morale"]["tn"])
    return MoraleOdds(leader, thrower, combat_experience, dms, tn, morale_chance(dms))


def side_morale(
    dice: Sequence[int],
    side: SideFighters,
    *,
    leader: str | None = None,
    combat_experience: bool | None = None,
    referee_dm: int = 0,
) -> SideMorale:
    """A side's morale test thrown: :func:`morale_odds` read with ``dice``."""
    odds = morale_odds(
        side, leader=leader, combat_experience=combat_experience, referee_dm=referee_dm
    )
    result = _read_morale(dice, odds.dms)
    return SideMorale(odds.leader, odds.thrower, odds.combat_experience, result)
