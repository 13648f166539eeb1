"""The party review page: server time for a campaign of 20 player characters.

The referee's /campaigns/<id>/ runs the rules engine on every character under the campaign's
house rules (CPU) and reads the party in a fixed number of queries, so its time should grow
with the party only by the engine's checks. Measured through the whole Django stack with the test
client, logged in, against a throwaway SQLite database in a temporary FFA_VAR_DIR.
"""

from bench.core import Figure, bench_user, duration, throwaway_database

PASSWORD = "bench-password"
PARTY = 20
NPCS = 3


def _setup():
    """Django on a throwaway database (another suite's, if one already set Django up)."""
    throwaway_database("campaign")
    return bench_user("campaign", "referee", password=PASSWORD)


def _party(referee):
    """A campaign with PARTY player characters of varied builds and statuses, and a few NPCs."""
    import random

    from characters.builder import services as builder_services
    from characters.campaigns import services as campaigns_services
    from characters.core import services as core_services
    from characters.review import services as review_services
    from tests.factories import character_document

    campaign = campaigns_services.create_campaign(
        referee=referee, name="Bench Marches", open_services=["navy", "scouts", "merchants"]
    )
    rng = random.Random(6)
    services_cycle = ("navy", "scouts", "merchants", "army")  # army is closed: some errors
    for n in range(PARTY):
        player = bench_user("campaign", f"player-{n}")
        campaigns_services.join_campaign(user=player, code=campaign.invite_code)
        terms = 1 + n % 3
        document = character_document(
            name=f"Traveller {n:02d}",
            service=services_cycle[n % len(services_cycle)],
            terms=terms,
            rank=min(n % 3, terms),
            homeworld="Regina",
            attributes={**character_document()["attributes"], "DEX": 7 + n % 4, "EDU": 8},
            traits=[
                {"type": "PP", "level": "C", "frequency": "R", "name": f"Knack {t}"}
                for t in range(terms)
            ],
            skills=[
                {"skill": "Pilot", "level": 2, "specialties": ["small craft"]},
                {"skill": "Navigation", "level": 1 + n % 2},
                {"skill": "Gambling", "level": n % 2},
            ],
            psionics={"strength": 2, "talents": {"Telepathy": 1}} if n % 5 == 0 else None,
        )
        character = builder_services.create_character(
            owner=player, document=document, campaign=campaign
        )
        if n % 2 == 0:
            builder_services.roll_mustering_out(character=character, by=player, rng=rng)
        try:
            review_services.submit_character(character=character, by=player)
            if n % 3 == 0:
                review_services.approve_character(character=character, by=referee)
        except core_services.Refused:
            pass  # characters with errors under the house rules stay drafts
    for n in range(NPCS):
        campaigns_services.create_npc(campaign=campaign, name=f"NPC {n}", budget=25 + 25 * n)
    return campaign


def run(quick: bool) -> list[Figure]:
    from django.test import Client

    referee = _setup()
    campaign = _party(referee)
    client = Client()
    client.login(username=referee.get_username(), password=PASSWORD)
    url = f"/campaigns/{campaign.pk}/"

    def review() -> None:
        response = client.get(url)
        assert response.status_code == 200, response.status_code
        assert response.content.count(b"<tr data-character=") == PARTY + NPCS

    def sorted_partial() -> None:
        response = client.get(url, {"sort": "-problems"}, HTTP_HX_REQUEST="true")
        assert response.status_code == 200, response.status_code

    rounds = 15 if quick else 60
    return [
        duration(
            f"GET party review, {PARTY} PCs + {NPCS} NPCs (server time)", review, rounds=rounds
        ),
        duration(
            f"GET party review sorted, htmx tables only ({PARTY} PCs)",
            sorted_partial,
            rounds=rounds,
        ),
    ]
