"""The builder and the character pages: ownership, saving, conflicts, preview, import/export."""

import io
import json
import random
import re

import pytest
from django.urls import reverse
from django.utils.html import escape

import rules
from characters.builder import services as builder_services
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
from tests.integration.builder.saved_builds import saved_as_you_go

pytestmark = pytest.mark.django_db


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

    response = saved_as_you_go(owner_client, character, data)

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
    html = saved_as_you_go(
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

    saved_as_you_go(owner_client, character, newer)
    saved_as_you_go(owner_client, character, older)

    character.refresh_from_db()
    assert character.document["attributes"]["DEX"] == 10


def test_a_page_that_fell_behind_another_tab_is_told_and_overwrites_nothing(
    owner_client, character
):
    first_tab = builder_post(character, DEX="9") | {"editing_session": "one", "edit_stamp": "1"}
    second_tab = builder_post(character, STR="9") | {"editing_session": "two", "edit_stamp": "1"}

    saved_as_you_go(owner_client, character, first_tab)
    response = saved_as_you_go(owner_client, character, second_tab)

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

    html = saved_as_you_go(owner_client, character, data).content.decode()

    assert 'id="builder-page"' in html
    assert re.search(r'<input [^>]*name="DEX" value="9"', html)
    assert 'name="editing_session" value="old"' in html
    assert 'data-state="saved">All changes saved<' in html


@pytest.mark.parametrize("rank", ["lots", str(rules.catalog().limits.rank_max + 1)])
def test_a_field_the_page_cannot_read_is_listed_among_the_errors_and_the_rest_is_saved(
    owner_client, character, rank
):
    response = saved_as_you_go(owner_client, character, builder_post(character, rank=rank, DEX="9"))

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


def _previewed(client, character, fields: dict[str, str]) -> str:
    """The answer to the page's save of the character's form with ``fields`` changed."""
    return saved_as_you_go(client, character, builder_post(character, **fields)).content.decode()


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
