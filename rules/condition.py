"""A character's condition in play: the LIF track, damage and wounds, their effects on the
body and the derived attributes, and what the character carries. Pure functions: a
:class:`Condition` in, a new one and the events that explain it out."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

from .catalog import Catalog, catalog
from .engine import check, derived_attributes, encumbered
from .injury import LETHAL, STUN, Period, SeverityRules, injury_rules, severity_rules
from .model import Character, EquipmentEntry
from .report import Derived, Equipment, Report
from .wording import plural, verb


def damage_after_protection(damage: int, *, damage_type: str, armor: int = 0, tgh: int = 0) -> int:
    """What reaches LIF: blunt damage less armor and TGH, penetrating damage less armor."""
    parts = injury_rules().protection.get(damage_type)
    if parts is None:
        raise ValueError(
            f"Damage type {damage_type!r} does not reduce LIF; blunt (B) and penetrating (P) do."
        )
    subtract = {"armor": armor, "TGH": tgh}
    return max(damage - sum(subtract[part] for part in parts), 0)


@dataclass(frozen=True, slots=True)
class WoundBand:
    """The damage one wound of a severity takes, for one WND: ``lowest`` to ``highest`` points
    (None: no upper bound), that is above ``above_wnd_multiple`` x WND and up to the
    severity's ``up_to_wnd_multiple`` x WND."""

    severity: SeverityRules
    lowest: int
    highest: int | None
    above_wnd_multiple: int


def wound_bands(wnd: int) -> tuple[WoundBand, ...]:
    """Each severity's band of damage for a WND, in order, the last one open-ended; together
    they hold every damage from 1 up, each exactly once.

    A severity no damage reaches is left out: at WND 0 every band but the last is empty, so
    every wound is of the last severity. The last severity takes whatever lies above the
    bands before it, whether or not the tables give it a bound.
    """
    if wnd < 0:
        raise ValueError(f"WND {wnd} is negative.")
    severities = injury_rules().severities
    bands = []
    lowest, above = 1, 0
    for severity in severities:
        bound = severity.up_to_wnd_multiple
        if bound is None or severity is severities[-1]:
            bands.append(WoundBand(severity, lowest, None, above))
            break
        highest = bound * wnd
        if highest >= lowest:
            bands.append(WoundBand(severity, lowest, highest, above))
            lowest = highest + 1
        above = bound
    return tuple(bands)


def wound_severity(damage: int, wnd: int) -> str:
    """The severity of a wound of ``damage`` points (after armor and TGH) for a WND."""
    if damage < 1:
        raise ValueError(f"A wound takes at least 1 point of damage, not {damage}.")
    return next(
        band.severity.name
        for band in wound_bands(wnd)
        if band.highest is None or damage <= band.highest
    )


@dataclass(frozen=True, slots=True)
class Wound:
    """One wound. ``lethal``: the lethal LIF lost to it (the blow, then bleeding) not yet healed.

    ``bleed_periods``: how many bleeding periods the wound bleeds at most, thrown when it was
    taken for a severity whose bleeding lasts a thrown time (light: 1D days); None: it bleeds
    until stabilised. ``bled``: how many of them it has bled.
    """

    severity: str
    damage: int
    lethal: int
    stabilised: bool = False
    treated: bool = False
    bleed_periods: int | None = None
    bled: int = 0

    def __post_init__(self) -> None:
        if self.bled < 0 or (self.bleed_periods is not None and self.bled > self.bleed_periods):
            raise ValueError(
                f"A wound cannot have bled {self.bled} of {self.bleed_periods} periods."
            )

    @property
    def bleeds_left(self) -> int | None:
        """The bleeding periods still to come while unstabilised; None: until stabilised."""
        return None if self.bleed_periods is None else self.bleed_periods - self.bled

    @property
    def bleeds(self) -> bool:
        """Loses LIF each bleeding period: not stabilised, of a severity that bleeds, and not
        yet through the periods it was thrown to bleed."""
        return (
            not self.stabilised
            and severity_rules(self.severity).bleed_points > 0
            and self.bleeds_left != 0
        )

    @property
    def needs_treatment(self) -> bool:
        """Not yet treated, and of a severity the Treatment Table lists."""
        return not self.treated and severity_rules(self.severity).treatment_tn is not None

    @property
    def clearable(self) -> bool:
        """Treated, with all the LIF it took healed: it can be struck off the sheet."""
        return self.treated and self.lethal == 0


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened to a character, for the play log: a code and a sentence."""

    code: str
    message: str


Events = tuple[Event, ...]


@dataclass(frozen=True, slots=True)
class Condition:
    """A character's LIF track in play.

    ``stun`` and ``lethal`` count the marks ("/" and "x"); the current LIF is
    ``maximum - stun - lethal`` and runs from ``maximum`` down to ``-maximum`` (dead).
    ``dying_halted`` is set when medical help (a successful stabilisation or treatment)
    reaches a character below 0 LIF, and cleared by new lethal damage below 0.
    """

    maximum: int
    wnd: int
    stun: int = 0
    lethal: int = 0
    wounds: tuple[Wound, ...] = ()
    stunned: bool = False
    dying_halted: bool = False

    def __post_init__(self) -> None:
        if self.maximum < 1:
            raise ValueError(f"LIF maximum {self.maximum} must be at least 1.")
        if self.stun < 0 or self.lethal < 0:
            raise ValueError("Stun and lethal marks cannot be negative.")
        if self.stun + self.lethal > 2 * self.maximum:
            raise ValueError(f"More marks than LIF {self.maximum} down to -{self.maximum}.")

    @property
    def lif(self) -> int:
        return self.maximum - self.stun - self.lethal

    @property
    def dead(self) -> bool:
        return self.lif <= -self.maximum

    @property
    def unconscious(self) -> bool:
        """At 0 LIF or below (and alive): out until LIF is back to 1 or more."""
        return self.lif <= 0 and not self.dead

    @property
    def dying(self) -> bool:
        """Below 0 LIF, alive, and not yet reached by medical help: loses LIF every turn."""
        return self.lif < 0 and not self.dead and not self.dying_halted

    @property
    def bleeding(self) -> tuple[int, ...]:
        """Indexes of the wounds that bleed (:attr:`Wound.bleeds`)."""
        return tuple(i for i, wound in enumerate(self.wounds) if wound.bleeds)

    @property
    def unattached_lethal(self) -> int:
        """Lethal marks not charged to a wound (lost while dying)."""
        return self.lethal - sum(wound.lethal for wound in self.wounds)


def condition_for(source: Report | Derived) -> Condition:
    """An unhurt condition with the LIF and WND of a report (or its derived attributes)."""
    derived = source.derived if isinstance(source, Report) else source
    return Condition(maximum=derived.LIF, wnd=derived.WND)


def boxes(condition: Condition) -> tuple[str, ...]:
    """One mark per LIF box for the sheet: "x" (lethal) first, then "/" (stun), then "".

    LIF below 0 has no boxes: every box then shows "x" and ``condition.lif`` says how far below.
    """
    lethal = min(condition.lethal, condition.maximum)
    stun = min(condition.stun, condition.maximum - lethal)
    return ("x",) * lethal + ("/",) * stun + ("",) * (condition.maximum - lethal - stun)


def rescale(condition: Condition, *, maximum: int, wnd: int) -> Condition:
    """The condition of a character whose LIF or WND changed in play (an END raise bought with
    IP, a restored revision, a new trait): the marks and wounds stay as recorded and the new
    figures apply from now on; a wound keeps the severity it was given.

    Only marks beyond the new death line (-``maximum``) are struck, stun marks first, then
    lethal marks held by no wound, then those of the latest wounds.
    """
    if (condition.maximum, condition.wnd) == (maximum, wnd):
        return condition
    limit = 2 * maximum
    stun, lethal = condition.stun, condition.lethal
    stun -= min(stun, max(stun + lethal - limit, 0))
    excess = max(lethal - limit, 0)
    lethal -= excess
    excess -= min(excess, condition.unattached_lethal)
    wounds = list(condition.wounds)
    for index in reversed(range(len(wounds))):
        if excess == 0:
            break
        part = min(excess, wounds[index].lethal)
        wounds[index] = replace(wounds[index], lethal=wounds[index].lethal - part)
        excess -= part
    return replace(
        condition, maximum=maximum, wnd=wnd, stun=stun, lethal=lethal, wounds=tuple(wounds)
    )


def condition_as_dict(condition: Condition) -> dict[str, Any]:
    """A JSON-ready dict of a condition (read back by :func:`condition_from_dict`)."""
    return {
        "maximum": condition.maximum,
        "wnd": condition.wnd,
        "stun": condition.stun,
        "lethal": condition.lethal,
        "stunned": condition.stunned,
        "dying_halted": condition.dying_halted,
        "wounds": [
            {
                "severity": wound.severity,
                "damage": wound.damage,
                "lethal": wound.lethal,
                "stabilised": wound.stabilised,
                "treated": wound.treated,
                "bleed_periods": wound.bleed_periods,
                "bled": wound.bled,
            }
            for wound in condition.wounds
        ],
    }


class ConditionUnreadable(ValueError):
    """A stored condition that is not one. ``problems`` names every fault, each as (path inside
    the condition, message): ``("wounds[0].damage", "must be a whole number, not None")``; an
    empty path is the whole condition's, its message a sentence of its own."""

    def __init__(self, problems: Iterable[tuple[str, str]]) -> None:
        self.problems = tuple(problems)
        super().__init__(
            " ".join(f"{path} {message}." if path else message for path, message in self.problems)
        )


def _stored_int(
    data: Mapping[str, Any], key: str, problems: list[tuple[str, str]], where: str = ""
) -> int:
    """The whole number under ``key``; anything else is a problem, and 0 stands in for it so
    the rest of the condition is still read."""
    value = data.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        problems.append(
            (f"{where}.{key}" if where else key, f"must be a whole number, not {value!r}")
        )
        return 0
    return value


def _stored_wound(raw: Any, where: str, problems: list[tuple[str, str]]) -> Wound | None:
    """The wound at ``where``, or None with its problems added."""
    if not isinstance(raw, Mapping):
        problems.append((where, "is not a mapping"))
        return None
    found = len(problems)
    severity = raw.get("severity")
    known = tuple(kind.name for kind in injury_rules().severities)
    if severity not in known:
        problems.append(
            (f"{where}.severity", f"must be one of {', '.join(known)}, not {severity!r}")
        )
    damage = _stored_int(raw, "damage", problems, where)
    lethal = _stored_int(raw, "lethal", problems, where)
    # A wound stored before bleeding periods were thrown has no count: it bleeds until
    # stabilised, as it did then, rather than on a throw nobody made.
    periods = None
    if raw.get("bleed_periods") is not None:
        periods = _stored_int(raw, "bleed_periods", problems, where)
    bled = _stored_int(raw, "bled", problems, where) if "bled" in raw else 0
    if len(problems) > found:
        return None
    try:
        return Wound(
            severity=str(severity),
            damage=damage,
            lethal=lethal,
            stabilised=bool(raw.get("stabilised")),
            treated=bool(raw.get("treated")),
            bleed_periods=periods,
            bled=bled,
        )
    except ValueError as error:
        problems.append((where, str(error)))
        return None


def condition_from_dict(data: Mapping[str, Any]) -> Condition:
    """The condition a dict of :func:`condition_as_dict` describes; :class:`ConditionUnreadable`
    naming every fault when it is not one (a wrong type, an unknown severity, more marks than
    the LIF track holds, a wound bled more periods than it was to bleed)."""
    if not isinstance(data, Mapping):
        raise ConditionUnreadable([("", f"A condition is a mapping, not {type(data).__name__}.")])
    problems: list[tuple[str, str]] = []
    stored_wounds = data.get("wounds") or ()
    if not isinstance(stored_wounds, list | tuple):
        problems.append(("wounds", "must be a list of wounds"))
        stored_wounds = ()
    wounds = [
        _stored_wound(raw, f"wounds[{index}]", problems) for index, raw in enumerate(stored_wounds)
    ]
    maximum = _stored_int(data, "maximum", problems)
    wnd = _stored_int(data, "wnd", problems)
    stun = _stored_int(data, "stun", problems)
    lethal = _stored_int(data, "lethal", problems)
    if problems:
        raise ConditionUnreadable(problems)
    try:
        return Condition(
            maximum=maximum,
            wnd=wnd,
            stun=stun,
            lethal=lethal,
            wounds=tuple(wound for wound in wounds if wound is not None),
            stunned=bool(data.get("stunned")),
            dying_halted=bool(data.get("dying_halted")),
        )
    except ValueError as error:
        raise ConditionUnreadable([("", str(error))]) from None


def _mark(condition: Condition, amount: int, form: str) -> tuple[int, int, int, int]:
    """Mark ``amount`` points of one event, as "Recording Damage" says.

    Stun points fill empty boxes while LIF is above 0; what is left of the blow that brings
    LIF to 0 is lost (stunning damage alone cannot kill). Lethal points, one at a time, fill
    empty boxes while LIF is above 0, then replace stun marks, then take LIF below 0, down to
    -maximum. Returns the new stun and lethal counts, the lethal points marked and the stun
    marks they replaced. (Stunning damage of an event that starts at 0 LIF or below is
    lethal: the caller passes it as such.)
    """
    stun, lethal, maximum = condition.stun, condition.lethal, condition.maximum
    lif = maximum - stun - lethal
    if form == STUN:
        return stun + min(amount, max(lif, 0)), lethal, 0, 0
    fill = min(amount, max(lif, 0))
    lif -= fill
    rest = amount - fill
    replaced = min(rest, stun)
    rest -= replaced
    below = min(rest, lif + maximum)
    marked = fill + replaced + below
    return stun - replaced, lethal + marked, marked, replaced


def _state_events(before: Condition, after: Condition) -> list[Event]:
    if after.dead and not before.dead:
        return [Event("dead", f"LIF {after.lif} has reached -{after.maximum}: dead.")]
    if after.lif < 0 <= before.lif or (after.dying and not before.dying):
        return [
            Event(
                "dying",
                f"LIF {after.lif} is below 0: dying, losing "
                f"{injury_rules().dying_loss_per_turn} LIF each turn until medical help arrives; "
                f"dead at -{after.maximum}.",
            )
        ]
    if after.lif <= 0 < before.lif:
        return [Event("unconscious", f"LIF {after.lif}: unconscious until LIF is 1 or more.")]
    return []


def _after_lethal(before: Condition, after: Condition) -> Condition:
    """New lethal damage below 0 LIF starts the dying clock again."""
    if after.lif < 0 and after.lif < before.lif and after.dying_halted:
        return replace(after, dying_halted=False)
    return after


def blow_severity(condition: Condition, *, amount: int, form: str) -> str | None:
    """The severity of the wound one event's damage (after armor and TGH) makes, None when it
    makes none: lethal damage wounds, and so does stunning damage that lands at 0 LIF or below;
    nothing wounds the dead. ``form``: ``"S"`` stunning or ``"L"`` lethal."""
    if form not in (STUN, LETHAL):
        raise ValueError(
            f"Damage form {form!r} does not reduce LIF; mark stunning (S) or lethal (L) damage."
        )
    if amount < 0:
        raise ValueError(f"Damage {amount} is negative.")
    wounds = amount > 0 and not condition.dead and (form == LETHAL or condition.lif <= 0)
    return wound_severity(amount, condition.wnd) if wounds else None


def _bleed_periods(severity: str | None, thrown: Period | None) -> int | None:
    """How many bleeding periods a new wound bleeds at most, from its thrown bleeding time."""
    if thrown is None:
        return None
    if severity is None:
        raise ValueError(f"The blow makes no wound to bleed for {thrown}.")
    rules = severity_rules(severity)
    if rules.bleed_lasts is None or rules.bleed_every is None:
        raise ValueError(
            f"A {severity} wound bleeds until stabilised, not for a thrown time ({thrown})."
        )
    if not rules.bleed_lasts.gives(thrown):
        raise ValueError(
            f"A {severity} wound bleeds for {rules.bleed_lasts}; no throw gives {thrown}."
        )
    return thrown.count // rules.bleed_every.count


def _each(period: Period) -> str:
    return period.unit if period.count == 1 else str(period)


def take_damage(
    condition: Condition, *, amount: int, form: str, bleed_lasts: Period | None = None
) -> tuple[Condition, Events]:
    """Mark one event's damage (after armor and TGH) on the LIF track.

    ``form``: ``"S"`` stunning or ``"L"`` lethal (special damage does not reduce LIF).
    Damage above half the current LIF (rounded up) stuns. Lethal damage makes a wound whose
    severity is read from the event's damage against WND (:func:`blow_severity`). Stunning
    damage makes no wound, except when the event starts at 0 LIF or below: then it is treated
    as lethal in full.

    ``bleed_lasts``: for a wound of a severity that bleeds for a thrown time
    (``SeverityRules.bleed_lasts``), that time as thrown; the wound stops bleeding once it has
    bled for it. Without it such a wound bleeds until stabilised. ValueError when the blow
    makes no wound of such a severity, or when the dice cannot give that time.
    Returns the new condition and the events, in order, as :class:`Event` s.
    """
    severity = blow_severity(condition, amount=amount, form=form)
    periods = _bleed_periods(severity, bleed_lasts)
    if amount == 0 or condition.dead:
        return condition, ()
    events: list[Event] = []
    rules = injury_rules()
    lif = condition.lif
    threshold = -(-lif // rules.stun_threshold_divisor)
    stunned = condition.stunned
    if amount > threshold:
        stunned = True
        events.append(
            Event(
                "stunned",
                f"{amount} damage in one blow is more than half the current LIF {lif} "
                f"({threshold}): stunned, DEF {rules.stunned_def}, the next action lost.",
            )
        )
    if form == STUN and lif <= 0:
        form = LETHAL
        events.append(
            Event(
                "stun_as_lethal",
                f"LIF is at {lif}, so {plural(amount, 'point')} of stunning damage "
                f"{verb(amount, 'is', 'are')} treated as lethal.",
            )
        )
    stun, lethal, marked, replaced = _mark(condition, amount, form)
    wounds = condition.wounds
    if severity is not None:
        table = severity_rules(severity)
        settled = table.bleed_points == 0  # superficial: nothing to do
        wound = Wound(
            severity, amount, marked, stabilised=settled, treated=settled, bleed_periods=periods
        )
        wounds = (*wounds, wound)
        events.append(
            Event("wound", f"A {severity} wound: {amount} damage against WND {condition.wnd}.")
        )
        if not settled:
            lasting = "until stabilised" if periods is None else f"for {table.bleed_time(periods)}"
            events.append(
                Event(
                    "bleeds",
                    f"It bleeds {table.bleed_points} LIF every {_each(table.bleed_time(1))} "
                    f"{lasting}.",
                )
            )
    if replaced:
        events.append(
            Event(
                "stun_replaced",
                f"{replaced} lethal {'mark replaces' if replaced == 1 else 'marks replace'} "
                "stun marks, as LIF is at 0.",
            )
        )
    after = replace(condition, stun=stun, lethal=lethal, wounds=wounds, stunned=stunned)
    after = _after_lethal(condition, after)
    return after, tuple(events + _state_events(condition, after))


def end_stun(condition: Condition) -> Condition:
    """The stunned character has spent a turn recovering and acts normally again."""
    return replace(condition, stunned=False)


def wound_at(condition: Condition, index: int) -> Wound:
    if not 0 <= index < len(condition.wounds):
        raise ValueError(f"There is no wound {index}; the character has {len(condition.wounds)}.")
    return condition.wounds[index]


def with_wound(condition: Condition, index: int, wound: Wound) -> tuple[Wound, ...]:
    wounds = list(condition.wounds)
    wounds[index] = wound
    return tuple(wounds)


def lose_to_wound(
    condition: Condition, index: int, points: int, code: str, message: str
) -> tuple[Condition, Events]:
    """Lethal points charged to a wound (bleeding, a failed medical test)."""
    wound = condition.wounds[index]
    stun, lethal, marked, replaced = _mark(condition, points, LETHAL)
    wounds = with_wound(condition, index, replace(wound, lethal=wound.lethal + marked))
    after = replace(condition, stun=stun, lethal=lethal, wounds=wounds)
    after = _after_lethal(condition, after)
    events = [Event(code, message)] if marked else []
    if replaced:
        events.append(Event("stun_replaced", f"{replaced} lethal mark replaces a stun mark."))
    return after, tuple(events + _state_events(condition, after))


def bleed(condition: Condition, wound_index: int) -> tuple[Condition, Events]:
    """The wound's additional damage for one period: one lethal point.

    The caller calls it when a bleeding wound's period has passed (see ``severity_rules``:
    a light wound every day for the days thrown when it was taken, serious every hour,
    critical every minute, fatal every turn), and the wound counts it. ValueError for a wound
    that does not bleed (:attr:`Wound.bleeds`): a stabilised one, a superficial one, or one
    that has bled every period it was thrown to bleed.
    """
    wound = wound_at(condition, wound_index)
    table = severity_rules(wound.severity)
    if not wound.bleeds:
        if not table.bleed_points:
            raise ValueError(f"A {wound.severity} wound does not bleed.")
        if wound.stabilised:
            raise ValueError(f"The {wound.severity} wound is stabilised: it does not bleed.")
        raise ValueError(
            f"The {wound.severity} wound has bled the {table.bleed_time(wound.bled)} it was "
            "to bleed: it bleeds no more."
        )
    counted = replace(wound, bled=wound.bled + 1)
    message = f"The {wound.severity} wound bleeds: {table.bleed_points} more lethal damage."
    if counted.bleeds_left == 0:
        message += " That was its last: it stops bleeding."
    elif counted.bleeds_left is not None:
        message += f" It bleeds for {table.bleed_time(counted.bleeds_left)} more."
    return lose_to_wound(
        replace(condition, wounds=with_wound(condition, wound_index, counted)),
        wound_index,
        table.bleed_points,
        "bleed",
        message,
    )


def dying_turn(condition: Condition) -> tuple[Condition, Events]:
    """A turn passes for a dying character: 1 LIF lost (not charged to any wound)."""
    if not condition.dying:
        return condition, ()
    loss = injury_rules().dying_loss_per_turn
    stun, lethal, _, _ = _mark(condition, loss, LETHAL)
    after = replace(condition, stun=stun, lethal=lethal)
    events = [Event("dying_loss", f"Dying: {loss} LIF lost this turn.")]
    return after, tuple(events + _state_events(condition, after))


def wound_penalty(wound: Wound) -> tuple[int, int]:
    """(change to body attribute levels, DM on mind-group tests) of one wound now."""
    if wound.treated:
        return 0, 0
    rules = severity_rules(wound.severity)
    body = rules.body_until_treated if wound.stabilised else rules.body_until_stabilised
    return body, rules.mind_until_treated


def wound_penalties(condition: Condition) -> tuple[int, int]:
    """The worst wound's body change and mind DM; several wounds do not add up."""
    body = mind = 0
    for wound in condition.wounds:
        wound_body, wound_mind = wound_penalty(wound)
        body = min(body, wound_body)
        mind = min(mind, wound_mind)
    return body, mind


@dataclass(frozen=True, slots=True)
class Incapacity:
    """Why a character cannot act: its ``state`` (dead, unconscious, stunned) and what ends it
    (``until``; None when nothing does)."""

    state: str
    until: str | None


def incapacity(condition: Condition) -> Incapacity | None:
    """Why the character cannot act now (an action test, medical aid), the worst state first;
    None when it can. A dying character is unconscious too."""
    if condition.dead:
        return Incapacity("dead", None)
    if condition.unconscious:
        return Incapacity("unconscious", f"until LIF is 1 or more (it is {condition.lif})")
    if condition.stunned:
        return Incapacity("stunned", "until the stun ends (the next action is spent recovering)")
    return None


def out_of_action(condition: Condition) -> bool:
    """Whether a fighter is out of action: dead, or unconscious (the dying are too). Its turns
    pass it by and its side's morale counts it (reading 32 of ``docs/combat.md``); a stunned
    fighter is not, as it spends its turn recovering."""
    reason = incapacity(condition)
    return reason is not None and reason.state != "stunned"


def condition_states(condition: Condition) -> tuple[str, ...]:
    """The condition's states, worst first, as codes: ``dead`` alone, else any of ``dying``
    (or ``halted``: below 0 LIF, the dying halted by medical help), ``unconscious``,
    ``stunned``, ``bleeding`` (a wound bleeds) and ``wounded`` (a wound's penalty applies now).
    Empty: the character is fit to act, its wounds (if any) imposing nothing."""
    if condition.dead:
        return ("dead",)
    flags = (
        ("dying", condition.dying),
        ("halted", condition.lif < 0 and not condition.dying),
        ("unconscious", condition.unconscious),
        ("stunned", condition.stunned),
        ("bleeding", bool(condition.bleeding)),
        ("wounded", any(wound_penalties(condition))),
    )
    return tuple(code for code, applies in flags if applies)


@dataclass(frozen=True, slots=True)
class Effective:
    """A character as wounds leave it.

    ``levels``: attribute levels with the body attributes lowered (not below 0).
    ``derived``: DEF, INI and MOV recomputed from the lowered levels by the engine's formulas,
    less any encumbrance penalty, at their floors (DEF is 1 while stunned); TGH, LIF and WND
    unchanged.
    ``test_dms``: the DM each attribute gives an action test now, the mind-group DM included.
    """

    levels: Mapping[str, int]
    derived: Derived
    body_penalty: int
    mind_dm: int
    stunned: bool
    test_dms: Mapping[str, int]

    def test_dm(self, code: str) -> int:
        return self.test_dms[code]


_RECOMPUTED = ("DEF", "INI", "MOV")


def effective(
    source: Report | Mapping[str, int],
    condition: Condition,
    *,
    derived_bonus: Mapping[str, int] | None = None,
    encumbrance_penalty: int = 0,
    armor_str_short: int = 0,
    cat: Catalog | None = None,
) -> Effective:
    """The character's attributes and derived attributes under its wounds and its load.

    ``source`` is the engine's report (its derived-attribute traits are kept) or a mapping of
    final attribute levels, with ``derived_bonus`` for derived-attribute traits if any.
    ``encumbrance_penalty`` is the engine's for what the character carries now
    (``carried_load``); it lowers DEF, INI and MOV after the wounds, down to their floors.
    ``armor_str_short`` is how far the character's STR DV is below its worn armor's STRmin
    (``Equipment.armor_str_short``): each point lowers the body attributes by 2 levels (their
    DMs in action tests) and DEF, INI and MOV by 1 more, with the encumbrance penalty. The
    derived attributes are worked out from the levels the wounds leave; the armor's own
    change to DEF, INI and MOV is the rulebook's, not worked out again from the lowered levels.
    """
    cat = cat or catalog()
    if isinstance(source, Report):
        levels = {value.code: value.level for value in source.attributes}
        original = source.derived
        # The traits' share of each derived attribute, recovered from the report. Where a
        # floor hid part of a flaw, the recovered share is smaller, but a floor hides it again.
        plain = derived_attributes(levels, cat=cat)
        bonus = {code: getattr(original, code) - getattr(plain, code) for code in _RECOMPUTED}
    else:
        levels = dict(source)
        bonus = dict(derived_bonus or {})
        original = derived_attributes(levels, bonus, cat=cat)
    body_penalty, mind_dm = wound_penalties(condition)
    body, mind = cat.attribute_groups["body"], cat.attribute_groups["mind"]
    wounded_levels = {
        code: max(level + body_penalty, 0) if code in body else level
        for code, level in levels.items()
    }
    wounded = derived_attributes(wounded_levels, bonus, cat=cat)
    now = {code: getattr(wounded, code) for code in _RECOMPUTED}
    lim = cat.limits
    armor_body = armor_str_short * lim.armor_body_levels_per_point
    lowered = {
        code: max(level - armor_body, 0) if code in body else level
        for code, level in wounded_levels.items()
    }
    penalty = encumbrance_penalty + armor_str_short * lim.armor_derived_per_point
    derived = encumbered(original._replace(**now), penalty, cat)
    if condition.stunned:
        derived = derived._replace(DEF=injury_rules().stunned_def)
    test_dms = {
        code: cat.dm_dv(level)[0] + (mind_dm if code in mind else 0)
        for code, level in lowered.items()
    }
    return Effective(
        levels=MappingProxyType(lowered),
        derived=derived,
        body_penalty=body_penalty,
        mind_dm=mind_dm,
        stunned=condition.stunned,
        test_dms=MappingProxyType(test_dms),
    )


def carried_load(
    character: Character, equipment: Iterable[EquipmentEntry], *, cat: Catalog | None = None
) -> Equipment:
    """The engine's equipment figures for the character carrying ``equipment`` (its creation
    equipment with what it bought or sold in play): load, the unencumbered limit, capacity,
    the encumbrance penalty and the encumbered derived attributes.

    Only the load figures are meant: ``cost`` and ``credits_remaining`` count every item
    against the mustering-out credits, but gear bought in play is paid from the credits ledger.
    """
    return check(replace(character, equipment=tuple(equipment)), cat=cat).equipment
