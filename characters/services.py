"""Writes to characters and campaigns. Views and commands change data only through here.

Each function takes keyword arguments only and runs in one transaction, so a failed write
changes nothing. Every stored document is normalised by the rules engine first, and the
listing columns are refreshed from the engine's report in the same statement.
"""

import random
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F
from django.utils import timezone

import rules
from rules import HouseRules, Report, check, normalise_document, parse_document

from .models import Campaign, Character, MusteringRoll


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
    *, owner: AbstractBaseUser, document: dict[str, Any], campaign: Campaign | None = None
) -> Character:
    """Store a new character, its listing columns filled from the rules engine's report.

    Raises rules.MalformedDocument when the document is not a character document of format 1.
    """
    normal, report = _checked(document, campaign.house_rules() if campaign else None)
    return Character.objects.create(
        owner=owner, document=normal, campaign=campaign, **_listing_columns(report)
    )


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
    *, character: Character, document: dict[str, Any], expected_version: int
) -> Character:
    """Save the builder's document if nobody saved since ``expected_version``.

    The recorded mustering-out rolls always win over the document's: a player cannot edit dice.
    Raises VersionConflict (nothing written) when the stored version moved on.
    """
    document = dict(document)
    stored_rolls = character.document.get("mustering_out")
    if stored_rolls:
        document["mustering_out"] = stored_rolls
    else:
        document.pop("mustering_out", None)
    normal, report = _checked(document, character.house_rules())
    updated = Character.objects.filter(pk=character.pk, version=expected_version).update(
        document=normal,
        version=F("version") + 1,
        updated_at=timezone.now(),
        **_listing_columns(report),
    )
    current = Character.objects.select_related("campaign").get(pk=character.pk)
    if not updated:
        raise VersionConflict(current)
    return current


@transaction.atomic
def duplicate_character(*, character: Character, owner: AbstractBaseUser) -> Character:
    """A copy for the same owner, outside any campaign; its mustering-out rolls come along,
    so copying a character is never a way to roll the dice again."""
    document = dict(character.document, name=f"{character.name} (copy)"[:100])
    copy = create_character(owner=owner, document=document)
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
def delete_character(*, character: Character) -> None:
    character.delete()


class MusteringOutRefused(Exception):
    """Rolling is not allowed now; the message says why."""


@transaction.atomic
def roll_mustering_out(
    *, character: Character, by: AbstractBaseUser, rng: random.Random | None = None
) -> list[MusteringRoll]:
    """Roll the character's mustering-out cash once, on the server, and record every die.

    The row is locked so two clicks cannot both roll. ``rng`` is for tests; the app uses the
    operating system's randomness.
    """
    locked = Character.objects.select_for_update().get(pk=character.pk)
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
