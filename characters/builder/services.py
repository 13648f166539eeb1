"""Writes of the builder: create, save (the optimistic lock and the sitting's revision),
copy and delete a character, and roll its mustering-out cash once.

Each function takes keyword arguments only and runs in one transaction, so a failed write
changes nothing."""

import random
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

import rules
from characters.core.services import (
    CharacterLocked,
    Refused,
    VersionConflict,
    checked_document,
    listing_columns,
    lock_character,
    log_event,
    refuse_if_locked,
    store_document,
    withdraw_if_submitted,
    write_revision,
)
from characters.models import (
    Campaign,
    Character,
    CharacterEvent,
    MusteringRoll,
)
from rules import (
    parse_document,
)


@transaction.atomic
def create_character(
    *,
    owner: User,
    document: dict[str, Any],
    campaign: Campaign | None = None,
    action: str = "Created",
) -> Character:
    """Store a new character, its listing columns filled from the rules engine's report, and
    its first revision (``action`` says how it came: created, imported, copied).

    Raises rules.MalformedDocument when the document is not a character document of format 1.
    """
    normal, report = checked_document(document, campaign.house_rules() if campaign else None)
    character = Character.objects.create(
        owner=owner, document=normal, campaign=campaign, **listing_columns(report)
    )
    write_revision(character, normal, by=owner, action=action)
    return character


def new_document(*, name: str, kind: str, budget: int, species: str) -> dict[str, Any]:
    """A fresh character: every attribute average, nothing bought."""
    cat = rules.catalog()
    return {
        "format": rules.FORMAT,
        "name": name,
        "kind": kind,
        "budget": budget,
        "species": species,
        "attributes": dict.fromkeys(cat.attribute_order, cat.limits.attribute_average),
    }


@transaction.atomic
def save_character(
    *,
    character: Character,
    document: dict[str, Any],
    expected_version: int,
    by: User | None = None,
    editing_session: str = "",
    edit_stamp: int = 0,
) -> Character:
    """Save the builder's document if nobody saved since ``expected_version``.

    The builder saves by itself while the player edits (and when they press Save): every save
    of one ``editing_session`` (one opening of the builder page) by the same user updates that
    session's revision, so the history shows one revision per sitting, not one per pause.

    The recorded mustering-out rolls always win over the document's: a player cannot edit dice.
    Raises VersionConflict (nothing written) when the stored version moved on, unless it moved
    on only by this sitting's own saves (a page that leaves while a save is on its way sends
    one more with the version it had: a page never conflicts with itself), and
    CharacterLocked (nothing written) when the character is approved. Editing a submitted
    character withdraws it from review (back to draft, logged): the referee should never
    approve something other than what they read.

    ``edit_stamp`` places the save among its sitting's saves (its page counts them): those may
    arrive out of order, and one stamped before the last stored is older than what is stored.
    It changes nothing, and the character is returned as it stands.
    """
    character = lock_character(character)
    refuse_if_locked(character)
    if (
        editing_session
        and character.builder_sitting == editing_session
        and edit_stamp < character.builder_stamp
    ):
        return character
    document = dict(document)
    # A player cannot edit dice: the rolls recorded win over the document's. An NPC's credits
    # are given, not rolled, and are the builder's to set.
    stored = character.document.get("mustering_out") or {}
    given = (document.get("mustering_out") or {}).get("credits")
    if stored.get("rolls"):
        document["mustering_out"] = stored
    elif given is not None:
        document["mustering_out"] = {"credits": given}
    else:
        document.pop("mustering_out", None)
    if rules.normalise_document(document) == character.document:
        # Nothing to store (a row added empty, an edit undone): the version stays, so that no
        # save of this sitting finds it moved on by a save that left no revision to tell.
        current = character
    else:
        moved_on_by_this_sitting = _moved_on_only_by(
            character, editing_session, by, expected_version
        )
        current, _revision = store_document(
            character,
            document,
            by=by,
            action="Saved in the builder",
            expected_version=None if moved_on_by_this_sitting else expected_version,
            editing_session=editing_session,
        )
    if editing_session:
        Character.objects.filter(pk=current.pk).update(
            builder_sitting=editing_session, builder_stamp=edit_stamp
        )
        current.builder_sitting, current.builder_stamp = editing_session, edit_stamp
    withdraw_if_submitted(current, by=by, reason="Edited while submitted")
    return current


def _moved_on_only_by(
    character: Character, editing_session: str, by: User | None, since: int
) -> bool:
    """Whether the (locked) character changed since version ``since`` only by saves of this
    builder sitting: every change of a document writes or updates a revision, and a sitting's
    saves keep one revision, so the last revision tells."""
    if not editing_session or character.version <= since:
        return False
    last = character.revisions.order_by("-number").first()
    return (
        last is not None
        and last.editing_session == editing_session
        and last.author_id == getattr(by, "pk", None)
    )


# Why a character is not saved as the player edits; the page says so before the first edit.
SAVED_ONLY_BY_SAVE: dict[str, str] = {
    Character.Status.SUBMITTED: "it is submitted for review. Press Save to withdraw it and save.",
    Character.Status.APPROVED: "it is approved and locked. Ask the referee to reopen it.",
}


@dataclass(frozen=True)
class SaveOutcome:
    """What became of a save the builder page made by itself: ``state`` is "saved", "partial"
    (saved, keeping the stored value of the fields it could not read, which ``message``
    names), "conflict" (another tab saved first: nothing written), "paused" (a submitted or
    approved character is saved only by Save: nothing written) or "unreadable" (nothing
    written; ``message`` says why). ``character`` is the character as it stands now."""

    state: str
    message: str
    character: Character


@transaction.atomic
def save_as_you_go(
    *,
    character: Character,
    document: dict[str, Any],
    unread: dict[str, str],
    expected_version: int,
    by: User,
    editing_session: str,
    edit_stamp: int,
) -> SaveOutcome:
    """Store the builder's form as it stands, as the page does shortly after each edit and
    once more as it is left. ``unread`` names the fields the form could not read (the
    document keeps their stored values): one bad field never holds back the rest."""
    paused = SAVED_ONLY_BY_SAVE.get(character.status)
    if paused:
        return SaveOutcome("paused", paused, character)
    try:
        saved = save_character(
            character=character,
            document=document,
            expected_version=expected_version,
            by=by,
            editing_session=editing_session,
            edit_stamp=edit_stamp,
        )
    except VersionConflict as conflict:
        message = (
            f"this character was saved elsewhere (version {conflict.current.version}). "
            "Press Save to compare the two."
        )
        return SaveOutcome("conflict", message, conflict.current)
    except CharacterLocked:
        return SaveOutcome("paused", SAVED_ONLY_BY_SAVE[Character.Status.APPROVED], character)
    except rules.MalformedDocument as malformed:
        return SaveOutcome("unreadable", str(malformed), character)
    if unread:
        fields = "one field" if len(unread) == 1 else f"{len(unread)} fields"
        return SaveOutcome("partial", f"all but {fields}: {next(iter(unread.values()))}", saved)
    return SaveOutcome("saved", "", saved)


@transaction.atomic
def duplicate_character(*, character: Character, owner: User) -> Character:
    """A copy for the same owner, outside any campaign; its mustering-out rolls come along,
    so copying a character is never a way to roll the dice again."""
    longest = rules.catalog().bounds.name_length
    document = dict(character.document, name=f"{character.name} (copy)"[:longest])
    copy = create_character(owner=owner, document=document, action=f"Copied from {character.name}")
    MusteringRoll.objects.bulk_create(
        MusteringRoll(
            character=copy,
            position=roll.position,
            die=roll.die,
            modifier=roll.modifier,
            row=roll.row,
            credits=roll.credits,
            service=roll.service,
            terms=roll.terms,
            rolled_by=roll.rolled_by,
        )
        for roll in character.mustering_rolls.all()
    )
    return copy


@transaction.atomic
def delete_character(*, character: Character, by: User | None = None) -> Character:
    """Delete the character, restorable by its owner for 30 days (``RESTORE_WINDOW``), then
    purged for good by ``purge_deleted_characters``.

    Refused for an approved character: the referee has to reopen it first, so an approved
    party member never disappears from the campaign unnoticed. A submitted character is
    withdrawn from review. Until restored it is in no listing, page, campaign or share link.
    """
    character = lock_character(character)
    if character.is_locked:
        raise CharacterLocked(
            f"{character.name} is approved in {character.campaign or 'its campaign'}, so it "
            "cannot be deleted. Ask the referee to reopen it first."
        )
    withdraw_if_submitted(character, by=by, reason="Deleted while submitted")
    now = timezone.now()
    Character.objects.filter(pk=character.pk).update(deleted_at=now)
    character.deleted_at = now
    log_event(
        character,
        kind=CharacterEvent.Kind.HISTORY,
        by=by,
        detail=f"Deleted; restorable until {character.purge_at:%Y-%m-%d %H:%M} UTC.",
    )
    return character


class MusteringOutRefused(Refused):
    """Rolling is not allowed now; the message says why."""


@transaction.atomic
def roll_mustering_out(
    *, character: Character, by: User, rng: random.Random | None = None
) -> list[MusteringRoll]:
    """Roll the character's mustering-out cash once, on the server, and record every die.

    The row is locked so two clicks cannot both roll. ``rng`` is for tests; the app uses the
    operating system's randomness.
    """
    locked = lock_character(character)
    if locked.is_locked:
        raise MusteringOutRefused(
            f"{locked.name} is approved: the referee has to reopen it before anything changes."
        )
    mustering_out = locked.document.get("mustering_out") or {}
    if "credits" in mustering_out:
        raise MusteringOutRefused(
            f"{locked.name}'s starting credits are given, not rolled: empty them to roll instead."
        )
    if locked.mustering_rolls.exists() or mustering_out:
        raise MusteringOutRefused("Mustering-out cash has already been rolled for this character.")
    parsed = parse_document(locked.document)
    try:
        rolled = rules.roll_mustering_out(parsed, rng or random.SystemRandom())
    except rules.MusteringOutError as error:
        raise MusteringOutRefused(str(error)) from None
    records = MusteringRoll.objects.bulk_create(
        MusteringRoll(
            character=locked,
            position=position,
            die=roll.die,
            modifier=roll.modifier,
            row=roll.row,
            credits=roll.credits,
            service=parsed.service or "",
            terms=parsed.terms,
            rolled_by=by,
        )
        for position, roll in enumerate(rolled)
    )
    document = dict(locked.document, mustering_out={"rolls": [roll.die for roll in rolled]})
    store_document(locked, document, by=by, action="Mustering-out cash rolled")
    dice = ", ".join(
        f"{roll.die}{roll.modifier:+d}" if roll.modifier else str(roll.die) for roll in rolled
    )
    total = sum(roll.credits for roll in rolled)
    log_event(
        locked,
        kind=CharacterEvent.Kind.ROLL,
        by=by,
        detail=f"Rolled {dice} on the {parsed.service} cash table after {parsed.terms} "
        f"term{'s' if parsed.terms != 1 else ''}: Cr{total:,}.",
    )
    withdraw_if_submitted(locked, by=by, reason="Mustering-out cash rolled while submitted")
    return records
