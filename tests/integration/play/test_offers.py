"""The play sheet offers only what can be done: a character that cannot act is told why
instead of being offered the dice, and "Raise a skill" leaves out skills at their cap."""

import pytest
from django.urls import reverse

from characters.builder import services as builder_services
from characters.core.selectors import character_report
from characters.play import services as play_services
from tests.dice import Scripted
from tests.factories import medic_document

pytestmark = pytest.mark.django_db


@pytest.fixture
def mara(player):
    return builder_services.create_character(owner=player, document=medic_document())


def play_page(client, character) -> str:
    return client.get(reverse("character_play", args=[character.pk])).content.decode()


def refusal_to_throw(character, by) -> str:
    plan = play_services.TestPlan(attribute="DEX", tn=4)
    with pytest.raises(play_services.Refused) as refused:
        play_services.roll_action_test(character=character, by=by, plan=plan)
    return str(refused.value)


@pytest.mark.parametrize(("amount", "form"), [(30, "L"), (13, "S")], ids=["unconscious", "stunned"])
def test_a_character_that_cannot_act_is_told_why_instead_of_offered_the_dice(
    client, mara, player, amount, form
):
    client.force_login(player)
    assert 'data-action="roll"' in play_page(client, mara)
    play_services.take_damage(character=mara, by=player, amount=amount, form=form, rng=Scripted([]))

    page = play_page(client, mara)

    assert 'data-action="roll"' not in page
    assert 'id="odds"' not in page
    assert f'<p class="text-alert" data-cannot-act>{refusal_to_throw(mara, player)}</p>' in page


def the_select(page: str, marker: str) -> str:
    """The options of the select that ``marker`` (an attribute of its tag) picks out."""
    start = page.index(marker)
    return page[start : page.index("</select>", start)]


def capped_medic(player, capped: tuple[str, ...], others: tuple[dict, ...] = ()):
    """A medic with the skills ``capped`` at the highest level allowed (and ``others``), and
    that level."""
    probe = builder_services.create_character(owner=player, document=medic_document())
    cap = character_report(probe).skills.max_level
    skills = [{"skill": name, "level": cap} for name in capped] + list(others)
    medic = builder_services.create_character(
        owner=player, document=medic_document(name="Capped Medic", skills=skills)
    )
    return medic, cap


def test_raise_a_skill_leaves_out_a_skill_at_its_cap_and_says_why(client, player):
    capped, cap = capped_medic(player, ("Medical",), ({"skill": "Pilot", "level": 1},))
    client.force_login(player)

    page = play_page(client, capped)

    select = the_select(page, 'id="spend-skill"')
    assert "Pilot-1" in select
    assert "Medical" not in select
    assert (
        f'data-capped="Medical-{cap}">Medical-{cap}: Medical-{cap + 1} is above the maximum' in page
    )


def test_when_every_skill_is_at_its_cap_the_page_says_so_and_folds_the_list_of_them(client, player):
    capped, cap = capped_medic(player, ("Medical", "Pilot"))
    client.force_login(player)

    page = play_page(client, capped)

    assert 'id="spend-skill"' not in page
    assert "Every skill is at its cap." in page
    folded = page[page.index('<details class="hint" data-capped-skills>') :]
    folded = folded[: folded.index("</details>")]
    # The automatic skills (native language and the like) are at the cap too.
    assert (
        f"<summary>Not listed: {folded.count('data-capped=')} skills at the cap</summary>" in folded
    )
    assert f'data-capped="Medical-{cap}"' in folded
    assert f'data-capped="Pilot-{cap}"' in folded


def test_add_a_specialty_offers_only_specialties_of_skills_at_the_level_that_takes_one(
    client, player
):
    skills = [{"skill": "Handgun", "level": 1}, {"skill": "Rifleman", "level": 2}]
    shooter = builder_services.create_character(
        owner=player, document=medic_document(name="Shooter", skills=skills)
    )
    client.force_login(player)

    page = play_page(client, shooter)

    select = the_select(page, 'name="specialty"')
    assert "Rifleman: rifle" in select
    # Handgun-1 cannot take one: the engine would refuse it, so it is not offered.
    assert "Handgun:" not in select
