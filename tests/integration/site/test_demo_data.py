import json
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from characters.models import Campaign, CampaignMembership, Character
from rules import check_document

pytestmark = pytest.mark.django_db
DEMO_DIR = Path(__file__).resolve().parents[3] / "fixtures" / "demo"


def demo_counts() -> tuple[int, ...]:
    return (
        get_user_model().objects.count(),
        Campaign.objects.count(),
        CampaignMembership.objects.count(),
        Character.objects.count(),
    )


def test_load_demo_creates_the_demo_campaign_as_the_readme_describes(client):
    call_command("load_demo")

    campaign = Campaign.objects.get(name="Spinward Marches")
    assert campaign.referee.username == "referee"
    members = sorted(m.user.username for m in campaign.memberships.select_related("user"))
    assert members == ["player1", "player2"]
    for username in ("referee", "player1", "player2"):
        assert client.login(username=username, password="traveller"), username

    finished = Character.objects.exclude(status=Character.Status.DRAFT)
    assert sorted(c.owner.username for c in finished) == ["player1", "player2"]
    assert all(c.is_valid and c.campaign == campaign for c in finished)
    drafts = Character.objects.filter(status=Character.Status.DRAFT, kind=Character.Kind.PC)
    assert [c.owner.username for c in drafts] == ["player1"]
    (npc,) = Character.objects.filter(kind=Character.Kind.NPC)
    assert (npc.owner.username, npc.campaign, npc.is_valid) == ("referee", campaign, True)


def test_load_demo_is_idempotent():
    call_command("load_demo")
    before = demo_counts()

    call_command("load_demo")

    assert demo_counts() == before == (3, 1, 2, 4)


def test_load_demo_refuses_to_run_in_production(settings):
    settings.PRODUCTION = True

    with pytest.raises(CommandError, match="production"):
        call_command("load_demo")

    assert demo_counts() == (0, 0, 0, 0)


def test_only_the_demo_draft_breaks_the_rules():
    validity = {
        path.name: check_document(json.loads(path.read_text(encoding="utf-8"))).valid
        for path in DEMO_DIR.glob("*.json")
    }

    assert validity == {
        "player1-scout.json": True,
        "player2-marine.json": True,
        "player1-draft.json": False,
        "referee-vargr-corsair.json": True,
    }
