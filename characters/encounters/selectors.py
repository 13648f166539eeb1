"""Reads of an encounter: the one way to fetch one (``encounter_for_user``), and the board a
page shows: every combatant with its combat view from the engine (``rules.combat.Fighter``),
its condition now and what that condition lets it do, in turn order.

A board is read in a fixed number of queries however many fight: the combatants with their
characters, the play sheets' conditions, the latest log entries. The engine's work (each
character's report and fighter, once per stat block) runs in Python.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from django.shortcuts import get_object_or_404

import rules
from characters.core.requests import AuthenticatedHttpRequest
from characters.core.selectors import campaign_for_user, character_report
from characters.models import (
    Character,
    Combatant,
    CombatSystem,
    Encounter,
    EncounterEntry,
    PlayState,
)
from characters.play.selectors import (
    carried_equipment,
    condition_in,
    fighting_sheet,
    gear_changed_in_play,
    gear_key,
    record_in,
    record_states,
    record_view,
    states,
)
from rules import Condition, Report, parse_document
from rules.catalog import EquipmentItem
from rules.combat import (
    Fighter,
    Weapon,
    animal,
    fighter_from_animal,
    fighter_from_document,
    records,
)
from rules.combat.records import Record
from rules.combat.sheet import FighterSheet, fighter_sheet
from rules.wording import MINUS

# How many lines of the log a page shows.
RECENT_ENTRIES = 15


def encounter_for_user(
    request: AuthenticatedHttpRequest, pk: int, *, referee: bool = False
) -> Encounter:
    """The encounter if this user referees its campaign, or (without ``referee``) plays in it;
    anyone else gets 404, as for the campaign itself (``campaign_for_user`` decides)."""
    encounter = get_object_or_404(Encounter, pk=pk)
    encounter.campaign = campaign_for_user(request, encounter.campaign_id, referee=referee)
    return encounter


@dataclass
class Row:
    """One combatant as a page and the services see it now.

    ``fighter``: the FFA engine's combat view (its weapons, its leadership), whatever the
    system. Under FFA ``condition`` is its LIF track; under T4 or 2D6 ``sheet`` and ``record``
    are the character as that system reads it and its record there, and ``condition`` only
    stands in for it where FFA's side rules look (morale, the leader: reading X-3), saying
    whether the fighter is out of action."""

    combatant: Combatant
    fighter: Fighter
    condition: Condition
    # A group member's magazines as its stat block carries them, by ammunition (magazine_key).
    stock: Mapping[str, int] = field(default_factory=dict)
    sheet: FighterSheet | None = None
    record: Record | None = None
    # The rounds in the magazine loaded in each weapon, by weapon key: a character's own, kept
    # with its play sheet from one encounter to the next; a group member's, the encounter's.
    loaded: dict[str, int] = field(default_factory=dict)
    # What the record says, worked out once a record (a page asks each row many times).
    _said: dict[str, tuple[object, Any]] = field(default_factory=dict, repr=False, compare=False)

    @property
    def pk(self) -> int:
        return self.combatant.pk

    def _of_record(self, name: str, work: Callable[[FighterSheet, Record], Any]) -> Any:
        """``work`` of the sheet and the record, kept while the record is the same one (a
        service that marks a new one is answered afresh)."""
        assert self.sheet is not None
        assert self.record is not None
        kept = self._said.get(name)
        if kept is None or kept[0] is not self.record:
            kept = (self.record, work(self.sheet, self.record))
            self._said[name] = kept
        return kept[1]

    @property
    def system(self) -> str:
        return self.combatant.encounter.combat_system

    @property
    def state(self) -> dict[str, Any]:
        """What the fight keeps of this fighter between steps (T4 statuses, 2D6 initiative)."""
        return self.combatant.system_state

    @property
    def out_of_action(self) -> bool:
        """Dead, dying or unconscious (the engine's call): its turns pass it by."""
        if self.record is not None:
            return self.record_state in (records.UNCONSCIOUS, records.DEAD)
        return rules.out_of_action(self.condition)

    @property
    def record_state(self) -> str:
        """Under T4 or 2D6: conscious, stunned (T4), unconscious or dead."""
        return str(
            self._of_record(
                "state", lambda sheet, record: records.record_state(self.system, sheet, record)
            )
        )

    @property
    def record_shown(self) -> dict[str, Any]:
        """The T4 or 2D6 record as the turn order shows it (play.selectors.record_view)."""
        return dict(
            self._of_record("shown", lambda sheet, record: record_view(self.system, sheet, record))
        )

    # The encounter is the board's own object (Django hands it to each combatant of its
    # query), so a service that moves the round on sees the new round here.
    @property
    def surprised(self) -> bool:
        """Its side is surprised: the surprised DEF, and no turn, until the referee says
        surprise is lost (reading 27)."""
        return self.combatant.side == self.combatant.encounter.surprised_side

    @property
    def takes_turn(self) -> bool:
        """Whether its turn comes this round: the engine's call under FFA; under T4 a fighter
        out of action, stunned (reading T4-22) or of the surprised side (reading T4-17) loses
        it, but one of the tie group acting now that was able when the group began still acts
        (III.2: a group's attacks take effect together); under 2D6 only the fallen lose it."""
        if self.record is None:
            return rules.combat.takes_turn(self.condition, side_surprised=self.surprised)
        group = self.combatant.encounter.system_state.get("group")
        if group is not None and self.pk in group:
            return True
        if self.out_of_action:
            return False
        return self.system != CombatSystem.T4 or not (
            self.surprised or self.record_state == records.STUNNED
        )

    @property
    def ini_now(self) -> int:
        """INI as the fighter's wounds leave it, for initiative (the engine's figure)."""
        return rules.combat.figures_now(self.fighter, self.condition).INI

    @property
    def states(self) -> list[tuple[str, str]]:
        if self.record is not None:
            return list(
                self._of_record(
                    "states",
                    lambda sheet, record: record_states(self.system, sheet, record),
                )
            )
        return states(self.condition)

    @property
    def group_member(self) -> bool:
        """Fielded from a stat block shared with others: its condition is kept here."""
        return self.combatant.character is not None and self.combatant.condition is not None

    def spare_magazines(self, item: EquipmentItem) -> int:
        """A group member's magazines of ``item`` not loaded: its stat block's until it loads
        one, then the encounter's count."""
        key = magazine_key(item)
        return int(self.combatant.magazines.get(key, self.stock.get(key, 0)))

    @property
    def ammunition_shown(self) -> list[tuple[str, int | None, int | None]]:
        """(weapon, rounds in the loaded magazine or None, spare magazines or None) for each
        weapon whose rounds it counts: a group member's from its stat block, a character's
        once it has loaded one (its spare magazines are on its play sheet)."""
        loaded = self.loaded
        shown: list[tuple[str, int | None, int | None]] = []
        for weapon in self.fighter.weapons:
            key = weapon_key(weapon)
            item = rules.combat.ammunition_for(weapon)
            if item is None:
                continue
            if self.group_member and magazine_key(item) in self.stock:
                shown.append((weapon.name, loaded.get(key), self.spare_magazines(item)))
            elif key in loaded:
                shown.append((weapon.name, loaded[key], None))
        return shown

    def owned_by(self, user_id: int) -> bool:
        character = self.combatant.character
        return (
            character is not None
            and self.combatant.condition is None
            and character.owner_id == user_id
        )


@dataclass
class Board:
    """The encounter as it stands: its rows in turn order, the one whose turn it is, the log."""

    encounter: Encounter
    rows: list[Row]
    entries: list[EncounterEntry] = field(default_factory=list)

    def row(self, pk: int) -> Row | None:
        return next((row for row in self.rows if row.pk == pk), None)

    @property
    def system(self) -> str:
        return self.encounter.combat_system

    @property
    def phase(self) -> str:
        """The part of the round under way: T4's initiative, movement and combat phases;
        FFA's and 2D6's rounds are all turns ("combat")."""
        return str(self.encounter.system_state.get("phase", "combat"))

    @property
    def current(self) -> Row | None:
        """Whose turn it is: a fighter stepping in out of turn (T4's held action, 2D6's delay)
        while it acts, else the one at the turn's place in the order; nobody before initiative,
        in T4's initiative and movement phases, or once the round is over."""
        if self.encounter.round == 0 or self.phase != "combat":
            return None
        stepping_in = self.encounter.system_state.get("interrupt")
        if stepping_in is not None:
            return self.row(int(stepping_in))
        if self.encounter.turn >= len(self.rows):
            return None
        return self.rows[self.encounter.turn]

    @property
    def turn_key(self) -> str:
        """Whose turn it is, as "round-combatant" ("ended" once it has), with T4's phase and a
        2D6 attack waiting for its reaction: a page that shows another is stale."""
        if self.ended:
            return "ended"
        current = self.current
        key = f"{self.encounter.round}-{current.pk if current else 'none'}"
        if self.phase != "combat":
            key += f"-{self.phase}"
        if self.encounter.system_state.get("pending"):
            key += "-reaction"
        return key

    @property
    def ended(self) -> bool:
        return self.encounter.ended_at is not None

    def side(self, side: str) -> list[Row]:
        return [row for row in self.rows if row.combatant.side == side]

    def fielded(self, side: str) -> list[Row]:
        """A side as it was fielded, not in turn order: of fighters alike (two leaders as
        good), the first fielded is chosen however the turns fall."""
        return sorted(self.side(side), key=lambda row: row.pk)

    def leader(self, side: str) -> Row | None:
        """The side's leader: the one the referee named, while it is in the fight, else the
        engine's choice (reading 28: the best Leadership, then EXP)."""
        rows = self.fielded(side)
        named = self.encounter.leaders.get(side)
        key = str(named) if any(str(row.pk) == str(named) for row in rows) else None
        key = key or rules.combat.side_leader(side_fighters(rows))
        return next((row for row in rows if str(row.pk) == key), None)

    @property
    def leaders(self) -> dict[str, Row | None]:
        return {side: self.leader(side) for side in Combatant.Side.values}


@dataclass(frozen=True)
class MoraleOdds:
    """A side's morale test before its dice, as the form stands: the engine's odds (every DM,
    the TN, the chance) and the fighter whose EXP is thrown."""

    side: str
    odds: rules.combat.MoraleOdds
    thrower: Row


def morale_odds(
    state: Board, side: str, *, combat_experience: bool | None = None, dm: int = 0
) -> MoraleOdds | None:
    """A side's morale test before the dice (reading 28: its leader, the leader's word on
    combat experience unless the referee's, the referee's DM); None when nobody of it is left
    to throw."""
    rows = state.fielded(side)
    leader = state.leader(side)
    try:
        odds = rules.combat.morale_odds(
            side_fighters(rows),
            leader=str(leader.pk) if leader else None,
            combat_experience=combat_experience,
            referee_dm=dm,
        )
    except rules.CombatRefused:
        return None
    thrower = next(row for row in rows if str(row.pk) == odds.thrower)
    return MoraleOdds(side, odds, thrower)


def wounds_of(row: Row) -> list[str]:
    """A fighter's wounds in words for the encounter's summary: FFA's wound severities; a T4 or
    2D6 record's points taken off each characteristic (lethal, and stun under T4), then T4's
    wound category, bleeding and injuries."""
    if row.record is None:
        return [wound.severity for wound in row.condition.wounds]
    view = row.record_shown
    said = []
    for stat in view["rows"]:
        lethal, stun = stat["damage"], stat["stun"]
        if not lethal and not stun:
            continue
        both = f" ({lethal} lethal, {stun} stun)" if lethal and stun else " (stun)" if stun else ""
        said.append(f"{stat['code']} {MINUS}{lethal + stun}{both}")
    wound = view.get("wound")
    if wound:
        # T4's last category is no wound: all three physical characteristics are at 0.
        said.append("dead" if wound == "dead" else f"{wound} wound")
    if view.get("bleeding_per_round"):
        said.append(f"bleeding {view['bleeding_per_round']} a round")
    said += [f"{injury['effect']} ({injury['location']})" for injury in view.get("injuries", ())]
    return said


def side_fighters(rows: list[Row]) -> rules.combat.SideFighters:
    """A side as the engine reads it: each fighter's key, combat view and condition now."""
    return [(str(row.pk), row.fighter, row.condition) for row in rows]


def weapon_key(weapon: Weapon) -> str:
    """How a form names one of a fighter's weapons: its name, and its TL where it has one."""
    return f"{weapon.name}|{weapon.tl}" if weapon.tl is not None else weapon.name


def magazine_key(item: EquipmentItem) -> str:
    """How a group member's spare magazines name their ammunition: name and TL."""
    return f"{item.name}|{item.tl}"


def stat_block_magazines(combatant: Combatant, fighter: Fighter) -> dict[str, int]:
    """The magazines a stat block carries for each of its weapons that counts rounds."""
    assert combatant.character is not None
    carried: Counter[tuple[str, int | None]] = Counter()
    for entry in parse_document(combatant.character.document).equipment:
        carried[gear_key(entry.item, entry.tl)] += entry.quantity
    stock = {}
    for weapon in fighter.weapons:
        item = rules.combat.ammunition_for(weapon)
        if item is not None and carried[(item.name, item.tl)]:
            stock[magazine_key(item)] = carried[(item.name, item.tl)]
    return stock


def fighter_for(combatant: Combatant, *, report: Report | None = None) -> Fighter:
    """The engine's combat view of a combatant: an animal's from its type and weight, a
    character's (or a group member's) from its stat block (``report``: its report, when the
    caller has it already). A party character fights with the gear its play sheet carries now."""
    if combatant.animal is not None:
        return fighter_from_animal(
            animal(combatant.animal["type"], float(combatant.animal["weight_kg"]))
        )
    character = combatant.character
    assert character is not None
    document = parse_document(character.document)
    if combatant.condition is None and gear_changed_in_play(character):
        # Gear bought, sold or used up in play, or armor put on or taken off, changes the
        # weapons, the armor worn and the load, which the stored document's report does not
        # know.
        carried = tuple(carried_equipment(character))
        return fighter_from_document(replace(document, equipment=carried))
    return fighter_from_document(document, report=report)


def animal_condition(fighter: Fighter) -> Condition:
    """An animal's condition unhurt: its LIF track and WND from the engine's fighter."""
    return Condition(maximum=fighter.LIF, wnd=fighter.WND)


def stand_in(out_of_action: bool) -> Condition:
    """An FFA condition that says only whether a T4 or 2D6 fighter is out of action, for FFA's
    side rules (morale, the leader) to read (reading X-3)."""
    return Condition(maximum=1, wnd=1, stun=1 if out_of_action else 0)


def _sheet_for(combatant: Combatant, report: Report) -> FighterSheet:
    """The T4 and 2D6 view of a character combatant: a party character's with what its play
    sheet carries and wears now, a group member's from its stat block."""
    character = combatant.character
    assert character is not None
    if combatant.condition is None:
        return fighting_sheet(character, report)
    return fighter_sheet(parse_document(character.document), report=report)


def board(encounter: Encounter, *, entries: int = RECENT_ENTRIES) -> Board:
    """The encounter's combatants in turn order with their fighters and conditions now, and
    its latest ``entries`` log lines (newest first). Under T4 or 2D6 each has its sheet and its
    record of that system too."""
    combatants = list(
        encounter.combatants.select_related("character__campaign", "character__play_state")
        .prefetch_related("character__credit_entries")
        .order_by("position", "id")
    )
    system = encounter.combat_system
    characters = {c.character_id for c in combatants if c.character_id is not None}
    sheets = {state.pk: state for state in PlayState.objects.filter(character__in=characters)}
    fighters: dict[object, Fighter] = {}
    reports: dict[object, Report] = {}
    views: dict[object, FighterSheet] = {}
    stocks: dict[int, dict[str, int]] = {}
    rows = []
    for combatant in combatants:
        # One fighter per stat block: a group of four is worked out once.
        key = combatant.character_id or repr(combatant.animal)
        # A party character fights with its play sheet, read from the report the sheet uses.
        report = None
        alone = combatant.condition is None
        if alone or (system != CombatSystem.FFA and combatant.character is not None):
            assert combatant.character is not None
            if key not in reports:
                reports[key] = character_report(combatant.character)
            report = reports[key]
        if key not in fighters:
            fighters[key] = fighter_for(combatant, report=report if alone else None)
        stock: dict[str, int] = {}
        if combatant.character_id is not None and not alone:
            if combatant.character_id not in stocks:
                stocks[combatant.character_id] = stat_block_magazines(combatant, fighters[key])
            stock = stocks[combatant.character_id]
        if alone and combatant.character_id is not None:
            play_state = sheets.get(combatant.character_id)
            loaded = dict(play_state.loaded) if play_state else {}
        else:
            loaded = dict(combatant.ammunition)
        if system != CombatSystem.FFA and report is not None:
            if key not in views:
                views[key] = _sheet_for(combatant, report)
            # Named as the fight names it ("Vargr corsair 3"): the engine's events say so.
            sheet = replace(views[key], name=combatant.name)
            if alone:
                record = record_in(sheets.get(combatant.character_id), system)
            else:
                record = records.record_from_dict(system, combatant.condition)
            out = records.out_of_action(system, sheet, record)
            rows.append(
                Row(combatant, fighters[key], stand_in(out), stock, sheet, record, loaded=loaded)
            )
            continue
        if combatant.condition is not None:
            condition = rules.condition_from_dict(combatant.condition)
        else:
            # The play sheet's condition, as the play sheet reads it (rescaled to LIF now).
            assert report is not None
            condition, _ = condition_in(sheets.get(combatant.character_id), report)
        rows.append(Row(combatant, fighters[key], condition, stock, loaded=loaded))
    recent = encounter.entries.select_related("actor", "target", "by")
    log = list(recent.order_by("-created_at", "-id")[:entries]) if entries else []
    return Board(encounter, rows, log)


def encounters_of(campaign_id: int, *, limit: int = 5) -> tuple[list[Encounter], list[Encounter]]:
    """The campaign's encounters under way and its latest ended ones (``limit`` of each),
    newest first, for its page (two queries: each list has its own limit)."""
    recent = list(
        Encounter.objects.filter(campaign_id=campaign_id, ended_at__isnull=True)[:limit]
    ) + list(
        Encounter.objects.filter(campaign_id=campaign_id, ended_at__isnull=False).order_by(
            "-ended_at", "-id"
        )[:limit]
    )
    return (
        [e for e in recent if e.ended_at is None],
        [e for e in recent if e.ended_at is not None],
    )


def running_encounters_with(characters: list[Character]) -> list[Encounter]:
    """The encounters under way in which any of ``characters`` fights (one query)."""
    return list(
        Encounter.objects.filter(ended_at__isnull=True, combatants__character__in=characters)
        .distinct()
        .order_by("created_at", "id")
    )


def party_and_npcs(campaign) -> tuple[list[Character], list[Character]]:
    """The campaign's player characters and its NPCs, which an encounter can field."""
    characters = list(campaign.characters.select_related("owner").order_by("name", "id"))
    pcs = [c for c in characters if c.kind == Character.Kind.PC]
    npcs = [c for c in characters if c.kind == Character.Kind.NPC]
    return pcs, npcs
