"""What the encounter tests post and read: an attack's form, whose page, magazines."""

from characters.encounters.selectors import board
from characters.models import Combatant, Encounter, PlayState
from characters.play import services as play_services
from characters.play.selectors import carried_equipment

PISTOL = "Automatic pistol|6"
MAGAZINE = "Automatic pistol ammunition"


def attack_post(encounter: Encounter, target: Combatant, **changes) -> dict[str, str]:
    """The attack form as a browser posts it, the ordinary case chosen."""
    return {
        "version": str(encounter.version),
        "turn": board(encounter, entries=0).turn_key,
        "target": str(target.pk),
        "weapon": PISTOL,
        "range_band": "short",
        "cover": "",
        "lighting": "",
        "visibility": "",
        "movement": "stationary",
        "facing": "front",
        "aim_turns": "0",
        "extra_actions": "0",
        "dm": "0",
        **changes,
    }


def as_user(client, user):
    client.force_login(user)
    return client


def magazines(character) -> int:
    return sum(e.quantity for e in carried_equipment(character) if e.item == MAGAZINE)


def load(character, rounds: int, weapon: str = PISTOL) -> None:
    """``rounds`` left in the magazine loaded in the character's ``weapon``, as a fight left it."""
    play_services.keep_rounds_loaded(character=character, loaded={weapon: rounds})


def rounds_loaded(character) -> dict[str, int]:
    """The rounds loaded in each of the character's weapons, as its play sheet keeps them."""
    state = PlayState.objects.filter(character=character).first()
    return state.loaded if state else {}
