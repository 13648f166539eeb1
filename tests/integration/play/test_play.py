"""In play: damage and healing, action tests, improvement points and credits, through the
services and the play sheet. Who may reach which URL is in test_access_matrix.py."""

import re
import shutil
import subprocess

import pytest
from django.urls import reverse

import rules
from characters.builder import form_document
from characters.builder import services as builder_services
from characters.campaigns import services as campaigns_services
from characters.core import dice as server_dice
from characters.core import selectors as core_selectors
from characters.core import services as core_services
from characters.core.equipment import item_key
from characters.models import (
    Character,
    CharacterEvent,
    CreditEntry,
    DiceRoll,
    ImprovementEntry,
    PlayState,
    Revision,
)
from characters.play import selectors as play_selectors
from characters.play import services as play_services
from characters.review import services as review_services
from rules import (
    BuyOffFlaw,
    RaiseAttribute,
    RaiseSkill,
    carried_load,
    check_document,
    effective,
    parse_document,
)
from tests.ci import running_in_ci
from tests.dice import Scripted
from tests.factories import UserFactory, medic_document

pytestmark = pytest.mark.django_db

Refused = core_services.Refused


@pytest.fixture
def mara(campaign, player, referee):
    """Approved in the campaign, as characters are in play."""
    character = builder_services.create_character(
        owner=player, document=medic_document(), campaign=campaign
    )
    review_services.submit_character(character=character, by=player)
    review_services.approve_character(character=character, by=referee)
    return Character.objects.get(pk=character.pk)


def condition(character):
    return play_selectors.condition_of(character)[0]


def version(character):
    return play_selectors.condition_of(character)[1]


# -- damage and wounds ---------------------------------------------------------------------------


def test_lethal_damage_makes_a_wound_that_lowers_the_body_attributes_and_def(mara, referee):
    result = play_services.take_damage(
        character=mara, by=referee, amount=9, form="L", expected_version=1, rng=Scripted([4])
    )

    assert [e.code for e in result.events] == ["wound", "bleeds"]
    assert result.events[1].message == "It bleeds 1 LIF every day for 4 days."
    hurt = condition(mara)
    assert (hurt.lif, hurt.lethal) == (14, 9)
    assert hurt.wounds[0].severity == "light"  # 9 damage: up to 2 x WND 6
    summary = play_selectors.summary(mara)
    now = {code: value for code, value, _ in summary["derived_now"]}
    base = {code: value for code, _, value in summary["derived_now"]}
    assert now["DEF"] < base["DEF"]  # body attributes -2 until treated
    assert (now["LIF"], now["TGH"], now["WND"]) == (base["LIF"], base["TGH"], base["WND"])
    assert summary["states"] == [("bleeding", "Bleeding"), ("wounded", "Wounded")]
    assert version(mara) == 2
    event = mara.events.filter(kind=CharacterEvent.Kind.PLAY).get()
    assert event.actor == referee
    assert ("Took 9 lethal damage" in event.detail, "A light wound" in event.detail) == (True, True)


def test_the_sheet_says_unhurt_hurt_or_wounded(mara, player):
    assert play_selectors.summary(mara)["states"] == [("ok", "Unhurt")]
    play_services.take_damage(character=mara, by=player, amount=5, form="S")
    assert play_selectors.summary(mara)["states"] == [("ok", "Hurt, but fit to act")]
    play_services.take_damage(character=mara, by=player, amount=4, form="L")  # superficial
    assert play_selectors.summary(mara)["states"] == [("ok", "Hurt, but fit to act")]


def test_blunt_damage_is_reduced_by_armor_and_toughness_from_the_report(mara, player):
    play_services.take_damage(
        character=mara, by=player, amount=9, form="S", damage_type="B", armor=2, expected_version=1
    )

    # TGH 3 and armor 2: 4 stunning reach LIF.
    assert (condition(mara).stun, condition(mara).lethal) == (4, 0)


def test_a_stale_page_cannot_record_over_a_newer_condition(mara, player, referee):
    play_services.take_damage(character=mara, by=referee, amount=5, form="S", expected_version=1)
    before = PlayState.objects.get(character=mara)

    with pytest.raises(play_services.PlayConflict, match="changed since this page was loaded"):
        play_services.take_damage(character=mara, by=player, amount=5, form="L", expected_version=1)

    after = PlayState.objects.get(character=mara)
    assert (after.version, after.condition) == (before.version, before.condition)
    assert mara.events.filter(kind=CharacterEvent.Kind.PLAY).count() == 1


def test_two_blows_recorded_one_after_the_other_both_count(mara, player, referee):
    play_services.take_damage(character=mara, by=referee, amount=3, form="L", expected_version=1)
    play_services.take_damage(character=mara, by=player, amount=4, form="L", expected_version=2)

    assert condition(mara).lethal == 7
    assert len(condition(mara).wounds) == 2


def test_stunning_the_character_and_ending_the_stun(mara, player):
    result = play_services.take_damage(character=mara, by=player, amount=13, form="S")
    assert "stunned" in [e.code for e in result.events]  # above half of LIF 23, rounded up
    assert play_selectors.summary(mara)["derived_now"][0][1] == 1  # DEF 1 while stunned

    with pytest.raises(Refused, match="stunned and cannot act"):
        play_services.roll_action_test(
            character=mara, by=player, plan=play_services.TestPlan(attribute="DEX", tn=4)
        )
    play_services.end_stun(character=mara, by=player)
    assert not condition(mara).stunned
    with pytest.raises(Refused, match="not stunned"):
        play_services.end_stun(character=mara, by=player)


def test_a_dying_character_loses_lif_each_turn_until_dead(mara, player):
    play_services.take_damage(character=mara, by=player, amount=25, form="L")
    assert (condition(mara).dying, condition(mara).lif) == (True, -2)

    result = play_services.dying_turn(character=mara, by=player)

    assert condition(mara).lif == -3
    assert "dying_loss" in [e.code for e in result.events]
    play_services.take_damage(character=mara, by=player, amount=30, form="L")
    assert condition(mara).dead
    with pytest.raises(Refused, match="not dying"):
        play_services.dying_turn(character=mara, by=player)


def test_bleeding_costs_the_wounds_additional_damage(mara, player):
    play_services.take_damage(character=mara, by=player, amount=9, form="L")

    play_services.bleed(character=mara, by=player, wound=0)

    assert condition(mara).wounds[0].lethal == 10
    with pytest.raises(Refused, match="no longer on the sheet"):
        play_services.bleed(character=mara, by=player, wound=3)


def test_a_light_wound_bleeds_on_the_days_thrown_and_then_the_sheet_offers_no_bleed(
    client, mara, player
):
    play_services.take_damage(character=mara, by=player, amount=9, form="L", rng=Scripted([2]))
    client.force_login(player)
    url = reverse("character_play", args=[mara.pk])
    assert "<span data-bleed-left>2 days</span> left" in client.get(url).content.decode()

    first = play_services.bleed(character=mara, by=player, wound=0)
    assert "It bleeds for 1 day more." in first.message
    assert "<span data-bleed-left>1 day</span> left" in client.get(url).content.decode()
    play_services.bleed(character=mara, by=player, wound=0)
    before = PlayState.objects.get(character=mara)
    with pytest.raises(Refused, match="light wound has bled the 2 days it was to bleed"):
        play_services.bleed(character=mara, by=player, wound=0)

    assert PlayState.objects.get(character=mara).condition == before.condition
    assert condition(mara).wounds[0].lethal == 11
    html = client.get(url).content.decode()
    assert 'data-action="bleed"' not in html
    assert '<td data-label="State" data-care="stopped"><span>Stopped bleeding' in html
    assert 'data-state="bleeding"' not in html
    # The sheet page says the same.
    sheet = client.get(reverse("character_detail", args=[mara.pk])).content.decode()
    assert '<span data-care="stopped">stopped bleeding</span>' in sheet


def test_a_blow_on_the_sheet_throws_the_light_wounds_days_with_the_servers_dice(
    client, mara, player, monkeypatch
):
    monkeypatch.setattr(server_dice, "dice_source", lambda: Scripted([5]))
    client.force_login(player)
    client.post(
        reverse("character_condition", args=[mara.pk]),
        {"action": "damage", "amount": "9", "form": "L", "play_version": "1"},
    )
    assert condition(mara).wounds[0].bleed_periods == 5


def test_a_wound_stored_before_its_days_were_counted_bleeds_until_stabilised(client, mara, player):
    light = {"severity": "light", "damage": 9, "lethal": 9, "stabilised": False, "treated": False}
    PlayState.objects.create(
        character=mara,
        condition={"maximum": 23, "wnd": 6, "stun": 0, "lethal": 9, "wounds": [light]},
    )
    for _ in range(7):
        play_services.bleed(character=mara, by=player, wound=0)

    client.force_login(player)
    html = client.get(reverse("character_play", args=[mara.pk])).content.decode()
    assert condition(mara).wounds[0].lethal == 16
    assert 'data-action="bleed"' in html
    assert "until stabilised" in html


def test_a_stabilised_wound_is_refused_a_bleed_and_nothing_is_written(mara, player):
    play_services.take_damage(character=mara, by=player, amount=9, form="L")
    play_services.stabilise_wound(
        character=mara,
        by=player,
        wound=0,
        medic=play_services.Medic(own=True),
        rng=Scripted([3, 2]),
    )
    before = PlayState.objects.get(character=mara)

    with pytest.raises(Refused, match="light wound is stabilised: it does not bleed"):
        play_services.bleed(character=mara, by=player, wound=0)

    after = PlayState.objects.get(character=mara)
    assert (after.version, after.condition) == (before.version, before.condition)
    assert play_selectors.wound_notes(condition(mara))[0]["bleeds"] is False


# -- stabilisation, treatment, recovery ----------------------------------------------------------


def test_the_character_stabilises_its_own_wound_with_its_medical_skill(mara, player, campaign):
    play_services.take_damage(character=mara, by=player, amount=9, form="L")

    result = play_services.stabilise_wound(
        character=mara,
        by=player,
        wound=0,
        medic=play_services.Medic(own=True, attribute="EDU"),
        supplies="kit",
        rng=Scripted([3, 2]),
    )

    roll = result.roll
    # Medical-2: 2DH; EDU 9 is a mind... no, a background attribute: DM +1, untouched by the
    # light wound; a medical kit +2; TN 4 for a light wound.
    assert (roll.kind, roll.dice, roll.result) == ("skill", [3, 2], 3)
    assert (roll.attribute_dm, roll.dm, roll.tn, roll.total) == (1, 2, 4, 6)
    assert (roll.success, roll.effect) == (True, 2)
    assert (roll.label, roll.campaign) == ("Medical-2 EDU", campaign)
    assert condition(mara).wounds[0].stabilised
    assert [e.code for e in result.events] == ["test", "stabilised"]


def test_another_medic_treats_the_wound_and_heals_its_effect_number(mara, referee):
    play_services.take_damage(character=mara, by=referee, amount=9, form="L")

    play_services.treat_wound(
        character=mara,
        by=referee,
        wound=0,
        medic=play_services.Medic(own=False, skill_level=3, attribute_dm=1),
        supplies="ample",
        tl=12,
        rng=Scripted([6, 2, 5]),
    )

    # 3DH: 6; attribute DM +1; sick bay at TL 12: +7; TN 4: EN 10, all 9 points healed.
    treated = condition(mara)
    assert (treated.wounds[0].treated, treated.wounds[0].lethal) == (True, 0)
    assert treated.lif == 23
    roll = DiceRoll.objects.get(character=mara)
    assert (roll.total, roll.effect, roll.label) == (14, 10, "A medic's Medical-3")


@pytest.mark.parametrize(
    ("species", "xeno_medicine", "dm", "total"),
    [(None, None, 0, 14), ("vargr", None, -2, 12), ("vargr", 1, -1, 13), ("aslan", None, -2, 12)],
)
def test_another_medic_of_another_species_takes_xeno_medicines_dm(
    mara, referee, species, xeno_medicine, dm, total
):
    play_services.take_damage(character=mara, by=referee, amount=9, form="L")

    play_services.treat_wound(
        character=mara,
        by=referee,
        wound=0,
        medic=play_services.Medic(
            own=False,
            skill_level=3,
            attribute_dm=1,
            species=species,
            xeno_medicine=xeno_medicine,
        ),
        supplies="ample",
        tl=12,
        rng=Scripted([6, 2, 5]),
    )

    # As above, 14 for a human medic; a human patient is -2 for a medic of any other species.
    roll = DiceRoll.objects.get(character=mara)
    assert roll.total == total
    assert (f"Xeno Medicine DM {dm:+d}" in roll.label) == bool(dm)


def test_the_play_sheet_asks_another_medics_species_and_xeno_medicine(client, mara, player):
    play_services.take_damage(character=mara, by=player, amount=9, form="L")
    client.force_login(player)
    url = reverse("character_condition", args=[mara.pk])
    fields = {
        "action": "stabilise",
        "wound": "0",
        "medic": "other",
        "medic_level": "2",
        "medic_species": "vargr",
        "play_version": str(version(mara)),
    }

    page = client.get(reverse("character_play", args=[mara.pk])).content.decode()
    client.post(url, fields, follow=True)

    assert 'name="medic_species"' in page
    assert 'name="medic_xeno"' in page
    assert "Xeno Medicine DM -2" in DiceRoll.objects.get(character=mara).label


def test_a_treated_healed_wound_is_cleared_with_one_click(mara, player):
    play_services.take_damage(character=mara, by=player, amount=9, form="L")
    play_services.treat_wound(
        character=mara,
        by=player,
        wound=0,
        medic=play_services.Medic(own=True),
        rng=Scripted([2, 1]),  # result 2 +1 +2 = 5 vs TN 4: EN 1
    )
    assert condition(mara).wounds[0].lethal == 8
    with pytest.raises(Refused, match="Only a treated, healed wound"):
        play_services.clear_wound(character=mara, by=player, wound=0)

    # A week of natural healing heals END DV 3 lethal points: three weeks heal the rest.
    play_services.recover(character=mara, by=player, form="L", periods=3)
    assert condition(mara).wounds[0].lethal == 0

    play_services.clear_wound(character=mara, by=player, wound=0)
    assert condition(mara).wounds == ()


def test_a_superficial_wound_needs_no_treatment(mara, player):
    play_services.take_damage(character=mara, by=player, amount=4, form="L")
    with pytest.raises(Refused, match="needs no treatment"):
        play_services.treat_wound(
            character=mara, by=player, wound=0, medic=play_services.Medic(own=True)
        )


def test_an_unconscious_character_cannot_treat_itself(mara, player):
    play_services.take_damage(character=mara, by=player, amount=23, form="L")
    with pytest.raises(Refused, match="unconscious and cannot give medical aid"):
        play_services.stabilise_wound(
            character=mara, by=player, wound=0, medic=play_services.Medic(own=True)
        )
    assert not DiceRoll.objects.exists()


def test_a_new_lif_maximum_keeps_the_recorded_damage(mara, player):
    play_services.take_damage(character=mara, by=player, amount=9, form="L")
    document = dict(mara.document, attributes={**mara.document["attributes"], "END": 9})
    Character.objects.filter(pk=mara.pk).update(document=document)
    mara.refresh_from_db()

    raised = condition(mara)
    assert raised.maximum == check_document(document).derived.LIF > 23
    assert raised.lethal == 9


# -- action tests --------------------------------------------------------------------------------


def test_an_action_test_uses_the_skill_level_and_the_wounded_attribute_dm(mara, player, campaign):
    plan = play_services.TestPlan(attribute="DEX", tn=6, dm=1, skill="Pilot")
    fit = play_services.plan_test(mara, plan)
    assert (fit.label, fit.skill_level, fit.attribute_dm, fit.kind) == (
        "Pilot-1 DEX",
        1,
        1,
        "skill",
    )
    play_services.take_damage(character=mara, by=player, amount=9, form="L")
    wounded = play_services.plan_test(mara, plan)
    assert wounded.attribute_dm == 0  # DEX 9 - 2 = 7: DM +0
    assert wounded.chance < fit.chance

    roll = play_services.roll_action_test(
        character=mara, by=player, plan=plan, purpose="Land the cutter", rng=Scripted([6])
    )

    assert (roll.dice, roll.result, roll.total, roll.effect) == ([6], 6, 7, 1)
    assert (roll.success, roll.fumble, roll.exceptional) == (True, False, False)
    assert roll.chance == pytest.approx(float(wounded.chance))
    assert (roll.campaign, roll.actor, roll.purpose) == (campaign, player, "Land the cutter")
    event = mara.events.get(kind=CharacterEvent.Kind.DICE)
    assert "Pilot-1 DEX (Land the cutter): threw 6" in event.detail


@pytest.mark.parametrize(
    ("plan", "faces", "kind", "result"),
    [
        # Unskilled: 2DL.
        (play_services.TestPlan(attribute="INT", tn=4, skill="Navigation"), [5, 2], "unskilled", 2),
        # An attribute test: 2DH, extra sixes add one.
        (play_services.TestPlan(attribute="STR", tn=4), [6, 6], "attribute", 7),
    ],
)
def test_unskilled_and_attribute_tests_throw_the_rulebooks_dice(
    mara, player, plan, faces, kind, result
):
    roll = play_services.roll_action_test(character=mara, by=player, plan=plan, rng=Scripted(faces))
    assert (roll.kind, roll.result) == (kind, result)


def test_a_fumble_and_an_exceptional_success_are_read_from_the_dice(mara, player):
    plan = play_services.TestPlan(attribute="EDU", tn=2, dm=5, skill="Medical")
    fumble = play_services.roll_action_test(
        character=mara, by=player, plan=plan, rng=Scripted([1, 1])
    )
    assert (fumble.fumble, fumble.success) == (True, True)  # a fumble is read from the dice alone
    best = play_services.roll_action_test(
        character=mara, by=player, plan=plan, rng=Scripted([6, 3])
    )
    assert (best.exceptional, best.effect) == (True, 10)


def test_a_test_plan_names_a_real_skill_and_attribute(mara):
    with pytest.raises(Refused, match="not a skill"):
        play_services.plan_test(mara, play_services.TestPlan(attribute="DEX", tn=4, skill="Jedi"))
    with pytest.raises(Refused, match="governing attribute"):
        play_services.plan_test(mara, play_services.TestPlan(attribute="LUCK", tn=4))


# -- improvement points --------------------------------------------------------------------------


def ip(character):
    return play_selectors.ip_balance(character)


def test_only_the_referee_awards_improvement_points_and_says_why(mara, player, referee):
    with pytest.raises(Refused, match="Only the referee"):
        play_services.award_improvement_points(character=mara, by=player, amount=5, reason="Me")
    with pytest.raises(Refused, match="what the improvement points are for"):
        play_services.award_improvement_points(character=mara, by=referee, amount=5, reason=" ")

    play_services.award_improvement_points(
        character=mara, by=referee, amount=5, reason="Rescued the duke's courier"
    )

    assert ip(mara) == 5
    assert "Awarded 5 IP: Rescued the duke's courier" in mara.events.get(kind="ip").detail


def test_a_purchase_costs_the_new_level_times_five_and_changes_the_approved_character(
    mara, player, referee
):
    play_services.award_improvement_points(character=mara, by=referee, amount=12, reason="Tour")
    revisions = mara.revisions.count()

    entry = play_services.spend_improvement_points(
        character=mara, by=player, purchase=RaiseSkill("Pilot", None, 2)
    )

    mara.refresh_from_db()
    assert (entry.kind, entry.cost, entry.amount) == ("purchase", 10, -10)
    assert entry.description == "Pilot-1 → Pilot-2"
    assert ip(mara) == 2
    assert {"skill": "Pilot", "level": 2} in mara.document["skills"]
    assert mara.status == Character.Status.APPROVED  # a sanctioned change: still approved
    assert mara.version == 2
    # The creation points stay balanced: the budget grows by what the purchase added.
    assert entry.points_added == 1
    assert (mara.document["budget"], mara.budget_added) == (101, 1)
    report = core_selectors.character_report(mara)
    assert (report.points.budget, report.points.remaining) == (101, 67)
    revision = mara.revisions.order_by("-number").first()
    assert mara.revisions.count() == revisions + 1
    assert (revision.action, revision.author) == ("Improvement: Pilot-1 → Pilot-2", player)
    assert revision.summary == "Budget 100 → 101; Pilot-1 → Pilot-2"
    assert entry.revision == revision


def test_a_purchase_beyond_the_creation_caps_is_refused_with_the_engines_words(
    mara, player, referee
):
    play_services.award_improvement_points(character=mara, by=referee, amount=100, reason="Epic")
    before = (Character.objects.get(pk=mara.pk).document, Revision.objects.count())

    with pytest.raises(Refused, match=r"Pilot-5 is above the maximum skill level 4"):
        play_services.spend_improvement_points(
            character=mara, by=player, purchase=RaiseSkill("Pilot", None, 5)
        )

    assert (Character.objects.get(pk=mara.pk).document, Revision.objects.count()) == before
    assert ip(mara) == 100
    assert not mara.improvement_entries.filter(kind="purchase").exists()


def test_a_purchase_the_balance_does_not_cover_is_refused(mara, player, referee):
    play_services.award_improvement_points(character=mara, by=referee, amount=4, reason="Tour")
    with pytest.raises(Refused, match=r"Medical-2 → Medical-3 costs 15 IP, but Mara Tolven has 4"):
        play_services.spend_improvement_points(
            character=mara, by=player, purchase=RaiseSkill("Medical", None, 3)
        )
    with pytest.raises(Refused, match="Only the player who owns"):
        play_services.spend_improvement_points(
            character=mara, by=referee, purchase=RaiseSkill("Pilot", None, 2)
        )


def test_buying_off_a_flaw_waits_for_the_referees_permission(mara, player, referee):
    play_services.award_improvement_points(character=mara, by=referee, amount=5, reason="Tour")

    request = play_services.spend_improvement_points(
        character=mara, by=player, purchase=BuyOffFlaw(1)
    )

    assert (request.kind, request.state, request.cost, request.amount) == (
        "request",
        "pending",
        2,
        0,
    )
    assert (ip(mara), len(Character.objects.get(pk=mara.pk).document["traits"])) == (5, 2)
    with pytest.raises(Refused, match="Only the referee"):
        play_services.decide_request(entry=request, by=player, approve=True)

    bought = play_services.decide_request(entry=request, by=referee, approve=True)

    request.refresh_from_db()
    assert (request.state, bought.request) == ("approved", request)
    assert ip(mara) == 3
    logged = mara.events.filter(kind=CharacterEvent.Kind.IP).order_by("pk").last()
    assert logged.actor == referee
    assert logged.detail == f"Approved the request. Spent 2 IP: {request.description}."
    mara.refresh_from_db()
    assert [t["name"] for t in mara.document["traits"]] == ["Keen eyes"]
    assert mara.document["budget"] == 102  # the flaw's -2 no longer offsets the total
    with pytest.raises(Refused, match="already decided"):
        play_services.decide_request(entry=request, by=referee, approve=False)


def test_a_flaw_of_the_species_package_can_be_bought_off_from_the_play_sheet(
    client, campaign, player, referee
):
    vargr = builder_services.create_character(
        owner=player,
        document=medic_document(
            name="Ksogh",
            species="vargr",
            attributes={**medic_document()["attributes"], "STR": 9, "END": 9, "DEX": 7},
        ),
        campaign=campaign,
    )
    review_services.submit_character(character=vargr, by=player)
    review_services.approve_character(character=vargr, by=referee)
    play_services.award_improvement_points(character=vargr, by=referee, amount=5, reason="Tour")
    client.force_login(player)
    sheet = client.get(reverse("character_play", args=[vargr.pk])).content.decode()
    assert '<option value="package:Racial pride">Racial pride (Vargr package) (2 IP)' in sheet

    client.post(
        reverse("character_ip_spend", args=[vargr.pk]),
        {"purchase": "buy_off_flaw", "trait": "package:Racial pride"},
    )
    request = ImprovementEntry.objects.get(character=vargr, kind="request")
    assert (request.state, request.cost) == ("pending", 2)
    play_services.decide_request(entry=request, by=referee, approve=True)

    vargr.refresh_from_db()
    assert vargr.document["package_flaws_bought_off"] == ["Racial pride"]
    assert vargr.document["budget"] == 102
    assert ip(vargr) == 3
    # The builder keeps what it does not edit.
    form = form_document.form_from_document(vargr.document)
    rebuilt = form_document.document_from_form(form, base=vargr.document).document
    assert rebuilt["package_flaws_bought_off"] == ["Racial pride"]


def test_the_play_sheet_opens_for_a_draft_whose_attributes_are_out_of_range(client, player):
    attributes = {**medic_document()["attributes"], "STR": -33}
    draft = builder_services.create_character(
        owner=player, document=medic_document(attributes=attributes)
    )
    client.force_login(player)
    assert client.get(reverse("character_play", args=[draft.pk])).status_code == 200


def test_the_referee_declines_and_the_player_withdraws_requests(mara, player, referee):
    play_services.award_improvement_points(character=mara, by=referee, amount=10, reason="Tour")
    first = play_services.spend_improvement_points(
        character=mara, by=player, purchase=RaiseSkill("Navigation", None, 1)
    )
    second = play_services.spend_improvement_points(
        character=mara, by=player, purchase=BuyOffFlaw(1)
    )

    play_services.decide_request(entry=first, by=referee, approve=False, comment="Not yet")
    play_services.decide_request(entry=second, by=player, approve=False)

    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.state, first.reason) == ("declined", "Declined: Not yet")
    assert (second.state, second.reason) == ("declined", "Withdrawn by the player.")
    assert ip(mara) == 10


def test_the_referee_prices_an_attribute_raise_on_approval(mara, player, referee):
    play_services.award_improvement_points(character=mara, by=referee, amount=20, reason="Tour")
    request = play_services.spend_improvement_points(
        character=mara, by=player, purchase=RaiseAttribute("STR", 8)
    )
    assert request.cost is None

    with pytest.raises(Refused, match="Set the IP cost"):
        play_services.decide_request(entry=request, by=referee, approve=True)
    bought = play_services.decide_request(entry=request, by=referee, approve=True, ip=15)

    assert (bought.cost, ip(mara)) == (15, 5)
    assert Character.objects.get(pk=mara.pk).document["attributes"]["STR"] == 8


def test_a_campaigns_budget_counts_the_points_bought_with_ip(mara, player, referee, campaign):
    campaigns_services.update_campaign_rules(campaign=campaign, pc_budget=90)
    play_services.award_improvement_points(character=mara, by=referee, amount=10, reason="Tour")
    play_services.spend_improvement_points(
        character=mara, by=player, purchase=RaiseSkill("Pilot", None, 2)
    )

    mara.refresh_from_db()
    assert mara.budget == 91  # the listing column: the campaign's 90 and 1 bought
    assert core_selectors.character_report(mara).points.remaining == 90 - 33
    campaigns_services.update_campaign_rules(campaign=campaign, pc_budget=95)
    assert Character.objects.get(pk=mara.pk).budget == 96


# -- credits and gear ----------------------------------------------------------------------------


def test_credits_come_in_and_go_out_but_never_below_zero(mara, player, referee):
    assert play_selectors.credit_balance(mara) == 0  # no mustering-out cash rolled

    play_services.record_credits(character=mara, by=referee, amount=1500, note="Pay")
    with pytest.raises(Refused, match="Not enough credits: Cr2,000 needed, Cr1,500 left"):
        play_services.record_credits(character=mara, by=player, amount=-2000, note="Ship fuel")
    play_services.record_credits(character=mara, by=player, amount=-500, note="Berthing")

    assert play_selectors.credit_balance(mara) == 1000
    assert CreditEntry.objects.filter(character=mara).count() == 2
    logged = mara.events.filter(kind=CharacterEvent.Kind.CREDITS).order_by("pk")
    # The play log writes signed credits as the ledger does.
    assert [event.detail for event in logged] == ["+Cr1,500: Pay", "\u2212Cr500: Berthing"]


def test_gear_bought_in_play_is_carried_and_weighed(mara, player):
    play_services.record_credits(character=mara, by=player, amount=2000, note="Pay")

    play_services.buy_gear(character=mara, by=player, item="Cold weather clothing", quantity=6)

    assert play_selectors.credit_balance(mara) == 2000 - 6 * 200
    carried = play_selectors.carried_equipment(mara)
    assert [(e.item, e.quantity) for e in carried] == [("Cold weather clothing", 6)]
    load = carried_load(parse_document(mara.document), carried)
    assert (load.load_kg, load.encumbrance_penalty) == (24, 1)
    # The document is untouched: the ledger keeps what was bought in play.
    assert Character.objects.get(pk=mara.pk).document.get("equipment", []) == []

    play_services.give_up_gear(
        character=mara, by=player, item="Cold weather clothing", quantity=2, price=150
    )
    assert play_selectors.carried_equipment(mara)[0].quantity == 4
    assert play_selectors.credit_balance(mara) == 950
    with pytest.raises(Refused, match="carries 4 Cold weather clothing, not 5"):
        play_services.give_up_gear(
            character=mara, by=player, item="Cold weather clothing", quantity=5
        )


def test_gear_given_away_for_nothing_is_logged_without_a_credit_figure(mara, player):
    play_services.record_credits(character=mara, by=player, amount=2000, note="Pay")
    play_services.buy_gear(character=mara, by=player, item="Cold weather clothing", quantity=2)

    play_services.give_up_gear(character=mara, by=player, item="Cold weather clothing", quantity=1)

    last = CharacterEvent.objects.filter(character=mara, kind="credits").latest("pk")
    assert "Cr0" not in last.detail
    assert "Cold weather clothing" in last.detail
    assert CharacterEvent.objects.filter(character=mara, detail__startswith="+Cr2,000: ").exists()


def test_creation_equipment_can_be_sold_in_play(campaign, player):
    character = builder_services.create_character(
        owner=player,
        document=medic_document(equipment=[{"item": "Jack", "quantity": 1}]),
        campaign=campaign,
    )
    play_services.give_up_gear(character=character, by=player, item="jack", price=20)
    assert play_selectors.carried_equipment(character) == []


# -- the play sheet ------------------------------------------------------------------------------


def test_the_play_sheet_shows_the_condition_with_its_hooks(client, mara, player):
    play_services.take_damage(character=mara, by=player, amount=9, form="L")
    client.force_login(player)

    html = client.get(reverse("character_play", args=[mara.pk])).content.decode()

    assert html.count('data-lif-box="x"') == 9
    assert html.count('data-lif-box=""') == 14
    assert 'data-severity="light"' in html
    assert 'data-state="bleeding"' in html
    assert 'data-derived="DEF"' in html
    for hook in (
        'data-action="stabilise"',
        'data-action="treat"',
        "data-ip-balance",
        "data-credits",
    ):
        assert hook in html


def test_the_play_sheet_takes_encumbrance_off_def_ini_and_mov_after_the_wounds(
    client, mara, player
):
    play_services.take_damage(character=mara, by=player, amount=9, form="L")
    client.force_login(player)
    url = reverse("character_play", args=[mara.pk])
    wounded = effective(core_selectors.character_report(mara), condition(mara)).derived

    play_services.record_credits(character=mara, by=player, amount=2000, note="Pay")
    play_services.buy_gear(character=mara, by=player, item="Cold weather clothing", quantity=6)
    html = client.get(url).content.decode()

    # 24 kg over STR's unencumbered limit costs 1 (see the gear test above).
    assert f'<dd data-derived="DEF">{wounded.DEF - 1}</dd>' in html
    assert f'<dd data-derived="MOV">{wounded.MOV - 1}</dd>' in html
    assert "data-encumbrance" in html
    summary = play_selectors.summary(mara)
    assert ("DEF", wounded.DEF - 1, core_selectors.character_report(mara).derived.DEF) in summary[
        "derived_now"
    ]


def test_the_play_sheet_carries_the_load_at_the_worlds_gravity(client, mara, player):
    play_services.record_credits(character=mara, by=player, amount=2000, note="Pay")
    play_services.buy_gear(character=mara, by=player, item="Cold weather clothing", quantity=6)
    client.force_login(player)
    url = reverse("character_play", args=[mara.pk])
    strength = core_selectors.character_report(mara).attribute("STR").level
    at_one_g = rules.carrying(strength)

    standard = client.get(url).content.decode()
    assert f"capacity {at_one_g.capacity_kg} kg; lift {at_one_g.lift_kg} kg" in standard
    assert f"drag {at_one_g.drag_kg} kg" in standard
    assert "data-encumbrance" in standard  # 24 kg is one step past the limit at 1 g
    assert "over capacity" not in standard

    # A size 4 world is 0.5 g: twice the unencumbered load, so 24 kg no longer encumbers.
    for query in ({"gravity": "0.5"}, {"size": "4"}):
        light = client.get(url, query).content.decode()
        assert f"unencumbered to {2 * at_one_g.unencumbered_kg} kg" in light
        assert "at 0.5 g" in light
        assert "data-encumbrance" not in light

    # At 3 g the capacity is a third of STR squared: 24 kg is more than can be carried at all.
    assert rules.over_capacity(24, rules.carrying(strength, 3))
    assert "over capacity" in client.get(url, {"gravity": "3"}).content.decode()

    unreadable = client.get(url, {"gravity": "heavy"}).content.decode()
    assert "Gravity: give a number of g from 0 to 10." in unreadable
    assert f"unencumbered to {at_one_g.unencumbered_kg} kg" in unreadable


def test_the_gravity_form_comes_back_to_the_load_figures_it_changes(client, mara, player):
    client.force_login(player)
    page = client.get(reverse("character_play", args=[mara.pk])).content.decode()

    form = page[page.index("<form", page.index('id="load"')) :]
    action = re.search(r'action="([^"]*)"', form[: form.index(">")]).group(1)
    assert action == reverse("character_play", args=[mara.pk]) + "#load"
    assert "data-gravity" in form[: form.index(">")]


def test_a_play_action_without_javascript_lands_on_its_outcome_beside_its_form(
    client, mara, player
):
    client.force_login(player)
    url = reverse("character_condition", args=[mara.pk])

    response = client.post(
        url, {"action": "damage", "amount": "9", "form": "L", "play_version": "1"}, follow=True
    )

    assert response.redirect_chain[-1][0] == reverse("character_play", args=[mara.pk]) + "#outcome"
    page = response.content.decode()
    notice = page.index('id="outcome"')
    assert 'data-place="damage"' in page[notice - 200 : notice + 200]
    assert page.index('data-action="damage"') < notice < page.index('id="recover-heading"')
    assert "A light wound" in page[notice : notice + 300]
    assert 'class="message ' not in page  # not again in the messages at the top
    assert condition(mara).lethal == 9


def test_a_play_action_with_htmx_returns_the_play_region(client, mara, player):
    client.force_login(player)
    url = reverse("character_condition", args=[mara.pk])

    response = client.post(
        url,
        {"action": "damage", "amount": "9", "form": "L", "play_version": "1"},
        HTTP_HX_REQUEST="true",
    )

    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<div id="play"')
    assert "A light wound" in html
    assert 'name="play_version" value="2"' in html


def test_a_stale_tab_is_told_and_shown_the_condition_as_it_stands(client, mara, player, referee):
    play_services.take_damage(character=mara, by=referee, amount=5, form="L")
    client.force_login(player)

    response = client.post(
        reverse("character_condition", args=[mara.pk]),
        {"action": "damage", "amount": "3", "form": "L", "play_version": "1"},
        HTTP_HX_REQUEST="true",
    )

    html = response.content.decode()
    assert "changed since this page was loaded" in html
    assert html.count('data-lif-box="x"') == 5


def test_a_stale_page_without_javascript_is_told_and_keeps_the_blow_typed(
    client, mara, player, referee
):
    play_services.take_damage(character=mara, by=referee, amount=5, form="L")
    client.force_login(player)
    blow = {"amount": "3", "form": "S", "damage_type": "B", "armor": "2"}

    response = client.post(
        reverse("character_condition", args=[mara.pk]),
        {"action": "damage", "play_version": "1", **blow},
        follow=True,
    )

    html = response.content.decode()
    assert "changed since this page was loaded" in html
    assert re.search(r'<input type="number" name="amount"[^>]*value="3"', html)
    assert '<option value="S" selected>' in html
    assert re.search(r'<option value="B" selected>Blunt', html)
    assert re.search(r'name="armor" value="2"', html)
    # Read once: the page after this one has the form empty again.
    again = client.get(reverse("character_play", args=[mara.pk])).content.decode()
    assert not re.search(r'<input type="number" name="amount"[^>]*value="3"', again)


def test_money_refused_without_javascript_keeps_the_amount_and_what_it_was_for(
    client, mara, player
):
    client.force_login(player)

    response = client.post(
        reverse("character_credits", args=[mara.pk]),
        {"action": "expense", "amount": "10000000000000", "note": "berthing at Regina"},
        follow=True,
    )

    html = response.content.decode()
    assert "Credits: enter a whole number" in html
    assert re.search(r'name="amount"[^>]*value="10000000000000"', html)
    assert 'value="berthing at Regina"' in html


@pytest.mark.parametrize("amount", ["lots", "0"])
def test_a_bad_number_is_refused_in_words(client, mara, player, amount):
    client.force_login(player)
    response = client.post(
        reverse("character_condition", args=[mara.pk]),
        {"action": "damage", "amount": amount, "form": "L", "play_version": "1"},
        follow=True,
    )
    assert (
        "Damage: enter a whole number from 1 to 999."
        in next(iter(response.context["messages"])).message
    )
    assert not PlayState.objects.exists()


def test_the_roller_shows_the_odds_and_the_result(client, mara, player, monkeypatch):
    monkeypatch.setattr(server_dice, "dice_source", lambda: Scripted([4]))
    client.force_login(player)
    form = {"skill": "Pilot::", "attribute": "DEX", "tn": "5", "dm": "0"}

    odds = client.get(reverse("character_odds", args=[mara.pk]), form).content.decode()
    response = client.post(reverse("character_roll", args=[mara.pk]), form, HTTP_HX_REQUEST="true")

    # Pilot-1: 1DH + DEX DM +1 against TN 5 succeeds on a 4, 5 or 6.
    assert "Chance of success <strong data-odds>50%</strong> (Pilot-1 DEX: 1DH," in odds
    html = response.content.decode()
    assert "Pilot-1 DEX: total 5 vs TN 5, success, EN 0." in html
    assert "data-total>5</strong>" in html


def test_the_owner_spends_and_the_referee_awards_on_the_play_sheet(client, mara, player, referee):
    client.force_login(referee)
    client.post(
        reverse("character_ip_award", args=[mara.pk]), {"amount": "12", "reason": "Session 1"}
    )
    client.force_login(player)

    response = client.post(
        reverse("character_ip_spend", args=[mara.pk]),
        {"purchase": "raise_skill", "skill": "Pilot::", "to_level": "2"},
        follow=True,
    )

    assert "Spent 10 IP: Pilot-1 → Pilot-2." in list(response.context["messages"])[-1].message
    assert ip(mara) == 2


@pytest.mark.parametrize(
    ("purchase", "why"),
    [
        ({"purchase": "add_perk", "name": "Lucky", "notation": "[PP-C-S 9]"}, "the tables give 2"),
        (
            {"purchase": "new_skill", "skill": "Animals", "to_level": "1"},
            "Name a skill from the rulebook&#x27;s list. Did you mean Animal Handling?",
        ),
    ],
)
def test_a_purchase_refused_on_the_play_sheet_says_why_and_writes_nothing(
    client, mara, player, purchase, why
):
    client.force_login(player)
    response = client.post(
        reverse("character_ip_spend", args=[mara.pk]), purchase, HTTP_HX_REQUEST="true"
    )
    assert why in response.content.decode()
    assert not ImprovementEntry.objects.exists()


@pytest.mark.parametrize(
    ("purchase", "typed"),
    [
        (
            {"purchase": "add_perk", "name": "Lucky", "notation": "[PP-C-S 9]"},
            ['name="name" maxlength="100" required value="Lucky"', 'value="[PP-C-S 9]"'],
        ),
        (
            {"purchase": "new_skill", "skill": "Animals", "cascade": "Dogs", "to_level": "2"},
            ['value="Animals"', 'value="Dogs"', 'name="to_level" value="2"'],
        ),
    ],
    ids=["perk", "skill"],
)
def test_a_request_refused_without_javascript_comes_back_open_and_as_typed(
    client, mara, player, purchase, typed
):
    client.force_login(player)
    response = client.post(reverse("character_ip_spend", args=[mara.pk]), purchase, follow=True)
    html = response.content.decode()
    # The requests fold under one summary: the refused one's fold is open, to be mended.
    assert '<details class="play-form" open>' in html
    for field in typed:
        assert field in html


COLD_WEATHER_CLOTHING = item_key("Cold weather clothing", 1)


@pytest.mark.parametrize(
    ("url", "by", "fields", "typed"),
    [
        (
            "character_condition",
            "player",
            {"action": "recover", "form": "L", "care": "slow_drug", "periods": "9999"},
            [
                '<option value="L" selected>Lethal',
                '<option value="slow_drug" selected>',
                'name="periods" value="9999"',
            ],
        ),
        (
            "character_ip_award",
            "referee",
            {"action": "award", "amount": "99999", "reason": "The rescue"},
            ['name="amount" value="99999"', 'id="award-reason" value="The rescue"'],
        ),
        (
            "character_credits",
            "player",
            {"action": "buy", "item": COLD_WEATHER_CLOTHING, "quantity": "3", "price": "-5"},
            [
                f'<option value="{COLD_WEATHER_CLOTHING}" selected>',
                'name="quantity" value="3"',
                'placeholder="list price" value="-5"',
            ],
        ),
        (
            "character_credits",
            "player",
            {"action": "give_up", "item": COLD_WEATHER_CLOTHING, "quantity": "7", "price": "-1"},
            [
                f'<option value="{COLD_WEATHER_CLOTHING}" selected>',
                'name="quantity" value="7"',
                'name="price" value="-1"',
            ],
        ),
    ],
    ids=["recover", "award", "buy", "give up"],
)
def test_a_refused_form_without_javascript_comes_back_as_typed(
    client, mara, player, request, url, by, fields, typed
):
    client.force_login(player)
    post_credits(client, mara, action="buy", item=COLD_WEATHER_CLOTHING, quantity="1", price="0")
    client.force_login(request.getfixturevalue(by))

    response = client.post(
        reverse(url, args=[mara.pk]), {"play_version": "1", **fields}, follow=True
    )

    html = response.content.decode()
    assert list(response.context["messages"])[-1].level_tag == "error"
    for field in typed:
        assert field in html


def test_the_campaign_shows_its_rolls_to_the_referee_and_members_but_not_npc_rolls(
    client, mara, player, referee, campaign
):
    member = UserFactory(username="player2")
    campaigns_services.join_campaign(user=member, code=campaign.invite_code)
    npc = campaigns_services.create_npc(campaign=campaign, name="Pirate captain", budget=60)
    plan = play_services.TestPlan(attribute="DEX", tn=4, skill="Pilot")
    play_services.roll_action_test(character=mara, by=player, plan=plan, purpose="Dock")
    play_services.roll_action_test(
        character=npc, by=referee, plan=play_services.TestPlan(attribute="STR", tn=4)
    )
    url = reverse("campaign_detail", args=[campaign.pk])

    client.force_login(member)
    roster = client.get(url).content.decode()
    client.force_login(referee)
    review = client.get(url).content.decode()

    assert "Mara Tolven</strong>: Pilot-1 DEX" in roster
    assert "Pirate captain" not in roster
    assert "Mara Tolven</strong>: Pilot-1 DEX" in review
    assert "Pirate captain</strong>: STR" in review


def test_the_referee_awards_the_party_at_once(client, mara, referee, campaign, player):
    other = builder_services.create_character(
        owner=player, document=medic_document(name="Kim"), campaign=campaign
    )
    client.force_login(referee)

    response = client.post(
        reverse("campaign_award", args=[campaign.pk]),
        {"character": [str(mara.pk), str(other.pk)], "amount": "1", "reason": "Session 3"},
        follow=True,
    )

    assert (ip(mara), ip(other)) == (1, 1)
    assert [m.message for m in response.context["messages"]] == [
        "Awarded 1 IP to Kim, Mara Tolven."
    ]


def test_an_award_to_several_characters_is_all_or_nothing(mara, referee, player):
    outside = builder_services.create_character(owner=player, document=medic_document(name="Kim"))

    with pytest.raises(core_services.Refused, match="Only the referee of Kim's campaign"):
        play_services.award_improvement_points_to_each(
            characters=[mara, outside], by=referee, amount=2, reason="Session 4"
        )

    assert (ip(mara), ip(outside)) == (0, 0)


def test_the_play_sheet_takes_the_same_queries_however_long_the_ledgers(
    client, mara, player, referee
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get(reverse("character_play", args=[mara.pk])).status_code == 200
        return len(captured)

    client.force_login(player)
    play_services.award_improvement_points(character=mara, by=referee, amount=30, reason="One")
    play_services.spend_improvement_points(
        character=mara, by=player, purchase=RaiseSkill("Pilot", None, 2)
    )
    play_services.record_credits(character=mara, by=player, amount=10, note="Pay")
    few = queries()
    for n in range(5):
        play_services.award_improvement_points(character=mara, by=referee, amount=1, reason=f"{n}")
        play_services.record_credits(character=mara, by=player, amount=10, note=f"Pay {n}")
        play_services.roll_action_test(
            character=mara, by=player, plan=play_services.TestPlan(attribute="STR", tn=4)
        )
    play_services.spend_improvement_points(
        character=mara, by=player, purchase=RaiseSkill("Pilot", None, 3)
    )

    assert queries() == few


@pytest.mark.skipif(not shutil.which("pdftotext") and not running_in_ci(), reason="no pdftotext")
def test_the_pdf_sheet_shows_the_damage_recorded_in_play(client, mara, player):
    # The light wound's bleeding days: 4.
    play_services.take_damage(
        character=mara, by=player, amount=9, form="L", expected_version=1, rng=Scripted([4])
    )
    client.force_login(player)

    response = client.get(reverse("character_pdf", args=[mara.pk]))

    text = subprocess.run(
        ["pdftotext", "-layout", "-", "-"], input=response.content, capture_output=True, check=True
    ).stdout.decode()
    assert "In play: LIF now 14 of 23" in text
    assert "Light wound (9 damage, not stabilised, bleeds 4 days more)" in " ".join(text.split())


# -- the ledgers' forms over HTTP ----------------------------------------------------------------


def post_credits(client, character, **form):
    return client.post(reverse("character_credits", args=[character.pk]), form, follow=True)


def last_message(response) -> str:
    return list(response.context["messages"])[-1].message


def test_the_credits_form_records_pay_buys_and_sells_gear(client, mara, player):
    client.force_login(player)

    paid = post_credits(client, mara, action="income", amount="2000", note="Pay")
    bought = post_credits(
        client,
        mara,
        action="buy",
        item=item_key("Cold weather clothing", 1),
        quantity="3",
    )
    sold = post_credits(
        client,
        mara,
        action="give_up",
        item=item_key("Cold weather clothing", 1),
        quantity="1",
        price="150",
    )

    assert paid.redirect_chain[-1][0] == reverse("character_play", args=[mara.pk]) + "#outcome"
    assert last_message(paid) == "+Cr2,000: Pay."
    assert last_message(bought) == "Bought Cold weather clothing x3: Cr600."
    assert last_message(sold) == "Sold Cold weather clothing for Cr150."
    assert play_selectors.credit_balance(mara) == 2000 - 600 + 150
    assert [(e.item, e.quantity) for e in play_selectors.carried_equipment(mara)] == [
        ("Cold weather clothing", 2)
    ]


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"action": "expense", "amount": "0", "note": "Fuel"}, "Credits: give an amount above 0."),
        (
            {"action": "income", "amount": "lots", "note": "Pay"},
            "Credits: enter a whole number from 0 to 100000000.",
        ),
        ({"action": "expense", "amount": "50", "note": "Fuel"}, "Not enough credits"),
        ({"action": "steal"}, "Unknown action 'steal'."),
    ],
)
def test_a_credits_form_that_cannot_be_recorded_says_why_and_writes_nothing(
    client, mara, player, form, message
):
    client.force_login(player)

    response = post_credits(client, mara, **form)

    assert message in last_message(response)
    assert not CreditEntry.objects.exists()


def test_only_the_owner_and_the_referee_reach_the_credits_form(client, mara):
    client.force_login(UserFactory(username="stranger"))
    response = client.post(
        reverse("character_credits", args=[mara.pk]),
        {"action": "income", "amount": "5", "note": "Found"},
    )
    assert response.status_code == 404
    assert not CreditEntry.objects.exists()


@pytest.fixture
def attribute_request(mara, player, referee):
    """Mara asks to raise STR to 8, a purchase the referee prices, with 20 IP to spend."""
    play_services.award_improvement_points(character=mara, by=referee, amount=20, reason="Tour")
    return play_services.spend_improvement_points(
        character=mara, by=player, purchase=RaiseAttribute("STR", 8)
    )


def decide_url(request) -> str:
    return reverse("character_ip_decide", args=[request.character_id, request.pk])


def test_the_referee_prices_and_approves_a_request_on_the_play_sheet(
    client, mara, referee, attribute_request
):
    client.force_login(referee)

    response = client.post(
        decide_url(attribute_request), {"decision": "approve", "ip": "15"}, follow=True
    )

    assert last_message(response) == "Approved: STR 7 → 8 for 15 IP."
    assert ip(mara) == 5
    assert Character.objects.get(pk=mara.pk).document["attributes"]["STR"] == 8


def test_an_ip_cost_above_the_guard_is_refused_in_words(client, mara, referee, attribute_request):
    client.force_login(referee)
    too_dear = str(play_services.MAX_IP_PRICE + 1)

    response = client.post(
        decide_url(attribute_request), {"decision": "approve", "ip": too_dear}, follow=True
    )

    assert f"IP cost: enter a whole number from 1 to {play_services.MAX_IP_PRICE}." == last_message(
        response
    )
    attribute_request.refresh_from_db()
    assert (attribute_request.state, ip(mara)) == ("pending", 20)


def test_the_player_withdraws_a_request_and_a_stranger_cannot_see_it(
    client, mara, player, attribute_request
):
    client.force_login(UserFactory(username="stranger"))
    assert client.post(decide_url(attribute_request), {"decision": "decline"}).status_code == 404

    client.force_login(player)
    response = client.post(decide_url(attribute_request), {"decision": "decline"}, follow=True)

    assert last_message(response) == "STR 7 → 8: Withdrawn by the player."
    attribute_request.refresh_from_db()
    assert attribute_request.state == "declined"


@pytest.mark.parametrize(
    ("name", "field"),
    [
        ("ip_award", 'name="amount" value="1" min="1" max="{}" required id="award-amount"'),
        ("ip_price", 'name="ip" min="1" max="{}" required'),
        ("recovery_periods", 'name="periods" value="1" min="1" max="{}"'),
        ("gear_quantity", 'name="quantity" value="1" min="1" max="{}"'),
        ("dice", 'name="medic_level" min="0" max="{}"'),
        ("test_figure", 'name="dm" value="0" min="-{0}" max="{0}" id="roll-dm"'),
    ],
)
def test_the_play_sheets_inputs_offer_the_guards_the_services_apply(
    client, mara, referee, attribute_request, monkeypatch, name, field
):
    play_services.take_damage(character=mara, by=referee, amount=9, form="L", rng=Scripted([2]))
    monkeypatch.setitem(play_services.INPUT_MAXIMA, name, 7)
    client.force_login(referee)

    html = client.get(reverse("character_play", args=[mara.pk])).content.decode()

    assert field.format(7) in html


def test_the_sheet_page_shows_the_gear_carried_and_the_credits_held_now(client, mara, player):
    play_services.record_credits(character=mara, by=player, amount=2000, note="Pay")
    play_services.buy_gear(character=mara, by=player, item="Cold weather clothing", quantity=6)
    client.force_login(player)

    html = client.get(reverse("character_detail", args=[mara.pk])).content.decode()

    assert "<strong>now Cr800</strong>" in html
    assert "<li>Cold weather clothing \u00d76 — 24 kg</li>" in html
    assert "Load 24 kg; unencumbered to 14 kg" in html
    assert "Cr800" in html.partition('id="stat-block">')[2].partition("</pre>")[0]


# -- typed figures the dice or the database cannot take ------------------------------------------


def test_a_treated_wound_is_not_stabilised_again_and_no_die_is_thrown(mara, referee):
    play_services.take_damage(character=mara, by=referee, amount=9, form="L", rng=Scripted([2]))
    medic = play_services.Medic(own=False, skill_level=3, attribute_dm=1)
    play_services.treat_wound(
        character=mara, by=referee, wound=0, medic=medic, rng=Scripted([6, 2, 5])
    )

    with pytest.raises(Refused, match=r"The light wound is already treated\."):
        play_services.stabilise_wound(
            character=mara, by=referee, wound=0, medic=medic, rng=Scripted([1, 1, 1])
        )

    assert DiceRoll.objects.filter(character=mara).count() == 1  # the treatment's
    assert condition(mara).wounds[0].treated


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"medic_level": "21"}, "Medic's skill level: enter a whole number from 0 to 20."),
        ({"dm": "31"}, "Other DM: enter a whole number from -30 to 30."),
        ({"tl": "999999"}, "Tech level: enter a whole number from 0 to 99."),
    ],
)
def test_another_medics_figures_off_the_dice_are_refused_in_words(
    client, mara, player, form, message
):
    play_services.take_damage(character=mara, by=player, amount=9, form="L", rng=Scripted([2]))
    client.force_login(player)
    fields = {
        "action": "stabilise",
        "wound": "0",
        "medic": "other",
        "supplies": "ample",
        "tl": "8",
        "play_version": str(version(mara)),
    }

    response = client.post(
        reverse("character_condition", args=[mara.pk]), fields | form, follow=True
    )

    assert message in last_message(response)
    assert not DiceRoll.objects.exists()


def test_recovering_a_form_of_damage_the_track_does_not_hold_is_refused(mara, player):
    with pytest.raises(Refused, match=r"Recover stunning \(S\) or lethal \(L\) damage."):
        play_services.recover(character=mara, by=player, form="Sp")


def test_a_skill_raise_to_a_huge_level_is_priced_at_once_and_refused(client, mara, player):
    client.force_login(player)

    response = client.post(
        reverse("character_ip_spend", args=[mara.pk]),
        {"purchase": "raise_skill", "skill": "Pilot::", "to_level": "999999999"},
        follow=True,
    )

    assert response.status_code == 200
    assert "Pilot" in last_message(response)
    assert not ImprovementEntry.objects.exists()


@pytest.mark.parametrize(
    ("tl", "message"),
    [
        ("²", "Tech level: enter a whole number from 0 to 99."),
        ("9" * 5000, "Item: at most 120 characters."),
    ],
)
def test_an_item_with_an_unreadable_tech_level_is_refused_not_an_error(
    client, mara, player, tl, message
):
    client.force_login(player)

    response = post_credits(client, mara, action="buy", item=f"Laser rifle|{tl}")

    assert last_message(response) == message


def test_a_serious_wounds_bleed_button_says_an_hour_passed_in_plain_words(client, mara, player):
    play_services.take_damage(character=mara, by=player, amount=14, form="L")
    assert condition(mara).wounds[0].severity == "serious"
    client.force_login(player)

    html = client.get(reverse("character_play", args=[mara.pk])).content.decode()

    assert 'data-action="bleed">It bleeds (1 hour passed)</button>' in html
    assert "a hour" not in html


def test_a_character_below_0_lif_is_told_how_far_below_not_minus_that(client, mara, player):
    play_services.take_damage(character=mara, by=player, amount=26, form="L")
    assert condition(mara).lif == -3
    client.force_login(player)

    html = client.get(reverse("character_play", args=[mara.pk])).content.decode()

    assert "26 lethal (x); 3 below 0, dead at \u221223." in html  # a minus sign
