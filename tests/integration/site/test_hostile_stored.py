"""No stored value breaks a page: a character document the parser accepts, with any field at any
value it allows (bounds, signs, scripts, lengths), is stored and every page that shows it answers
without a 500: its sheet, play sheet, builder, history, exports and PDF, the campaign, the party
PDF and its share link. On whichever database the suite runs (CI: SQLite and PostgreSQL)."""

import pytest
from django.core.cache import caches
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import rules
from characters.builder import services as builder_services
from characters.campaigns import services as campaigns_services
from characters.history import services as history_services
from characters.models import Character
from tests.factories import UserFactory, medic_document

pytestmark = pytest.mark.django_db

BOUNDS = rules.catalog().bounds
ATTRIBUTES = rules.catalog().attribute_order
TEXT = st.one_of(
    st.text(max_size=20),
    st.sampled_from(["\u202eevil", "<script>alert(1)</script>", "名前", "Ω" * BOUNDS.name_length]),
)
# Levels below 0 are refused by the parser: test_a_stored_document_the_engine_cannot_read_…
LEVELS = st.integers(min_value=0, max_value=BOUNDS.level)
CHANGES = st.fixed_dictionaries(
    {},
    optional={
        "name": TEXT.filter(str.strip),
        "homeworld": TEXT,
        "notes": st.one_of(TEXT, st.just("a\n" * (BOUNDS.notes_length // 2))),
        "terms": st.integers(min_value=0, max_value=BOUNDS.terms),
        "age": st.integers(min_value=0, max_value=BOUNDS.age),
        "budget": st.integers(min_value=0, max_value=10**6),
        "attributes": st.fixed_dictionaries(
            {code: st.integers(min_value=0, max_value=BOUNDS.attribute) for code in ATTRIBUTES}
        ),
        "skills": st.lists(
            st.fixed_dictionaries(
                {"skill": st.sampled_from(["Medical", "Pilot", "Gun Combat", "Brawling"])},
                optional={"level": LEVELS},
            ),
            max_size=4,
            unique_by=lambda skill: skill["skill"],
        ),
        "equipment": st.lists(
            st.fixed_dictionaries(
                {
                    "item": st.sampled_from(["Rifle", "Mesh", "Blade", "Not in the catalog"]),
                    "quantity": st.integers(min_value=1, max_value=BOUNDS.quantity),
                }
            ),
            max_size=3,
        ),
    },
)


def pages(character: Character, token: str) -> list[tuple[str, str]]:
    """(who, URL) of every page that reads the stored document."""
    pk, campaign = character.pk, character.campaign_id
    return [
        ("owner", reverse("character_detail", args=[pk])),
        ("owner", reverse("character_play", args=[pk])),
        ("owner", reverse("character_edit", args=[pk])),
        ("owner", reverse("character_history", args=[pk])),
        ("owner", reverse("character_export", args=[pk])),
        ("owner", reverse("character_export_foundry", args=[pk])),
        ("owner", reverse("character_pdf", args=[pk])),
        ("owner", reverse("character_list")),
        ("owner", reverse("home")),
        ("referee", reverse("campaign_detail", args=[campaign])),
        ("referee", reverse("campaign_pdf", args=[campaign]) + "?all=1"),
        ("referee", reverse("character_detail", args=[pk])),
        ("anonymous", reverse("shared_sheet", args=[token])),
        ("anonymous", reverse("shared_sheet_pdf", args=[token])),
    ]


def assert_every_page_answers(document: dict) -> None:
    """Store ``document`` as it is, as an older version of the site or an admin could have
    left it, and open every page that reads it."""
    caches["throttle"].clear()  # each example is someone new, not the same visitor again
    referee, owner = UserFactory(), UserFactory()
    campaign = campaigns_services.create_campaign(referee=referee, name="Spinward Marches")
    campaigns_services.join_campaign(user=owner, code=campaign.invite_code)
    character = builder_services.create_character(
        owner=owner, document=medic_document(), campaign=campaign
    )
    Character.objects.filter(pk=character.pk).update(document=document)
    token = history_services.create_share_link(character=character, by=owner).token
    clients = {"owner": Client(), "referee": Client(), "anonymous": Client()}
    clients["owner"].force_login(owner)
    clients["referee"].force_login(referee)

    for who, url in pages(character, token):
        # The test client raises what a view raises: a 500 fails here, with its traceback.
        response = clients[who].get(url)
        assert response.status_code == 200, (who, url, response.status_code)


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(changes=CHANGES)
def test_any_document_the_parser_accepts_is_shown_by_every_page_without_a_500(changes):
    document = medic_document() | changes
    try:
        rules.parse_document(document)
    except rules.MalformedDocument:
        assume(False)  # the parser's own refusals are tested with the import and the builder
    assert_every_page_answers(document)


@pytest.mark.parametrize(
    "document",
    [
        medic_document(skills=[{"skill": "Medical", "level": -1}]),
        medic_document(skills=[{"skill": "Medical", "level": -BOUNDS.level}]),
        medic_document(attributes={"STR": "seven"}),
        {"format": "ffa-character/0", "name": "From elsewhere"},
    ],
    ids=["level-below-0", "level-far-below-0", "attribute-in-words", "another-format"],
)
def test_a_stored_document_the_engine_cannot_read_breaks_no_page(document):
    """Left by an older version, or changed in the database: every page answers, saying so."""
    assert_every_page_answers(document)


def test_a_character_that_cannot_be_read_says_so_and_what_is_wrong(client, caplog):
    owner = UserFactory()
    character = builder_services.create_character(owner=owner, document=medic_document())
    broken = medic_document(skills=[{"skill": "Medical", "level": -1}])
    Character.objects.filter(pk=character.pk).update(document=broken)
    client.force_login(owner)

    page = client.get(reverse("character_detail", args=[character.pk])).content.decode()

    assert "This character cannot be read" in page
    assert "skills[0].level" in page
    assert "A stored character document cannot be read" in caplog.text
