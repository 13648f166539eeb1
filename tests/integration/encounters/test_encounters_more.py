"""What the first cut of encounters left out: surprise before initiative, a delay after a
chosen fighter, reinforcements, ending an encounter, autofire at several targets and a group
member's own magazines; each with its access, its conflicts and its undo."""

import re

import pytest
from django.urls import reverse

import rules
from characters.core import dice as server_dice
from characters.core.services import store_document
from characters.encounters import services
from characters.encounters.selectors import board
from characters.models import Combatant, Encounter, EncounterEntry
from characters.play.selectors import carried_equipment
from tests.dice import Scripted
from tests.encounter_people import start
from tests.factories import UserFactory
from tests.integration.encounters.encounter_actions import PISTOL, rounds_loaded

from .conftest import INITIATIVE_DICE, combatant

pytestmark = pytest.mark.django_db

Side = Combatant.Side


def as_user(client, user):
    client.force_login(user)
    return client


def names(encounter) -> list[str]:
    return [row.combatant.name for row in board(encounter, entries=0).rows]


def dice(monkeypatch, faces):
    monkeypatch.setattr(server_dice, "dice_source", lambda: Scripted(faces))


# -- surprise -----------------------------------------------------------------------------------

# 2DH for each side, the party's first: 6 against 1, the party wins by 5 (both AWA DM 0).
PARTY_SURPRISES = [6, 1, 1, 1]


def test_the_surprised_corsairs_lose_their_turns_until_the_referee_says_surprise_is_lost(
    client, encounter, referee, monkeypatch
):
    as_user(client, referee)
    dice(monkeypatch, PARTY_SURPRISES)
    response = client.post(
        reverse("encounter_surprise", args=[encounter.pk]),
        {"version": encounter.version, "may_be_surprised": "opposition", "dm_party": "1"},
        follow=True,
    )
    entry = EncounterEntry.objects.get(kind="surprise")
    # The log shows each side's dice and DMs.
    assert entry.summary.startswith("Surprise: the party 7 (dice 6, 1; Kira Valen's AWA DM +0;")
    assert "referee's DM +1)" in entry.summary
    assert entry.summary.endswith("the opposition is surprised.")
    assert response.content.decode().count('data-state="surprised"') == 4
    encounter.refresh_from_db()
    assert encounter.surprised_side == "opposition"

    services.throw_initiative(encounter=encounter, by=referee, rng=Scripted(INITIATIVE_DICE))
    for _ in range(2):
        services.take_turn(encounter=encounter, by=referee, action="pass")
    encounter.refresh_from_db()
    # Kira and Dorn acted; the corsairs lose their turns: the round is over.
    with pytest.raises(services.Refused, match="The round is over: start the next round"):
        services.take_turn(encounter=encounter, by=referee, action="pass")
    services.take_turn(encounter=encounter, by=referee, action="next_round")
    encounter.refresh_from_db()
    # Surprise lasts until it is lost: round 2 passes the corsairs by too.
    state = board(encounter)
    assert [row.combatant.name for row in state.rows if row.surprised][:1] == ["Vargr corsair 1"]
    assert state.current.combatant.name == "Kira Valen"
    response = client.post(
        reverse("encounter_alarm", args=[encounter.pk]),
        {"version": encounter.version},
        follow=True,
    )
    assert 'data-state="surprised"' not in response.content.decode()
    entry = EncounterEntry.objects.get(kind="alarm")
    assert entry.summary == "Surprise is lost: the opposition is no longer surprised."
    encounter.refresh_from_db()
    assert not any(row.surprised for row in board(encounter).rows)


@pytest.mark.parametrize(
    ("stale", "dm_party", "reason"),
    [
        (True, "2", "changed since this page was loaded"),
        (False, "13", "enter a whole number from -12 to 12"),
    ],
    ids=["another tab acted first", "a DM out of range"],
)
@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "without JavaScript"])
def test_a_refused_surprise_throw_says_why_and_keeps_the_side_and_dms_typed(
    client, encounter, referee, stale, dm_party, reason, htmx
):
    as_user(client, referee)
    typed = {
        "version": encounter.version,
        "may_be_surprised": "opposition",
        "dm_party": dm_party,
        "dm_opposition": "-3",
    }
    if stale:
        Encounter.objects.filter(pk=encounter.pk).update(version=encounter.version + 1)

    page = client.post(
        reverse("encounter_surprise", args=[encounter.pk]),
        typed,
        **({"HTTP_HX_REQUEST": "true"} if htmx else {"follow": True}),
    ).content.decode()

    assert reason in page
    assert re.search(r'name="may_be_surprised" value="opposition"[^>]*checked', page)
    assert re.search(rf'name="dm_party" value="{dm_party}"', page)
    assert re.search(r'name="dm_opposition" value="-3"', page)
    # Thrown again from here, it is thrown at the version the page shows now.
    assert f'name="version" value="{Encounter.objects.get().version}"' in page
    assert not EncounterEntry.objects.filter(kind="surprise").exists()


def test_no_surprise_throw_is_offered_or_thrown_while_a_side_has_no_fighters(
    client, campaign, corsair, referee
):
    corsairs_only = services.start_encounter(
        campaign=campaign,
        by=referee,
        name="Corsairs at the docks",
        groups=[services.Group(3, Side.OPPOSITION, character=corsair)],
    )
    as_user(client, referee)

    page = client.get(reverse("encounter_detail", args=[corsairs_only.pk])).content.decode()
    refused = client.post(
        reverse("encounter_surprise", args=[corsairs_only.pk]),
        {"version": corsairs_only.version, "may_be_surprised": "either"},
        HTTP_HX_REQUEST="true",
    ).content.decode()

    reason = "Surprise: the party has no fighters in this encounter"
    assert 'data-action="surprise"' not in page
    assert reason in page
    assert reason in refused
    assert 'data-action="surprise"' not in refused
    assert not EncounterEntry.objects.filter(kind="surprise").exists()


def test_surprise_lost_before_a_round_begins_lets_the_side_first_in_the_order_act_first(
    encounter, referee
):
    # The corsairs surprise the party, which then throws the higher initiative.
    services.throw_surprise(
        encounter=encounter, by=referee, may_be_surprised="party", rng=Scripted([1, 1, 6, 1])
    )
    services.throw_initiative(encounter=encounter, by=referee, rng=Scripted(INITIATIVE_DICE))
    encounter.refresh_from_db()
    assert board(encounter).current.combatant.name == "Vargr corsair 1"
    for _ in range(4):
        services.take_turn(encounter=encounter, by=referee, action="pass")

    services.take_turn(encounter=encounter, by=referee, action="next_round")
    encounter.refresh_from_db()
    assert board(encounter).current.combatant.name == "Vargr corsair 1"

    services.end_surprise(encounter=encounter, by=referee)

    encounter.refresh_from_db()
    assert board(encounter).current.combatant.name == "Kira Valen"


def test_an_attack_on_a_surprised_corsair_is_at_its_surprised_def(encounter, referee, player1):
    services.throw_surprise(
        encounter=encounter,
        by=referee,
        may_be_surprised="opposition",
        rng=Scripted(PARTY_SURPRISES),
    )
    services.throw_initiative(encounter=encounter, by=referee, rng=Scripted(INITIATIVE_DICE))
    encounter.refresh_from_db()
    target = combatant(encounter, "Vargr corsair 1")
    order = services.AttackOrder(target.pk, "Automatic pistol|6", "short", rules.combat.Situation())
    entry = services.attack(encounter=encounter, by=player1, order=order, rng=Scripted([1, 1, 1]))
    surprised_def = rules.combat.combat_tables()["surprise"]["surprised_def"]
    assert entry.detail["tn"] == surprised_def
    assert any(dm["label"].startswith("target surprised") for dm in entry.detail["tn_dms"])


def test_a_side_the_referee_did_not_mark_is_never_surprised(encounter, referee):
    entry = services.throw_surprise(
        encounter=encounter, by=referee, may_be_surprised="party", rng=Scripted(PARTY_SURPRISES)
    )
    encounter.refresh_from_db()
    assert encounter.surprised_side == ""
    assert entry.summary.endswith("nobody is surprised.")


def test_undoing_the_surprise_throw_lets_it_be_thrown_again(encounter, referee):
    services.throw_surprise(
        encounter=encounter, by=referee, may_be_surprised="either", rng=Scripted(PARTY_SURPRISES)
    )
    encounter.refresh_from_db()
    with pytest.raises(services.Refused, match="Surprise: it was thrown already"):
        services.throw_surprise(encounter=encounter, by=referee, may_be_surprised="either")
    services.undo_last(encounter=encounter, by=referee)
    encounter.refresh_from_db()
    assert encounter.surprised_side == ""
    services.throw_surprise(
        encounter=encounter, by=referee, may_be_surprised="either", rng=Scripted([1, 1, 6, 1])
    )
    encounter.refresh_from_db()
    assert encounter.surprised_side == "party"


def test_surprise_is_thrown_before_initiative_only(fight, referee):
    with pytest.raises(services.Refused, match="Surprise: it is thrown before initiative"):
        services.throw_surprise(encounter=fight, by=referee, may_be_surprised="either")


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"may_be_surprised": "nobody"}, "May be surprised: choose one of those offered"),
        ({"dm_party": "lots"}, "The party&#x27;s DM: enter a whole number"),
    ],
)
def test_a_mistyped_surprise_names_its_field_and_throws_nothing(
    client, encounter, referee, changes, problem
):
    as_user(client, referee)
    data = {"version": encounter.version, "may_be_surprised": "either", **changes}
    response = client.post(
        reverse("encounter_surprise", args=[encounter.pk]), data, HTTP_HX_REQUEST="true"
    )
    assert problem in response.content.decode()
    assert not EncounterEntry.objects.exists()


def test_only_the_referee_throws_for_surprise(encounter, player1):
    with pytest.raises(services.Refused, match="Only the referee can throw for surprise"):
        services.throw_surprise(encounter=encounter, by=player1, may_be_surprised="either")


# -- delay to a chosen point --------------------------------------------------------------------


def test_kira_delays_to_act_after_the_second_corsair(client, fight, player1):
    as_user(client, player1)
    page = client.get(reverse("encounter_detail", args=[fight.pk])).content.decode()
    second = combatant(fight, "Vargr corsair 2")
    assert f'name="after" value="{second.pk}"' in page

    client.post(
        reverse("encounter_turn", args=[fight.pk]),
        {"version": fight.version, "action": "delay", "after": second.pk},
    )

    fight.refresh_from_db()
    assert names(fight)[:4] == ["Dorn Hask", "Vargr corsair 1", "Vargr corsair 2", "Kira Valen"]
    assert board(fight).current.combatant.name == "Dorn Hask"
    services.undo_last(encounter=fight, by=player1)
    fight.refresh_from_db()
    assert names(fight)[0] == "Kira Valen"
    assert board(fight).current.combatant.name == "Kira Valen"


def test_a_delay_after_someone_who_is_not_still_to_act_is_refused_by_name(client, fight, player1):
    as_user(client, player1)
    kira = combatant(fight, "Kira Valen")
    response = client.post(
        reverse("encounter_turn", args=[fight.pk]),
        {"version": fight.version, "action": "delay", "after": kira.pk},
        HTTP_HX_REQUEST="true",
    )
    assert "Act after: choose one of those still to act this round" in response.content.decode()
    assert not EncounterEntry.objects.filter(kind="delay").exists()


# -- reinforcements -----------------------------------------------------------------------------


def test_two_more_corsairs_join_mid_round_throwing_initiative_as_they_come(
    client, fight, corsair, referee, monkeypatch
):
    as_user(client, referee)
    page = client.get(reverse("encounter_join", args=[fight.pk]))
    assert page.status_code == 200
    dice(monkeypatch, [6, 1])  # corsair 5: 6 + INI, first; corsair 6: 1 + INI, last
    response = client.post(
        reverse("encounter_join", args=[fight.pk]),
        {
            "version": fight.version,
            f"npc-{corsair.pk}": "2",
            f"npc-{corsair.pk}-side": "opposition",
        },
    )
    assert response.status_code == 302
    fight.refresh_from_db()
    order = names(fight)
    assert order.index("Vargr corsair 5") < order.index("Vargr corsair 1")
    assert order[-1] == "Vargr corsair 6"
    inis = [row.combatant.initiative for row in board(fight, entries=0).rows]
    assert inis == sorted(inis, reverse=True)
    # Kira still acts now: the newcomer placed before her first acts next round.
    assert board(fight).current.combatant.name == "Kira Valen"
    entry = EncounterEntry.objects.get(kind="join")
    assert "Initiative: Vargr corsair 5" in entry.summary
    assert combatant(fight, "Vargr corsair 5").condition["lethal"] == 0

    services.undo_last(encounter=fight, by=referee)
    fight.refresh_from_db()
    assert len(names(fight)) == 6
    assert board(fight).current.combatant.name == "Kira Valen"


def test_a_party_character_already_fighting_is_not_offered_again(client, fight, kira, referee):
    as_user(client, referee)
    response = client.post(
        reverse("encounter_join", args=[fight.pk]), {"version": fight.version, "party": [kira.pk]}
    )
    assert response.status_code == 400
    assert "Party: choose from the list" in response.context["problem"]
    assert fight.combatants.count() == 6


def test_joining_with_nobody_chosen_says_so(client, fight, referee):
    as_user(client, referee)
    response = client.post(reverse("encounter_join", args=[fight.pk]), {"version": fight.version})
    assert response.status_code == 400
    assert "Combatants: choose who joins the fight." in response.context["problem"]


def test_a_join_from_a_page_that_fell_behind_is_refused(client, fight, corsair, referee):
    as_user(client, referee)
    stale = fight.version
    services.take_turn(encounter=fight, by=referee, action="pass")
    response = client.post(
        reverse("encounter_join", args=[fight.pk]), {"version": stale, f"npc-{corsair.pk}": "1"}
    )
    assert "changed since this page was loaded" in response.context["problem"]
    assert fight.combatants.count() == 6


def test_before_initiative_newcomers_wait_for_the_throw(encounter, corsair, referee):
    services.add_combatants(
        encounter=encounter,
        by=referee,
        groups=[services.Group(1, Side.OPPOSITION, character=corsair)],
    )
    assert combatant(encounter, "Vargr corsair 5").initiative is None


# -- ending -------------------------------------------------------------------------------------


def test_the_referee_ends_the_encounter_with_its_summary_and_it_becomes_read_only(
    client, fight, kira, campaign, referee, player1
):
    corsair = combatant(fight, "Vargr corsair 1")
    order = services.AttackOrder(
        corsair.pk, "Automatic pistol|6", "short", rules.combat.Situation()
    )
    services.attack(encounter=fight, by=player1, order=order, rng=Scripted([6] * 4))
    fight.refresh_from_db()
    as_user(client, referee)

    response = client.post(
        reverse("encounter_end", args=[fight.pk]),
        {"version": fight.version, "confirm": "on"},
        follow=True,
    )

    html = response.content.decode()
    assert "data-summary" in html
    assert re.search(r"1 round \(Automatic pistol\)", html)
    entry = EncounterEntry.objects.get(kind="end")
    kira_line = next(f for f in entry.detail["fighters"] if f["name"] == "Kira Valen")
    assert kira_line["rounds"] == {"Automatic pistol": 1}
    hurt = next(f for f in entry.detail["fighters"] if f["name"] == "Vargr corsair 1")
    assert hurt["wounds"], "the corsair's wound is in the summary"
    # A wounded fighter is never written down as unhurt.
    assert hurt["states"]
    assert "Unhurt" not in hurt["states"]
    assert entry.summary.startswith(f"{fight.name} ends after 1 round. Out of action:")
    assert "<caption>The fighters as the encounter ended</caption>" in html
    assert 'data-action="attack"' not in html
    with pytest.raises(services.Refused, match="has ended: it is read-only"):
        services.take_turn(encounter=fight, by=referee, action="pass")

    campaign_page = client.get(reverse("campaign_detail", args=[campaign.pk]))
    assert [e.pk for e in campaign_page.context["encounters"]] == []
    assert [e.pk for e in campaign_page.context["past_encounters"]] == [fight.pk]
    assert "data-past-encounters" in campaign_page.content.decode()
    as_user(client, player1)
    assert client.get(reverse("encounter_detail", args=[fight.pk])).status_code == 200

    services.undo_last(encounter=fight, by=referee)
    fight.refresh_from_db()
    assert fight.ended_at is None


def test_only_the_referee_ends_an_encounter(fight, player1):
    with pytest.raises(services.Refused, match="Only the referee can end the encounter"):
        services.end_encounter(encounter=fight, by=player1)


# -- autofire at several targets ----------------------------------------------------------------

GAUSS = "Gauss rifle|12"


@pytest.fixture
def gunner_fight(campaign, kira, dorn, corsair, referee, player1):
    """Kira with a Gauss rifle (1:4:10, autofire) and one magazine, in round 1, her turn."""
    document = kira.document | {
        "equipment": [
            {"item": "Gauss rifle", "quantity": 1},
            {"item": "Gauss rifle ammunition", "quantity": 1},
        ],
        "skills": [{"skill": "Rifleman", "level": 2}],
    }
    store_document(kira, document, by=player1, action="Took up a Gauss rifle")
    encounter = start(campaign, kira, dorn, corsair)
    services.throw_initiative(encounter=encounter, by=referee, rng=Scripted(INITIATIVE_DICE))
    encounter.refresh_from_db()
    return encounter


def burst(encounter, *targets, rounds=8, squares=1):
    situation = rules.combat.Situation(autofire_rounds=rounds, squares_between_targets=squares)
    first, *others = (combatant(encounter, name).pk for name in targets)
    return services.AttackOrder(first, GAUSS, "short", situation, tuple(others))


def test_a_burst_at_two_corsairs_throws_for_each_and_undo_restores_both(
    client, gunner_fight, kira, player1
):
    as_user(client, player1)
    page = client.get(reverse("encounter_detail", args=[gunner_fight.pk])).content.decode()
    assert 'name="also"' in page
    order = burst(gunner_fight, "Vargr corsair 1", "Vargr corsair 2")

    entry = services.attack(encounter=gunner_fight, by=player1, order=order, rng=Scripted([6] * 8))

    labels = {dm["label"]: dm["dm"] for dm in entry.detail["dms"]}
    assert labels["2 targets"] == -2
    assert labels["1 square between the targets"] == -1
    assert entry.detail["hit"]
    assert entry.detail["others"][0]["hit"]
    for name in ("Vargr corsair 1", "Vargr corsair 2"):
        assert combatant(gunner_fight, name).condition["lethal"] > 0
    rounds = rules.catalog().equipment_item("Gauss rifle ammunition", 12).row["rounds"]
    assert rounds_loaded(kira) == {GAUSS: rounds - 8}
    assert "Vargr corsair 2:" in entry.summary

    gunner_fight.refresh_from_db()
    services.undo_last(encounter=gunner_fight, by=player1)
    for name in ("Vargr corsair 1", "Vargr corsair 2"):
        assert combatant(gunner_fight, name).condition["lethal"] == 0
    assert rounds_loaded(kira) == {}


def test_the_odds_show_a_chance_for_each_target(client, gunner_fight, player1):
    as_user(client, player1)
    first, second = combatant(gunner_fight, "Vargr corsair 1"), combatant(gunner_fight, "Dorn Hask")
    data = {
        "version": gunner_fight.version,
        "target": first.pk,
        "also": [second.pk],
        "weapon": GAUSS,
        "range_band": "short",
        "movement": "stationary",
        "facing": "front",
        "aim_turns": "0",
        "extra_actions": "0",
        "autofire_rounds": "8",
        "squares_between": "0",
    }
    html = client.get(reverse("encounter_odds", args=[gunner_fight.pk]), data).content.decode()
    assert "On Dorn Hask <strong data-odds-also>" in html


@pytest.mark.parametrize(
    ("rounds", "problem"),
    [
        (4, "Further targets: 4 rounds reach at most 1 target,"),
        (0, "Further targets: only autofire attacks several targets"),
    ],
)
def test_too_many_targets_for_the_burst_are_refused_by_name(gunner_fight, player1, rounds, problem):
    order = burst(gunner_fight, "Vargr corsair 1", "Vargr corsair 2", rounds=rounds, squares=0)
    with pytest.raises(services.Refused, match=re.escape(problem)):
        services.attack(encounter=gunner_fight, by=player1, order=order, rng=Scripted([]))
    assert not EncounterEntry.objects.filter(kind="attack").exists()


# -- a group member's magazines -----------------------------------------------------------------


@pytest.fixture
def armed_corsairs(campaign, kira, dorn, corsair, referee):
    """The corsairs' stat block carries an automatic pistol and one magazine; corsair 1's
    turn in round 1."""
    document = corsair.document | {
        "equipment": [
            *corsair.document["equipment"],
            {"item": "Automatic pistol", "quantity": 1},
            {"item": "Automatic pistol ammunition", "quantity": 1},
        ]
    }
    store_document(corsair, document, by=referee, action="Armed the corsairs")
    encounter = start(campaign, kira, dorn, corsair)
    services.throw_initiative(encounter=encounter, by=referee, rng=Scripted(INITIATIVE_DICE))
    for _ in range(2):
        services.take_turn(encounter=encounter, by=referee, action="pass")
    encounter.refresh_from_db()
    return encounter


def test_each_corsair_counts_its_own_magazines_from_the_stat_block(
    client, armed_corsairs, kira, referee
):
    order = services.AttackOrder(
        combatant(armed_corsairs, "Kira Valen").pk, PISTOL, "short", rules.combat.Situation()
    )
    services.attack(encounter=armed_corsairs, by=referee, order=order, rng=Scripted([1, 1, 1]))
    first = combatant(armed_corsairs, "Vargr corsair 1")
    rounds = rules.catalog().equipment_item("Automatic pistol ammunition", 6).row["rounds"]
    assert first.ammunition == {PISTOL: rounds - 1}
    assert first.magazines == {"Automatic pistol ammunition|6": 0}
    assert combatant(armed_corsairs, "Vargr corsair 2").magazines == {}

    as_user(client, referee)
    html = client.get(reverse("encounter_detail", args=[armed_corsairs.pk])).content.decode()
    row = re.search(rf'data-combatant="{first.pk}".*?</li>', html, re.S)[0]
    assert re.search(rf"<span data-rounds>{rounds - 1}</span> rounds", row)
    assert "<span data-magazines>0</span> magazines" in row
    second = re.search(
        rf'data-combatant="{combatant(armed_corsairs, "Vargr corsair 2").pk}".*?</li>', html, re.S
    )[0]
    assert "loads a magazine when it fires · <span data-magazines>1</span> magazine" in second

    armed_corsairs.refresh_from_db()
    services.undo_last(encounter=armed_corsairs, by=referee)
    first.refresh_from_db()
    assert (first.ammunition, first.magazines) == ({}, {})


def test_a_corsair_with_an_empty_pistol_and_no_magazine_is_refused(armed_corsairs, referee):
    first = combatant(armed_corsairs, "Vargr corsair 1")
    Combatant.objects.filter(pk=first.pk).update(
        ammunition={PISTOL: 0}, magazines={"Automatic pistol ammunition|6": 0}
    )
    order = services.AttackOrder(
        combatant(armed_corsairs, "Kira Valen").pk, PISTOL, "short", rules.combat.Situation()
    )
    with pytest.raises(services.Refused, match="Vargr corsair 1 is out of Automatic pistol"):
        services.attack(encounter=armed_corsairs, by=referee, order=order, rng=Scripted([]))
    assert not EncounterEntry.objects.filter(kind="attack").exists()


# -- access -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "encounter_surprise",
        "encounter_join",
        "encounter_end",
        "encounter_alarm",
        "encounter_leader",
    ],
)
def test_an_outsider_gets_404_for_the_new_actions(client, fight, name):
    as_user(client, UserFactory(username="outsider"))
    version = fight.version
    assert client.post(reverse(name, args=[fight.pk]), {"version": version}).status_code == 404
    fight.refresh_from_db()
    assert fight.version == version


def test_a_player_gets_404_for_the_reinforcements_page(client, fight, player1):
    as_user(client, player1)
    assert client.get(reverse("encounter_join", args=[fight.pk])).status_code == 404


def test_a_player_is_not_offered_surprise_join_or_end(client, encounter, player1):
    as_user(client, player1)
    html = client.get(reverse("encounter_detail", args=[encounter.pk])).content.decode()
    for action in ("surprise", "join", "end", "alarm", "leader"):
        assert f'data-action="{action}"' not in html


# -- ammunition from one encounter to the next -------------------------------------------------


def test_a_half_used_magazine_carries_into_the_next_encounter(
    client, campaign, kira, dorn, corsair, referee, player1
):
    first = start(campaign, kira, dorn, corsair)
    services.throw_initiative(encounter=first, by=referee, rng=Scripted(INITIATIVE_DICE))
    first.refresh_from_db()
    target = combatant(first, "Vargr corsair 1").pk
    order = services.AttackOrder(target, PISTOL, "short", rules.combat.Situation())
    services.attack(encounter=first, by=player1, order=order, rng=Scripted([1, 1, 1]))
    services.end_encounter(encounter=first, by=referee)
    rounds = rules.catalog().equipment_item("Automatic pistol ammunition", 6).row["rounds"]
    carried = sum(
        e.quantity for e in carried_equipment(kira) if e.item == "Automatic pistol ammunition"
    )

    second = start(campaign, kira, dorn, corsair)
    services.throw_initiative(encounter=second, by=referee, rng=Scripted(INITIATIVE_DICE))
    second.refresh_from_db()
    client.force_login(referee)
    page = client.get(reverse("encounter_detail", args=[second.pk])).content.decode()

    # The turn order starts from the rounds the first fight left in her pistol.
    kira_pk = combatant(second, "Kira Valen").pk
    kira_row = re.search(rf'data-combatant="{kira_pk}".*?</li>', page, re.S)
    assert kira_row
    assert f"<span data-rounds>{rounds - 1}</span> rounds" in kira_row.group(0)
    # Her next shot fires from that magazine: no fresh one is loaded from what she carries.
    target = combatant(second, "Vargr corsair 1").pk
    order = services.AttackOrder(target, PISTOL, "short", rules.combat.Situation())
    entry = services.attack(encounter=second, by=player1, order=order, rng=Scripted([1, 1, 1]))
    assert f"{rounds - 2} rounds left in the Automatic pistol." in entry.summary
    assert "Loaded a fresh magazine" not in entry.summary
    assert rounds_loaded(kira) == {PISTOL: rounds - 2}
    assert (
        sum(e.quantity for e in carried_equipment(kira) if e.item == "Automatic pistol ammunition")
        == carried
    )
    # Undone, the shot gives the round back to her own count.
    services.undo_last(encounter=second, by=player1)
    assert rounds_loaded(kira) == {PISTOL: rounds - 1}
