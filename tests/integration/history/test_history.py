"""Every saved change is a revision; any two compare field by field; an earlier one is restored
as a new revision; a deleted character is restorable for 30 days, then purged."""

import random
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from characters.builder import services as builder_services
from characters.campaigns import services as campaigns_services
from characters.core import selectors as core_selectors
from characters.core import services as core_services
from characters.history import services as history_services
from characters.models import RESTORE_WINDOW, Character, CharacterEvent, Revision
from characters.play import services as play_services
from characters.review import services as review_services
from rules import RaiseSkill, normalise_document
from tests.factories import UserFactory, character_document

pytestmark = pytest.mark.django_db


@pytest.fixture
def character(player):
    """Valid under the rulebook, so that it can be submitted and approved."""
    return builder_services.create_character(
        owner=player,
        document=character_document(
            name="Mara",
            service="scouts",
            terms=1,
            skills=[{"skill": "Pilot", "level": 1}],
            traits=[{"type": "PP", "level": "C", "frequency": "S", "name": "Keen eyes"}],
        ),
    )


def save(character, by, **changes):
    character.refresh_from_db()
    return builder_services.save_character(
        character=character,
        document=character.document | changes,
        expected_version=character.version,
        by=by,
    )


def numbers(character):
    return list(character.revisions.order_by("number").values_list("number", "action"))


# -- revisions -------------------------------------------------------------------------------------


def test_creating_a_character_writes_revision_one(character, player):
    revision = character.revisions.get()
    assert (revision.number, revision.action, revision.author) == (1, "Created", player)
    assert revision.document == character.document


def test_every_saved_change_writes_a_revision_saying_what_changed(character, player):
    save(character, player, homeworld="Regina")
    save(character, player, attributes={**character.document["attributes"], "STR": 9})
    save(character, player)  # nothing changed: no revision

    assert numbers(character) == [
        (1, "Created"),
        (2, "Saved in the builder"),
        (3, "Saved in the builder"),
    ]
    latest = character.revisions.get(number=3)
    assert (latest.summary, latest.author) == ("STR 7 → 9", player)
    assert character.revisions.get(number=2).summary == "Homeworld — → Regina"


def test_rolling_the_mustering_out_cash_and_an_ip_purchase_are_revisions(
    player, referee, character
):
    builder_services.roll_mustering_out(character=character, by=player, rng=random.Random(3))
    campaign = campaigns_services.create_campaign(referee=referee, name="Marches")
    campaigns_services.join_campaign(user=player, code=campaign.invite_code)
    campaigns_services.attach_character(character=character, campaign=campaign, by=player)
    play_services.award_improvement_points(character=character, by=referee, amount=10, reason="x")
    play_services.spend_improvement_points(
        character=character, by=player, purchase=RaiseSkill("Pilot", None, 2)
    )
    assert [action for _, action in numbers(character)][1:] == [
        "Mustering-out cash rolled",
        "Improvement: Pilot-1 → Pilot-2",
    ]


def test_imported_and_copied_characters_start_their_own_history(client, player, character):
    copy = builder_services.duplicate_character(character=character, owner=player)
    assert numbers(copy) == [(1, "Copied from Mara")]


def test_the_history_page_lists_the_revisions_newest_first(client, character, player):
    save(character, player, homeworld="Regina")
    client.force_login(player)

    html = client.get(reverse("character_history", args=[character.pk])).content.decode()

    assert html.index('data-revision="2"') < html.index('data-revision="1"')
    assert "Homeworld — → Regina" in html
    assert html.count('data-action="restore"') == 1  # not on the current revision


def test_the_diff_shows_each_change_in_the_rulebooks_notation(client, character, player):
    save(
        character,
        player,
        skills=[{"skill": "Pilot", "level": 2}],
        attributes={**character.document["attributes"], "DEX": 9},
    )
    save(
        character, player, skills=[{"skill": "Pilot", "level": 3}, {"skill": "Medical", "level": 1}]
    )
    client.force_login(player)
    url = reverse("character_revision", args=[character.pk, 3])

    previous = client.get(url).content.decode()
    from_first = client.get(url, {"from": "1"}).content.decode()

    assert "<del>Pilot-2</del>" in previous
    assert "<ins>Pilot-3</ins>" in previous
    assert "<ins>Medical-1</ins>" in previous
    assert "DEX" not in previous.split("data-diff")[1].split("</table>")[0]
    assert "<del>7</del>" in from_first  # DEX 7 → 9 since revision 1
    assert "<ins>Pilot-3</ins>" in from_first
    assert client.get(url, {"from": "9"}).status_code == 404


# -- restoring an earlier revision --------------------------------------------------------------


def test_restoring_writes_a_new_revision_with_the_old_document(character, player):
    first = character.document
    save(character, player, homeworld="Regina", notes="Owes Marc a favour.")
    character.refresh_from_db()

    restored = history_services.restore_revision(
        character=character, number=1, by=player, expected_version=character.version
    )

    assert restored.document == first
    assert numbers(restored)[-1] == (3, "Restored revision 1")
    assert restored.revisions.get(number=2).document["homeworld"] == "Regina"  # nothing lost
    assert restored.events.filter(kind=CharacterEvent.Kind.HISTORY).count() == 1


def test_restoring_keeps_the_rolled_dice_and_the_budget(character, player):
    save(character, player, homeworld="Regina")
    builder_services.roll_mustering_out(character=character, by=player, rng=random.Random(3))
    character.refresh_from_db()
    rolls = character.document["mustering_out"]
    Character.objects.filter(pk=character.pk).update(document=character.document | {"budget": 104})
    character.refresh_from_db()

    restored = history_services.restore_revision(
        character=character, number=1, by=player, expected_version=character.version
    )

    assert "homeworld" not in restored.document
    assert restored.document["mustering_out"] == rolls
    assert restored.document["budget"] == 104


def test_restoring_names_the_version_it_was_asked_on(character, player):
    save(character, player, homeworld="Regina")
    before = Revision.objects.count()
    with pytest.raises(core_services.VersionConflict):
        history_services.restore_revision(
            character=character, number=1, by=player, expected_version=1
        )
    assert Revision.objects.count() == before


def test_an_approved_character_is_restored_only_after_the_referee_reopens_it(
    player, referee, character
):
    save(character, player, homeworld="Regina")
    campaign = campaigns_services.create_campaign(referee=referee, name="Marches")
    campaigns_services.join_campaign(user=player, code=campaign.invite_code)
    campaigns_services.attach_character(character=character, campaign=campaign, by=player)
    review_services.submit_character(character=character, by=player)
    review_services.approve_character(character=character, by=referee)
    character.refresh_from_db()

    with pytest.raises(core_services.CharacterLocked, match="Ask the referee to reopen it first"):
        history_services.restore_revision(
            character=character, number=1, by=player, expected_version=character.version
        )
    with pytest.raises(core_services.Refused, match="Only the player who owns"):
        history_services.restore_revision(
            character=character, number=1, by=referee, expected_version=character.version
        )


def test_restoring_the_current_revision_is_refused(character, player):
    with pytest.raises(core_services.Refused, match="as it is now: nothing to restore"):
        history_services.restore_revision(
            character=character, number=1, by=player, expected_version=1
        )


def test_the_restore_button_restores_and_says_so(client, character, player):
    save(character, player, homeworld="Regina")
    character.refresh_from_db()
    client.force_login(player)

    response = client.post(
        reverse("character_restore", args=[character.pk, 1]),
        {"version": str(character.version)},
        follow=True,
    )

    assert "Restored revision 1 as revision 3" in list(response.context["messages"])[-1].message
    character.refresh_from_db()
    assert "homeworld" not in character.document


# -- deleting and restoring a character ---------------------------------------------------------


def test_a_deleted_character_disappears_but_is_kept(character, player):
    builder_services.delete_character(character=character, by=player)

    assert not Character.objects.filter(pk=character.pk).exists()
    kept = Character.all_objects.get(pk=character.pk)
    assert kept.deleted_at is not None
    assert kept.purge_at == kept.deleted_at + timedelta(days=30)
    assert kept.revisions.count() == 1


def test_deleting_a_submitted_character_withdraws_it(player, referee, character):
    campaign = campaigns_services.create_campaign(referee=referee, name="Marches")
    campaigns_services.join_campaign(user=player, code=campaign.invite_code)
    campaigns_services.attach_character(character=character, campaign=campaign, by=player)
    review_services.submit_character(character=character, by=player)

    builder_services.delete_character(character=character, by=player)

    kept = Character.all_objects.get(pk=character.pk)
    assert kept.status == Character.Status.DRAFT
    assert not campaign.characters.exists()


def deleted_ago(character, age):
    """Move the character's deletion back in time: ``age`` ago."""
    Character.all_objects.filter(pk=character.pk).update(deleted_at=timezone.now() - age)


def test_the_owner_restores_a_deleted_character_within_thirty_days(client, character, player):
    builder_services.delete_character(character=character, by=player)
    deleted_ago(character, RESTORE_WINDOW - timedelta(minutes=1))
    client.force_login(player)

    trash = client.get(reverse("character_trash")).content.decode()
    response = client.post(reverse("character_undelete", args=[character.pk]), follow=True)

    assert f'data-deleted="{character.pk}"' in trash
    assert response.redirect_chain[-1][0] == reverse("character_detail", args=[character.pk])
    assert Character.objects.filter(pk=character.pk).exists()


def test_after_thirty_days_a_deleted_character_is_purged(client, character, player):
    other = builder_services.create_character(owner=player, document=character_document(name="Kim"))
    builder_services.delete_character(character=character, by=player)
    builder_services.delete_character(character=other, by=player)
    deleted_ago(character, RESTORE_WINDOW + timedelta(minutes=1))
    deleted_ago(other, RESTORE_WINDOW - timedelta(days=2))
    client.force_login(player)

    assert client.post(reverse("character_undelete", args=[character.pk])).status_code == 404
    with pytest.raises(core_services.Refused, match="more than 30 days ago"):
        history_services.restore_deleted_character(character=character, by=player)

    call_command("purge_deleted_characters", verbosity=0)

    assert not Character.all_objects.filter(pk=character.pk).exists()
    assert not Revision.objects.filter(character_id=character.pk).exists()
    assert Character.all_objects.filter(pk=other.pk).exists()  # two days left: kept


def test_the_trash_page_purges_what_is_past_its_window(client, character, player):
    builder_services.delete_character(character=character, by=player)
    deleted_ago(character, RESTORE_WINDOW + timedelta(hours=1))
    client.force_login(player)

    html = client.get(reverse("character_trash")).content.decode()

    assert "Nothing deleted in the last 30 days" in html
    assert not Character.all_objects.filter(pk=character.pk).exists()


def test_the_delete_page_says_the_character_stays_restorable(client, character, player):
    client.force_login(player)
    html = client.get(reverse("character_delete", args=[character.pk])).content.decode()
    assert "restorable for 30 days" in html
    response = client.post(reverse("character_delete", args=[character.pk]), follow=True)
    assert "restore it from Recently deleted" in list(response.context["messages"])[-1].message
    assert "Recently deleted (1)" in response.content.decode()


def test_nobody_else_restores_a_deleted_character(client, character, player):
    builder_services.delete_character(character=character, by=player)
    intruder = UserFactory(username="intruder")
    client.force_login(intruder)
    assert client.post(reverse("character_undelete", args=[character.pk])).status_code == 404
    with pytest.raises(core_services.Refused, match="Only the player who owns"):
        history_services.restore_deleted_character(character=character, by=intruder)


# -- the migration's first revisions ------------------------------------------------------------


def test_characters_saved_before_revisions_get_their_first_one(player):
    from importlib import import_module

    from django.apps import apps

    stored = Character.objects.create(
        owner=player,
        name="Old timer",
        document=normalise_document(character_document(name="Old timer")),
    )
    baseline = import_module("characters.migrations.0005_baseline_revisions").baseline

    baseline(apps, None)
    baseline(apps, None)  # running again adds nothing

    revision = stored.revisions.get()
    assert (revision.number, revision.action, revision.author) == (1, "History began", player)


def test_a_revision_number_that_is_not_one_shows_the_history_as_usual(client, player, character):
    client.force_login(player)
    url = reverse("character_history", args=[character.pk])

    for junk in ("²", "9" * 5000):
        assert client.get(url, {"from": junk, "to": junk}).status_code == 200


def test_a_character_restored_after_its_campaigns_rules_changed_is_listed_under_them(
    referee, player, campaign
):
    character = builder_services.create_character(
        owner=player, document=character_document(name="Kim"), campaign=campaign
    )
    assert (character.budget, character.is_valid) == (100, True)
    builder_services.delete_character(character=character, by=player)
    campaigns_services.update_campaign_rules(campaign=campaign, pc_budget=90)

    restored = history_services.restore_deleted_character(character=character, by=player)

    stored = Character.objects.get(pk=character.pk)
    assert (restored.budget, stored.budget) == (90, 90)
    assert stored.is_valid == core_selectors.character_report(stored).valid
