"""The play sheet over HTTP: its page, its forms with and without JavaScript, the ledgers'
forms, the party's award and the figures the dice or the database cannot take."""

import re
import shutil
import subprocess

import pytest
from django.urls import reverse

import rules
from characters.builder import services as builder_services
from characters.campaigns import services as campaigns_services
from characters.core import dice as server_dice
from characters.core import selectors as core_selectors
from characters.core import services as core_services
from characters.core.equipment import item_key
from characters.models import Character, CreditEntry, DiceRoll, ImprovementEntry, PlayState
from characters.play import selectors as play_selectors
from characters.play import services as play_services
from rules import RaiseAttribute, RaiseSkill, effective
from tests.ci import running_in_ci
from tests.dice import Scripted
from tests.factories import UserFactory, medic_document
from tests.integration.play.in_play import condition, ip, version

pytestmark = pytest.mark.django_db

Refused = core_services.Refused


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
