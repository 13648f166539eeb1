"""Writes of a character's history: restoring a revision or a deleted character, purging the
characters past their restore window, and share links.

Keyword arguments only, one transaction each."""

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

import rules
from characters.core.selectors import character_report
from characters.core.services import (
    CharacterLocked,
    Refused,
    VersionConflict,
    listing_columns,
    lock_character,
    log_event,
    store_document,
    withdraw_if_submitted,
)
from characters.models import RESTORE_WINDOW, Character, CharacterEvent, ShareLink


@transaction.atomic
def restore_deleted_character(*, character: Character, by: User) -> Character:
    """Bring a deleted character back, as it was, while its restore window is open."""
    locked = (
        Character.all_objects.select_for_update(of=("self",))
        .select_related("campaign")
        .filter(pk=character.pk)
        .first()
    )
    if locked is None or locked.owner_id != by.pk:
        raise Refused("Only the player who owns a character can restore it.")
    if locked.deleted_at is None:
        return locked
    if locked.deleted_at <= timezone.now() - RESTORE_WINDOW:
        raise Refused(
            f"{locked.name} was deleted more than {RESTORE_WINDOW.days} days ago and cannot be "
            "restored."
        )
    # The campaign's rules may have changed while it was deleted (deleted characters are not
    # re-checked then): its listing columns are worked out again under today's rules.
    columns = listing_columns(character_report(locked))
    Character.all_objects.filter(pk=locked.pk).update(deleted_at=None, **columns)
    for field, value in columns.items():
        setattr(locked, field, value)
    locked.deleted_at = None
    log_event(locked, kind=CharacterEvent.Kind.HISTORY, by=by, detail="Restored after deletion.")
    return locked


@transaction.atomic
def purge_deleted_characters(*, owner: User | None = None) -> int:
    """Delete for good the characters deleted longer ago than the restore window (of one
    owner, or everyone's); returns how many. Their revisions and logs go with them."""
    expired = Character.all_objects.expired()
    if owner is not None:
        expired = expired.filter(owner=owner)
    ids = list(expired.values_list("pk", flat=True))
    if ids:
        Character.all_objects.filter(pk__in=ids).delete()
    return len(ids)


@transaction.atomic
def restore_revision(
    *, character: Character, number: int, by: User, expected_version: int
) -> Character:
    """Make an earlier revision the character's document again: a new revision, so nothing is
    lost, and the revision restored stays in the history.

    Only the owner restores, and not while the character is approved (the referee reopens it
    first: a restore is an edit, and an approved character changes only through improvement
    purchases). Like a save, it names the version it was asked on (VersionConflict when the
    character moved on) and withdraws a submitted character from review. Two things are kept
    from the character as it is, not taken from the revision: the recorded mustering-out
    rolls (dice are never undone or rolled again) and the budget (it holds the creation
    points bought with improvement points, which stay bought).
    """
    locked = lock_character(character)
    if locked.owner_id != by.pk:
        raise Refused(f"Only the player who owns {locked.name} can restore an earlier revision.")
    if locked.is_locked:
        raise CharacterLocked(
            f"{locked.name} is approved, so it is locked: nothing was restored. Ask the referee "
            "to reopen it first."
        )
    revision = locked.revisions.filter(number=number).first()
    if revision is None:
        raise Refused(f"{locked.name} has no revision {number}.")
    if locked.version != expected_version:
        raise VersionConflict(locked)
    document = dict(revision.document)
    for key in ("mustering_out", "budget"):
        if key in locked.document:
            document[key] = locked.document[key]
        else:
            document.pop(key, None)
    try:
        if rules.normalise_document(document) == locked.document:
            raise Refused(f"Revision {number} is {locked.name} as it is now: nothing to restore.")
        current, _revision = store_document(
            locked, document, by=by, action=f"Restored revision {number}"
        )
    except rules.MalformedDocument as malformed:
        raise Refused(f"Revision {number} cannot be restored: {malformed}.") from None
    log_event(
        current, kind=CharacterEvent.Kind.HISTORY, by=by, detail=f"Restored revision {number}."
    )
    withdraw_if_submitted(current, by=by, reason="An earlier revision restored while submitted")
    return current


@transaction.atomic
def create_share_link(*, character: Character, by: User) -> ShareLink:
    """A new read-only link to the character's sheet; only its owner makes one."""
    locked = lock_character(character)
    if locked.owner_id != by.pk:
        raise Refused(f"Only the player who owns {locked.name} can share it.")
    link = ShareLink.objects.create(character=locked, created_by=by)
    log_event(locked, kind=CharacterEvent.Kind.SHARE, by=by, detail="Share link created.")
    return link


@transaction.atomic
def revoke_share_link(*, link: ShareLink, by: User) -> ShareLink:
    """The link stops working at once, for good; revoking it again changes nothing."""
    link = ShareLink.objects.select_for_update().select_related("character").get(pk=link.pk)
    if link.character.owner_id != by.pk:
        raise Refused("Only the player who owns the character can revoke its share links.")
    if link.revoked_at is None:
        link.revoked_at = timezone.now()
        link.save(update_fields=["revoked_at"])
        log_event(
            link.character,
            kind=CharacterEvent.Kind.SHARE,
            by=by,
            detail=f"Share link of {link.created_at:%Y-%m-%d} revoked.",
        )
    return link
