"""The play sheet's T4 and 2D6 record: damage marked by hand, points restored, waking from
shock, an hour's rest, medical attention, healed. Posted to ``/characters/<id>/play/record/``
by the owner and the referee, under the system the character's campaign fights under; the
answer is the play region, as every play sheet action's (``views._attempt``)."""

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.views.decorators.http import require_POST

from characters.core.requests import AuthenticatedHttpRequest
from characters.core.selectors import character_for_user
from characters.core.services import Refused
from characters.models import Character, CombatSystem
from characters.play import forms as play_forms
from characters.play import record_services
from characters.play.selectors import combat_system_of
from characters.play.views import Outcome, _attempt, _read


def _record_action(request: AuthenticatedHttpRequest, character: Character) -> Outcome:
    system = combat_system_of(character)
    if system == CombatSystem.FFA:
        raise Refused(
            f"{character.name}'s campaign fights under FFA: its LIF track is on this sheet."
        )
    data = _read(play_forms.RecordForm(request.POST)).cleaned_data
    action = data["action"]
    common = {"character": character, "by": request.user, "expected_version": data["play_version"]}
    if action == "take":
        result = record_services.take_points(
            **common,
            system=system,
            points=data["points"],
            stat=data["stat"],
            stun=data["stun"],
            overflow_to=data["overflow"],
        )
    elif action == "restore":
        result = record_services.restore_points(
            **common, system=system, stat=data["stat"], points=data["points"]
        )
    elif action == "clear":
        result = record_services.clear_record(**common, system=system)
    elif system != CombatSystem.T4:
        raise Refused("Waking from shock, rest and medical attention are T4's.")
    elif action == "wake":
        result = record_services.wake_from_shock(**common)
    elif action == "rest":
        result = record_services.recover_stun(**common)
    else:
        result = record_services.medical_attention(**common)
    return Outcome(message=f"{result.change.what}. {result.message}".strip())


@login_required
@require_POST
def character_record(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """A change of the T4 or 2D6 record: ``action`` is take, restore, wake, rest, medical or
    clear."""
    character = character_for_user(request, pk)
    return _attempt(request, character, lambda: _record_action(request, character), "life")
