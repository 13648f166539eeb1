"""Reads for the referee's review: the review panel's context and what changed since the
mustering-out cash was rolled."""

from typing import Any

from characters.core.selectors import is_referee
from characters.models import (
    Character,
    MusteringRoll,
)
from rules import (
    Report,
)


def mustering_drift(character: Character, rolls: list[MusteringRoll]) -> list[str]:
    """Sentences for the referee when service or terms changed after the cash was rolled."""
    if not rolls:
        return []
    first = rolls[0]
    document = character.document
    notes = []
    if (document.get("service") or "") != first.service:
        notes.append(
            f"The cash was rolled as {first.service or 'no service'}, but the service is now "
            f"{document.get('service') or 'none'}."
        )
    if document.get("terms", 0) != first.terms:
        notes.append(
            f"The cash was rolled after {first.terms} terms, but the character now has "
            f"{document.get('terms', 0)}."
        )
    return notes


def review_context(character: Character, report: Report, *, user_pk: int) -> dict[str, Any]:
    """The review panel of the sheet and the builder: status, the actions this user may take,
    and the character's log. ``report`` is the engine's verdict on the stored document under
    the campaign's rules, which is what a submission is checked against."""
    is_owner = character.owner_id == user_pk
    referee = is_referee(character.campaign, user_pk)
    events = list(character.events.select_related("actor"))
    last_return = next(
        (e for e in reversed(events) if e.to_status == Character.Status.RETURNED), None
    )
    return {
        "review": {
            "is_owner": is_owner,
            "is_referee": referee,
            "can_submit": is_owner
            and character.campaign is not None
            and character.status in (Character.Status.DRAFT, Character.Status.RETURNED),
            "error_count": len(report.errors),
            "events": events,
            "last_return": last_return if character.status == Character.Status.RETURNED else None,
        }
    }
