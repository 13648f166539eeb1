"""The builder and the character pages: ownership, saving, conflicts, preview, import/export."""

import io
import json
import random
import re
from dataclasses import replace

import pytest
from django.urls import reverse
from django.utils.html import escape

import rules
from characters.builder import services as builder_services
from characters.core.equipment import item_key
from characters.models import Character, MusteringRoll
from rules import check_document, normalise_document
from tests.factories import (
    PASSWORD,
    CampaignFactory,
    CharacterFactory,
    UserFactory,
    builder_post,
    character_document,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def character(owner):
    return builder_services.create_character(
        owner=owner, document=character_document(name="Jamison")
    )


CHARACTER_URLS = [
    ("get", "character_detail"),
    ("get", "character_edit"),
    ("post", "character_edit"),
    ("post", "character_duplicate"),
    ("get", "character_delete"),
    ("post", "character_delete"),
    ("get", "character_export"),
]


@pytest.mark.parametrize(("method", "name"), CHARACTER_URLS)
def test_every_character_url_is_a_404_for_another_user(client, character, method, name):
    UserFactory(username="stranger")
    client.login(username="stranger", password=PASSWORD)
    response = getattr(client, method)(reverse(name, args=[character.pk]))
    assert response.status_code == 404
    assert Character.objects.filter(pk=character.pk, version=1).exists()


@pytest.mark.parametrize(("method", "name"), CHARACTER_URLS)
def test_every_character_url_sends_anonymous_visitors_to_log_in(client, character, method, name):
    response = getattr(client, method)(reverse(name, args=[character.pk]))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_creating_a_pc_starts_on_100_points_and_opens_the_builder(owner_client, owner):
    response = owner_client.post(
        reverse("character_new"), {"name": "Kim", "kind": "pc", "species": "human"}
    )
    character = Character.objects.get(owner=owner, name="Kim")
    assert response["Location"] == reverse("character_edit", args=[character.pk])
    assert character.budget == 100


def test_an_npc_takes_the_budget_chosen(owner_client, owner):
    owner_client.post(
        reverse("character_new"),
        {"name": "Clerk", "kind": "npc", "budget": "25", "species": "human"},
    )
    assert Character.objects.get(owner=owner, name="Clerk").budget == 25


def test_a_new_character_without_a_name_is_refused_and_nothing_is_created(owner_client, owner):
    response = owner_client.post(
        reverse("character_new"), {"name": "", "kind": "pc", "species": "human"}
    )
    assert response.status_code == 400
    assert b"Give the character a name." in response.content
    assert not Character.objects.filter(owner=owner).exists()


def test_a_refused_npc_budget_is_tied_to_its_field_and_the_player_is_taken_there(owner_client):
    response = owner_client.post(
        reverse("character_new"), {"name": "Clerk", "kind": "npc", "budget": "", "species": "human"}
    )
    assert response.status_code == 400
    html = response.content.decode()
    budget = re.search(r'<input type="number" id="id_budget"[^>]*>', html).group(0)
    assert 'aria-invalid="true"' in budget
    assert 'aria-describedby="id_budget_error id_budget_help"' in budget
    assert "autofocus" in budget
    assert re.search(r'<p class="errorlist" id="id_budget_error">\w', html)
    name = re.search(r'<input type="text" id="id_name"[^>]*>', html).group(0)
    assert "autofocus" not in name
    assert "aria-invalid" not in name


def test_a_fresh_new_character_form_starts_at_the_name(owner_client):
    html = owner_client.get(reverse("character_new")).content.decode()
    assert "autofocus" in re.search(r'<input type="text" id="id_name"[^>]*>', html).group(0)
    assert "aria-invalid" not in html


def test_the_builder_page_carries_the_contract_hooks(owner_client, character):
    response = owner_client.get(reverse("character_edit", args=[character.pk]))
    html = response.content.decode()
    for hook in (
        'name="DEX"',
        'data-derived="DEF"',
        'data-points="remaining"',
        'data-points="total"',
        'data-points="budget"',
        "data-upp",
        'data-action="save"',
    ):
        assert hook in html, hook


def test_the_derived_attributes_spell_out_what_their_abbreviations_stand_for(
    owner_client, character
):
    html = owner_client.get(reverse("character_edit", args=[character.pk])).content.decode()
    for code, name in rules.catalog().derived_names.items():
        assert f'<abbr title="{escape(name)}">{code}</abbr>' in html


def test_an_edit_the_page_posts_is_stored_and_answered_with_its_figures(owner_client, character):
    data = builder_post(character, DEX="9", **{"skill-0-skill": "Pilot", "skill-0-level": "4"})

    response = _saved_as_you_go(owner_client, character, data)

    html = response.content.decode()
    assert '<span data-derived="DEF">4</span>' in html
    assert 'data-problem="skill_level_above_max"' in html
    assert "Pilot-4 is above the maximum skill level 3" in html
    assert 'href="#id_skill-0-level"' in html
    assert json.loads(response["HX-Trigger-After-Settle"])["builder:saved"] == {
        "state": "saved",
        "message": "",
        "version": 2,
        "stamp": 0,  # builder_post names no count: a page's first save
    }
    character.refresh_from_db()
    assert (character.version, character.document["attributes"]["DEX"]) == (2, 9)


def test_an_edit_saved_as_you_go_is_answered_with_figures_not_inputs(owner_client, character):
    """The player may be typing: the answer never sends an input back to replace theirs."""
    html = _saved_as_you_go(
        owner_client, character, builder_post(character, DEX="9")
    ).content.decode()

    assert "<input" not in html.replace('<input type="hidden"', "")
    assert "<select" not in html
    assert "<textarea" not in html


def test_a_later_save_of_the_sitting_is_kept_when_an_earlier_one_lands_after_it(
    owner_client, character
):
    newer = builder_post(character, DEX="10") | {"editing_session": "tab", "edit_stamp": "2"}
    older = builder_post(character, DEX="9") | {"editing_session": "tab", "edit_stamp": "1"}

    _saved_as_you_go(owner_client, character, newer)
    _saved_as_you_go(owner_client, character, older)

    character.refresh_from_db()
    assert character.document["attributes"]["DEX"] == 10


def test_a_page_that_fell_behind_another_tab_is_told_and_overwrites_nothing(
    owner_client, character
):
    first_tab = builder_post(character, DEX="9") | {"editing_session": "one", "edit_stamp": "1"}
    second_tab = builder_post(character, STR="9") | {"editing_session": "two", "edit_stamp": "1"}

    _saved_as_you_go(owner_client, character, first_tab)
    response = _saved_as_you_go(owner_client, character, second_tab)

    answer = json.loads(response["HX-Trigger-After-Settle"])["builder:saved"]
    assert answer["state"] == "conflict"
    assert "saved elsewhere (version 2). Press Save to compare the two." in answer["message"]
    character.refresh_from_db()
    assert character.document["attributes"]["STR"] == 7


def test_the_last_save_of_a_page_being_left_is_stored_and_answered_with_nothing(
    owner_client, character
):
    data = builder_post(character, DEX="9") | {"leaving": "on", "edit_stamp": "3"}

    response = owner_client.post(reverse("character_edit", args=[character.pk]), data)

    assert response.status_code == 204
    character.refresh_from_db()
    assert character.document["attributes"]["DEX"] == 9
    assert not list(response.wsgi_request._messages)


def test_a_page_that_asks_for_its_form_back_gets_it_drawn_from_what_it_posted(
    owner_client, character
):
    data = builder_post(character, DEX="9") | {"redraw": "on", "editing_session": "old"}

    html = _saved_as_you_go(owner_client, character, data).content.decode()

    assert 'id="builder-page"' in html
    assert re.search(r'<input [^>]*name="DEX" value="9"', html)
    assert 'name="editing_session" value="old"' in html
    assert 'data-state="saved">All changes saved<' in html


@pytest.mark.parametrize("rank", ["lots", str(rules.catalog().limits.rank_max + 1)])
def test_a_field_the_page_cannot_read_is_listed_among_the_errors_and_the_rest_is_saved(
    owner_client, character, rank
):
    response = _saved_as_you_go(
        owner_client, character, builder_post(character, rank=rank, DEX="9")
    )

    problems = response.content.decode().partition('id="problems"')[2].partition("</div>")[0]
    highest = rules.catalog().limits.rank_max
    assert "<h2>1 error, " in problems
    assert (
        '<li class="problem problem--error" data-problem="unreadable_field"><a href="#id_rank">'
        f"Former rank: enter a whole number from 0 to {highest}.</a></li>"
    ) in problems
    answer = json.loads(response["HX-Trigger-After-Settle"])["builder:saved"]
    assert answer["state"] == "partial"
    assert answer["message"] == (
        f"all but one field: Former rank: enter a whole number from 0 to {highest}."
    )
    character.refresh_from_db()
    assert (character.document["attributes"]["DEX"], character.document.get("rank", 0)) == (9, 0)


def test_every_save_sends_every_attribute_rows_figures(owner_client, character):
    html = _previewed(owner_client, character, {"DEX": "9"})
    for code in rules.catalog().attribute_order:
        assert f'id="figures-{code}"' in html


# Bought Language (Anglic)-4 beside the automatic Language (Anglic), whose free level is EDU DV.
BOUGHT_NATIVE_LANGUAGE = {
    "skill-0-skill": "Language",
    "skill-0-cascade": "Anglic",
    "skill-0-level": "4",
}


@pytest.mark.parametrize(("edu", "points"), [("12", "0 pts"), ("3", "3 pts")])
def test_editing_edu_sends_again_the_cost_of_a_skill_it_gives_free_levels_of(
    owner_client, character, edu, points
):
    edits = BOUGHT_NATIVE_LANGUAGE | {"EDU": edu}

    html = _previewed(owner_client, character, edits)

    assert f'<span id="skill-0-points" data-row-points hx-swap-oob="true">{points}</span>' in html


def test_naming_a_bought_skills_cascade_sends_the_automatic_skills_again(owner_client, character):
    html = _previewed(owner_client, character, BOUGHT_NATIVE_LANGUAGE)

    automatic = re.search(
        r'<div class="automatic" id="automatic-skills"[^>]* hx-swap-oob="true">(.*?)</div>',
        html,
        re.S,
    )
    assert automatic is not None
    assert "Knowledge (Imperial society)-3" in automatic.group(1)
    assert "Language" not in automatic.group(1)


def test_choosing_a_species_sends_its_package_traits_again(owner_client, character):
    html = _previewed(owner_client, character, {"species": "vargr"})

    sent = re.search(
        r'<p id="package-traits" class="hint" hx-swap-oob="true">(.*?)</p>', html, re.S
    )
    assert sent is not None
    assert sent.group(1).startswith("Vargr package traits (included, 0 points in all): ")


def test_going_back_to_human_empties_the_package_traits(owner_client, owner):
    vargr = builder_services.create_character(
        owner=owner, document=character_document(name="Kfue", species="vargr")
    )

    html = _previewed(owner_client, vargr, {"species": "human"})

    assert '<p id="package-traits" class="hint" hidden hx-swap-oob="true"></p>' in html


def test_the_save_sends_the_psi_strength_limit_again_when_exp_moves_it(owner_client, character):
    attributes = {**character.document["attributes"], "EXP": 12}
    report = check_document({**character.document, "attributes": attributes})
    limit = rules.psi_strength_limit(report.attribute("EXP").dv)

    html = _previewed(owner_client, character, {"EXP": "12"})

    assert f'<span id="psi-strength-limit" hx-swap-oob="true">{limit}</span>' in html


def _saved_as_you_go(client, character, data: dict):
    """What the builder page posts by itself after an edit (htmx), and the answer."""
    url = reverse("character_edit", args=[character.pk])
    return client.post(url, data, HTTP_HX_REQUEST="true")


def _previewed(client, character, fields: dict[str, str]) -> str:
    """The answer to the page's save of the character's form with ``fields`` changed."""
    return _saved_as_you_go(client, character, builder_post(character, **fields)).content.decode()


def test_without_javascript_add_puts_a_skill_row_on_the_page_unsaved(owner_client, character):
    data = builder_post(character, **{"new-skill": "pilot", "action": "add_skill"})
    html = owner_client.post(reverse("character_edit", args=[character.pk]), data).content.decode()
    assert 'name="skill-0-skill" value="Pilot"' in html
    assert "small craft (under 100 tons)" in html
    assert "Not saved: press Save to keep these changes" in html
    character.refresh_from_db()
    assert character.version == 1


def test_a_misspelt_skill_is_not_added_and_the_player_is_offered_the_catalogs_name(
    owner_client, character
):
    data = builder_post(character, **{"new-skill": "Medic", "action": "add_skill"})
    html = owner_client.post(reverse("character_edit", args=[character.pk]), data).content.decode()
    assert "&#x27;Medic&#x27; is not a skill in the catalog. Did you mean <button" in html
    assert re.search(r'<button [^>]*value="add_skill:Medical"[^>]*>Medical</button>\?', html)
    assert 'name="skill-0-skill"' not in html


def test_the_offered_name_adds_that_skill_and_empties_the_box(owner_client, character):
    data = builder_post(character, **{"new-skill": "Medic", "action": "add_skill:Medical"})
    html = owner_client.post(reverse("character_edit", args=[character.pk]), data).content.decode()
    assert 'name="skill-0-skill" value="Medical"' in html
    assert re.search(r'<input [^>]*name="new-skill"[^>]*value=""', html)
    assert "Did you mean" not in html


def test_saving_stores_the_document_bumps_the_version_and_keeps_drafts(owner_client, character):
    data = builder_post(
        character,
        DEX="9",
        **{
            "skill-0-skill": "Pilot",
            "skill-0-level": "2",
            "skill-0-specialties": "small craft",
            "action": "save",
        },
    )
    response = owner_client.post(reverse("character_edit", args=[character.pk]), data)
    assert response.status_code == 302
    character.refresh_from_db()
    assert character.version == 2
    assert character.document["attributes"]["DEX"] == 9
    assert character.document["skills"] == [
        {"skill": "Pilot", "level": 2, "specialties": ["small craft"]}
    ]
    assert character.points_total == 10 + 3
    assert character.is_valid

    broken = builder_post(
        character, **{"skill-0-skill": "Pilot", "skill-0-level": "9", "action": "save"}
    )
    owner_client.post(reverse("character_edit", args=[character.pk]), broken)
    character.refresh_from_db()
    assert (character.version, character.is_valid) == (3, False)


def test_a_save_from_a_stale_version_shows_a_conflict_and_overwrites_nothing(
    owner_client, character
):
    edit = reverse("character_edit", args=[character.pk])
    first_tab = builder_post(character, name="Jamison the Bold", action="save")
    second_tab = builder_post(character, name="Jamison the Careful", action="save")
    owner_client.post(edit, first_tab)
    response = owner_client.post(edit, second_tab)
    assert response.status_code == 409
    html = response.content.decode()
    assert "Not saved: this character changed in another tab" in html
    assert "Jamison the Bold" in html
    assert "Jamison the Careful" in html
    character.refresh_from_db()
    assert (character.name, character.version) == ("Jamison the Bold", 2)

    keep_mine = dict(second_tab, version="2", action="overwrite")
    owner_client.post(edit, keep_mine)
    character.refresh_from_db()
    assert (character.name, character.version) == ("Jamison the Careful", 3)


def test_unreadable_fields_are_named_and_nothing_is_saved(owner_client, character):
    data = builder_post(character, DEX="lots", action="save")
    response = owner_client.post(reverse("character_edit", args=[character.pk]), data)
    assert response.status_code == 400
    assert b"DEX: enter a level from 1 to 15" in response.content
    assert b'value="lots"' in response.content
    character.refresh_from_db()
    assert character.version == 1


def test_without_javascript_a_button_re_renders_the_form_without_saving(owner_client, character):
    data = builder_post(character, DEX="10", action="add_item")
    response = owner_client.post(reverse("character_edit", args=[character.pk]), data)
    assert response.status_code == 200
    assert b'name="item-0-item"' in response.content
    assert b'<span data-derived="DEF">5</span>' in response.content
    character.refresh_from_db()
    assert character.version == 1


def test_mustering_out_is_rolled_once_on_the_server_and_recorded(owner_client, character):
    data = builder_post(
        character,
        service="navy",
        terms="2",
        action="roll",
        **{
            "trait-0-type": "PP",
            "trait-0-name": "Steady",
            "trait-0-level": "C",
            "trait-0-frequency": "R",
            "trait-1-type": "PP",
            "trait-1-name": "Calm",
            "trait-1-level": "C",
            "trait-1-frequency": "R",
        },
    )
    response = owner_client.post(reverse("character_edit", args=[character.pk]), data)

    # The page opens at the section that shows the dice, not back at its top.
    assert response.url == reverse("character_edit", args=[character.pk]) + "#section-mustering"
    rolls = list(MusteringRoll.objects.filter(character=character))
    assert len(rolls) == 2
    assert all(r.service == "navy" and r.terms == 2 and 1 <= r.die <= 6 for r in rolls)
    character.refresh_from_db()
    assert character.document["mustering_out"]["rolls"] == [r.die for r in rolls]
    with pytest.raises(builder_services.MusteringOutRefused):
        builder_services.roll_mustering_out(
            character=character, by=character.owner, rng=random.Random(1)
        )

    tampered = builder_post(character, service="navy", terms="3", action="save")
    owner_client.post(reverse("character_edit", args=[character.pk]), tampered)
    character.refresh_from_db()
    assert character.document["mustering_out"]["rolls"] == [r.die for r in rolls]
    sheet = owner_client.get(reverse("character_detail", args=[character.pk])).content.decode()
    assert "The cash was rolled after 2 terms, but the character now has 3." in sheet


def test_an_imported_character_shows_its_rolls_and_offers_no_roll_button(owner_client, owner):
    document = character_document(
        name="Imported scout", service="scouts", terms=2, mustering_out={"rolls": [3, 6]}
    )
    character = builder_services.create_character(owner=owner, document=document)
    report = check_document(character.document)

    page = owner_client.get(reverse("character_edit", args=[character.pk])).content.decode()

    assert 'data-action="roll"' not in page
    assert "its document holds the dice: 3 (" in page
    for index, roll in enumerate(report.mustering_out.rolls):
        now = f"DM \\+0, row {roll.row}: Cr{roll.credits:,}"
        assert re.search(rf'<span id="roll-{index}-now"[^>]*>{now}</span>', page)
    assert f"Cash: <strong>Cr{report.mustering_out.credits:,}</strong>" in page


def _imported_scout(owner) -> Character:
    """A scout of two terms whose document holds two cash rolls, made before this app."""
    document = character_document(
        name="Imported scout", service="scouts", terms=2, mustering_out={"rolls": [3, 6]}
    )
    return builder_services.create_character(owner=owner, document=document)


def test_the_figures_say_which_rolls_count_when_fewer_terms_allow_fewer(owner_client, owner):
    character = _imported_scout(owner)
    first = check_document(character.document).mustering_out.rolls[0]

    html = _previewed(owner_client, character, {"service": "scouts", "terms": "1"})

    assert f"Cash: <strong>Cr{first.credits:,}</strong>" in html
    assert "(1 of the 2 rolls count now)" in html
    assert '<span id="roll-1-now" hx-swap-oob="true">does not count now</span>' in html


def test_the_figures_send_the_cash_again_when_no_roll_counts_any_more(owner_client, owner):
    character = _imported_scout(owner)

    html = _previewed(owner_client, character, {"service": "scouts", "terms": "0"})

    assert "Cash: <strong>Cr0</strong>" in html
    assert 'id="mustering-status"' not in html  # the page shows the rolls, not the roll button


def test_each_rolls_reading_follows_the_gambling_skill_as_it_is_edited(owner_client, character):
    owner_client.post(
        reverse("character_edit", args=[character.pk]),
        builder_post(character, service="navy", terms="2", action="roll"),
    )
    character.refresh_from_db()
    gambling = {"skill-0-skill": "Gambling", "skill-0-level": "1"}
    gambling |= {"service": "navy", "terms": "2"}
    now = check_document({**character.document, "skills": [{"skill": "Gambling", "level": 1}]})

    html = _previewed(owner_client, character, gambling)

    for index, roll in enumerate(now.mustering_out.rolls):
        assert f'<span id="roll-{index}-now" hx-swap-oob="true">DM +1, row {roll.row}: ' in html
    assert f"Cash: <strong>Cr{now.mustering_out.credits:,}</strong>" in html


def test_adding_gambling_sends_the_cash_rolls_again(owner_client, owner):
    character = _imported_scout(owner)
    added = {"service": "scouts", "skill-n1-skill": "Gambling", "skill-n1-level": "1"}
    now = check_document({**character.document, "skills": [{"skill": "Gambling", "level": 1}]})

    html = _previewed(owner_client, character, added)

    assert '<span id="skill-n1-points" data-row-points hx-swap-oob="true">1 pt</span>' in html
    assert f"Cash: <strong>Cr{now.mustering_out.credits:,}</strong>" in html
    assert '<span id="roll-0-now" hx-swap-oob="true">DM +1, ' in html


def test_credits_read_with_thousands_separators_in_the_builder_and_on_the_sheet(
    owner_client, character
):
    data = builder_post(character, service="navy", terms="2", action="roll")
    owner_client.post(reverse("character_edit", args=[character.pk]), data)
    character.refresh_from_db()
    credits = sum(roll.credits for roll in character.mustering_rolls.all())
    assert credits >= 1000  # every navy cash row is worth at least Cr1,000

    builder_page = owner_client.get(reverse("character_edit", args=[character.pk]))
    sheet = owner_client.get(reverse("character_detail", args=[character.pk]))

    for page in (builder_page.content.decode(), sheet.content.decode()):
        assert f"Cr{credits:,}" in page
        assert f"Cr{credits}" not in page


def test_export_import_export_gives_the_same_document(owner_client, owner):
    document = character_document(
        name="Round trip",
        homeworld="Regina",
        service="scouts",
        terms=1,
        skills=[{"skill": "Pilot", "level": 2, "specialties": ["fighters"]}],
        traits=[{"type": "PF", "level": "H", "frequency": "R", "name": "Owes a debt"}],
    )
    original = builder_services.create_character(owner=owner, document=document)
    exported = owner_client.get(reverse("character_export", args=[original.pk]))
    assert exported["Content-Disposition"] == 'attachment; filename="round-trip.json"'
    upload = io.BytesIO(exported.content)
    upload.name = "round-trip.json"
    owner_client.post(reverse("character_import"), {"document": upload})
    imported = Character.objects.exclude(pk=original.pk).get(owner=owner)
    again = owner_client.get(reverse("character_export", args=[imported.pk]))
    assert json.loads(again.content) == json.loads(exported.content) == normalise_document(document)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"{not json", "bad.json: is not valid JSON (line 1, column 2"),
        (
            json.dumps(character_document(attributes={"STR": "I"})).encode(),
            "bad.json: attributes.STR: expected a level",
        ),
        (json.dumps({"format": "other"}).encode(), 'bad.json: format: must be "ffa-character/1"'),
    ],
)
def test_a_malformed_import_says_what_is_wrong_and_saves_nothing(
    owner_client, owner, content, message
):
    upload = io.BytesIO(content)
    upload.name = "bad.json"
    response = owner_client.post(reverse("character_import"), {"document": upload})
    assert response.status_code == 400
    assert escape(message) in response.content.decode()
    assert not Character.objects.filter(owner=owner).exists()


def test_duplicating_keeps_the_rolls_so_dice_cannot_be_rerolled(owner_client, character):
    builder_services.save_character(
        character=character,
        document=dict(
            character.document,
            service="army",
            terms=1,
            traits=[{"type": "PP", "level": "C", "frequency": "R", "name": "a"}],
        ),
        expected_version=1,
    )
    builder_services.roll_mustering_out(
        character=character, by=character.owner, rng=random.Random(3)
    )
    owner_client.post(reverse("character_duplicate", args=[character.pk]))
    copy = Character.objects.get(name="Jamison (copy)")
    assert list(copy.mustering_rolls.values_list("die", flat=True)) == list(
        character.mustering_rolls.values_list("die", flat=True)
    )


def test_deleting_asks_first_then_removes(owner_client, character):
    url = reverse("character_delete", args=[character.pk])
    assert b"Delete Jamison?" in owner_client.get(url).content
    owner_client.post(url)
    assert not Character.objects.filter(pk=character.pk).exists()


def test_the_list_shows_which_characters_are_valid(owner_client, owner):
    CharacterFactory(owner=owner, name="Good", is_valid=True)
    CharacterFactory(owner=owner, name="Broken", is_valid=False)
    html = owner_client.get(reverse("character_list")).content.decode()
    assert html.count('data-valid="yes"') == 1
    assert html.count('data-valid="no"') == 1


def test_the_sheet_shows_the_stat_block_with_a_copy_button(owner_client, character):
    html = owner_client.get(reverse("character_detail", args=[character.pk])).content.decode()
    assert "Jamison, 0 terms no service" in html
    assert 'data-copy-target="stat-block"' in html


def test_a_character_outside_a_campaign_offers_its_sheet_on_letter_and_a4(owner_client, character):
    html = owner_client.get(reverse("character_detail", args=[character.pk])).content.decode()
    pdf_url = reverse("character_pdf", args=[character.pk])
    assert f'href="{pdf_url}"' in html
    assert f'href="{pdf_url}?size=a4"' in html


def test_the_builder_offers_letter_and_a4_sheets_even_when_the_campaign_prints_on_a4(
    owner_client, character
):
    character.campaign = CampaignFactory(page_size="a4")
    character.save()
    html = owner_client.get(reverse("character_edit", args=[character.pk])).content.decode()

    pdf_url = reverse("character_pdf", args=[character.pk])
    assert f'<a href="{pdf_url}?size=letter" data-pdf="letter">Letter</a>' in html
    assert f'<a href="{pdf_url}?size=a4" data-pdf="a4">A4</a>' in html


def test_the_builder_explains_its_limits_with_the_catalogs_figures(owner_client, character):
    html = owner_client.get(reverse("character_edit", args=[character.pk])).content.decode()
    # EXP 7 has DV 3, so the engine allows PSI strength up to 12 - 3 = 9.
    text = re.sub(r"<[^>]+>", "", html)  # the limit itself is in an element the preview swaps
    assert "at most 12 \N{MINUS SIGN} EXP DV, never above 15 (now 9)" in text
    assert "each level above costs 5 points" in html
    assert "Psionically trained (25 points)" in html


# -- the limits of the form's number fields ------------------------------------------------------


def input_attribute(html: str, element_id: str, attribute: str) -> str | None:
    """The value of ``attribute`` on the page's input with id ``element_id``."""
    tag = re.search(rf'<input\b[^>]*\bid="{re.escape(element_id)}"[^>]*>', html)
    assert tag, f"no input with id {element_id}"
    # Not a longer name that ends the same ("max" is not "data-max").
    value = re.search(rf'(?<![\w-]){attribute}="([^"]*)"', tag.group(0))
    return value.group(1) if value else None


# Rows of every kind that has a number field, as stored and as the builder posts them.
DAGGER = rules.catalog().equipment_named("Dagger")[0]
ROWS_DOCUMENT = {
    "traits": [{"type": "PP", "name": "Quick", "derived": {"DEF": 1}}],
    "psionics": {"strength": 2, "talents": {"Telepathy": 1}},
    "equipment": [{"item": DAGGER.name, "tl": DAGGER.tl, "quantity": 1}],
}
ROWS_POSTED = {
    "trait-0-type": "PP",
    "trait-0-name": "Quick",
    "trait-0-derived-DEF": "1",
    "psi-trained": "on",
    "psi-strength": "2",
    "talent-Telepathy": "1",
    "item-0-item": item_key(DAGGER.name, DAGGER.tl),
    "item-0-quantity": "1",
}

# Each number field: its name in the form, the label its message gives, its lowest value (None:
# the negative of its highest) and where its highest comes from: a figure of the catalog's
# limits (the rulebook's) or of its document bounds (the app's guards, which the parser keeps).
NUMBER_FIELDS = [
    ("budget", "Budget", 0, "max_budget"),
    ("terms", "Terms", 0, "terms"),
    ("rank", "Former rank", 0, "rank_max"),
    ("age", "Age", 0, "age"),
    ("psi-strength", "PSI strength", 0, "psi_max_cap"),
    ("talent-Telepathy", "Telepathy", 0, "psi_max_cap"),
    ("item-0-quantity", f"{DAGGER.name} quantity", 1, "quantity"),
    ("trait-0-derived-DEF", "DEF", None, "level"),
]


@pytest.fixture
def character_with_rows(owner):
    document = character_document(name="Jamison", **ROWS_DOCUMENT)
    return builder_services.create_character(owner=owner, document=document)


@pytest.mark.parametrize(("name", "label", "lowest", "source"), NUMBER_FIELDS)
def test_each_number_field_offers_and_reads_the_range_its_source_gives(
    owner_client, character_with_rows, patched_catalog, name, label, lowest, source
):
    monkeypatch = patched_catalog
    # A new figure at the source: a literal typed on the page or in the form would miss it.
    limits = rules.catalog().limits
    if hasattr(limits, source):
        highest = getattr(limits, source) - 1
        monkeypatch.setattr(rules.catalog(), "limits", replace(limits, **{source: highest}))
    else:
        bounds = rules.catalog().bounds
        highest = getattr(bounds, source) - 1
        monkeypatch.setattr(rules.catalog(), "bounds", replace(bounds, **{source: highest}))
    lowest = -highest if lowest is None else lowest
    edit = reverse("character_edit", args=[character_with_rows.pk])

    page = owner_client.get(edit).content.decode()
    assert input_attribute(page, f"id_{name}", "max") == str(highest)
    assert input_attribute(page, f"id_{name}", "min") == str(lowest)

    too_high = builder_post(character_with_rows, **{**ROWS_POSTED, name: str(highest + 1)})
    refused = owner_client.post(edit, dict(too_high, action="save"))
    assert refused.status_code == 400
    assert f"{label}: enter a whole number from {lowest} to {highest}." in refused.content.decode()

    at_the_top = builder_post(character_with_rows, **{**ROWS_POSTED, name: str(highest)})
    assert owner_client.post(edit, dict(at_the_top, action="save")).status_code == 302
    character_with_rows.refresh_from_db()
    assert character_with_rows.version == 2


def test_a_trait_name_is_as_long_on_the_page_as_the_server_reads(
    owner_client, character_with_rows, patched_catalog
):
    monkeypatch = patched_catalog
    bounds = rules.catalog().bounds
    monkeypatch.setattr(rules.catalog(), "bounds", replace(bounds, trait_name_length=12))
    edit = reverse("character_edit", args=[character_with_rows.pk])

    page = owner_client.get(edit).content.decode()
    assert input_attribute(page, "id_trait-0-name", "maxlength") == "12"

    too_long = builder_post(
        character_with_rows, **{**ROWS_POSTED, "trait-0-name": "Quick on the draw"}
    )
    refused = owner_client.post(edit, dict(too_long, action="save"))
    assert refused.status_code == 400
    assert "Trait name: at most 12 characters (17 now)." in refused.content.decode()
    character_with_rows.refresh_from_db()
    assert character_with_rows.version == 1


@pytest.mark.parametrize("name", ["homeworld", "native_language", "native_culture"])
def test_a_background_field_is_as_long_on_the_page_as_the_server_reads(
    owner_client, character_with_rows, patched_catalog, name
):
    monkeypatch = patched_catalog
    bounds = rules.catalog().bounds
    monkeypatch.setattr(rules.catalog(), "bounds", replace(bounds, label_length=12))
    edit = reverse("character_edit", args=[character_with_rows.pk])

    page = owner_client.get(edit).content.decode()
    assert input_attribute(page, f"id_{name}", "maxlength") == "12"

    too_long = builder_post(character_with_rows, **{**ROWS_POSTED, name: "Far Side of Regina"})
    refused = owner_client.post(edit, dict(too_long, action="save"))
    assert refused.status_code == 400
    assert "at most 12 characters (18 now)." in refused.content.decode()


def test_a_former_rank_above_the_catalogs_highest_is_refused_and_not_saved(owner_client, character):
    highest = rules.catalog().limits.rank_max
    data = builder_post(character, rank=str(highest + 1), action="save")

    response = owner_client.post(reverse("character_edit", args=[character.pk]), data)

    assert response.status_code == 400
    assert f"Former rank: enter a whole number from 0 to {highest}." in response.content.decode()
    character.refresh_from_db()
    assert (character.version, character.document["rank"]) == (1, 0)


@pytest.mark.parametrize("kind", ["pc", "npc"])
def test_the_attribute_inputs_offer_the_purchasable_levels_of_the_characters_kind(
    owner_client, owner, kind
):
    cat = rules.catalog()
    character = builder_services.create_character(
        owner=owner, document=character_document(name="Jamison", kind=kind)
    )
    html = owner_client.get(reverse("character_edit", args=[character.pk])).content.decode()

    def stepper_max(code: str) -> str:
        # On the figures the preview sends again, so it follows a change of kind.
        return re.search(rf'<span id="figures-{code}"[^>]*\bdata-max="(\d+)"', html).group(1)

    for code, highest in zip(cat.attribute_order, cat.purchase_maxima(kind), strict=True):
        assert input_attribute(html, f"id_{code}", "data-min") == str(cat.limits.purchase_min)
        assert stepper_max(code) == str(highest)
    assert stepper_max("SOC") == str(
        cat.limits.npc_soc_max if kind == "npc" else cat.limits.purchase_max
    )


def test_an_unreadable_npc_soc_names_the_npc_range(owner_client, owner):
    limits = rules.catalog().limits
    character = builder_services.create_character(
        owner=owner, document=character_document(name="Count Jamison", kind="npc")
    )
    data = builder_post(character, SOC="lots", action="save")

    response = owner_client.post(reverse("character_edit", args=[character.pk]), data)

    expected = f"SOC: enter a level from {limits.purchase_min} to {limits.npc_soc_max}"
    assert expected in response.content.decode()


def test_a_vargrs_strength_at_its_floor_offers_no_step_down(owner_client, owner):
    cat = rules.catalog()
    strength = cat.attribute_order.index("STR")
    floor = cat.limits.final_min - cat.species["vargr"].attribute_deltas[strength]
    document = character_document(name="Gvoudzon", species="vargr")
    document["attributes"]["STR"] = floor
    character = builder_services.create_character(owner=owner, document=document)

    html = owner_client.get(reverse("character_edit", args=[character.pk])).content.decode()

    figures = re.search(r'<span id="figures-STR".*?</span>\s*</span>', html, re.S).group(0)
    assert f"next +{cat.limits.points_per_attribute_level}" in figures
    assert "back" not in figures


def test_a_new_npc_starts_on_the_rulebooks_average_citizen_budget(owner_client):
    limits = rules.catalog().limits
    html = owner_client.get(reverse("character_new")).content.decode()
    assert input_attribute(html, "id_budget", "value") == str(limits.npc_citizen_budget)
    assert input_attribute(html, "id_budget", "max") == str(limits.max_budget)
    assert (
        f"About {limits.npc_citizen_budget} for an average citizen, "
        f"{limits.npc_mercenary_budget} for an experienced mercenary." in html
    )
    assert f"Player character, on {limits.default_budget} points" in html


def test_the_builders_review_panel_gives_no_error_count_that_saving_by_itself_would_outdate(
    client, campaign, player
):
    # An error in the stored version, which an edit and a pause may fix at once.
    document = character_document(name="Ace", skills=[{"skill": "Pilot", "level": 9}])
    character = builder_services.create_character(
        owner=player, document=document, campaign=campaign
    )
    client.force_login(player)

    builder = client.get(reverse("character_edit", args=[character.pk])).content.decode()
    sheet = client.get(reverse("character_detail", args=[character.pk])).content.decode()

    assert "in the saved version: fix" not in builder
    assert "Submitting sends the saved version" in builder
    assert "rule error under the campaign's rules in the saved version: fix it" in sheet


def test_a_character_in_no_campaign_points_its_owner_to_where_it_is_brought_into_one(
    owner_client, character
):
    sheet = owner_client.get(reverse("character_detail", args=[character.pk])).content.decode()

    assert "not in a campaign: bring it into one from the campaign's page" in sheet
    assert f'<a href="{reverse("campaign_list")}">your campaigns</a>' in sheet


def _first_trait_saved(client, character, **fields: str) -> dict:
    """The first trait stored after a Save that posts it with ``fields``."""
    posted = {f"trait-0-{field}": value for field, value in fields.items()}
    data = builder_post(character, action="save", **posted)
    client.post(reverse("character_edit", args=[character.pk]), data)
    character.refresh_from_db()
    return character.document["traits"][0]


HARDSHIP = {"name": "Debts", "level": "H", "frequency": "R"}


def test_a_flaw_turned_perk_on_the_page_carries_no_control_score(owner_client, character):
    # The flaw's box stays on the page, ticked, after its type became a perk's.
    ticked = {"control": "on", "controlbox": "on"}

    trait = _first_trait_saved(owner_client, character, type="PP", **HARDSHIP, **ticked)

    assert "control" not in trait


def test_a_perk_turned_personal_flaw_on_the_page_keeps_its_control_score(owner_client, character):
    # The perk's row had no box: nobody took the new flaw's control score away.
    trait = _first_trait_saved(owner_client, character, type="PF", **HARDSHIP)

    assert "control" not in trait


def test_a_personal_flaws_control_score_box_left_unticked_is_stored(owner_client, character):
    trait = _first_trait_saved(
        owner_client, character, type="PF", **HARDSHIP, **{"controlbox": "on"}
    )

    assert trait["control"] is False


def test_a_flaws_control_score_box_is_named_for_its_row(owner_client, owner):
    flaws = [
        {"type": "PF", "name": "Temper", "level": "I", "frequency": "S"},
        {"type": "PF", "name": "Debts", "level": "H", "frequency": "R", "control": True},
    ]
    character = builder_services.create_character(
        owner=owner, document=character_document(name="Flawed", traits=flaws)
    )

    page = owner_client.get(reverse("character_edit", args=[character.pk])).content.decode()

    for index in (0, 1):
        box = re.search(rf'<input [^>]*name="trait-{index}-control"[^>]*>', page)
        assert box is not None
        assert f'id="id_trait-{index}-control"' in box.group()
        assert f'aria-label="Trait {index + 1}: control score"' in box.group()


def test_a_save_that_changes_nothing_keeps_the_version_so_the_sittings_next_save_lands(
    owner_client, character
):
    """An empty row added, then the item chosen in it: the page's first save changed nothing
    and its answer never came back (a newer save replaced it on the page), so the second save
    carries the version the page was drawn with."""
    sitting = {"editing_session": "tab", "version": str(character.version)}
    unchanged = builder_post(character, **{"item-0-item": "", "item-0-quantity": "1"})
    chosen = builder_post(character, **{"item-0-item": "Dagger|1", "item-0-quantity": "1"})

    first = _saved_as_you_go(owner_client, character, unchanged | sitting | {"edit_stamp": "1"})
    second = _saved_as_you_go(owner_client, character, chosen | sitting | {"edit_stamp": "2"})

    assert json.loads(first["HX-Trigger-After-Settle"])["builder:saved"]["version"] == 1
    assert json.loads(second["HX-Trigger-After-Settle"])["builder:saved"]["state"] == "saved"
    character.refresh_from_db()
    assert [entry["item"] for entry in character.document["equipment"]] == ["Dagger"]


def test_armor_marked_worn_is_stored_worn_and_shown_so(owner_client, owner):
    character = builder_services.create_character(
        owner=owner,
        document=character_document(
            name="Wearer",
            equipment=[{"item": "Jack", "quantity": 1}, {"item": "Dagger", "quantity": 1}],
        ),
    )
    jack, dagger = (_equipment_key(character, position) for position in (0, 1))
    data = builder_post(
        character,
        **{"item-0-item": jack, "item-0-worn": "on", "item-1-item": dagger},
    )

    _saved_as_you_go(owner_client, character, data)

    character.refresh_from_db()
    assert character.document["equipment"][0]["worn"] is True
    assert "worn" not in character.document["equipment"][1]
    page = owner_client.get(reverse("character_edit", args=[character.pk])).content.decode()
    assert re.search(r'<input [^>]*name="item-0-worn" checked aria-label="Item 1: worn">', page)
    assert re.search(r'<input [^>]*name="item-1-worn" disabled aria-label="Item 2: worn">', page)
    assert "<p data-armor-worn>Wearing Jack (TL 1): AV 3</p>" in page


def _equipment_key(character, position: int) -> str:
    entry = character.document["equipment"][position]
    return item_key(entry["item"], rules.catalog().equipment_item(entry["item"]).tl)


def test_a_skill_level_past_what_a_document_holds_is_named_and_the_rest_saved(
    owner_client, character
):
    data = builder_post(character, DEX="9", **{"skill-0-skill": "Pilot", "skill-0-level": "25"})

    response = _saved_as_you_go(owner_client, character, data)

    answer = json.loads(response["HX-Trigger-After-Settle"])["builder:saved"]

    assert answer["state"] == "partial"
    assert answer["message"] == "all but one field: Pilot level: enter a whole number from 0 to 20."
    character.refresh_from_db()
    assert character.document["attributes"]["DEX"] == 9


def test_an_npcs_starting_credits_are_given_in_the_builder_and_not_rolled(owner_client, owner):
    npc = builder_services.create_character(
        owner=owner,
        document=character_document(name="Guard", kind="npc", budget=25, service="army", terms=1),
    )
    page = owner_client.get(reverse("character_edit", args=[npc.pk])).content.decode()
    assert 'name="npc-credits"' in page
    assert "Save and roll mustering-out cash" in page

    _saved_as_you_go(owner_client, npc, builder_post(npc, kind="npc", **{"npc-credits": "750"}))

    npc.refresh_from_db()
    assert npc.document["mustering_out"] == {"credits": 750}
    page = owner_client.get(reverse("character_edit", args=[npc.pk])).content.decode()
    assert "Given, not rolled: Cr750." in page
    assert "Save and roll mustering-out cash" not in page
    rolled = owner_client.post(
        reverse("character_edit", args=[npc.pk]),
        builder_post(npc, kind="npc", action="roll", **{"npc-credits": "750"}),
        follow=True,
    )
    assert "starting credits are given, not rolled" in rolled.content.decode()


def test_a_player_characters_form_gives_no_credits(owner_client, character):
    _saved_as_you_go(owner_client, character, builder_post(character, **{"npc-credits": "9000"}))

    character.refresh_from_db()
    assert "mustering_out" not in character.document
    page = owner_client.get(reverse("character_edit", args=[character.pk])).content.decode()
    assert 'name="npc-credits"' not in page
