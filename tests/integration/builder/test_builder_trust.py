"""The builder keeps a player's work: every row's controls name their own row, Enter never
removes anything, edits are stored without pressing Save (one revision per sitting), and a tab
that fell behind gets a conflict, never an overwrite."""

import json
import re
from urllib.parse import urlencode

import pytest
from django.urls import reverse

import rules
from characters.builder import services as builder_services
from characters.campaigns import services as campaigns_services
from characters.models import Character
from characters.review import services as review_services
from tests.factories import PASSWORD, UserFactory, builder_post, character_document

pytestmark = pytest.mark.django_db


def _character(owner, **document) -> Character:
    return builder_services.create_character(owner=owner, document=character_document(**document))


def _skill_fields(skills: list[dict]) -> dict:
    fields: dict = {}
    for index, skill in enumerate(skills):
        fields[f"skill-{index}-skill"] = skill["skill"]
        fields[f"skill-{index}-level"] = str(skill["level"])
        if skill.get("cascade"):
            fields[f"skill-{index}-cascade"] = skill["cascade"]
        if skill.get("specialties"):
            fields[f"skill-{index}-specialties"] = skill["specialties"]
    return fields


SPECIALTY_SKILLS = [
    {"skill": "Pilot", "level": 2},
    {"skill": "Handgun", "level": 2},
    {"skill": "Gunnery", "level": 2},
    {"skill": "Computer", "level": 2},
]


def test_every_specialty_box_is_named_after_its_own_skill_row(owner, owner_client):
    character = _character(owner, name="Rows", skills=SPECIALTY_SKILLS)
    page = owner_client.get(reverse("character_edit", args=[character.pk])).content.decode()

    for index, skill in enumerate(SPECIALTY_SKILLS):
        row = re.search(
            rf'<tr id="skill-row-{index}" data-skill-row[^>]*data-skill="{skill["skill"]}"'
            r".*?</tr>",
            page,
            re.S,
        )
        assert row, f"no row {index} for {skill['skill']}"
        names = set(re.findall(r'name="(skill-\d+-[a-z]+)"', row.group(0)))
        assert names >= {f"skill-{index}-level", f"skill-{index}-specialties"}, names
        assert all(name.startswith(f"skill-{index}-") for name in names), names


def test_a_specialty_ticked_on_the_third_skill_is_saved_on_the_third_skill(owner, owner_client):
    character = _character(owner, name="Gunner", skills=SPECIALTY_SKILLS)
    post = builder_post(character, action="save", **_skill_fields(SPECIALTY_SKILLS))
    post["skill-2-specialties"] = ["ship's lasers"]

    owner_client.post(reverse("character_edit", args=[character.pk]), post)

    skills = {s["skill"]: s for s in Character.objects.get(pk=character.pk).document["skills"]}
    assert skills["Gunnery"]["specialties"] == ["ship's lasers"]
    assert "specialties" not in skills["Pilot"]


def test_every_trait_and_item_row_carries_its_own_index(owner, owner_client):
    character = _character(
        owner,
        name="Kit",
        traits=[
            {"type": "PP", "name": "Lucky", "level": "E", "frequency": "S"},
            {"type": "PF", "name": "Greedy", "level": "H", "frequency": "S"},
        ],
        equipment=[{"item": "Dagger", "quantity": 1}, {"item": "Sword", "quantity": 2}],
    )
    page = owner_client.get(reverse("character_edit", args=[character.pk])).content.decode()

    for kind, hook in (("trait", "data-trait-row"), ("item", "data-item-row")):
        rows = re.findall(rf'<tr id="{kind}-row-(\d+)" {hook}.*?</tr>', page, re.S)
        assert rows == ["0", "1"]
        for index in rows:
            row = re.search(rf'<tr id="{kind}-row-{index}" .*?</tr>', page, re.S).group(0)
            names = re.findall(r'name="([a-z]+-\d+-[a-zA-Z-]+)"', row)
            assert names
            assert all(name.startswith(f"{kind}-{index}-") for name in names), names


def test_enter_in_the_add_skill_box_adds_that_skill_and_removes_nothing(owner, owner_client):
    skills = [{"skill": "Pilot", "level": 3}]
    character = _character(owner, name="Enter", skills=skills)
    post = builder_post(character, action="enter", **_skill_fields(skills))
    post["new-skill"] = "vacc suit"

    page = owner_client.post(reverse("character_edit", args=[character.pk]), post)

    html = page.content.decode()
    assert 'data-skill="Pilot"' in html
    assert 'data-skill="Vacc Suit"' in html
    assert Character.objects.get(pk=character.pk).version == character.version


def test_enter_in_any_other_field_changes_nothing_but_that_field(owner, owner_client):
    skills = [{"skill": "Pilot", "level": 3}]
    character = _character(owner, name="Enter", skills=skills)
    post = builder_post(character, action="enter", STR="9", **_skill_fields(skills))

    html = owner_client.post(reverse("character_edit", args=[character.pk]), post).content.decode()

    assert 'data-skill="Pilot"' in html
    assert re.search(r'name="STR" value="9"', html)


def test_the_first_submit_button_of_the_builder_is_the_harmless_default(owner, owner_client):
    character = _character(owner, name="Default", skills=[{"skill": "Pilot", "level": 1}])
    html = owner_client.get(reverse("character_edit", args=[character.pk])).content.decode()

    form = html[html.index('<form id="builder"') :]
    first_button = re.search(r"<button[^>]*>", form).group(0)
    assert 'value="enter"' in first_button


@pytest.mark.parametrize(
    ("field", "message"),
    [
        ("terms", "Terms: enter a whole number from 0 to 99."),
        ("budget", "Budget: enter a whole number from 0 to"),
        ("skill-0-level", "Pilot level: enter a whole number from"),
        ("item-0-quantity", "Dagger quantity: enter a whole number from 1 to"),
    ],
)
def test_an_emptied_number_field_is_an_error_not_a_silent_fallback(
    owner, owner_client, field, message
):
    skills = [{"skill": "Pilot", "level": 2}]
    character = _character(owner, name="Empty", skills=skills)
    post = builder_post(
        character,
        action="save",
        **_skill_fields(skills),
        **{"item-0-item": "Dagger|1", "item-0-quantity": "1"},
    )
    post[field] = ""

    response = owner_client.post(reverse("character_edit", args=[character.pk]), post)

    assert response.status_code == 400
    assert message in response.content.decode()
    assert Character.objects.get(pk=character.pk).version == character.version


def test_an_attribute_accepts_a_hex_digit_as_its_message_promises(owner, owner_client):
    character = _character(owner, name="Hex")
    post = builder_post(character, action="save", DEX="A")
    owner_client.post(reverse("character_edit", args=[character.pk]), post)
    assert Character.objects.get(pk=character.pk).document["attributes"]["DEX"] == 10

    post = builder_post(Character.objects.get(pk=character.pk), action="save", DEX="Z?")
    response = owner_client.post(reverse("character_edit", args=[character.pk]), post)
    assert "DEX: enter a level from 1 to 15, as a number or as a hex digit from 1 to F." in (
        response.content.decode()
    )


def test_a_skill_picked_from_the_browsed_list_is_added(owner, owner_client):
    character = _character(owner, name="Browse")
    post = builder_post(character, action="add_skill:Streetwise")
    response = owner_client.post(reverse("character_edit", args=[character.pk]), post)
    assert 'data-skill="Streetwise"' in response.content.decode()


def _typed_into_the_add_box(owner_client, character, text: str) -> str:
    post = builder_post(character, action="add_skill")
    post["new-skill"] = text
    response = owner_client.post(reverse("character_edit", args=[character.pk]), post)
    return _without_templates(response.content.decode())


def _without_templates(html: str) -> str:
    """The page as it shows: the rows the page's script makes from its templates are not rows
    until it makes them."""
    return re.sub(r"<template\b.*?</template>", "", html, flags=re.S)


@pytest.mark.parametrize("typed", ["", "   "])
def test_add_with_an_empty_box_adds_no_nameless_row_and_says_what_it_needs(
    owner, owner_client, typed
):
    character = _character(owner, name="Empty add")
    html = _typed_into_the_add_box(owner_client, character, typed)

    # A row without a name has no box to type one into, and is never stored.
    assert "data-skill-row" not in html
    message = html.partition('id="new-skill-message"')[2].partition("</div>")[0]
    assert '<p class="errorlist">Type a skill&#x27;s name or pick one from the list first.' in (
        message
    )


@pytest.mark.parametrize(
    ("typed", "row", "level"),
    [
        ("Language (Vilani)", 'data-skill="Language" data-cascade="Vilani"', "1"),
        ("blade combat (swords)-2", 'data-skill="Blade Combat" data-cascade="swords"', "2"),
        ("Pilot-2", 'data-skill="Pilot"', "2"),
    ],
)
def test_a_skill_typed_in_the_rulebooks_notation_is_added_as_written(
    owner, owner_client, typed, row, level
):
    character = _character(owner, name="Notation")
    html = _typed_into_the_add_box(owner_client, character, typed)

    assert f'data-row-key="0" {row}>' in html
    assert re.search(rf'name="skill-0-level" value="{level}"', html)


def test_a_trait_typed_with_its_description_is_added_with_that_description(owner, owner_client):
    character = _character(owner, name="Notation")
    post = builder_post(character, action="add_trait_notation")
    post["trait-notation"] = "Loud [PF-I-S -2]"
    response = owner_client.post(reverse("character_edit", args=[character.pk]), post)
    html = _without_templates(response.content.decode())

    assert re.search(r'name="trait-0-name"[^>]* value="Loud"', html)
    assert '<span id="trait-0-notation" >[PF-I-S -2]</span>' in html


def test_a_specialty_typed_after_the_level_is_ticked(owner, owner_client):
    character = _character(owner, name="Notation")
    html = _typed_into_the_add_box(owner_client, character, "Pilot-2 (small craft)")

    assert 'data-specialty="small craft" checked' in html
    assert 'data-specialty="fighters" checked' not in html


def test_a_cascade_the_skill_does_not_have_is_said_beside_the_box(owner, owner_client):
    character = _character(owner, name="Notation")
    html = _typed_into_the_add_box(owner_client, character, "Blade Combat (lightsabers)")

    assert "data-skill-row" not in html
    assert "Blade Combat has no cascade &#x27;lightsabers&#x27;" in html


def test_a_specialty_typed_as_a_cascade_is_shown_where_it_goes(owner, owner_client):
    character = _character(owner, name="Notation")
    html = _typed_into_the_add_box(owner_client, character, "Pilot (small craft)")

    assert "data-skill-row" not in html
    assert "its specialties follow the level: Pilot-2 (small craft)." in html


def test_each_skill_row_says_what_the_skill_is_for(owner, owner_client):
    character = _character(owner, name="Summaries", skills=[{"skill": "Pilot", "level": 1}])
    html = owner_client.get(reverse("character_edit", args=[character.pk])).content.decode()
    summary = rules.catalog().find_skill("Pilot").summary
    assert summary
    assert summary in html


# -- saving by itself ---------------------------------------------------------------------------


def _autosave(client, character, **changes) -> dict:
    """What the builder page posts by itself after an edit (htmx), and what became of it (the
    answer it hears), or the answer's status code when there was none."""
    url = reverse("character_edit", args=[character.pk])
    response = client.post(url, changes, HTTP_HX_REQUEST="true")
    if "HX-Trigger-After-Settle" not in response:
        return {"status": response.status_code}
    return json.loads(response["HX-Trigger-After-Settle"])["builder:saved"]


def test_an_edit_is_stored_without_pressing_save(owner, owner_client):
    character = _character(owner, name="Auto")
    answer = _autosave(owner_client, character, **builder_post(character, DEX="9"))

    assert (answer["state"], answer["version"]) == ("saved", character.version + 1)
    assert Character.objects.get(pk=character.pk).document["attributes"]["DEX"] == 9


def test_notes_are_stored_with_plain_line_breaks_whatever_the_browser_sends(owner, owner_client):
    character = _character(owner, name="Notes")
    # A browser sends every line break in a textarea as CRLF.
    _autosave(
        owner_client, character, **builder_post(character, notes="Owes Cr500.\r\nHates Vargr.")
    )

    character.refresh_from_db()
    assert character.document["notes"] == "Owes Cr500.\nHates Vargr."


def test_the_autosaves_of_one_sitting_are_one_revision(owner, owner_client):
    character = _character(owner, name="Sitting")
    before = character.revisions.count()
    version = character.version
    for dex in ("8", "9", "10"):
        post = builder_post(character, DEX=dex, editing_session="sitting-1")
        post["version"] = str(version)
        version = _autosave(owner_client, character, **post)["version"]

    revisions = list(Character.objects.get(pk=character.pk).revisions.order_by("number"))
    assert len(revisions) == before + 1
    assert revisions[-1].document["attributes"]["DEX"] == 10
    assert "DEX" in revisions[-1].summary

    post = builder_post(character, DEX="11", editing_session="sitting-2")
    post["version"] = str(version)
    _autosave(owner_client, character, **post)
    assert character.revisions.count() == before + 2


def test_an_autosave_from_a_tab_that_fell_behind_is_a_conflict_and_writes_nothing(
    owner, owner_client
):
    character = _character(owner, name="Two tabs")
    first_tab = builder_post(character, DEX="9", editing_session="a")
    second_tab = builder_post(character, STR="4", editing_session="b")
    assert _autosave(owner_client, character, **first_tab)["state"] == "saved"

    answer = _autosave(owner_client, character, **second_tab)

    assert answer["state"] == "conflict"
    assert "Press Save to compare" in answer["message"]
    stored = Character.objects.get(pk=character.pk).document["attributes"]
    assert (stored["DEX"], stored["STR"]) == (9, 7)


def test_a_pages_own_saves_never_conflict_with_each_other(owner, owner_client):
    # The save on its way when the page left, and the one it sent as it left, both carry the
    # version the page had.
    character = _character(owner, name="Leaving")
    on_its_way = builder_post(character, DEX="9", editing_session="sitting")
    sent_on_leaving = builder_post(character, DEX="10", STR="8", editing_session="sitting")

    assert _autosave(owner_client, character, **on_its_way)["state"] == "saved"
    answer = _autosave(owner_client, character, **sent_on_leaving)

    assert (answer["state"], answer["version"]) == ("saved", character.version + 2)
    stored = Character.objects.get(pk=character.pk).document["attributes"]
    assert (stored["DEX"], stored["STR"]) == (10, 8)


def test_a_save_that_lands_after_a_later_one_of_its_sitting_changes_nothing(owner, owner_client):
    # The save on its way when the page left can reach the server after the one sent on
    # leaving (two workers take them in either order): the page numbered them.
    character = _character(owner, name="Overtaken")
    on_its_way = builder_post(character, DEX="9", editing_session="sitting", edit_stamp="1")
    sent_on_leaving = builder_post(
        character, DEX="10", STR="8", editing_session="sitting", edit_stamp="2"
    )
    assert _autosave(owner_client, character, **sent_on_leaving)["state"] == "saved"

    answer = _autosave(owner_client, character, **on_its_way)

    assert (answer["state"], answer["version"]) == ("saved", character.version + 1)
    stored = Character.objects.get(pk=character.pk)
    assert (stored.document["attributes"]["DEX"], stored.document["attributes"]["STR"]) == (10, 8)
    assert stored.revisions.order_by("-number").first().document == stored.document


def test_save_pressed_after_an_autosave_that_lands_later_keeps_what_save_sent(owner, owner_client):
    character = _character(owner, name="Pressed")
    autosave = builder_post(character, DEX="9", editing_session="sitting", edit_stamp="3")
    save = builder_post(
        character, DEX="11", editing_session="sitting", edit_stamp="4", action="save"
    )
    owner_client.post(reverse("character_edit", args=[character.pk]), save)

    _autosave(owner_client, character, **autosave)

    assert Character.objects.get(pk=character.pk).document["attributes"]["DEX"] == 11


def test_a_new_sitting_counts_its_saves_afresh(owner, owner_client):
    # Each page built from the stored character is a new sitting, whose first save is 1.
    character = _character(owner, name="Afresh")
    first = builder_post(character, DEX="9", editing_session="one", edit_stamp="40")
    version = _autosave(owner_client, character, **first)["version"]
    second = builder_post(character, DEX="10", editing_session="two", edit_stamp="1")
    second["version"] = str(version)

    assert _autosave(owner_client, character, **second)["state"] == "saved"
    assert Character.objects.get(pk=character.pk).document["attributes"]["DEX"] == 10


def test_a_page_drawn_again_after_a_refused_save_carries_its_count_of_saves_on(owner, owner_client):
    character = _character(owner, name="Refused")
    post = builder_post(character, terms="", editing_session="sitting", edit_stamp="7")

    page = owner_client.post(reverse("character_edit", args=[character.pk]), post)

    assert page.status_code == 400
    assert '<input type="hidden" name="edit_stamp" value="7">' in page.content.decode()


def test_a_save_from_another_sitting_after_a_roll_is_still_a_conflict(owner, owner_client):
    character = _character(owner, name="Rolled", service="scouts", terms=1)
    kept = {"service": "scouts", "terms": "1", "editing_session": "sitting"}
    first = builder_post(character, DEX="9", **kept)
    assert _autosave(owner_client, character, **first)["state"] == "saved"
    builder_services.roll_mustering_out(character=Character.objects.get(pk=character.pk), by=owner)

    again = builder_post(character, DEX="10", **kept)
    again["version"] = str(character.version + 1)
    assert _autosave(owner_client, character, **again)["state"] == "conflict"


def test_an_autosave_with_an_unreadable_field_stores_the_rest_and_names_that_field(
    owner, owner_client
):
    character = _character(owner, name="Typo", terms=2)
    answer = _autosave(owner_client, character, **builder_post(character, terms="", DEX="9"))

    assert (answer["state"], answer["version"]) == ("partial", character.version + 1)
    assert answer["message"] == "all but one field: Terms: enter a whole number from 0 to 99."
    stored = Character.objects.get(pk=character.pk).document
    assert (stored["attributes"]["DEX"], stored["terms"]) == (9, 2)


def test_an_emptied_skill_level_keeps_its_stored_level_as_the_save_state_says(owner, owner_client):
    # Clearing Pilot-3 to type another level, then leaving, must not leave Pilot-0 behind.
    skills = [{"skill": "Handgun", "level": 1}, {"skill": "Pilot", "level": 3}]
    character = _character(owner, name="Cleared", skills=skills)
    post = builder_post(character, **{"skill-1-level": "", "DEX": "9"})

    answer = _autosave(owner_client, character, **post)

    _saved_all_but(answer, "Pilot level: enter a whole number from 0 to 20.")
    stored = Character.objects.get(pk=character.pk).document
    assert stored["attributes"]["DEX"] == 9
    assert [(skill["skill"], skill["level"]) for skill in stored["skills"]] == [
        ("Handgun", 1),
        ("Pilot", 3),
    ]


def test_an_emptied_quantity_keeps_its_stored_quantity(owner, owner_client):
    equipment = [{"item": "Dagger", "tl": 1, "quantity": 1}, {"item": "Blade", "quantity": 4}]
    character = _character(owner, name="Cleared", equipment=equipment)
    post = builder_post(
        character,
        **{
            "item-0-item": "Dagger|1",
            "item-0-quantity": "1",
            "item-1-item": "Blade|3",
            "item-1-quantity": "",
        },
    )

    answer = _autosave(owner_client, character, **post)

    _saved_all_but(answer, "Blade quantity: enter a whole number from 1 to 9999.")
    stored = Character.objects.get(pk=character.pk).document["equipment"]
    assert [(item["item"], item["quantity"]) for item in stored] == [("Dagger", 1), ("Blade", 4)]


def test_an_emptied_psi_strength_keeps_its_stored_strength(owner, owner_client):
    psionics = {"strength": 6, "talents": {"Telepathy": 2}}
    character = _character(owner, name="Cleared", psionics=psionics)
    post = builder_post(
        character,
        **{"psi-trained": "on", "psi-strength": "", "talent-Telepathy": "2"},
    )

    answer = _autosave(owner_client, character, **post)

    _saved_all_but(answer, "PSI strength: enter a whole number from 0 to 15.")
    assert Character.objects.get(pk=character.pk).document["psionics"] == psionics


def _saved_all_but(answer, message: str) -> None:
    assert answer["state"] == "partial"
    assert answer["message"] == f"all but one field: {message}"


def test_an_attribute_typed_past_every_level_holds_back_only_that_attribute(owner, owner_client):
    character = _character(owner, name="Slip")
    answer = _autosave(owner_client, character, **builder_post(character, DEX="40", STR="9"))

    _saved_all_but(
        answer, "DEX: enter a level from 1 to 15, as a number or as a hex digit from 1 to F."
    )
    stored = Character.objects.get(pk=character.pk).document["attributes"]
    assert (stored["STR"], stored["DEX"]) == (9, 7)


@pytest.mark.parametrize(
    ("field", "label"),
    [
        ("homeworld", "Homeworld"),
        ("native_language", "Native language"),
        ("native_culture", "Native culture"),
    ],
)
def test_a_pasted_paragraph_in_a_background_field_holds_back_only_that_field(
    owner, owner_client, field, label
):
    character = _character(owner, name="Paste", homeworld="Regina")
    pasted = "word " * 40
    answer = _autosave(
        owner_client, character, **builder_post(character, **{field: pasted}, STR="9")
    )

    _saved_all_but(answer, f"{label}: at most 80 characters (199 now).")
    stored = Character.objects.get(pk=character.pk).document
    assert stored["attributes"]["STR"] == 9
    assert stored[field] == pasted[:80].strip()


def test_a_long_cascade_typed_for_a_skill_holds_back_only_that_cascade(owner, owner_client):
    character = _character(owner, name="Polyglot")
    post = builder_post(
        character,
        **{"skill-0-skill": "Language", "skill-0-level": "1", "skill-0-cascade": "V" * 90},
        STR="9",
    )
    answer = _autosave(owner_client, character, **post)

    _saved_all_but(answer, "Language cascade: at most 80 characters (90 now).")
    stored = Character.objects.get(pk=character.pk).document
    assert stored["attributes"]["STR"] == 9
    assert stored["skills"] == [{"skill": "Language", "level": 1, "cascade": "V" * 80}]


def test_a_trait_row_past_the_most_a_character_holds_is_the_only_one_not_saved(owner, owner_client):
    most = rules.catalog().bounds.traits
    character = _character(owner, name="Collector")
    rows = {f"trait-{i}-{field}": value for i in range(most + 1)
            for field, value in (("type", "PP"), ("level", "C"), ("frequency", "R"))}  # fmt: skip
    answer = _autosave(owner_client, character, **builder_post(character, **rows, STR="9"))

    _saved_all_but(answer, f"Traits: at most {most}; the rest are not saved.")
    stored = Character.objects.get(pk=character.pk).document
    assert stored["attributes"]["STR"] == 9
    assert len(stored["traits"]) == most


def test_a_refused_save_does_not_say_all_changes_are_saved(owner, owner_client):
    character = _character(owner, name="Refused")
    post = builder_post(character, action="save", END="", STR="8")
    html = owner_client.post(reverse("character_edit", args=[character.pk]), post)
    html = html.content.decode()
    assert 'data-state="unreadable">Not saved: fix the fields marked below first<' in html
    assert "All changes saved" not in html


def test_the_conflict_page_lists_every_field_the_two_versions_differ_in(owner, owner_client):
    character = _character(owner, name="Two tabs")
    first_tab = builder_post(character, action="save", native_language="Vilani", STR="5")
    second_tab = builder_post(character, action="save", native_culture="Zhodani")
    owner_client.post(reverse("character_edit", args=[character.pk]), first_tab)

    response = owner_client.post(reverse("character_edit", args=[character.pk]), second_tab)

    assert response.status_code == 409
    html = response.content.decode()
    for label in ("Native language", "Native culture", "STR"):
        assert label in html.split('id="conflict"')[1].split("</table>")[0], label


def test_a_submitted_character_is_not_withdrawn_by_an_autosave(owner, owner_client):
    referee = UserFactory(username="ref")
    campaign = campaigns_services.create_campaign(referee=referee, name="Review")
    campaigns_services.join_campaign(user=owner, code=campaign.invite_code)
    character = _character(owner, name="Submitted")
    campaigns_services.attach_character(character=character, campaign=campaign, by=owner)
    character = review_services.submit_character(
        character=Character.objects.get(pk=character.pk), by=owner
    )

    page = owner_client.get(reverse("character_edit", args=[character.pk])).content.decode()
    # Said as the page says it after an edit, and as the save state always says why.
    assert 'data-state="paused">Not saved: it is submitted for review' in page

    answer = _autosave(owner_client, character, **builder_post(character, DEX="9"))
    assert answer["state"] == "paused"
    stored = Character.objects.get(pk=character.pk)
    assert stored.status == Character.Status.SUBMITTED
    assert stored.document["attributes"]["DEX"] == 7


def test_autosave_is_a_404_for_another_user(owner, client):
    character = _character(owner, name="Mine")
    UserFactory(username="stranger")
    client.login(username="stranger", password=PASSWORD)
    answer = _autosave(client, character, **builder_post(character, DEX="9"))
    assert answer == {"status": 404}
    assert Character.objects.get(pk=character.pk).version == character.version


def test_the_builder_is_never_served_from_the_browser_cache(owner, owner_client):
    character = _character(owner, name="Fresh")
    response = owner_client.get(reverse("character_edit", args=[character.pk]))
    assert "no-store" in response["Cache-Control"]


def test_every_save_sends_every_rows_figures_again(owner, owner_client):
    skills = [{"skill": "Pilot", "level": 1}]
    character = _character(owner, name="Live", skills=skills)
    post = builder_post(
        character,
        **_skill_fields([{"skill": "Pilot", "level": 3}]),
        **{"item-0-item": "Dagger|1", "item-0-quantity": "3"},
        service="scouts",
        terms="2",
    )
    url = reverse("character_edit", args=[character.pk])
    html = owner_client.post(url, post, HTTP_HX_REQUEST="true").content.decode()

    assert re.search(r'<span id="skill-0-points"[^>]*hx-swap-oob="true">3 pts</span>', html)
    assert re.search(r'<span id="item-0-figures"[^>]*hx-swap-oob="true">', html)
    assert "2 rolls allowed on the Scouts table" in html


def test_an_exp_edit_sends_again_the_level_zero_rows_whose_point_it_moves(owner, owner_client):
    # EXP 7 (DV 3) gives three free level-0 skills; EXP 5 (DV 2) two, so the third costs 1.
    skills = [{"skill": n, "level": 0} for n in ("Carousing", "Streetwise", "Gambling")]
    character = _character(owner, name="Lean", skills=skills)
    url = reverse("character_edit", args=[character.pk])
    fields = builder_post(character, **_skill_fields(skills), EXP="5")

    html = owner_client.post(url, fields, HTTP_HX_REQUEST="true").content.decode()

    assert re.search(r'<span id="skill-2-points"[^>]*>1 pt</span>', html)


@pytest.mark.parametrize(
    ("typed", "action", "shown"),
    [
        ("9", "step:DEX:1", "10"),
        ("F", "step:DEX:1", "F"),  # at the top of the range: stays
        ("1", "step:DEX:-1", "1"),  # at the bottom: stays
        ("18", "step:DEX:-1", "17"),  # from outside the range: back towards it
        ("xx", "step:DEX:1", "7"),  # no level at all: the average
    ],
)
def test_a_stepper_without_javascript_steps_as_the_pages_script_does(
    owner, owner_client, typed, action, shown
):
    character = _character(owner, name="Steps")
    post = builder_post(character, action=action, DEX=typed)
    html = owner_client.post(reverse("character_edit", args=[character.pk]), post)
    assert f'name="DEX" value="{shown}"' in html.content.decode()


@pytest.mark.parametrize("key", ["9" * 5000, "a" * 17, "Ab", "a_b", "²"])
def test_a_row_field_whose_key_no_page_makes_is_ignored_not_a_server_error(
    owner, owner_client, key
):
    character = _character(owner, name="Forged")
    forged = {f"skill-{key}-skill": "Pilot", f"skill-{key}-level": "1"}
    # Form-encoded, as htmx sends it: a multipart part's header could not hold the name.
    answer = owner_client.post(
        reverse("character_edit", args=[character.pk]),
        urlencode(builder_post(character, **forged, STR="9"), doseq=True),
        content_type="application/x-www-form-urlencoded",
        HTTP_HX_REQUEST="true",
    )

    assert answer.status_code == 200
    stored = Character.objects.get(pk=character.pk).document
    assert stored["attributes"]["STR"] == 9
    assert stored["skills"] == []
