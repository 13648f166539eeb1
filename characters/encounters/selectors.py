"""Reads of an encounter: the one way to fetch one (``encounter_for_user``), and the board a
page shows: every combatant with its combat view from the engine (``rules.combat.Fighter``),
its condition now and what that condition lets it do, in turn order.

A board is read in a fixed number of queries however many fight: the combatants with their
characters, the play sheets' conditions, the latest log entries. The engine's work (each
character's report and fighter, once per stat block) runs in Python.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from django.shortcuts import get_object_or_404

import rules
from characters.core.requests import AuthenticatedHttpRequest
from characters.core.selectors import campaign_for_user, character_report
from characters.models import Character, Combatant, Encounter, EncounterEntry, PlayState
from characters.play.selectors import (
    carried_equipment,
    condition_in,
    gear_changed_in_play,
    gear_key,
    states,
)
from rules import Condition, Report, parse_document
from rules.catalog import EquipmentItem
from rules.combat import Fighter, Weapon, animal, fighter_from_animal, fighter_from_document

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
    """One combatant as a page and the services see it now."""

    combatant: Combatant
    fighter: Fighter
    condition: Condition
    # A group member's magazines as its stat block carries them, by ammunition (magazine_key).
    stock: Mapping[str, int] = field(default_factory=dict)

    @property
    def pk(self) -> int:
        return self.combatant.pk

    @property
    def out_of_action(self) -> bool:
        """Dead, dying or unconscious (the engine's call): its turns pass it by."""
        return rules.out_of_action(self.condition)

    # The encounter is the board's own object (Django hands it to each combatant of its
    # query), so a service that moves the round on sees the new round here.
    @property
    def surprised(self) -> bool:
        """Its side is surprised: the surprised DEF, and no turn, until the referee says
        surprise is lost (reading 27)."""
        return self.combatant.side == self.combatant.encounter.surprised_side

    @property
    def takes_turn(self) -> bool:
        """Whether its turn comes this round (the engine's call)."""
        return rules.combat.takes_turn(self.condition, side_surprised=self.surprised)

    @property
    def ini_now(self) -> int:
        """INI as the fighter's wounds leave it, for initiative (the engine's figure)."""
        return rules.combat.figures_now(self.fighter, self.condition).INI

    @property
    def states(self) -> list[tuple[str, str]]:
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
        loaded = self.combatant.ammunition
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
    def current(self) -> Row | None:
        if self.encounter.round == 0 or self.encounter.turn >= len(self.rows):
            return None
        return self.rows[self.encounter.turn]

    @property
    def turn_key(self) -> str:
        """Whose turn it is, as "round-combatant" ("ended" once it has): a page that shows
        another turn is stale."""
        if self.ended:
            return "ended"
        current = self.current
        return f"{self.encounter.round}-{current.pk if current else 'none'}"

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


def board(encounter: Encounter, *, entries: int = RECENT_ENTRIES) -> Board:
    """The encounter's combatants in turn order with their fighters and conditions now, and
    its latest ``entries`` log lines (newest first)."""
    combatants = list(
        encounter.combatants.select_related("character__campaign", "character__play_state")
        .prefetch_related("character__credit_entries")
        .order_by("position", "id")
    )
    characters = {c.character_id for c in combatants if c.character_id is not None}
    sheets = {state.pk: state for state in PlayState.objects.filter(character__in=characters)}
    fighters: dict[object, Fighter] = {}
    stocks: dict[int, dict[str, int]] = {}
    rows = []
    for combatant in combatants:
        # One fighter per stat block: a group of four is worked out once.
        key = combatant.character_id or repr(combatant.animal)
        # A party character fights with its play sheet, read from the report the sheet uses.
        report = None
        if combatant.condition is None:
            assert combatant.character is not None
            report = character_report(combatant.character)
        if key not in fighters:
            fighters[key] = fighter_for(combatant, report=report)
        stock: dict[str, int] = {}
        if combatant.condition is not None:
            condition = rules.condition_from_dict(combatant.condition)
            if combatant.character_id is not None:
                if combatant.character_id not in stocks:
                    stocks[combatant.character_id] = stat_block_magazines(combatant, fighters[key])
                stock = stocks[combatant.character_id]
        else:
            # The play sheet's condition, as the play sheet reads it (rescaled to LIF now).
            assert report is not None
            condition, _ = condition_in(sheets.get(combatant.character_id), report)
        rows.append(Row(combatant, fighters[key], condition, stock))
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
