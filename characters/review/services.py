"""Writes of the review workflow: submit, approve, return, reopen, comment. Only a character
that its campaign's rules find no error in can be submitted or approved."""

from django.contrib.auth.models import User
from django.db import transaction

from characters.core.selectors import character_report
from characters.core.services import (
    Refused,
    Status,
    lock_character,
    log_event,
    require_referee,
    set_status,
)
from characters.models import Character, CharacterEvent
from rules import (
    Report,
)
from rules.wording import plural


def error_summary(report: Report, limit: int = 3) -> str:
    errors = report.errors
    shown = " ".join(problem.message for problem in errors[:limit])
    more = len(errors) - limit
    return shown + (f" (and {more} more)" if more > 0 else "")


@transaction.atomic
def submit_character(*, character: Character, by: User) -> Character:
    """The player hands the character to the referee: only when the campaign's rules find no
    error in it. Drafts and returned characters can be submitted."""
    locked = lock_character(character)
    if locked.owner_id != by.pk:
        raise Refused(f"Only the player who owns {locked.name} can submit it.")
    if locked.campaign is None:
        raise Refused(
            f"{locked.name} is not in a campaign: bring it into one first, so that a referee "
            "can review it."
        )
    if locked.status not in (Status.DRAFT, Status.RETURNED):
        raise Refused(
            f"{locked.name} is {locked.get_status_display().lower()}; only drafts and returned "
            "characters can be submitted."
        )
    report = character_report(locked)
    if report.errors:
        count = len(report.errors)
        raise Refused(
            f"{locked.name} was not submitted: it has {count} rule error{'s' if count != 1 else ''}"
            f" under the rules of {locked.campaign.name}. {error_summary(report)}"
        )
    return set_status(locked, Status.SUBMITTED, by=by)


@transaction.atomic
def approve_character(*, character: Character, by: User, comment: str = "") -> Character:
    """The referee accepts a submitted character; it is locked until reopened."""
    locked = lock_character(character)
    require_referee(locked.campaign, by, "approve it", character=locked)
    if locked.status != Status.SUBMITTED:
        raise Refused(
            f"{locked.name} is {locked.get_status_display().lower()}; only a submitted "
            "character can be approved."
        )
    report = character_report(locked)
    if report.errors:
        raise Refused(
            f"{locked.name} was not approved: under this campaign's rules it now has "
            f"{plural(len(report.errors), 'rule error')}. Return it to the player instead. "
            f"{error_summary(report)}"
        )
    return set_status(locked, Status.APPROVED, by=by, comment=comment.strip())


@transaction.atomic
def return_character(*, character: Character, by: User, comment: str) -> Character:
    """The referee sends a submitted character back to its player, saying what to change."""
    comment = comment.strip()
    locked = lock_character(character)
    require_referee(locked.campaign, by, "return it", character=locked)
    if not comment:
        raise Refused("Say what to change: a character goes back to its player with a comment.")
    if locked.status != Status.SUBMITTED:
        raise Refused(
            f"{locked.name} is {locked.get_status_display().lower()}; only a submitted "
            "character can be returned."
        )
    return set_status(locked, Status.RETURNED, by=by, comment=comment)


@transaction.atomic
def reopen_character(*, character: Character, by: User, comment: str = "") -> Character:
    """The referee unlocks an approved character so its player can edit it again (as a draft)."""
    locked = lock_character(character)
    require_referee(locked.campaign, by, "reopen it", character=locked)
    if locked.status != Status.APPROVED:
        raise Refused(f"{locked.name} is not approved, so there is nothing to reopen.")
    return set_status(locked, Status.DRAFT, by=by, comment=comment.strip())


@transaction.atomic
def comment_on_character(*, character: Character, by: User, comment: str) -> CharacterEvent:
    """A note in the character's log from its player or its referee; the status stays."""
    comment = comment.strip()
    if not comment:
        raise Refused("Write something to add a comment.")
    return log_event(character, kind=CharacterEvent.Kind.COMMENT, by=by, comment=comment)
