"""Who gets what: every URL that names a character, a campaign, an invite or a share link, for
every role and method.

The roles are seen from one player character (``owner``'s, in the campaign, submitted):
``owner`` plays it; ``referee`` runs its campaign; ``member`` plays in the same campaign with a
character of their own; ``outsider`` is logged in and has nothing to do with either; anonymous
visitors are sent to log in. Objects a user may not see are 404, never 403; a refused or
forbidden request changes nothing in the database.

``test_the_matrix_covers_every_url_with_an_id`` walks the URL resolver, so a new URL that takes
an id or a code fails the suite until it has a row here.
"""

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from characters.builder import services as builder_services
from characters.campaigns import services as campaigns_services
from characters.encounters import services as encounters_services
from characters.history import services as history_services
from characters.models import (
    Campaign,
    CampaignMembership,
    Character,
    CharacterEvent,
    ConditionChange,
    CreditEntry,
    DiceRoll,
    Encounter,
    EncounterEntry,
    ImprovementEntry,
    MusteringRoll,
    PlayState,
    Revision,
    ShareLink,
)
from characters.play import services as play_services
from characters.review import services as review_services
from rules import RaiseSkill
from tests.factories import UserFactory, character_document

pytestmark = pytest.mark.django_db

LOGIN = "login"  # a redirect to the login page
ROLES = ("owner", "referee", "member", "outsider", "anonymous")

# fmt: off
# (URL name, method): owner, referee, other member, outsider, anonymous.
# "htmx" is a GET sent by htmx (the partial of the page), "htmx-post" a POST sent by htmx. 302 =
# done, or refused with a message.
MATRIX: dict[tuple[str, str], tuple[object, ...]] = {
    # The character's pages: the sheet, export and PDF for the owner and the campaign's referee.
    ("character_detail", "get"):        (200, 200, 404, 404, LOGIN),
    ("character_export", "get"):        (200, 200, 404, 404, LOGIN),
    ("character_export_foundry", "get"): (200, 200, 404, 404, LOGIN),
    ("character_pdf", "get"):           (200, 200, 404, 404, LOGIN),
    # Changing it: the owner only (the referee reviews, never edits a player's character).
    ("character_edit", "get"):          (200, 404, 404, 404, LOGIN),
    ("character_edit", "post"):         (302, 404, 404, 404, LOGIN),
    # The page's own save: the owner's character is submitted, so it is saved only when the
    # player presses Save, which the answer says.
    ("character_edit", "htmx-post"):    (200, 404, 404, 404, LOGIN),
    ("character_duplicate", "get"):     (405, 405, 405, 405, LOGIN),
    ("character_duplicate", "post"):    (302, 404, 404, 404, LOGIN),
    ("character_delete", "get"):        (200, 404, 404, 404, LOGIN),
    ("character_delete", "post"):       (302, 404, 404, 404, LOGIN),
    ("character_submit", "get"):        (405, 405, 405, 405, LOGIN),
    ("character_submit", "post"):       (302, 404, 404, 404, LOGIN),
    ("character_detach", "get"):        (405, 405, 405, 405, LOGIN),
    ("character_detach", "post"):       (302, 404, 404, 404, LOGIN),
    # Reviewing it: the referee of its campaign only.
    ("character_approve", "get"):       (405, 405, 405, 405, LOGIN),
    ("character_approve", "post"):      (404, 302, 404, 404, LOGIN),
    ("character_return", "get"):        (405, 405, 405, 405, LOGIN),
    ("character_return", "post"):       (404, 302, 404, 404, LOGIN),
    ("character_reopen", "get"):        (405, 405, 405, 405, LOGIN),
    ("character_reopen", "post"):       (404, 302, 404, 404, LOGIN),
    # Its log: the two people who can read it can write in it.
    ("character_comment", "get"):       (405, 405, 405, 405, LOGIN),
    ("character_comment", "post"):      (302, 302, 404, 404, LOGIN),
    # The campaign: the roster for members, the review for the referee.
    ("campaign_detail", "get"):         (200, 200, 200, 404, LOGIN),
    ("campaign_detail", "htmx"):        (200, 200, 200, 404, LOGIN),
    ("campaign_attach", "get"):         (405, 405, 405, 405, LOGIN),
    ("campaign_attach", "post"):        (302, 302, 302, 404, LOGIN),
    # Leaving: a member takes their own characters out (the member's approved one refuses).
    ("campaign_leave", "get"):          (200, 404, 200, 404, LOGIN),
    ("campaign_leave", "post"):         (302, 404, 302, 404, LOGIN),
    # The referee's tools.
    ("campaign_settings", "get"):       (404, 200, 404, 404, LOGIN),
    ("campaign_settings", "post"):      (404, 302, 404, 404, LOGIN),
    ("campaign_invite_renew", "get"):   (405, 405, 405, 405, LOGIN),
    ("campaign_invite_renew", "post"):  (404, 302, 404, 404, LOGIN),
    ("campaign_invite_revoke", "get"):  (405, 405, 405, 405, LOGIN),
    ("campaign_invite_revoke", "post"): (404, 302, 404, 404, LOGIN),
    ("campaign_npc_new", "get"):        (404, 200, 404, 404, LOGIN),
    ("campaign_npc_new", "post"):       (404, 302, 404, 404, LOGIN),
    ("campaign_pdf", "get"):            (404, 200, 404, 404, LOGIN),
    # Removing the owner from the campaign, with their characters, after a confirmation.
    ("campaign_member_remove", "get"):  (404, 200, 404, 404, LOGIN),
    ("campaign_member_remove", "post"): (404, 302, 404, 404, LOGIN),
    # The invite link opens the campaign to anyone logged in; the referee is sent to the review.
    ("campaign_join", "get"):           (200, 302, 200, 200, LOGIN),
    ("campaign_join", "post"):          (302, 302, 302, 302, LOGIN),
    # In play: the owner and the referee run the play sheet together; the other members see
    # the campaign's dice log, never the sheet.
    ("character_play", "get"):          (200, 200, 404, 404, LOGIN),
    ("character_play", "post"):         (405, 405, 405, 405, LOGIN),
    ("character_condition", "get"):     (405, 405, 405, 405, LOGIN),
    ("character_condition", "post"):    (302, 302, 404, 404, LOGIN),
    ("character_condition_undo", "get"): (405, 405, 405, 405, LOGIN),
    ("character_condition_undo", "post"): (302, 302, 404, 404, LOGIN),
    ("character_roll", "get"):          (405, 405, 405, 405, LOGIN),
    ("character_roll", "post"):         (302, 302, 404, 404, LOGIN),
    ("character_odds", "get"):          (200, 200, 404, 404, LOGIN),
    ("character_odds", "post"):         (405, 405, 405, 405, LOGIN),
    ("character_credits", "get"):       (405, 405, 405, 405, LOGIN),
    ("character_credits", "post"):      (302, 302, 404, 404, LOGIN),
    ("character_wear", "get"):          (405, 405, 405, 405, LOGIN),
    ("character_wear", "post"):         (302, 302, 404, 404, LOGIN),
    ("character_record", "get"):        (405, 405, 405, 405, LOGIN),
    ("character_record", "post"):       (302, 302, 404, 404, LOGIN),
    # Improvement points: the referee awards, the owner spends; a request is decided by the
    # referee (or withdrawn by its player).
    ("character_ip_award", "get"):      (405, 405, 405, 405, LOGIN),
    ("character_ip_award", "post"):     (404, 302, 404, 404, LOGIN),
    ("character_ip_spend", "get"):      (405, 405, 405, 405, LOGIN),
    ("character_ip_spend", "post"):     (302, 404, 404, 404, LOGIN),
    ("character_ip_decide", "get"):     (405, 405, 405, 405, LOGIN),
    ("character_ip_decide", "post"):    (302, 302, 404, 404, LOGIN),
    ("campaign_award", "get"):          (405, 405, 405, 405, LOGIN),
    ("campaign_award", "post"):         (404, 302, 404, 404, LOGIN),
    # History: both read it; the owner restores.
    ("character_history", "get"):       (200, 200, 404, 404, LOGIN),
    ("character_revision", "get"):      (200, 200, 404, 404, LOGIN),
    ("character_restore", "get"):       (405, 405, 405, 405, LOGIN),
    ("character_restore", "post"):      (302, 404, 404, 404, LOGIN),
    # A deleted character comes back for its owner only.
    ("character_undelete", "get"):      (405, 405, 405, 405, LOGIN),
    ("character_undelete", "post"):     (302, 404, 404, 404, LOGIN),
    # Share links: the owner makes and revokes them; the link itself opens for anyone.
    ("character_share", "get"):         (405, 405, 405, 405, LOGIN),
    ("character_share", "post"):        (302, 404, 404, 404, LOGIN),
    ("character_share_revoke", "get"):  (405, 405, 405, 405, LOGIN),
    ("character_share_revoke", "post"): (302, 404, 404, 404, LOGIN),
    ("shared_sheet", "get"):            (200, 200, 200, 200, 200),
    ("shared_sheet", "post"):           (405, 405, 405, 405, 405),
    ("shared_sheet_pdf", "get"):        (200, 200, 200, 200, 200),
    # Encounters: the referee starts and runs them; the campaign's players see them and act
    # only for their own characters on their turn (refused with a message otherwise: before
    # initiative it is nobody's turn).
    ("encounter_new", "get"):           (404, 200, 404, 404, LOGIN),
    ("encounter_new", "post"):          (404, 302, 404, 404, LOGIN),
    ("encounter_detail", "get"):        (200, 200, 200, 404, LOGIN),
    ("encounter_detail", "post"):       (405, 405, 405, 405, LOGIN),
    ("encounter_live", "get"):          (200, 200, 200, 404, LOGIN),
    ("encounter_live", "post"):         (405, 405, 405, 405, LOGIN),
    ("encounter_odds", "get"):          (200, 200, 200, 404, LOGIN),
    ("encounter_odds", "post"):         (405, 405, 405, 405, LOGIN),
    ("encounter_initiative", "get"):    (405, 405, 405, 405, LOGIN),
    ("encounter_initiative", "post"):   (302, 302, 302, 404, LOGIN),
    ("encounter_attack", "get"):        (405, 405, 405, 405, LOGIN),
    ("encounter_attack", "post"):       (302, 302, 302, 404, LOGIN),
    ("encounter_turn", "get"):          (405, 405, 405, 405, LOGIN),
    ("encounter_turn", "post"):         (302, 302, 302, 404, LOGIN),
    ("encounter_morale", "get"):        (405, 405, 405, 405, LOGIN),
    ("encounter_morale", "post"):       (302, 302, 302, 404, LOGIN),
    # The morale odds, before the referee's throw: the referee's alone.
    ("encounter_morale_odds", "get"):   (404, 200, 404, 404, LOGIN),
    ("encounter_morale_odds", "post"):  (405, 405, 405, 405, LOGIN),
    ("encounter_undo", "get"):          (405, 405, 405, 405, LOGIN),
    ("encounter_undo", "post"):         (302, 302, 302, 404, LOGIN),
    ("encounter_surprise", "get"):      (405, 405, 405, 405, LOGIN),
    ("encounter_surprise", "post"):     (302, 302, 302, 404, LOGIN),
    ("encounter_end", "get"):           (405, 405, 405, 405, LOGIN),
    ("encounter_end", "post"):          (302, 302, 302, 404, LOGIN),
    ("encounter_alarm", "get"):         (405, 405, 405, 405, LOGIN),
    ("encounter_alarm", "post"):        (302, 302, 302, 404, LOGIN),
    ("encounter_leader", "get"):        (405, 405, 405, 405, LOGIN),
    ("encounter_leader", "post"):       (302, 302, 302, 404, LOGIN),
    # T4's and 2D6's own steps: the campaign's people, each refused (302) what is not theirs.
    ("encounter_status", "get"):        (405, 405, 405, 405, LOGIN),
    ("encounter_status", "post"):       (302, 302, 302, 404, LOGIN),
    ("encounter_react", "get"):         (405, 405, 405, 405, LOGIN),
    ("encounter_react", "post"):        (302, 302, 302, 404, LOGIN),
    ("encounter_tactics", "get"):       (405, 405, 405, 405, LOGIN),
    ("encounter_tactics", "post"):      (302, 302, 302, 404, LOGIN),
    ("encounter_hasten", "get"):        (405, 405, 405, 405, LOGIN),
    ("encounter_hasten", "post"):       (302, 302, 302, 404, LOGIN),
    ("encounter_leadership", "get"):    (405, 405, 405, 405, LOGIN),
    ("encounter_leadership", "post"):   (302, 302, 302, 404, LOGIN),
    # Reinforcements are the referee's page; an empty post names the missing version.
    ("encounter_join", "get"):          (404, 200, 404, 404, LOGIN),
    ("encounter_join", "post"):         (404, 400, 404, 404, LOGIN),
}
# fmt: on

CASES = [
    pytest.param(name, method, role, expected, id=f"{name}-{method}-{role}")
    for (name, method), row in MATRIX.items()
    for role, expected in zip(ROLES, row, strict=True)
]


class World:
    """A campaign, its referee, two members with a character each, an outsider."""

    def __init__(self) -> None:
        self.users = {role: UserFactory(username=role) for role in ROLES if role != "anonymous"}
        self.campaign = campaigns_services.create_campaign(
            referee=self.users["referee"], name="Spinward Marches"
        )
        for role in ("owner", "member"):
            campaigns_services.join_campaign(user=self.users[role], code=self.campaign.invite_code)
        self.character = builder_services.create_character(
            owner=self.users["owner"],
            document=character_document(name="Jamison Owned"),
            campaign=self.campaign,
        )
        review_services.submit_character(character=self.character, by=self.users["owner"])
        self.spare = builder_services.create_character(
            owner=self.users["owner"], document=character_document(name="Spare Owned")
        )
        theirs = builder_services.create_character(
            owner=self.users["member"],
            document=character_document(name="Member Approved"),
            campaign=self.campaign,
        )
        review_services.submit_character(character=theirs, by=self.users["member"])
        review_services.approve_character(character=theirs, by=self.users["referee"])
        # In play: a blow taken (which can be undone), IP awarded, a new skill waiting for the
        # referee, a share link, and a character the owner deleted.
        play_services.take_damage(
            character=self.character, by=self.users["owner"], amount=3, form="S"
        )
        play_services.award_improvement_points(
            character=self.character, by=self.users["referee"], amount=10, reason="A session"
        )
        self.request = play_services.spend_improvement_points(
            character=self.character,
            by=self.users["owner"],
            purchase=RaiseSkill("Navigation", None, 1),
        )
        self.link = history_services.create_share_link(
            character=self.character, by=self.users["owner"]
        )
        self.deleted = builder_services.create_character(
            owner=self.users["owner"], document=character_document(name="Deleted Owned")
        )
        builder_services.delete_character(character=self.deleted, by=self.users["owner"])
        self.character.refresh_from_db()
        self.encounter = encounters_services.start_encounter(
            campaign=self.campaign,
            by=self.users["referee"],
            name="Ambush",
            groups=[
                encounters_services.Group(1, "party", character=self.character),
                encounters_services.Group(1, "opposition", character=theirs),
            ],
        )

    def url(self, name: str) -> str:
        character = self.character.pk
        special = {
            "campaign_join": [self.campaign.invite_code],
            "campaign_member_remove": [self.campaign.pk, self.users["owner"].pk],
            "character_ip_decide": [character, self.request.pk],
            "character_revision": [character, 1],
            "character_restore": [character, 1],
            "character_share_revoke": [character, self.link.pk],
            "character_undelete": [self.deleted.pk],
            "shared_sheet": [self.link.token],
            "shared_sheet_pdf": [self.link.token],
        }
        if name in special:
            return reverse(name, args=special[name])
        if name == "encounter_new":
            return reverse(name, args=[self.campaign.pk])
        if name.startswith("encounter_"):
            return reverse(name, args=[self.encounter.pk])
        target = self.campaign if name.startswith("campaign_") else self.character
        return reverse(name, args=[target.pk])

    def post_data(self, name: str) -> dict:
        character = self.character
        if name == "character_edit":
            document = character.document
            return {
                "version": str(character.version),
                "name": document["name"],
                "kind": "pc",
                "budget": "100",
                "species": "human",
                "terms": "0",
                "rank": "0",
                **{code: str(level) for code, level in document["attributes"].items()},
            }
        if name in ("campaign_attach", "campaign_join"):
            return {"character": [str(self.spare.pk)]}
        if name == "campaign_settings":
            return {
                "name": "Renamed",
                "pc_budget": "90",
                "max_former_rank": "6",
                "page_size": "a4",
            }
        if name == "campaign_npc_new":
            return {"name": "Pirate captain", "budget": "60", "species": "human"}
        if name in PLAY_POSTS:
            return PLAY_POSTS[name]
        if name in ("character_ip_award", "campaign_award"):
            return {"amount": "1", "reason": "A session", "character": [str(character.pk)]}
        if name == "character_ip_spend":
            return {"purchase": "raise_skill", "skill": "Language::Anglic", "to_level": "4"}
        if name.startswith("encounter_"):
            return self.encounter_post_data(name)
        return {"comment": "A comment."}

    def encounter_post_data(self, name: str) -> dict:
        if name == "encounter_new":
            party = [str(pk) for pk in self.campaign.characters.values_list("pk", flat=True)]
            return {"name": "Another fight", "party": party}
        return {"version": str(self.encounter.version), "action": "pass", "side": "party"}


# What each action of the play sheet posts.
PLAY_POSTS = {
    "character_condition": {"action": "damage", "amount": "3", "form": "L", "play_version": "2"},
    "character_condition_undo": {"play_version": "2"},
    "character_roll": {"skill": "", "attribute": "STR", "tn": "4"},
    "character_odds": {"skill": "", "attribute": "STR", "tn": "4"},
    "character_credits": {"action": "income", "amount": "100", "note": "Pay"},
    "character_wear": {"action": "as_marked", "play_version": "1"},
}


@pytest.fixture
def world() -> World:
    return World()


def snapshot() -> tuple:
    """Everything a request could change."""
    return (
        list(
            Character.all_objects.order_by("pk").values_list(
                "pk",
                "name",
                "status",
                "version",
                "campaign_id",
                "owner_id",
                "document",
                "deleted_at",
                "budget_added",
            )
        ),
        list(CharacterEvent.objects.order_by("pk").values_list("pk", flat=True)),
        list(
            Campaign.objects.order_by("pk").values_list(
                "pk", "name", "invite_code", "invite_active", "pc_budget", "page_size"
            )
        ),
        list(CampaignMembership.objects.order_by("pk").values_list("pk", flat=True)),
        list(MusteringRoll.objects.order_by("pk").values_list("pk", flat=True)),
        list(Revision.objects.order_by("pk").values_list("pk", flat=True)),
        list(PlayState.objects.order_by("pk").values_list("pk", "version", "condition")),
        list(ConditionChange.objects.order_by("pk").values_list("pk", "undone_at")),
        list(ImprovementEntry.objects.order_by("pk").values_list("pk", "state")),
        list(CreditEntry.objects.order_by("pk").values_list("pk", flat=True)),
        list(DiceRoll.objects.order_by("pk").values_list("pk", flat=True)),
        list(ShareLink.objects.order_by("pk").values_list("pk", "revoked_at")),
        list(Encounter.objects.order_by("pk").values_list("pk", "version", "round", "turn")),
        list(EncounterEntry.objects.order_by("pk").values_list("pk", "undone_at")),
    )


@pytest.mark.parametrize(("name", "method", "role", "expected"), CASES)
def test_access(client, world, name, method, role, expected):
    if role != "anonymous":
        client.force_login(world.users[role])
    url = world.url(name)
    before = snapshot()

    if method in ("post", "htmx-post"):
        headers = {"HTTP_HX_REQUEST": "true"} if method == "htmx-post" else {}
        response = client.post(url, world.post_data(name), **headers)
    elif name == "character_odds":
        response = client.get(url, world.post_data(name))
    else:
        headers = {"HTTP_HX_REQUEST": "true"} if method == "htmx" else {}
        response = client.get(url, **headers)

    login = reverse("login")
    if expected == LOGIN and method.startswith("htmx"):
        # The whole page is sent there (HX-Redirect), not the login swapped into a region.
        assert response.status_code == 200
        assert response["HX-Redirect"].startswith(login)
    elif expected == LOGIN:
        assert response.status_code == 302
        assert response["Location"].startswith(login)
    else:
        assert response.status_code == expected
        if expected == 302:
            assert not response["Location"].startswith(login)
    if expected in (LOGIN, 404, 405):
        assert snapshot() == before, "a refused request changed something"
        body = response.content.decode(errors="replace")
        for secret in ("Jamison Owned", "Spinward Marches", world.campaign.invite_code):
            assert secret not in body


NPC_MATRIX = {
    # The referee's NPC in the campaign: nobody else sees it, members included.
    #                   referee(owner) member  outsider anonymous
    "character_detail": (200, 404, 404, LOGIN),
    "character_export": (200, 404, 404, LOGIN),
    "character_edit": (200, 404, 404, LOGIN),
    "character_delete": (200, 404, 404, LOGIN),
    "character_play": (200, 404, 404, LOGIN),
    "character_history": (200, 404, 404, LOGIN),
}


@pytest.mark.parametrize(
    ("name", "role", "expected"),
    [
        (name, role, expected)
        for name, row in NPC_MATRIX.items()
        for role, expected in zip(("referee", "member", "outsider", "anonymous"), row, strict=True)
    ],
)
def test_npcs_are_the_referees_alone(client, world, name, role, expected):
    npc = campaigns_services.create_npc(campaign=world.campaign, name="Hidden Admiral", budget=300)
    if role != "anonymous":
        client.force_login(world.users[role])

    response = client.get(reverse(name, args=[npc.pk]))

    if expected == LOGIN:
        assert response["Location"].startswith(reverse("login"))
    else:
        assert response.status_code == expected


def _routes(patterns, prefix: str = ""):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _routes(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            yield prefix + str(pattern.pattern), pattern.name


def test_the_matrix_covers_every_url_with_an_id():
    """Every URL outside the admin (which has its own staff check) that takes an id or a code."""
    with_parameters = {
        name
        for route, name in _routes(get_resolver().url_patterns)
        if "<" in route and not route.startswith("admin/")
    }
    assert with_parameters == {name for name, _ in MATRIX}
    for name in with_parameters:
        assert (name, "get") in MATRIX, f"{name}: say what a GET gets"


DELETED_GETS = [
    name
    for (name, method), row in MATRIX.items()
    if method == "get" and name.startswith("character_") and row[0] == 200
]


@pytest.mark.parametrize("name", DELETED_GETS)
def test_a_deleted_character_is_gone_from_every_page(client, world, name):
    """For every page of a character, deleting it makes it 404, even for its owner; only
    Recently deleted finds it."""
    builder_services.delete_character(character=world.spare, by=world.users["owner"])
    client.force_login(world.users["owner"])
    args = [world.spare.pk, 1] if name == "character_revision" else [world.spare.pk]

    assert client.get(reverse(name, args=args)).status_code == 404
    assert world.spare.name not in client.get(reverse("character_list")).content.decode()
    assert world.spare.name in client.get(reverse("character_trash")).content.decode()
