"""The encounter page: server time for a fight of 12 combatants, and the phones' poll.

Four player characters against a group of eight corsairs fielded from one NPC stat block, in
round 1 with a few attacks in the log, under each combat system a campaign may choose (FFA,
T4, 2D6). The page reads the fight in a fixed number of queries whatever the system and runs
the engine once per stat block (its reports and fighters, and under T4 and 2D6 its sheet) and
once for the attack's odds; the poll answers 204 from one query while nothing changed.
Measured through the whole Django stack with the test client, logged in, against a throwaway
SQLite database.
"""

from bench.core import Figure, bench_user, duration, throwaway_database

PASSWORD = "bench-password"
PARTY = 4
CORSAIRS = 8


def _fight(system: str):
    """The referee, and an encounter of PARTY PCs against CORSAIRS corsairs under ``system``,
    in round 1 (under T4 past the movement phase) after three attacks."""
    import random

    from characters.builder import services as builder_services
    from characters.campaigns import services as campaigns_services
    from characters.encounters import services, t4, twod6
    from characters.encounters.selectors import board, weapon_key
    from rules.combat import Situation
    from rules.combat.t4.plan import T4Situation
    from rules.combat.twod6.attack import TwoD6Situation
    from tests.encounter_people import corsair_document, kira_document

    referee = bench_user(f"encounter-{system}", "referee", password=PASSWORD)
    campaign = campaigns_services.create_campaign(
        referee=referee, name=f"Bench encounter {system}", combat_system=system
    )
    groups = []
    for n in range(PARTY):
        player = bench_user(f"encounter-{system}", f"player-{n}")
        campaigns_services.join_campaign(user=player, code=campaign.invite_code)
        pc = builder_services.create_character(
            owner=player, document=kira_document() | {"name": f"Gunner {n}"}, campaign=campaign
        )
        groups.append(services.Group(1, "party", character=pc))
    corsair = builder_services.create_character(
        owner=referee, document=corsair_document(), campaign=campaign
    )
    groups.append(services.Group(CORSAIRS, "opposition", character=corsair))
    encounter = services.start_encounter(
        campaign=campaign, by=referee, name="Boarding action", groups=groups
    )
    rng = random.Random(16)
    services.throw_initiative(encounter=encounter, by=referee, rng=rng)
    if system == "t4":
        services.take_turn(encounter=encounter, by=referee, action="done_moving")
    for _ in range(3):
        encounter.refresh_from_db()
        state = board(encounter)
        attacker = state.current
        target = next(r for r in state.rows if r.combatant.side != attacker.combatant.side)
        weapon = weapon_key(attacker.fighter.weapons[0])
        if system == "t4":
            band = "contact" if attacker.fighter.weapons[0].melee else "short"
            order = t4.T4Order(target.pk, weapon, band, None, T4Situation())
        elif system == "2d6":
            band = "personal" if attacker.fighter.weapons[0].melee else "short"
            order = twod6.TwoD6Order(target.pk, weapon, band, TwoD6Situation(), twod6.NO_REACTION)
        else:
            order = services.AttackOrder(target.pk, weapon, "close", Situation())
        services.attack(encounter=encounter, by=referee, order=order, rng=rng)
    encounter.refresh_from_db()
    return referee, encounter


SYSTEMS = {"ffa": "FFA", "t4": "T4", "2d6": "2D6"}


def run(quick: bool) -> list[Figure]:
    from django.test import Client

    throwaway_database("encounter")
    fighters = PARTY + CORSAIRS
    rounds = 15 if quick else 60
    figures = []
    for system, label in SYSTEMS.items():
        referee, encounter = _fight(system)
        client = Client()
        client.login(username=referee.get_username(), password=PASSWORD)
        url = f"/encounters/{encounter.pk}/"

        def page(url=url, client=client) -> None:
            response = client.get(url)
            assert response.status_code == 200, response.status_code
            assert response.content.count(b"data-combatant=") == fighters

        def poll_unchanged(url=url, client=client, version=encounter.version) -> None:
            response = client.get(f"{url}live/", {"v": version})
            assert response.status_code == 204, response.status_code

        def poll_changed(url=url, client=client) -> None:
            response = client.get(f"{url}live/", {"v": 0})
            assert response.status_code == 200, response.status_code

        figures += [
            duration(
                f"{label}: GET encounter page, {fighters} combatants (server time)",
                page,
                rounds=rounds,
            ),
            duration(f"{label}: GET poll, nothing changed (204)", poll_unchanged, rounds=rounds),
            duration(
                f"{label}: GET poll, changed ({fighters} combatants)", poll_changed, rounds=rounds
            ),
        ]
    return figures
