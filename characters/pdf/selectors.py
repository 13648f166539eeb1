"""A stored character as a PDF sheet (``characters.pdf.sheet``): its document, rolls and state
in play.

Every PDF (a player's sheet, the party, a share link) prints the same thing, so they all come
through here.
"""

from typing import Any

from django.db.models import prefetch_related_objects

from characters.core.selectors import character_report
from characters.models import Character, MusteringRoll
from characters.pdf.sheet import Sheet
from characters.play import selectors as play_selectors


def roll_record(roll: MusteringRoll) -> dict[str, Any]:
    return {
        "die": roll.die,
        "modifier": roll.modifier,
        "row": roll.row,
        "credits": roll.credits,
        "rolled_at": roll.rolled_at.isoformat(timespec="minutes"),
    }


def sheet_for_character(
    character: Character, *, show_player: bool = True, pencil: bool = False
) -> Sheet:
    """The character's sheet under the rules it plays by, with the gear it carries and the
    credits it has now when its credits ledger changed them, and its condition under the combat
    system its campaign fights under; for ``pencil``, with its LIF marks, wounds, record and
    credits left blank instead.

    The credits ledger is prefetched onto ``character`` (unless a party's query did it), so
    it is read once however many times it is used; build a sheet from a fresh instance.
    """
    report = character_report(character)
    state = play_selectors.play_state(character)
    condition, _version = play_selectors.condition_in(state, report)
    # Under T4 or 2D6 that system's record is the condition the sheet prints; FFA's LIF track
    # is kept apart and moves nothing then (as on the play sheet).
    shown = play_selectors.sheet_record(character, state, report)
    record = shown if shown["record"] is not None else None
    prefetch_related_objects([character], "credit_entries")
    carried = play_selectors.carried_load(character, report)
    return Sheet(
        document=character.document,
        report=report,
        rolls=tuple(roll_record(roll) for roll in character.mustering_rolls.all()),
        status=character.get_status_display() if show_player else None,
        player=character.owner.get_username() if show_player else None,
        condition=None if pencil or record is not None else condition,
        encumbrance_penalty=carried.encumbrance_penalty,
        carried=carried,
        # Only a character with a ledger has credits beyond what creation left.
        credits_now=(
            play_selectors.credit_balance(character, report)
            if character.credit_entries.all() and not pencil
            else None
        ),
        record=record,
        pencil=pencil,
    )
