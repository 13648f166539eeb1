"""Load the local demo: three users, a campaign, and characters and an NPC from fixtures/demo/.

Used by `make run` only. Idempotent: what exists already is left as it is, so running it again
changes nothing (and keeps any edits made to the demo while playing with it). Refuses to run
under production settings, where well-known passwords would be a hole.
"""

import json
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from characters.builder.services import create_character
from characters.models import Campaign, CampaignMembership, Character
from characters.review.services import approve_character, submit_character

DEMO_DIR = Path(settings.BASE_DIR) / "fixtures" / "demo"
DEMO_PASSWORD = "traveller"  # the local demo's published password
REFEREE = "referee"
PLAYERS = ("player1", "player2")
CAMPAIGN = "Spinward Marches"


@dataclass(frozen=True)
class DemoCharacter:
    owner: str
    file: str
    status: str
    in_campaign: bool = True


DEMO_CHARACTERS = (
    DemoCharacter("player1", "player1-scout.json", Character.Status.APPROVED),
    DemoCharacter("player2", "player2-marine.json", Character.Status.SUBMITTED),
    DemoCharacter("player1", "player1-draft.json", Character.Status.DRAFT, in_campaign=False),
    # The referee's NPC, to field as a group in an encounter.
    DemoCharacter(REFEREE, "referee-vargr-corsair.json", Character.Status.DRAFT),
)


class Command(BaseCommand):
    help = "Create the local demo users, campaign and characters (never in production)."

    def handle(self, *args, **options) -> None:
        if settings.PRODUCTION:
            raise CommandError(
                "load_demo refuses to run with DJANGO_ENV=production: the demo accounts have "
                "a published password."
            )
        with transaction.atomic():
            created = self._load()
        if created:
            self.stdout.write(self.style.SUCCESS(f"Demo data: created {', '.join(created)}."))
        else:
            self.stdout.write("Demo data: already present, nothing changed.")
        self.stdout.write(
            f"Log in as {REFEREE}, {' or '.join(PLAYERS)} with password '{DEMO_PASSWORD}'."
        )

    def _load(self) -> list[str]:
        created: list[str] = []
        users = {}
        for username in (REFEREE, *PLAYERS):
            user, new = get_user_model().objects.get_or_create(username=username)
            if new:
                user.set_password(DEMO_PASSWORD)
                user.save(update_fields=["password"])
                created.append(f"user {username}")
            users[username] = user

        campaign = Campaign.objects.filter(name=CAMPAIGN, referee=users[REFEREE]).first()
        if campaign is None:
            campaign = Campaign.objects.create(name=CAMPAIGN, referee=users[REFEREE])
            created.append(f"campaign {CAMPAIGN!r}")
        for username in PLAYERS:
            _, new = CampaignMembership.objects.get_or_create(
                campaign=campaign, user=users[username]
            )
            if new:
                created.append(f"membership of {username}")

        for demo in DEMO_CHARACTERS:
            document = json.loads((DEMO_DIR / demo.file).read_text(encoding="utf-8"))
            owner = users[demo.owner]
            if Character.objects.owned_by(owner).filter(name=document["name"]).exists():
                continue
            character = create_character(
                owner=owner, document=document, campaign=campaign if demo.in_campaign else None
            )
            # Through the review workflow, so the demo's log shows who submitted and approved.
            if demo.status in (Character.Status.SUBMITTED, Character.Status.APPROVED):
                submit_character(character=character, by=owner)
            if demo.status == Character.Status.APPROVED:
                approve_character(character=character, by=users[REFEREE])
            created.append(f"character {character.name!r}")
        return created
