"""Undoing the last change of a character's condition: a mistyped blow, a stun ended too soon, a
medical test recorded on the wrong wound. The undo puts the condition back exactly as it was,
is logged, and refuses when there is nothing to undo or the condition moved on another way."""

import pytest
from django.urls import reverse

from characters.builder import services as builder_services
from characters.core import services as core_services
from characters.models import Character, CharacterEvent, ConditionChange, PlayState
from characters.play import selectors as play_selectors
from characters.play import services as play_services
from characters.review import services as review_services
from tests.dice import Scripted
from tests.factories import UserFactory, medic_document

pytestmark = pytest.mark.django_db

Refused = core_services.Refused


@pytest.fixture
def mara(campaign, player, referee):
    character = builder_services.create_character(
        owner=player, document=medic_document(), campaign=campaign
    )
    review_services.submit_character(character=character, by=player)
    review_services.approve_character(character=character, by=referee)
    return Character.objects.get(pk=character.pk)


def stored(character):
    state = PlayState.objects.get(character=character)
    return state.condition, state.version


def play_log(character):
    return list(
        character.events.filter(kind=CharacterEvent.Kind.PLAY)
        .order_by("id")
        .values_list("detail", flat=True)
    )


def test_undoing_a_mistyped_blow_puts_the_condition_back_and_logs_the_undo(mara, player, referee):
    play_services.take_damage(character=mara, by=player, amount=3, form="S")
    before, _ = stored(mara)
    play_services.take_damage(character=mara, by=player, amount=7, form="L", rng=Scripted([2]))

    undone = play_services.undo_last_condition_change(character=mara, by=referee)

    condition, version = stored(mara)
    assert condition == before
    assert version == 4  # two blows and the undo
    assert undone.change.what == "Took 7 lethal damage"
    assert (undone.condition.stun, undone.condition.lethal, undone.version) == (3, 0, 4)
    assert undone.message == "Undone: Took 7 lethal damage."
    assert play_log(mara)[-1] == "Undone: Took 7 lethal damage."
    assert mara.events.order_by("id").last().actor == referee
    assert ConditionChange.objects.get(pk=undone.change.pk).undone_at is not None


def test_undoing_again_takes_back_the_change_before(mara, player):
    play_services.take_damage(character=mara, by=player, amount=3, form="S")
    play_services.take_damage(character=mara, by=player, amount=4, form="S")

    first = play_services.undo_last_condition_change(character=mara, by=player)
    second = play_services.undo_last_condition_change(character=mara, by=player)

    assert (first.change.what, second.change.what) == (
        "Took 4 stunning damage",
        "Took 3 stunning damage",
    )
    hurt = play_selectors.condition_of(mara)[0]
    assert (hurt.stun, hurt.lethal, hurt.wounds) == (0, 0, ())
    with pytest.raises(Refused, match="Nothing to undo"):
        play_services.undo_last_condition_change(character=mara, by=player)


def test_a_change_after_an_undo_is_the_next_one_undone(mara, player):
    play_services.take_damage(character=mara, by=player, amount=3, form="S")
    play_services.take_damage(character=mara, by=player, amount=9, form="S")
    play_services.undo_last_condition_change(character=mara, by=player)
    play_services.take_damage(character=mara, by=player, amount=5, form="S")

    assert play_services.undo_last_condition_change(character=mara, by=player).change.what == (
        "Took 5 stunning damage"
    )
    assert play_services.undo_last_condition_change(character=mara, by=player).change.what == (
        "Took 3 stunning damage"
    )


def test_nothing_to_undo_is_refused_and_writes_nothing(mara, player):
    with pytest.raises(Refused, match="Nothing to undo: no change of Mara Tolven's condition"):
        play_services.undo_last_condition_change(character=mara, by=player)

    assert not PlayState.objects.filter(character=mara).exists()
    assert play_log(mara) == []


def test_a_condition_changed_another_way_since_is_not_undone(mara, player):
    play_services.take_damage(character=mara, by=player, amount=3, form="S")
    state = PlayState.objects.get(character=mara)
    state.condition = {**state.condition, "stun": 5}  # as no change this app recorded
    state.save()

    with pytest.raises(Refused, match=r'"Took 3 stunning damage" cannot be undone: .* changed'):
        play_services.undo_last_condition_change(character=mara, by=player)

    assert stored(mara)[0]["stun"] == 5
    assert ConditionChange.objects.get(character=mara).undone_at is None
    assert play_log(mara) == ["Took 3 stunning damage."]


def test_an_undo_from_a_page_that_fell_behind_is_refused(mara, player, referee):
    play_services.take_damage(character=mara, by=player, amount=3, form="S", expected_version=1)
    play_services.take_damage(character=mara, by=referee, amount=2, form="S", expected_version=2)

    with pytest.raises(play_services.PlayConflict, match="nothing was undone"):
        play_services.undo_last_condition_change(character=mara, by=player, expected_version=2)

    assert stored(mara)[0]["stun"] == 5


def _stunned(mara, player):
    play_services.take_damage(character=mara, by=player, amount=13, form="S")


def _dying(mara, player):
    play_services.take_damage(character=mara, by=player, amount=25, form="L", rng=Scripted([]))


def _wounded(mara, player):
    play_services.take_damage(character=mara, by=player, amount=9, form="L", rng=Scripted([4]))


def _treated_and_healed(mara, player):
    _wounded(mara, player)
    medic = play_services.Medic(own=True)
    play_services.treat_wound(character=mara, by=player, wound=0, medic=medic, rng=Scripted([6, 6]))
    play_services.recover(character=mara, by=player, form="L", periods=10)


OWN = play_services.Medic(own=True)
CHANGES = {
    "end_stun": (_stunned, lambda m, p: play_services.end_stun(character=m, by=p)),
    "dying_turn": (_dying, lambda m, p: play_services.dying_turn(character=m, by=p)),
    "bleed": (_wounded, lambda m, p: play_services.bleed(character=m, by=p, wound=0)),
    "stabilise": (
        _wounded,
        lambda m, p: play_services.stabilise_wound(
            character=m, by=p, wound=0, medic=OWN, rng=Scripted([6, 6])
        ),
    ),
    "treat": (
        _wounded,
        lambda m, p: play_services.treat_wound(
            character=m, by=p, wound=0, medic=OWN, rng=Scripted([6, 6])
        ),
    ),
    "recover": (
        _stunned,
        lambda m, p: play_services.recover(character=m, by=p, form="S", periods=1),
    ),
    "clear": (
        _treated_and_healed,
        lambda m, p: play_services.clear_wound(character=m, by=p, wound=0),
    ),
}


@pytest.mark.parametrize("name", CHANGES)
def test_every_change_of_the_condition_can_be_undone(mara, player, name):
    prepare, change = CHANGES[name]
    prepare(mara, player)
    before, _ = stored(mara)
    change(mara, player)
    assert stored(mara)[0] != before

    play_services.undo_last_condition_change(character=mara, by=player)

    assert stored(mara)[0] == before


# -- on the play sheet --------------------------------------------------------------------------


def test_the_sheet_offers_to_undo_the_last_change_by_name(client, mara, player):
    client.force_login(player)
    url = reverse("character_play", args=[mara.pk])
    assert 'data-action="undo"' not in client.get(url).content.decode()
    play_services.take_damage(character=mara, by=player, amount=7, form="L", rng=Scripted([2]))

    page = client.get(url).content.decode()

    assert "Undo: Took 7 lethal damage" in page


def test_undo_without_javascript_lands_on_the_outcome_by_the_life_track(
    client, mara, player, referee
):
    play_services.take_damage(character=mara, by=player, amount=7, form="L", rng=Scripted([2]))
    client.force_login(referee)  # the referee may change the condition, so may undo

    response = client.post(
        reverse("character_condition_undo", args=[mara.pk]), {"play_version": "2"}
    )

    assert response.status_code == 302
    assert response.url.endswith("#outcome")
    page = client.get(response.url).content.decode()
    notice = page.index('id="outcome"')
    assert page.index('id="life-heading"') < notice < page.index("<h3>Wounds</h3>")
    assert "Undone: Took 7 lethal damage." in page[notice : notice + 300]
    assert play_selectors.condition_of(mara)[0].lethal == 0


def test_undo_with_htmx_returns_the_play_region(client, mara, player):
    play_services.take_damage(character=mara, by=player, amount=4, form="S")
    client.force_login(player)

    response = client.post(
        reverse("character_condition_undo", args=[mara.pk]),
        {"play_version": "2"},
        HTTP_HX_REQUEST="true",
    )

    page = response.content.decode()
    assert page.lstrip().startswith('<div id="play"')
    assert "Undone: Took 4 stunning damage." in page
    assert 'data-action="undo"' not in page  # nothing left to undo


def test_an_undo_without_the_pages_version_is_refused_with_the_fields_name(client, mara, player):
    play_services.take_damage(character=mara, by=player, amount=4, form="S")
    client.force_login(player)

    response = client.post(
        reverse("character_condition_undo", args=[mara.pk]), {}, HTTP_HX_REQUEST="true"
    )

    assert "Version" in response.content.decode()
    assert play_selectors.condition_of(mara)[0].stun == 4


def test_someone_who_may_not_see_the_character_cannot_undo(client, mara, player):
    play_services.take_damage(character=mara, by=player, amount=4, form="S")
    client.force_login(UserFactory())

    response = client.post(
        reverse("character_condition_undo", args=[mara.pk]), {"play_version": "2"}
    )

    assert response.status_code == 404
    assert play_selectors.condition_of(mara)[0].stun == 4


def test_a_player_cannot_undo_the_blow_the_referee_recorded(client, mara, player, referee):
    play_services.take_damage(character=mara, by=referee, amount=7, form="L", rng=Scripted([2]))
    blown, version = stored(mara)

    with pytest.raises(Refused) as refused:
        play_services.undo_last_condition_change(character=mara, by=player)

    assert str(refused.value) == (
        '"Took 7 lethal damage" was recorded by the referee: only the referee can undo it.'
    )
    assert stored(mara) == (blown, version)
    client.force_login(player)
    page = client.get(reverse("character_play", args=[mara.pk])).content.decode()
    assert 'data-action="undo"' not in page
    assert "was recorded by the referee: only the referee can undo it." in page


def test_the_referee_undoes_what_the_player_recorded(mara, player, referee):
    play_services.take_damage(character=mara, by=player, amount=7, form="L", rng=Scripted([2]))

    undone = play_services.undo_last_condition_change(character=mara, by=referee)

    assert undone.change.actor == player
    assert stored(mara)[0]["lethal"] == 0


def test_only_whoever_recorded_a_change_or_the_referee_undoes_it(mara, player, referee):
    other_player = UserFactory()
    play_services.take_damage(character=mara, by=referee, amount=7, form="L", rng=Scripted([2]))
    play_services.take_damage(character=mara, by=other_player, amount=1, form="S")

    with pytest.raises(Refused, match=f"recorded by {other_player.get_username()}: only they"):
        play_services.undo_last_condition_change(character=mara, by=player)

    assert play_services.undo_last_condition_change(character=mara, by=other_player).change.what
