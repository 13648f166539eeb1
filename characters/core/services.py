"""The writes every feature shares: locking a character's row, storing a new document with
its revision, logging an event, moving a status. The features' own services call these;
views and commands change data only through services.

Each function takes keyword arguments only and runs in one transaction, so a failed write
changes nothing. Every stored document is normalised by the rules engine first, and the
listing columns are refreshed from the engine's report in the same statement. Every change of
a document writes the character's next ``Revision`` in the same transaction.
"""

from typing import Any

from django.contrib.auth.models import User
from django.db.models import F
from django.http import Http404
from django.utils import timezone

from characters.core.selectors import is_referee
from characters.models import (
    Campaign,
    Character,
    CharacterEvent,
    Revision,
)
from rules import (
    HouseRules,
    Report,
    check,
    document_changes,
    normalise_document,
    parse_document,
    summarise,
)

Status = Character.Status
# The most revisions a character keeps.
MAX_REVISIONS = 500


class Refused(Exception):
    """The action is not allowed now; ``str()`` says why, in words to show the user."""


class CharacterLocked(Refused):
    """The character is approved: it changes only after its referee reopens it."""


class VersionConflict(Exception):
    """The character was saved by someone else (another tab) since the editor loaded it."""

    def __init__(self, current: Character) -> None:
        super().__init__(f"{current.name} is now at version {current.version}")
        self.current = current


def listing_columns(report: Report) -> dict[str, Any]:
    return {
        "name": report.name,
        "kind": report.kind,
        "budget": report.points.budget,
        "is_valid": report.valid,
        "points_total": report.points.total,
    }


def checked_document(
    document: dict[str, Any], house_rules: HouseRules | None
) -> tuple[dict[str, Any], Report]:
    """The normalised document and its report; raises rules.MalformedDocument."""
    normal = normalise_document(document)
    return normal, check(parse_document(normal), house_rules=house_rules)


def store_document(
    character: Character,
    document: dict[str, Any],
    *,
    by: User | None,
    action: str,
    house_rules: HouseRules | None = None,
    expected_version: int | None = None,
    editing_session: str = "",
    budget_added: int = 0,
) -> tuple[Character, Revision | None]:
    """Store ``document`` as the (locked) character's next version: normalised and checked by
    the engine (under ``house_rules``, by default the rules the character plays by), the
    listing columns refreshed, the version bumped and the revision written, all in the caller's
    transaction. Returns the character as stored now and its revision.

    Raises rules.MalformedDocument, and VersionConflict when ``expected_version`` is given and
    the stored version is another (nothing is written either way). ``budget_added`` counts
    creation points bought with improvement points.
    """
    rules_now = house_rules if house_rules is not None else character.house_rules()
    normal, report = checked_document(document, rules_now)
    stored = Character.objects.filter(pk=character.pk)
    if expected_version is not None:
        stored = stored.filter(version=expected_version)
    updated = stored.update(
        document=normal,
        version=F("version") + 1,
        budget_added=F("budget_added") + budget_added,
        updated_at=timezone.now(),
        **listing_columns(report),
    )
    current = Character.objects.select_related("campaign").get(pk=character.pk)
    if not updated:
        raise VersionConflict(current)
    revision = write_revision(
        current, normal, by=by, action=action, editing_session=editing_session
    )
    return current, revision


def lock_character(character: Character, *, deleted: bool = False) -> Character:
    """The character's row, locked until the transaction ends, with its campaign (``deleted``:
    found even when its owner deleted it)."""
    manager = Character.all_objects if deleted else Character.objects
    # of=("self",): PostgreSQL cannot lock the nullable side of the outer join to the campaign.
    locked = manager.select_for_update(of=("self",)).select_related("campaign")
    try:
        return locked.get(pk=character.pk)
    except Character.DoesNotExist:
        # Deleted (or purged) by another request since this one found it: for this request it
        # is gone, as it would have been had it come a moment later.
        raise Http404(f"{character.name} was deleted meanwhile.") from None


def refuse_if_locked(character: Character) -> None:
    if character.is_locked:
        raise CharacterLocked(
            f"{character.name} is approved, so it is locked: nothing was saved. Ask the referee "
            "to reopen it if it needs to change."
        )


def log_event(
    character: Character,
    *,
    kind: str,
    by: User | None,
    from_status: str = "",
    to_status: str = "",
    comment: str = "",
    detail: str = "",
) -> CharacterEvent:
    return CharacterEvent.objects.create(
        character=character,
        actor=by,
        kind=kind,
        from_status=from_status,
        to_status=to_status,
        comment=comment,
        detail=detail[:300],
    )


def write_revision(
    character: Character,
    document: dict[str, Any],
    *,
    by: User | None,
    action: str,
    editing_session: str = "",
) -> Revision | None:
    """Write the (locked) character's next revision: ``document`` is what is stored now.

    The summary says what changed since the last revision (by ``rules.document_changes``);
    nothing is written when the document is the last revision's. When the last revision is
    this ``editing_session``'s, by the same author, it is brought up to date instead: its
    summary then tells what the whole sitting changed.
    """
    last = character.revisions.order_by("-number").first()
    if last is not None and last.document == document:
        return None
    if (
        last is not None
        and editing_session
        and last.editing_session == editing_session
        and last.author_id == getattr(by, "pk", None)
    ):
        before = character.revisions.filter(number__lt=last.number).order_by("-number").first()
        last.document = document
        last.summary = (
            summarise(document_changes(before.document, document))[:300] if before else ""
        )
        last.created_at = timezone.now()
        last.save(update_fields=["document", "summary", "created_at"])
        return last
    summary = summarise(document_changes(last.document, document)) if last else ""
    revision = Revision.objects.create(
        character=character,
        number=last.number + 1 if last else 1,
        document=document,
        author=by,
        action=action[:100],
        summary=summary[:300],
        editing_session=editing_session,
    )
    # A bounded history: past MAX_REVISIONS the oldest go (a sitting is one revision, so this
    # is hundreds of sittings).
    stale = character.revisions.order_by("-number").values_list("pk", flat=True)[MAX_REVISIONS:]
    Revision.objects.filter(pk__in=list(stale)).delete()
    return revision


def set_status(
    character: Character,
    status: str,
    *,
    by: User | None,
    comment: str = "",
    detail: str = "",
) -> Character:
    """Move the (locked) character to ``status`` and log it; the instance is updated too."""
    previous = character.status
    Character.objects.filter(pk=character.pk).update(status=status, updated_at=timezone.now())
    character.status = status
    log_event(
        character,
        kind=CharacterEvent.Kind.STATUS,
        by=by,
        from_status=previous,
        to_status=status,
        comment=comment,
        detail=detail,
    )
    return character


def withdraw_if_submitted(character: Character, *, by: User | None, reason: str):
    if character.status == Status.SUBMITTED:
        set_status(
            character,
            Status.DRAFT,
            by=by,
            detail=f"{reason}: withdrawn from review. Submit it again when it is ready.",
        )


def require_referee(
    campaign: Campaign | None, by: User, doing: str, *, character: Character | None = None
) -> None:
    """Refuse ``by`` unless they referee ``campaign``; ``doing`` ends the message ("approve
    it"), which names ``character``'s campaign when the action is on a character."""
    if not is_referee(campaign, by.pk):
        referee = (
            "the referee" if character is None else f"the referee of {character.name}'s campaign"
        )
        raise Refused(f"Only {referee} can {doing}.")
