"""The sheet's mustering-out line: the dice rolled, each read as the character stands now, and
the cash they come to now; not the DM and credits written down when the dice were thrown."""

import random
import re

import pytest
from django.urls import reverse

from characters.builder import services as builder_services
from characters.core.selectors import character_report
from rules.wording import credits
from tests.factories import character_document

pytestmark = pytest.mark.django_db


def sheet(client, character) -> str:
    return client.get(reverse("character_detail", args=[character.pk])).content.decode()


def mustering_line(page: str) -> str:
    """The mustering-out rolls of the sheet page, its markup left out."""
    start = page.index("<div data-mustering>")
    return " ".join(re.sub(r"<[^>]+>", " ", page[start : page.index("</div>", start)]).split())


@pytest.fixture
def rolled(owner):
    character = builder_services.create_character(
        owner=owner,
        document=character_document(
            name="Mara", service="scouts", terms=2, skills=[{"skill": "Pilot", "level": 1}]
        ),
    )
    builder_services.roll_mustering_out(character=character, by=owner, rng=random.Random(3))
    character.refresh_from_db()
    return character


def test_the_line_names_each_die_and_reads_it_as_the_character_stands_now(owner_client, rolled):
    rolled_then = list(rolled.mustering_rolls.all())
    assert {roll.modifier for roll in rolled_then} == {0}
    # Gambling-1 gives +1 on every cash roll from now on; the dice stay as thrown.
    builder_services.save_character(
        character=rolled,
        document=rolled.document
        | {"skills": [{"skill": "Pilot", "level": 1}, {"skill": "Gambling", "level": 1}]},
        expected_version=rolled.version,
    )
    rolled.refresh_from_db()
    now = character_report(rolled).mustering_out

    line = mustering_line(sheet(owner_client, rolled))

    assert [roll.die for roll in now.rolls] == [roll.die for roll in rolled_then]
    assert f"made {rolled_then[0].rolled_at:%Y-%m-%d} (scouts, 2 terms)" in line
    readings = " ".join(
        f"Die {r.die}: DM +1, row {r.row} → {credits(r.credits)}" for r in now.rolls
    )
    assert f"each die as it reads now: {readings} Total now {credits(now.credits)} ." in line
    assert now.credits != sum(roll.credits for roll in rolled_then)


def test_a_die_that_no_longer_counts_is_named_and_left_out_of_the_total(owner_client, rolled):
    builder_services.save_character(
        character=rolled, document=rolled.document | {"terms": 1}, expected_version=rolled.version
    )
    rolled.refresh_from_db()
    now = character_report(rolled).mustering_out
    dice = rolled.document["mustering_out"]["rolls"]

    line = mustering_line(sheet(owner_client, rolled))

    assert f"Die {dice[1]}: does not count now Total now {credits(now.credits)} ." in line
    assert now.credits == now.rolls[0].credits


def test_dice_from_an_imported_document_read_the_same_way(owner_client, owner):
    document = character_document(
        name="Imported", service="scouts", terms=2, mustering_out={"rolls": [3, 6]}
    )
    character = builder_services.create_character(owner=owner, document=document)
    now = character_report(character).mustering_out

    line = mustering_line(sheet(owner_client, character))

    assert "Cash rolls from an imported document, each die as it reads now: Die 3: DM +0" in line
    assert f"Total now {credits(now.credits)} ." in line
