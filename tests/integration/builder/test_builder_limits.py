"""The builder's number fields at their limits: every figure the form takes, the catalog's
bounds, and what is refused in words."""

import json
import re
from dataclasses import replace

import pytest
from django.urls import reverse

import rules
from characters.builder import services as builder_services
from characters.core.equipment import item_key
from tests.factories import builder_post, character_document
from tests.integration.builder.saved_builds import saved_as_you_go

pytestmark = pytest.mark.django_db


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

    first = saved_as_you_go(owner_client, character, unchanged | sitting | {"edit_stamp": "1"})
    second = saved_as_you_go(owner_client, character, chosen | sitting | {"edit_stamp": "2"})

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

    saved_as_you_go(owner_client, character, data)

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

    response = saved_as_you_go(owner_client, character, data)

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

    saved_as_you_go(owner_client, npc, builder_post(npc, kind="npc", **{"npc-credits": "750"}))

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
    saved_as_you_go(owner_client, character, builder_post(character, **{"npc-credits": "9000"}))

    character.refresh_from_db()
    assert "mustering_out" not in character.document
    page = owner_client.get(reverse("character_edit", args=[character.pk])).content.decode()
    assert 'name="npc-credits"' not in page
