"""The context of a character's sheet body, shared by the sheet page and share links."""

from typing import Any

from django.db.models import prefetch_related_objects

import rules
from characters.core.mustering import mustering_rolls
from characters.core.wording import armor_worn
from characters.models import Character
from characters.play import selectors as play_selectors
from rules import Report, stat_block


def sheet_body_context(
    character: Character, parsed: rules.model.Character, report: Report
) -> dict[str, Any]:
    """What ``_sheet_body.html`` shows of a stored character: the report, its state in play,
    the cash rolls as they read now, and its equipment as it stands now (gear bought or given
    up in play, credits now, the armor worn as the play sheet chose it) in the equipment box
    and the stat block, as the PDF prints them."""
    prefetch_related_objects([character], "credit_entries")
    equipment = play_selectors.equipment_now(character, report)
    return {
        "character": character,
        "report": report,
        "equipment_now": equipment,
        "armor_worn": armor_worn(equipment),
        "has_ledger": bool(character.credit_entries.all()),
        "mustering_rolls": mustering_rolls(
            character.document, report, records=character.mustering_rolls.all()
        ),
        "stat_block": stat_block(parsed, report._replace(equipment=equipment)),
        "play": play_selectors.summary(character, report, load=equipment),
    }
