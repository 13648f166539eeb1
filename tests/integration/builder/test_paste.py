"""Paste a stat block: read it, see what was and was not read, then create the draft."""

import hashlib
import io
import json
from pathlib import Path

import pytest
from django.urls import reverse

from characters.builder.services import create_character
from characters.models import Character
from rules import check, parse_document, stat_block
from tests.factories import UserFactory, builder_post

pytestmark = pytest.mark.django_db

URL = reverse("character_paste")
DEMO = Path(__file__).resolve().parents[3] / "fixtures" / "demo"


def demo_block(name: str) -> str:
    character = parse_document(json.loads((DEMO / name).read_text()))
    return stat_block(character, check(character))


def fingerprint(text: str, kind: str = "pc") -> str:
    return hashlib.sha256(f"{kind}\n{text}".encode()).hexdigest()


def test_pasting_needs_a_login(client):
    response = client.get(URL)

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_the_dashboard_and_the_character_list_offer_paste_next_to_import(owner_client):
    for page in (reverse("home"), reverse("character_list")):
        html = owner_client.get(page).content.decode()
        assert f'href="{URL}"' in html, page
        assert html.index(reverse("character_import")) < html.index(URL)


def test_reading_a_stat_block_shows_the_draft_and_stores_nothing(owner_client):
    block = demo_block("player2-marine.json")

    response = owner_client.post(URL, {"text": block, "kind": "pc", "action": "preview"})

    assert response.status_code == 200
    html = response.content.decode()
    assert "What was read" in html
    assert "Every line was read." in html
    assert "Tamsin Okoro, 3 terms Marines (Captain)" in html
    assert f'name="previewed" value="{fingerprint(block)}"' in html
    assert Character.objects.count() == 0


def test_creating_makes_a_draft_whose_stat_block_is_the_one_pasted(owner_client, owner):
    block = demo_block("player1-scout.json")

    response = owner_client.post(
        URL, {"text": block, "kind": "pc", "action": "create", "previewed": fingerprint(block)}
    )

    character = Character.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("character_edit", args=[character.pk])
    assert (character.owner, character.status) == (owner, Character.Status.DRAFT)
    parsed = parse_document(character.document)
    assert stat_block(parsed, check(parsed)) == block
    revision = character.revisions.get()
    assert revision.action == "Pasted from a stat block"


def test_the_sheet_s_stat_block_pasted_back_is_the_same(owner_client, owner):
    original = create_character(
        owner=owner, document=json.loads((DEMO / "player2-marine.json").read_text())
    )
    sheet = owner_client.get(reverse("character_detail", args=[original.pk]))
    block = sheet.context["stat_block"]

    owner_client.post(
        URL, {"text": block, "kind": "pc", "action": "create", "previewed": fingerprint(block)}
    )

    pasted = Character.objects.exclude(pk=original.pk).get()
    again = owner_client.get(reverse("character_detail", args=[pasted.pk]))
    assert again.context["stat_block"] == block


def test_create_from_text_changed_since_it_was_read_reads_it_again_and_stores_nothing(
    owner_client,
):
    block = demo_block("player1-draft.json")
    changed = block.replace("Jory Kade", "Jory Kane")

    response = owner_client.post(
        URL, {"text": changed, "kind": "pc", "action": "create", "previewed": fingerprint(block)}
    )

    assert response.status_code == 200
    html = response.content.decode()
    assert "The text changed since it was read" in html
    assert "Jory Kane, 2 terms Merchants" in html
    assert Character.objects.count() == 0


def test_the_lines_not_read_are_listed_with_their_numbers_and_reasons(owner_client):
    block = demo_block("player1-draft.json").replace("Broker-2", "Broker two")

    html = owner_client.post(URL, {"text": block, "kind": "pc"}).content.decode()

    assert "Line 3:" in html
    assert "&#x27;Broker two&#x27; is not a skill in the rulebook&#x27;s notation" in html


def test_text_that_makes_no_character_is_refused_and_kept_in_the_box(owner_client):
    text = "Nothing to see here\nreally"

    response = owner_client.post(URL, {"text": text, "kind": "pc", "action": "create"})

    assert response.status_code == 400
    html = response.content.decode()
    assert "Stat block: nothing here reads as a character (below)." in html
    assert "No line gives the attributes" in html
    assert ">Nothing to see here\nreally</textarea>" in html
    assert Character.objects.count() == 0


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"text": "", "kind": "pc"}, "Stat block: paste the stat block&#x27;s text."),
        ({"text": "x" * 20_001, "kind": "pc"}, "Stat block: at most 20,000 characters"),
        ({"text": "A, 1 term Navy", "kind": "dragon"}, "Kind: choose a player character"),
    ],
)
def test_bad_input_gets_an_error_naming_its_field(owner_client, data, message):
    response = owner_client.post(URL, data)

    assert response.status_code == 400
    assert message in response.content.decode()
    assert Character.objects.count() == 0


def test_a_name_with_markup_is_shown_escaped(owner_client):
    block = demo_block("player1-draft.json").replace("Jory Kade", "<script>alert(1)</script>")

    html = owner_client.post(URL, {"text": block, "kind": "pc"}).content.decode()

    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_an_npc_pasted_is_budgeted_what_it_spends(owner_client):
    block = demo_block("player1-scout.json")

    owner_client.post(
        URL,
        {"text": block, "kind": "npc", "action": "create", "previewed": fingerprint(block, "npc")},
    )

    character = Character.objects.get()
    assert character.kind == "npc"
    assert character.budget == character.points_total


def test_the_draft_belongs_to_whoever_pasted_it(client):
    someone, other = UserFactory(), UserFactory()
    client.force_login(someone)
    block = demo_block("player1-draft.json")

    client.post(
        URL, {"text": block, "kind": "pc", "action": "create", "previewed": fingerprint(block)}
    )

    assert Character.objects.get().owner == someone
    assert not Character.objects.filter(owner=other).exists()


ARMED_NPC = """\
Raider, 0 terms
Age 22  987-777-771  Cr1,250  DEF 4 INI 3 MOV 7 TGH 3 LIF 24 WND 7
Skills: Brawling-1, Rifleman-1
Belongings: Cloth armor, SMG, 2 SMG magazines.
"""


def test_a_pasted_npc_keeps_its_credits_through_its_sheet_an_export_and_the_builder(
    owner_client, owner
):
    """The stat block's Cr1,250 is what the NPC has once armed, on its sheet, in its JSON
    (the belongings' price on top, given rather than rolled), imported back, and after a save
    from the builder."""
    owner_client.post(
        URL,
        {
            "text": ARMED_NPC,
            "kind": "npc",
            "action": "create",
            "previewed": fingerprint(ARMED_NPC, "npc"),
        },
    )
    npc = Character.objects.get()
    report = check(parse_document(npc.document))
    assert (report.equipment.credits_remaining, report.valid) == (1250, True)
    assert npc.document["mustering_out"] == {"credits": 1250 + report.equipment.cost}

    sheet = owner_client.get(reverse("character_detail", args=[npc.pk])).content.decode()
    assert f"spent Cr{report.equipment.cost:,}, left Cr1,250." in sheet
    assert "Cr1,250  DEF 4" in sheet

    exported = owner_client.get(reverse("character_export", args=[npc.pk]))
    upload = io.BytesIO(exported.content)
    upload.name = "raider.json"
    owner_client.post(reverse("character_import"), {"document": upload})
    imported = Character.objects.exclude(pk=npc.pk).get()
    assert imported.document["mustering_out"] == npc.document["mustering_out"]

    owner_client.post(
        reverse("character_edit", args=[npc.pk]), builder_post(npc, DEX="8", action="save")
    )
    npc.refresh_from_db()
    assert (npc.document["attributes"]["DEX"], npc.document["mustering_out"]) == (
        8,
        imported.document["mustering_out"],
    )
