"""In play: damage and healing, action tests, improvement points and credits, through the
services and the play sheet. Who may reach which URL is in test_access_matrix.py."""

import pytest
from django.urls import reverse

from characters.builder import form_document
from characters.builder import services as builder_services
from characters.campaigns import services as campaigns_services
from characters.core import dice as server_dice
from characters.core import selectors as core_selectors
from characters.core import services as core_services
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
    parse_document,
)
from tests.dice import Scripted
from tests.factories import medic_document
from tests.integration.play.in_play import condition, ip, version

pytestmark = pytest.mark.django_db

Refused = core_services.Refused


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
