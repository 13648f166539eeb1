"""Writes to characters and campaigns. Views and commands change data only through here
(and through ``play_services``, for what happens to a character in play).

Each function takes keyword arguments only and runs in one transaction, so a failed write
changes nothing. Every stored document is normalised by the rules engine first, and the
listing columns are refreshed from the engine's report in the same statement. Every change of
a document writes the character's next ``Revision`` in the same transaction.
"""

import random
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F
from django.utils import timezone

import rules
from rules import (
    HouseRules,
    Report,
    check,
    document_changes,
    normalise_document,
    parse_document,
    summarise,
)
from rules.document import NAME_MAX

from .models import (
    RESTORE_WINDOW,
    Campaign,
    CampaignMembership,
    Character,
    CharacterEvent,
    MusteringRoll,
    Revision,
    ShareLink,
    new_invite_code,
)

Status = Character.Status


class Refused(Exception):
    """The action is not allowed now; ``str()`` says why, in words to show the user."""


class CharacterLocked(Refused):
    """The character is approved: it changes only after its referee reopens it."""


class InviteInvalid(Refused):
    """The invite code is unknown or was revoked."""


class VersionConflict(Exception):
    """The character was saved by someone else (another tab) since the editor loaded it."""

    def __init__(self, current: Character) -> None:
        super().__init__(f"{current.name} is now at version {current.version}")
        self.current = current


def _listing_columns(report: Report) -> dict[str, Any]:
    return {
        "name": report.name,
        "kind": report.kind,
        "budget": report.points.budget,
        "is_valid": report.valid,
        "points_total": report.points.total,
    }


def _checked(
    document: dict[str, Any], house_rules: HouseRules | None
) -> tuple[dict[str, Any], Report]:
    """The normalised document and its report; raises rules.MalformedDocument."""
    normal = normalise_document(document)
    return normal, check(parse_document(normal), house_rules=house_rules)


@transaction.atomic
def create_character(
    *,
    owner: AbstractBaseUser,
    document: dict[str, Any],
    campaign: Campaign | None = None,
    action: str = "Created",
) -> Character:
    """Store a new character, its listing columns filled from the rules engine's report, and
    its first revision (``action`` says how it came: created, imported, copied).

    Raises rules.MalformedDocument when the document is not a character document of format 1.
    """
    normal, report = _checked(document, campaign.house_rules() if campaign else None)
    character = Character.objects.create(
        owner=owner, document=normal, campaign=campaign, **_listing_columns(report)
    )
    _revise(character, normal, by=owner, action=action)
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
    by: AbstractBaseUser | None = None,
    editing_session: str = "",
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
    """
    character = _lock(character)
    _refuse_if_locked(character)
    document = dict(document)
    stored_rolls = character.document.get("mustering_out")
    if stored_rolls:
        document["mustering_out"] = stored_rolls
    else:
        document.pop("mustering_out", None)
    normal, report = _checked(document, character.house_rules())
    stored = Character.objects.filter(pk=character.pk)
    if not _moved_on_only_by(character, editing_session, by, expected_version):
        stored = stored.filter(version=expected_version)
    updated = stored.update(
        document=normal,
        version=F("version") + 1,
        updated_at=timezone.now(),
        **_listing_columns(report),
    )
    current = Character.objects.select_related("campaign").get(pk=character.pk)
    if not updated:
        raise VersionConflict(current)
    _revise(current, normal, by=by, action="Saved in the builder", editing_session=editing_session)
    _withdraw_if_submitted(current, by=by, reason="Edited while submitted")
    return current


def _moved_on_only_by(
    character: Character, editing_session: str, by: AbstractBaseUser | None, since: int
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


@transaction.atomic
def duplicate_character(*, character: Character, owner: AbstractBaseUser) -> Character:
    """A copy for the same owner, outside any campaign; its mustering-out rolls come along,
    so copying a character is never a way to roll the dice again."""
    document = dict(character.document, name=f"{character.name} (copy)"[:NAME_MAX])
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
def delete_character(*, character: Character, by: AbstractBaseUser | None = None) -> Character:
    """Delete the character, restorable by its owner for 30 days (``RESTORE_WINDOW``), then
    purged for good by ``purge_deleted_characters``.

    Refused for an approved character: the referee has to reopen it first, so an approved
    party member never disappears from the campaign unnoticed. A submitted character is
    withdrawn from review. Until restored it is in no listing, page, campaign or share link.
    """
    character = _lock(character)
    if character.is_locked:
        raise CharacterLocked(
            f"{character.name} is approved in {character.campaign or 'its campaign'}, so it "
            "cannot be deleted. Ask the referee to reopen it first."
        )
    _withdraw_if_submitted(character, by=by, reason="Deleted while submitted")
    now = timezone.now()
    Character.objects.filter(pk=character.pk).update(deleted_at=now)
    character.deleted_at = now
    _log(
        character,
        kind=CharacterEvent.Kind.HISTORY,
        by=by,
        detail=f"Deleted; restorable until {character.purge_at:%Y-%m-%d %H:%M} UTC.",
    )
    return character


@transaction.atomic
def restore_deleted_character(*, character: Character, by: AbstractBaseUser) -> Character:
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
    columns = _listing_columns(report_for(locked))
    Character.all_objects.filter(pk=locked.pk).update(deleted_at=None, **columns)
    for field, value in columns.items():
        setattr(locked, field, value)
    locked.deleted_at = None
    _log(locked, kind=CharacterEvent.Kind.HISTORY, by=by, detail="Restored after deletion.")
    return locked


@transaction.atomic
def purge_deleted_characters(*, owner: AbstractBaseUser | None = None) -> int:
    """Delete for good the characters deleted longer ago than the restore window (of one
    owner, or everyone's); returns how many. Their revisions and logs go with them."""
    expired = Character.all_objects.expired()
    if owner is not None:
        expired = expired.filter(owner=owner)
    ids = list(expired.values_list("pk", flat=True))
    if ids:
        Character.all_objects.filter(pk__in=ids).delete()
    return len(ids)


class MusteringOutRefused(Refused):
    """Rolling is not allowed now; the message says why."""


@transaction.atomic
def roll_mustering_out(
    *, character: Character, by: AbstractBaseUser, rng: random.Random | None = None
) -> list[MusteringRoll]:
    """Roll the character's mustering-out cash once, on the server, and record every die.

    The row is locked so two clicks cannot both roll. ``rng`` is for tests; the app uses the
    operating system's randomness.
    """
    locked = _lock(character)
    if locked.is_locked:
        raise MusteringOutRefused(
            f"{locked.name} is approved: the referee has to reopen it before anything changes."
        )
    if locked.mustering_rolls.exists() or locked.document.get("mustering_out"):
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
    normal, report = _checked(document, locked.house_rules())
    Character.objects.filter(pk=locked.pk).update(
        document=normal,
        version=F("version") + 1,
        updated_at=timezone.now(),
        **_listing_columns(report),
    )
    _revise(locked, normal, by=by, action="Mustering-out cash rolled")
    dice = ", ".join(
        f"{roll.die}{roll.modifier:+d}" if roll.modifier else str(roll.die) for roll in rolled
    )
    total = sum(roll.credits for roll in rolled)
    _log(
        locked,
        kind=CharacterEvent.Kind.ROLL,
        by=by,
        detail=f"Rolled {dice} on the {parsed.service} cash table after {parsed.terms} "
        f"term{'s' if parsed.terms != 1 else ''}: Cr{total:,}.",
    )
    _withdraw_if_submitted(locked, by=by, reason="Mustering-out cash rolled while submitted")
    return records


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


# -- the review log and its status changes --------------------------------------------------------


def _lock(character: Character, *, deleted: bool = False) -> Character:
    """The character's row, locked until the transaction ends, with its campaign (``deleted``:
    found even when its owner deleted it)."""
    manager = Character.all_objects if deleted else Character.objects
    # of=("self",): PostgreSQL cannot lock the nullable side of the outer join to the campaign.
    locked = manager.select_for_update(of=("self",)).select_related("campaign")
    return locked.get(pk=character.pk)


def _refuse_if_locked(character: Character) -> None:
    if character.is_locked:
        raise CharacterLocked(
            f"{character.name} is approved, so it is locked: nothing was saved. Ask the referee "
            "to reopen it if it needs to change."
        )


def _log(
    character: Character,
    *,
    kind: str,
    by: AbstractBaseUser | None,
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


def _revise(
    character: Character,
    document: dict[str, Any],
    *,
    by: AbstractBaseUser | None,
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
    return Revision.objects.create(
        character=character,
        number=last.number + 1 if last else 1,
        document=document,
        author=by,
        action=action[:100],
        summary=summary[:300],
        editing_session=editing_session,
    )


def _set_status(
    character: Character,
    status: str,
    *,
    by: AbstractBaseUser | None,
    comment: str = "",
    detail: str = "",
) -> Character:
    """Move the (locked) character to ``status`` and log it; the instance is updated too."""
    previous = character.status
    Character.objects.filter(pk=character.pk).update(status=status, updated_at=timezone.now())
    character.status = status
    _log(
        character,
        kind=CharacterEvent.Kind.STATUS,
        by=by,
        from_status=previous,
        to_status=status,
        comment=comment,
        detail=detail,
    )
    return character


def _withdraw_if_submitted(character: Character, *, by: AbstractBaseUser | None, reason: str):
    if character.status == Status.SUBMITTED:
        _set_status(
            character,
            Status.DRAFT,
            by=by,
            detail=f"{reason}: withdrawn from review. Submit it again when it is ready.",
        )


def report_for(character: Character) -> Report:
    """The engine's report on the stored document, under the rules the character plays by."""
    return check(parse_document(character.document), house_rules=character.house_rules())


def _error_summary(report: Report, limit: int = 3) -> str:
    errors = report.errors
    shown = " ".join(problem.message for problem in errors[:limit])
    more = len(errors) - limit
    return shown + (f" (and {more} more)" if more > 0 else "")


def require_referee(character: Character, by: AbstractBaseUser, doing: str) -> None:
    """Refuse ``by`` unless they referee the character's campaign; ``doing`` ends the message,
    e.g. "approve it"."""
    if character.campaign is None or character.campaign.referee_id != by.pk:
        raise Refused(f"Only the referee of {character.name}'s campaign can {doing}.")


@transaction.atomic
def submit_character(*, character: Character, by: AbstractBaseUser) -> Character:
    """The player hands the character to the referee: only when the campaign's rules find no
    error in it. Drafts and returned characters can be submitted."""
    locked = _lock(character)
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
    report = report_for(locked)
    if report.errors:
        count = len(report.errors)
        raise Refused(
            f"{locked.name} was not submitted: it has {count} rule error{'s' if count != 1 else ''}"
            f" under the rules of {locked.campaign.name}. {_error_summary(report)}"
        )
    return _set_status(locked, Status.SUBMITTED, by=by)


@transaction.atomic
def approve_character(
    *, character: Character, by: AbstractBaseUser, comment: str = ""
) -> Character:
    """The referee accepts a submitted character; it is locked until reopened."""
    locked = _lock(character)
    require_referee(locked, by, "approve it")
    if locked.status != Status.SUBMITTED:
        raise Refused(
            f"{locked.name} is {locked.get_status_display().lower()}; only a submitted "
            "character can be approved."
        )
    report = report_for(locked)
    if report.errors:
        raise Refused(
            f"{locked.name} was not approved: under this campaign's rules it now has "
            f"{len(report.errors)} rule error(s). Return it to the player instead. "
            f"{_error_summary(report)}"
        )
    return _set_status(locked, Status.APPROVED, by=by, comment=comment.strip())


@transaction.atomic
def return_character(*, character: Character, by: AbstractBaseUser, comment: str) -> Character:
    """The referee sends a submitted character back to its player, saying what to change."""
    comment = comment.strip()
    locked = _lock(character)
    require_referee(locked, by, "return it")
    if not comment:
        raise Refused("Say what to change: a character goes back to its player with a comment.")
    if locked.status != Status.SUBMITTED:
        raise Refused(
            f"{locked.name} is {locked.get_status_display().lower()}; only a submitted "
            "character can be returned."
        )
    return _set_status(locked, Status.RETURNED, by=by, comment=comment)


@transaction.atomic
def reopen_character(*, character: Character, by: AbstractBaseUser, comment: str = "") -> Character:
    """The referee unlocks an approved character so its player can edit it again (as a draft)."""
    locked = _lock(character)
    require_referee(locked, by, "reopen it")
    if locked.status != Status.APPROVED:
        raise Refused(f"{locked.name} is not approved, so there is nothing to reopen.")
    return _set_status(locked, Status.DRAFT, by=by, comment=comment.strip())


@transaction.atomic
def comment_on_character(
    *, character: Character, by: AbstractBaseUser, comment: str
) -> CharacterEvent:
    """A note in the character's log from its player or its referee; the status stays."""
    comment = comment.strip()
    if not comment:
        raise Refused("Write something to add a comment.")
    return _log(character, kind=CharacterEvent.Kind.COMMENT, by=by, comment=comment)


# -- history and share links ---------------------------------------------------------------------


@transaction.atomic
def restore_revision(
    *, character: Character, number: int, by: AbstractBaseUser, expected_version: int
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
    locked = _lock(character)
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
        normal, report = _checked(document, locked.house_rules())
    except rules.MalformedDocument as malformed:
        raise Refused(f"Revision {number} cannot be restored: {malformed}.") from None
    if normal == locked.document:
        raise Refused(f"Revision {number} is {locked.name} as it is now: nothing to restore.")
    Character.objects.filter(pk=locked.pk).update(
        document=normal,
        version=F("version") + 1,
        updated_at=timezone.now(),
        **_listing_columns(report),
    )
    current = Character.objects.select_related("campaign").get(pk=locked.pk)
    _revise(current, normal, by=by, action=f"Restored revision {number}")
    _log(current, kind=CharacterEvent.Kind.HISTORY, by=by, detail=f"Restored revision {number}.")
    _withdraw_if_submitted(current, by=by, reason="An earlier revision restored while submitted")
    return current


@transaction.atomic
def create_share_link(*, character: Character, by: AbstractBaseUser) -> ShareLink:
    """A new read-only link to the character's sheet; only its owner makes one."""
    locked = _lock(character)
    if locked.owner_id != by.pk:
        raise Refused(f"Only the player who owns {locked.name} can share it.")
    link = ShareLink.objects.create(character=locked, created_by=by)
    _log(locked, kind=CharacterEvent.Kind.SHARE, by=by, detail="Share link created.")
    return link


@transaction.atomic
def revoke_share_link(*, link: ShareLink, by: AbstractBaseUser) -> ShareLink:
    """The link stops working at once, for good; revoking it again changes nothing."""
    link = ShareLink.objects.select_for_update().select_related("character").get(pk=link.pk)
    if link.character.owner_id != by.pk:
        raise Refused("Only the player who owns the character can revoke its share links.")
    if link.revoked_at is None:
        link.revoked_at = timezone.now()
        link.save(update_fields=["revoked_at"])
        _log(
            link.character,
            kind=CharacterEvent.Kind.SHARE,
            by=by,
            detail=f"Share link of {link.created_at:%Y-%m-%d} revoked.",
        )
    return link


def shared_link(token: str) -> ShareLink | None:
    """The active link with this token to a character that exists, or None."""
    return (
        ShareLink.objects.select_related("character", "character__campaign")
        .filter(token=token, revoked_at__isnull=True, character__deleted_at__isnull=True)
        .first()
    )


# -- campaigns ------------------------------------------------------------------------------------


def _validate_campaign(campaign: Campaign) -> None:
    cat = rules.catalog()
    unknown = sorted(set(campaign.open_services) - set(cat.services))
    if unknown:
        raise ValueError(f"unknown services {unknown}")
    if campaign.page_size not in Campaign.PageSize.values:
        raise ValueError(f"unknown page size {campaign.page_size!r}")
    if not 0 <= campaign.pc_budget <= cat.limits.max_budget:
        raise ValueError(f"a budget of {campaign.pc_budget} is outside 0-{cat.limits.max_budget}")
    if not 0 <= campaign.max_former_rank <= cat.limits.rank_max:
        raise ValueError(
            f"a highest former rank of {campaign.max_former_rank} is outside "
            f"0-{cat.limits.rank_max}"
        )


def _recheck_characters(campaign: Campaign) -> int:
    """Refresh the listing columns of every character in the campaign under its rules."""
    characters = list(campaign.characters.all())
    for character in characters:
        house_rules = campaign.house_rules(budget_added=character.budget_added)
        report = check(parse_document(character.document), house_rules=house_rules)
        for field, value in _listing_columns(report).items():
            setattr(character, field, value)
    Character.objects.bulk_update(
        characters, ["name", "kind", "budget", "is_valid", "points_total"], batch_size=200
    )
    return len(characters)


@transaction.atomic
def create_campaign(
    *,
    referee: AbstractBaseUser,
    name: str,
    pc_budget: int | None = None,
    one_trait_per_term: bool = True,
    psionics_allowed: bool = True,
    max_former_rank: int | None = None,
    open_services: list[str] | tuple[str, ...] = (),
    page_size: str = Campaign.PageSize.LETTER,
) -> Campaign:
    """A new campaign; a budget or highest former rank not given is the rulebook's."""
    limits = rules.catalog().limits
    campaign = Campaign(
        referee=referee,
        name=name,
        pc_budget=limits.default_budget if pc_budget is None else pc_budget,
        one_trait_per_term=one_trait_per_term,
        psionics_allowed=psionics_allowed,
        max_former_rank=limits.rank_max if max_former_rank is None else max_former_rank,
        open_services=sorted(open_services),
        page_size=page_size,
    )
    _validate_campaign(campaign)
    campaign.save()
    return campaign


@transaction.atomic
def update_campaign_rules(
    *,
    campaign: Campaign,
    name: str | None = None,
    pc_budget: int | None = None,
    one_trait_per_term: bool | None = None,
    psionics_allowed: bool | None = None,
    max_former_rank: int | None = None,
    open_services: list[str] | tuple[str, ...] | None = None,
    page_size: str | None = None,
) -> Campaign:
    """Change the campaign's name and house rules (``None`` leaves a setting as it is), then
    re-check every character in it under the new rules so listings show the new verdicts.

    Statuses stay as they are: the referee sees the new problem counts and decides."""
    campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
    changes = {
        "name": name,
        "pc_budget": pc_budget,
        "one_trait_per_term": one_trait_per_term,
        "psionics_allowed": psionics_allowed,
        "max_former_rank": max_former_rank,
        "open_services": sorted(open_services) if open_services is not None else None,
        "page_size": page_size,
    }
    for field, value in changes.items():
        if value is not None:
            setattr(campaign, field, value)
    _validate_campaign(campaign)
    campaign.save()
    _recheck_characters(campaign)
    return campaign


@transaction.atomic
def renew_invite(*, campaign: Campaign) -> str:
    """A new invite code, active; the old link stops working."""
    code = new_invite_code()
    Campaign.objects.filter(pk=campaign.pk).update(invite_code=code, invite_active=True)
    campaign.invite_code, campaign.invite_active = code, True
    return code


@transaction.atomic
def revoke_invite(*, campaign: Campaign) -> None:
    """Nobody joins through the link until the referee renews it (with a new code)."""
    Campaign.objects.filter(pk=campaign.pk).update(invite_active=False)
    campaign.invite_active = False


def campaign_for_invite(code: str) -> Campaign | None:
    """The campaign an active invite code opens, or None."""
    return (
        Campaign.objects.select_related("referee")
        .filter(invite_code=code, invite_active=True)
        .first()
    )


@transaction.atomic
def join_campaign(*, user: AbstractBaseUser, code: str) -> Campaign:
    """Make the user a member of the campaign the invite code opens (again is harmless)."""
    campaign = campaign_for_invite(code)
    if campaign is None:
        raise InviteInvalid(
            "This invite link does not work any more: ask the referee for a new one."
        )
    if campaign.referee_id == user.pk:
        raise Refused(f"You referee {campaign.name}; players join it through this link.")
    CampaignMembership.objects.get_or_create(campaign=campaign, user=user)
    return campaign


def is_member(campaign: Campaign, user: AbstractBaseUser) -> bool:
    return campaign.memberships.filter(user=user).exists()


@transaction.atomic
def attach_character(
    *, character: Character, campaign: Campaign, by: AbstractBaseUser | None = None
) -> Character:
    """Bring a character into a campaign, re-checked under the campaign's house rules.

    The owner must be a member (or the referee). A character plays in one campaign at a time;
    player characters only, except that the referee may bring in their own NPCs.
    """
    locked = _lock(character)
    if locked.campaign_id == campaign.pk:
        return locked
    is_referee = campaign.referee_id == locked.owner_id
    if not is_referee and not is_member(campaign, locked.owner):
        raise Refused(f"{locked.name}'s player is not a member of {campaign.name}.")
    if locked.campaign is not None:
        raise Refused(
            f"{locked.name} already plays in {locked.campaign.name}; a character is in one "
            "campaign at a time. Take it out of that campaign first."
        )
    if locked.kind == Character.Kind.NPC and not is_referee:
        raise Refused(
            f"{locked.name} is an NPC: players bring player characters, the referee keeps NPCs."
        )
    house_rules = campaign.house_rules(budget_added=locked.budget_added)
    report = check(parse_document(locked.document), house_rules=house_rules)
    Character.objects.filter(pk=locked.pk).update(
        campaign=campaign, status=Status.DRAFT, **_listing_columns(report)
    )
    _log(
        locked,
        kind=CharacterEvent.Kind.CAMPAIGN,
        by=by,
        detail=f"Joined {campaign.name}"
        + (f" with {len(report.errors)} rule error(s) under its rules." if report.errors else "."),
    )
    return Character.objects.select_related("campaign").get(pk=locked.pk)


@transaction.atomic
def detach_character(*, character: Character, by: AbstractBaseUser | None = None) -> Character:
    """Take a character out of its campaign, back to a draft under the rulebook's own rules.
    An approved character stays until the referee reopens it. A deleted character can leave
    too, so that restoring it never brings it back into a campaign its player has left."""
    locked = _lock(character, deleted=True)
    if locked.campaign is None:
        return locked
    if locked.is_locked:
        raise CharacterLocked(
            f"{locked.name} is approved in {locked.campaign.name}: the referee has to reopen it "
            "before it can leave."
        )
    name = locked.campaign.name
    report = check(parse_document(locked.document))
    Character.all_objects.filter(pk=locked.pk).update(
        campaign=None, status=Status.DRAFT, **_listing_columns(report)
    )
    _log(locked, kind=CharacterEvent.Kind.CAMPAIGN, by=by, detail=f"Left {name}.")
    return Character.all_objects.get(pk=locked.pk)


@transaction.atomic
def remove_member(
    *, campaign: Campaign, user: AbstractBaseUser, by: AbstractBaseUser
) -> list[Character]:
    """Take ``user`` out of the campaign: the referee (``by``) removes a member, or the member
    leaves (``by`` is ``user``). Returns the member's characters that left with them.

    Every character of theirs in the campaign, deleted ones included, leaves through
    ``detach_character`` (logged on each), then the membership goes; the referee's own
    characters and NPCs stay. The referee reopens the member's approved characters on the way
    (each reopening logged); a member leaving is refused while one of theirs is approved, as
    ``detach_character`` refuses it, and then nothing changes. Afterwards the campaign is
    gone from the member's pages until they join again through a working invite link.
    """
    if campaign.referee_id == user.pk:
        raise Refused(f"You referee {campaign.name}: a campaign keeps its referee.")
    by_referee = campaign.referee_id == by.pk
    if not by_referee and by.pk != user.pk:
        raise Refused(f"Only the referee of {campaign.name} can remove its players.")
    membership = (
        CampaignMembership.objects.select_for_update().filter(campaign=campaign, user=user).first()
    )
    if membership is None:
        raise Refused(f"{user.get_username()} is not a member of {campaign.name}.")
    theirs = Character.all_objects.filter(campaign=campaign, owner=user).order_by("name", "id")
    left = []
    for character in theirs:
        if by_referee and character.is_locked:
            reopen_character(character=character, by=by)
        left.append(detach_character(character=character, by=by))
    membership.delete()
    return left


@transaction.atomic
def create_npc(*, campaign: Campaign, name: str, budget: int, species: str = "human") -> Character:
    """An NPC the referee keeps in the campaign, on any budget; only the referee sees it."""
    document = new_document(name=name, kind=Character.Kind.NPC, budget=budget, species=species)
    npc = create_character(
        owner=campaign.referee, document=document, campaign=campaign, action="Created as an NPC"
    )
    _log(
        npc,
        kind=CharacterEvent.Kind.CAMPAIGN,
        by=campaign.referee,
        detail=f"Created as an NPC in {campaign.name} on {budget} points.",
    )
    return npc
