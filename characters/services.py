"""Writes to characters and campaigns. Views and commands change data only through here.

Each function takes keyword arguments only and runs in one transaction.
"""

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from rules import check_document

from .models import Campaign, Character


@transaction.atomic
def create_character(
    *, owner: AbstractBaseUser, document: dict[str, Any], campaign: Campaign | None = None
) -> Character:
    """Store a new character, its listing columns filled from the rules engine's report.

    Raises rules.MalformedDocument when the document is not a character document of format 1.
    """
    report = check_document(document)
    return Character.objects.create(
        owner=owner,
        document=document,
        name=report.name,
        kind=report.kind,
        budget=report.points.budget,
        is_valid=report.valid,
        points_total=report.points.total,
        campaign=campaign,
    )
