"""Hostile input through the web, on whichever database the suite runs on (CI runs it on SQLite
and on PostgreSQL, which refuses a NUL in text and integers past 64 bits where SQLite does not):
whatever a person types or uploads, the answer is a page, never a 500, and nothing past the
catalog's bounds is stored."""

import io
import json

import pytest
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rules
from characters.builder import services as builder_services
from characters.models import Character
from tests.ci import examples
from tests.factories import builder_post, character_document

pytestmark = pytest.mark.django_db

# Text a person could not type but a script can send: NUL, lone surrogates are left out by
# HTTP itself (a form post is UTF-8), so the hostile part is NUL, control characters, length.
HOSTILE_TEXT = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=40).map(
        lambda text: text + "\x00"
    ),
    st.integers(min_value=1, max_value=3).map(lambda n: "x" * (10**n * 30)),
    st.integers().map(str),
)
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=30)
    | st.just("\x00")
    | st.just("\ud800"),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
FIELDS = ["name", "homeworld", "notes", "terms", "age", "rank", "skills", "traits", "equipment"]
HYPOTHESIS = settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _stored_documents_are_within_bounds() -> None:
    for document in Character.all_objects.values_list("document", flat=True):
        rules.parse_document(document)  # raises MalformedDocument past a bound


@HYPOTHESIS
@given(field=st.sampled_from(FIELDS), value=JSON_VALUES)
def test_an_imported_document_with_any_value_in_any_field_is_a_page_never_a_500(
    owner_client, field, value
):
    document = character_document(**({"name": "Hostile"} | {field: value}))
    try:
        body = json.dumps(document, ensure_ascii=True)
    except (ValueError, UnicodeEncodeError):
        return
    upload = io.BytesIO(body.encode())
    upload.name = "hostile.json"

    response = owner_client.post(reverse("character_import"), {"document": upload})

    assert response.status_code in (302, 400)
    _stored_documents_are_within_bounds()


@HYPOTHESIS
@given(
    name=st.sampled_from(
        [
            "name",
            "homeworld",
            "notes",
            "DEX",
            "terms",
            "skill-0-skill",
            "skill-0-level",
            "trait-0-name",
            "item-0-item",
            "item-0-quantity",
        ]
    ),
    value=HOSTILE_TEXT,
)
def test_any_text_in_any_builder_field_is_a_page_never_a_500(owner_client, owner, name, value):
    character = builder_services.create_character(owner=owner, document=character_document())
    post = builder_post(character, action="save", **{name: value})

    url = reverse("character_edit", args=[character.pk])
    saved = owner_client.post(url, post)
    saved_as_you_go = owner_client.post(url, post, HTTP_HX_REQUEST="true")
    redrawn = owner_client.post(url, post | {"redraw": "on"}, HTTP_HX_REQUEST="true")

    assert saved.status_code in (200, 302, 400)
    assert saved_as_you_go.status_code == 200
    assert redrawn.status_code == 200
    _stored_documents_are_within_bounds()


@HYPOTHESIS
@given(value=HOSTILE_TEXT)
def test_any_text_in_a_new_characters_name_or_a_comment_is_a_page_never_a_500(
    owner_client, owner, value
):
    created = owner_client.post(
        reverse("character_new"), {"name": value, "kind": "pc", "species": "human"}
    )
    character = builder_services.create_character(owner=owner, document=character_document())
    commented = owner_client.post(
        reverse("character_comment", args=[character.pk]), {"comment": value}
    )

    assert created.status_code in (302, 400)
    assert commented.status_code == 302
