"""An encounter as a careful table runs it (issue 36): a specialist rifleman in reflec under
combat armor, a spear thrower, a Vargr and an animal against the party; specialties and the
armor worn in every attack, targets out of action, surprise until the referee ends it, one
leader per side, odds that say when an attack cannot hit, and numbers a referee can check."""

import re

import pytest
from django.urls import reverse

import rules
from characters.encounters import services
from characters.encounters.selectors import board
from characters.models import Combatant, EncounterEntry
from characters.play import services as play_services
from tests.dice import Scripted
from tests.encounter_people import raid_on_the_depot

from .conftest import combatant

pytestmark = pytest.mark.django_db

Side = Combatant.Side


@pytest.fixture
def table(campaign, kira, corsair):
    """Kira and Idris against two corsairs, Ghaekh the Vargr, Oro the spear thrower and a
    hunter, before initiative."""
    return raid_on_the_depot(campaign, kira, corsair)


def begun(table, referee):
    """Initiative thrown so that they act as fielded: Kira, Idris, corsair 1, corsair 2,
    Ghaekh, Oro, the hunter (totals 10 down to 4, no ties)."""
    dice = [10 - place - row.ini_now for place, row in enumerate(board(table).rows)]
    services.throw_initiative(encounter=table, by=referee, rng=Scripted(dice))
    table.refresh_from_db()
    return table


def surprised_opposition(table, referee):
    """The opposition surprised (the party 6 against its 1), then initiative as in ``begun``."""
    services.throw_surprise(
        encounter=table, by=referee, may_be_surprised="opposition", rng=Scripted([6, 1, 1, 1])
    )
    return begun(table, referee)


def to_turn_of(encounter, referee, name):
    while board(encounter).current.combatant.name != name:
        services.take_turn(encounter=encounter, by=referee, action="pass")
        encounter.refresh_from_db()


def attack(encounter, by, target, weapon, band, dice, **situation):
    order = services.AttackOrder(
        combatant(encounter, target).pk, weapon, band, rules.combat.Situation(**situation)
    )
    return services.attack(encounter=encounter, by=by, order=order, rng=Scripted(dice))


def page(client, user, encounter) -> str:
    client.force_login(user)
    return client.get(reverse("encounter_detail", args=[encounter.pk])).content.decode()


def kill(encounter, name):
    fallen = combatant(encounter, name)
    dead = rules.condition_from_dict(fallen.condition)
    dead, _ = rules.take_damage(dead, amount=dead.maximum * 2, form="L")
    Combatant.objects.filter(pk=fallen.pk).update(condition=rules.condition_as_dict(dead))


# -- specialties and the armor worn ----------------------------------------------------------------


def test_the_specialists_assault_rifle_takes_the_specialty_and_the_page_shows_the_arithmetic(
    client, table, referee, player1
):
    begun(table, referee)
    to_turn_of(table, referee, "Idris Tane")

    entry = attack(table, player1, "Vargr corsair 1", "Assault rifle|7", "short", [5, 2, 1])

    assert {"label": "specialty: assault rifle", "dm": 1} in entry.detail["dms"]
    # DEX +1, short -2, ACC +2, specialty +1 = +2: [5, 2, 1] reads 5, 7 vs DEF 3, EN 4.
    assert (entry.detail["total"], entry.detail["effect"]) == (7, 4)
    assert entry.detail["reading"] == "highest die: 5"
    # 4 x 8 = 32 against the corsair's jack (AV 3): 29.
    assert entry.detail["damage"]["worked"] == (
        "EN 4: \u00d74 \u00d7 DMG 8 = 32 \u2212 AV 3 (Jack (TL 1)) = 29 to LIF"
    )
    html = page(client, referee, table)
    assert "highest die: 5" in html
    assert "DMG 8 = 32 \u2212 AV 3 (Jack (TL 1)) = 29 to LIF" in html


def test_a_laser_meets_reflec_under_the_specialist_s_combat_armor(table, referee, kira, player1):
    play_services.buy_gear(character=kira, by=player1, item="Laser pistol", tl=9, price=0)
    begun(table, referee)

    entry = attack(table, player1, "Idris Tane", "Laser pistol|9", "short", [6, 6, 6])

    assert entry.detail["damage"]["armor"] == 30  # reflec's full AV, not combat armor's 16
    assert entry.detail["damage"]["armor_worn"] == "Reflec (TL 10)"


# -- natural weapons, thrown spears ----------------------------------------------------------------


def test_the_vargr_s_claws_are_offered_at_close_and_hit_there_without_the_2(client, table, referee):
    begun(table, referee)
    to_turn_of(table, referee, "Ghaekh")

    html = page(client, referee, table)
    assert re.search(r'value="Claws"[^>]*data-band="close"', html)
    entry = attack(table, referee, "Kira Valen", "Claws", "close", [6])
    assert not any("nearer" in dm["label"] for dm in entry.detail["dms"])


def test_a_spear_thrown_beyond_str_times_5_is_refused_in_the_odds(client, table, referee):
    begun(table, referee)
    to_turn_of(table, referee, "Oro")
    client.force_login(referee)
    target = combatant(table, "Kira Valen")

    odds = client.get(
        reverse("encounter_odds", args=[table.pk]),
        {
            "version": table.version,
            "target": target.pk,
            "weapon": "Spear (thrown)|0",
            "range_band": "long",
            "movement": "stationary",
            "facing": "front",
            "aim_turns": 0,
            "extra_actions": 0,
        },
    ).content.decode()

    assert (
        "the Spear (thrown) (TL 0) reaches 40 m (STR 8 x 5); long range starts beyond 45 m" in odds
    )


# -- targets out of action -------------------------------------------------------------------------


def test_the_dead_are_marked_and_not_offered_as_targets_but_to_the_referee_for_a_coup_de_grace(
    client, table, referee, player1
):
    begun(table, referee)
    kill(table, "Vargr corsair 1")
    dead = combatant(table, "Vargr corsair 1")

    players = page(client, player1, table)
    referees = page(client, referee, table)

    target_chips = re.search(r'data-chips="target">(.*?)</fieldset>', players, re.S)[1]
    assert "Vargr corsair 1" not in target_chips
    assert "Coup de grâce" not in players
    assert f'name="target" value="{dead.pk}"' in referees
    assert "Vargr corsair 1 (dead)" in referees
    with pytest.raises(services.Refused, match="only the referee chooses a coup de grâce"):
        services.attack(
            encounter=table,
            by=player1,
            order=services.AttackOrder(
                dead.pk, "Automatic pistol|6", "short", rules.combat.Situation(), coup_de_grace=True
            ),
            rng=Scripted([6, 6, 6]),
        )
    with pytest.raises(services.Refused, match="is dead, out of action: no target"):
        attack(table, player1, "Vargr corsair 1", "Automatic pistol|6", "short", [6, 6, 6])


# -- surprise, leaders, morale ---------------------------------------------------------------------


def test_the_sheets_settle_the_encounter_range_dms_of_each_side_s_surprise_throw(table, referee):
    # Each side 2DH: 3, 3 for the party, 3, 3 for the opposition.
    entry = services.throw_surprise(
        encounter=table, by=referee, may_be_surprised="either", rng=Scripted([3, 3, 3, 3])
    )

    party, opposition = entry.detail["throws"]
    assert [dm["label"] for dm in party["dms"]] == ["Kira Valen's AWA DM"]
    # Four characters of the opposition (the hunter is an animal): -1.
    assert {"label": "4 or more members in the side", "dm": -1} in opposition["dms"]


def test_surprise_lasts_every_round_until_the_referee_ends_it(client, table, referee):
    surprised_opposition(table, referee)
    for _ in range(2):
        services.take_turn(encounter=table, by=referee, action="pass")
    services.take_turn(encounter=table, by=referee, action="next_round")
    table.refresh_from_db()

    html = page(client, referee, table)

    assert 'data-action="alarm"' in html
    assert html.count('data-state="surprised"') == 5
    services.end_surprise(encounter=table, by=referee)
    table.refresh_from_db()
    assert 'data-action="alarm"' not in page(client, referee, table)
    services.undo_last(encounter=table, by=referee)
    table.refresh_from_db()
    assert table.surprised_side == "opposition"


def test_a_surprised_fighter_hit_and_left_standing_says_it_raises_the_alarm(
    table, referee, player1
):
    surprised_opposition(table, referee)

    entry = attack(table, player1, "Vargr corsair 1", "Automatic pistol|6", "short", [3, 1, 1])

    assert "Vargr corsair 1, hit and still standing, raises the alarm." in entry.summary


def test_a_throw_of_exactly_the_tn_is_worded_as_a_hit_that_does_no_damage(table, referee, player1):
    surprised_opposition(table, referee)

    # 3DH reads 3, DEX +1 and medium range -3: 1 against the surprised TN 1, EN 0.
    entry = attack(table, player1, "Vargr corsair 1", "Automatic pistol|6", "medium", [3, 1, 1])

    assert "1 vs TN 1, a hit, EN 0 (exactly the TN): it does no damage." in entry.summary
    assert "gets through" not in entry.summary
    worked = entry.detail["damage"]["worked"]
    assert worked == "EN 0 (exactly the TN): a hit that does no damage"


def test_a_long_outcome_is_kept_and_shown_whole_in_the_log_and_the_undo_button(
    client, table, referee, player1
):
    surprised_opposition(table, referee)

    entry = attack(table, player1, "Vargr corsair 1", "Automatic pistol|6", "short", [3, 1, 1])

    assert len(entry.summary) > 300
    assert entry.summary.endswith("rounds left in the Automatic pistol.")
    assert "\u2026" not in entry.summary
    html = page(client, referee, table)
    assert html.count(entry.summary) >= 2, "the log's line and the undo button, whole"
    assert "\u2026" not in html.replace("End the encounter\u2026", "")


def test_the_alarm_raised_by_a_hit_ends_the_side_s_surprise_in_the_page_log_and_next_throw(
    client, table, referee, player1
):
    surprised_opposition(table, referee)

    entry = attack(table, player1, "Vargr corsair 1", "Automatic pistol|6", "short", [3, 1, 1])
    table.refresh_from_db()

    assert "Surprise is lost: the opposition is no longer surprised." in entry.summary
    assert table.surprised_side == ""
    html = page(client, referee, table)
    assert 'data-state="surprised"' not in html
    assert 'data-action="alarm"' not in html
    # The corsairs take their turns this round, after Idris, and meet the next shot with
    # their own DEF, not the surprised DEF 1.
    state = board(table)
    assert state.current.combatant.name == "Idris Tane"
    assert all(row.takes_turn for row in state.side("opposition") if not row.out_of_action)
    second = attack(table, referee, "Vargr corsair 2", "Assault rifle|7", "short", [1, 1, 1])
    assert second.detail["tn"] > 1
    # Undoing the second attack and the first brings the surprise back with the hit.
    services.undo_last(encounter=table, by=referee)
    services.undo_last(encounter=table, by=referee)
    table.refresh_from_db()
    assert table.surprised_side == "opposition"


def test_the_referee_names_a_side_s_leader_and_its_fall_costs_2_until_another_is_named(
    table, referee
):
    begun(table, referee)
    second = combatant(table, "Vargr corsair 2")
    services.name_leader(encounter=table, by=referee, side="opposition", combatant=second.pk)
    table.refresh_from_db()
    assert board(table).leader("opposition").combatant.name == "Vargr corsair 2"
    kill(table, "Vargr corsair 2")

    fallen = services.throw_morale(
        encounter=table, by=referee, side="opposition", rng=Scripted([4, 3])
    )

    assert "its leader Vargr corsair 2 is dead" in fallen.summary
    assert {"label": "the leader is killed", "dm": -2} in fallen.detail["dms"]
    ghaekh = combatant(table, "Ghaekh")
    services.name_leader(encounter=table, by=referee, side="opposition", combatant=ghaekh.pk)
    table.refresh_from_db()
    kill(table, "Vargr corsair 1")
    retaken = services.throw_morale(
        encounter=table,
        by=referee,
        side="opposition",
        combat_experience=True,
        dm=-1,
        rng=Scripted([4, 3]),
    )
    assert retaken.summary.startswith("Morale of the opposition (Ghaekh leads): ")
    labels = [dm["label"] for dm in retaken.detail["dms"]]
    assert "the leader is killed" not in labels
    assert "combat experience (trait)" in labels
    assert "referee's DM" in labels


def test_the_morale_form_asks_for_combat_experience_and_a_dm(client, table, referee):
    begun(table, referee)
    kill(table, "Vargr corsair 1")
    kill(table, "Vargr corsair 2")
    client.force_login(referee)

    response = client.post(
        reverse("encounter_morale", args=[table.pk]),
        {"version": table.version, "side": "opposition", "combat_experience": "yes", "dm": "2"},
        follow=True,
    )

    entry = EncounterEntry.objects.get(kind="morale")
    assert "combat experience (trait) +2" in entry.summary
    assert "referee's DM +2" in entry.summary
    assert "Morale of the opposition" in response.content.decode()


# -- what the page offers --------------------------------------------------------------------------


def test_an_attack_that_cannot_hit_says_so_and_why(client, table, referee):
    begun(table, referee)
    to_turn_of(table, referee, "Ghaekh")
    client.force_login(referee)

    odds = client.get(
        reverse("encounter_odds", args=[table.pk]),
        {
            "version": table.version,
            "target": combatant(table, "Idris Tane").pk,
            "weapon": "Claws",
            "range_band": "close",
            "cover": "excellent",
            "lighting": "complete darkness",
            "movement": "stationary",
            "facing": "rear",
            "aim_turns": 0,
            "extra_actions": 0,
        },
    ).content.decode()

    assert "<strong data-odds>0%</strong>" in odds
    assert re.search(r"It cannot hit: TN \d+ with DM -\d+ needs \d+ on the dice, and 1DH", odds)


def test_further_targets_are_offered_only_for_a_burst_that_reaches_two(client, table, referee):
    begun(table, referee)
    to_turn_of(table, referee, "Idris Tane")

    html = page(client, referee, table)

    # The assault rifle fires 4 rounds at most: one target.
    assert "data-autofire" in html
    assert "Autofire at further targets" not in html


def test_one_tap_does_not_end_the_encounter(client, table, referee):
    client.force_login(referee)

    response = client.post(
        reverse("encounter_end", args=[table.pk]), {"version": table.version}, follow=True
    )

    assert "End the encounter: confirm it" in response.content.decode()
    table.refresh_from_db()
    assert table.ended_at is None


def test_the_initiative_log_shows_the_dice_that_broke_each_tie(client, table, referee):
    # Kira and Idris tie at 6, Idris throwing the higher tie-break; the others tie at 4, and
    # their tie-breaks put them in the order fielded.
    kira, idris, *others = (row.ini_now for row in board(table).rows)
    dice = [6 - kira, 6 - idris, *(4 - ini for ini in others), 2, 5, 5, 4, 3, 2, 1]
    entry = services.throw_initiative(encounter=table, by=referee, rng=Scripted(dice))

    assert entry.summary.startswith(
        "Initiative: Idris Tane 6 (tie: 1D 5), Kira Valen 6 (tie: 1D 2)"
    )
    html = page(client, referee, table)
    assert re.search(r"Idris Tane: 1D \d \+ INI \d = 6, tie thrown off with 1D 5", html)
