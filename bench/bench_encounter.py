"""The encounter page: server time for a fight of 12 combatants, and the phones' poll.

Four player characters against a group of eight corsairs fielded from one NPC stat block, in
round 1 with a few attacks in the log. The page reads the fight in a fixed number of queries
and runs the engine once per stat block (its reports and fighters) and once for the attack's
odds; the poll answers 204 from one query while nothing changed. Measured through the whole
Django stack with the test client, logged in, against a throwaway SQLite database.
"""

from bench.core import Figure, bench_user, duration, throwaway_database

PASSWORD = "bench-password"
PARTY = 4
CORSAIRS = 8


def _fight():
    """The referee, and an encounter of PARTY PCs against CORSAIRS corsairs, in round 1."""
    import random

    import rules
    from characters.builder import services as builder_services
    from characters.campaigns import services as campaigns_services
    from characters.encounters import services
    from characters.encounters.selectors import board, weapon_key
    from tests.encounter_people import corsair_document, kira_document

    referee = bench_user("encounter", "referee", password=PASSWORD)
    campaign = campaigns_services.create_campaign(referee=referee, name="Bench encounter")
    groups = []
    for n in range(PARTY):
        player = bench_user("encounter", f"player-{n}")
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
    for _ in range(3):
        encounter.refresh_from_db()
        state = board(encounter)
        attacker = state.current
        target = next(r for r in state.rows if r.combatant.side != attacker.combatant.side)
        order = services.AttackOrder(
            target.pk, weapon_key(attacker.fighter.weapons[0]), "close", rules.combat.Situation()
        )
        services.attack(encounter=encounter, by=referee, order=order, rng=rng)
    encounter.refresh_from_db()
    return referee, encounter


def run(quick: bool) -> list[Figure]:
    from django.test import Client

    throwaway_database("encounter")
    referee, encounter = _fight()
    client = Client()
    client.login(username=referee.get_username(), password=PASSWORD)
    url = f"/encounters/{encounter.pk}/"
    fighters = PARTY + CORSAIRS

    def page() -> None:
        response = client.get(url)
        assert response.status_code == 200, response.status_code
        assert response.content.count(b"data-combatant=") == fighters

    def poll_unchanged() -> None:
        response = client.get(f"{url}live/", {"v": encounter.version})
        assert response.status_code == 204, response.status_code

    def poll_changed() -> None:
        response = client.get(f"{url}live/", {"v": 0})
        assert response.status_code == 200, response.status_code

    rounds = 15 if quick else 60
    return [
        duration(f"GET encounter page, {fighters} combatants (server time)", page, rounds=rounds),
        duration("GET poll, nothing changed (204)", poll_unchanged, rounds=rounds),
        duration(f"GET poll, changed ({fighters} combatants)", poll_changed, rounds=rounds),
    ]
