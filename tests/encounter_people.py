"""The people of the encounter tests: a party of two against a group of Vargr corsairs, in
the referee's campaign (integration and browser tests share them)."""

from characters.builder import services as builder_services
from characters.campaigns import services as campaigns_services
from characters.core.services import store_document
from characters.encounters import services as encounter_services
from characters.models import Campaign, Character, Combatant, Encounter
from tests.factories import UserFactory, character_document

Side = Combatant.Side


def kira_document() -> dict:
    """A gunslinger: DEX 10, Handgun-3, an automatic pistol with two magazines, no armor."""
    return character_document(
        name="Kira Valen",
        attributes={**character_document()["attributes"], "DEX": 10},
        skills=[{"skill": "Handgun", "level": 3}],
        equipment=[
            {"item": "Automatic pistol", "quantity": 1},
            {"item": "Automatic pistol ammunition", "quantity": 2},
        ],
    )


def dorn_document() -> dict:
    """A brawler with a cutlass and no armor."""
    return character_document(
        name="Dorn Hask",
        skills=[{"skill": "Blade Combat", "cascade": "swords", "level": 1}],
        equipment=[{"item": "Cutlass", "quantity": 1}],
    )


def corsair_document() -> dict:
    """The referee's stat block for a Vargr corsair: STR 9, Blade Combat (swords)-2, a cutlass
    and a jack."""
    return character_document(
        name="Vargr corsair",
        kind="npc",
        attributes={**character_document()["attributes"], "STR": 9},
        skills=[{"skill": "Blade Combat", "cascade": "swords", "level": 2}],
        equipment=[{"item": "Cutlass", "quantity": 1}, {"item": "Jack", "quantity": 1}],
    )


def party_against_corsairs() -> tuple[Campaign, Character, Character, Character]:
    """The referee's campaign with player1's Kira, player2's Dorn and the referee's corsair."""
    referee = UserFactory(username="referee")
    player1 = UserFactory(username="player1")
    player2 = UserFactory(username="player2")
    campaign = campaigns_services.create_campaign(referee=referee, name="Spinward Marches")
    for player in (player1, player2):
        campaigns_services.join_campaign(user=player, code=campaign.invite_code)
    kira = builder_services.create_character(
        owner=player1, document=kira_document(), campaign=campaign
    )
    dorn = builder_services.create_character(
        owner=player2, document=dorn_document(), campaign=campaign
    )
    corsair = builder_services.create_character(
        owner=referee, document=corsair_document(), campaign=campaign
    )
    return campaign, kira, dorn, corsair


def start(campaign, kira, dorn, corsair, *, corsairs: int = 4) -> Encounter:
    """The referee's encounter: Kira and Dorn against ``corsairs`` corsairs, before initiative."""
    return encounter_services.start_encounter(
        campaign=campaign,
        by=campaign.referee,
        name="Ambush at the docks",
        groups=[
            encounter_services.Group(1, Side.PARTY, character=kira),
            encounter_services.Group(1, Side.PARTY, character=dorn),
            encounter_services.Group(corsairs, Side.OPPOSITION, character=corsair),
        ],
    )


def take_up_two_rifles(kira: Character) -> None:
    """Kira trades her pistol for an accelerator rifle (RoF 1:3) and a Gauss rifle (RoF
    1:4:10), both with autofire, and Rifleman-2."""
    rifles = [{"item": "Accelerator rifle", "quantity": 1}, {"item": "Gauss rifle", "quantity": 1}]
    document = kira.document | {"equipment": rifles}
    document["skills"] = [{"skill": "Rifleman", "level": 2}]
    store_document(kira, document, by=kira.owner, action="Took up two rifles")


def idris_document() -> dict:
    """A specialist: Rifleman-3 (assault rifle), DEX 9, STR 9, with an assault rifle and two
    magazines, in combat armor over reflec (both marked worn)."""
    return character_document(
        name="Idris Tane",
        attributes={**character_document()["attributes"], "DEX": 9, "STR": 9, "EDU": 9},
        skills=[{"skill": "Rifleman", "level": 3, "specialties": ["assault rifle"]}],
        equipment=[
            {"item": "Assault rifle", "quantity": 1},
            {"item": "Assault rifle ammunition", "quantity": 2},
            {"item": "Combat armor", "tl": 11, "quantity": 1, "worn": True},
            {"item": "Reflec", "quantity": 1, "worn": True},
        ],
    )


def vargr_document() -> dict:
    """A Vargr brawler: Brawling-1, its claws and teeth."""
    return character_document(
        name="Ghaekh", kind="npc", species="vargr", skills=[{"skill": "Brawling", "level": 1}]
    )


def thrower_document() -> dict:
    """A spear thrower of STR 8 (a thrown spear reaches 40 m), Bow (spears)-2, two spears."""
    return character_document(
        name="Oro",
        kind="npc",
        attributes={**character_document()["attributes"], "STR": 8},
        skills=[{"skill": "Bow", "cascade": "spears", "level": 2}],
        equipment=[{"item": "Spear (thrown)", "quantity": 2}],
    )


def raid_on_the_depot(campaign: Campaign, kira: Character, corsair: Character) -> Encounter:
    """player1's Kira and Idris (created here) against two corsairs, Ghaekh the Vargr and Oro
    the spear thrower (the referee's, created here) and a 40 kg hunter, before initiative."""
    referee, player1 = campaign.referee, kira.owner
    idris = builder_services.create_character(
        owner=player1, document=idris_document(), campaign=campaign
    )
    vargr, thrower = (
        builder_services.create_character(owner=referee, document=document, campaign=campaign)
        for document in (vargr_document(), thrower_document())
    )
    return encounter_services.start_encounter(
        campaign=campaign,
        by=referee,
        name="Raid on the depot",
        groups=[
            encounter_services.Group(1, Side.PARTY, character=kira),
            encounter_services.Group(1, Side.PARTY, character=idris),
            encounter_services.Group(2, Side.OPPOSITION, character=corsair),
            encounter_services.Group(1, Side.OPPOSITION, character=vargr),
            encounter_services.Group(1, Side.OPPOSITION, character=thrower),
            encounter_services.Group(1, Side.OPPOSITION, animal_type="hunter", weight_kg=40),
        ],
    )
