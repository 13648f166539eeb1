"""Encounters: the referee starts one from the campaign page, and the table plays it at
``/encounters/<id>/``: initiative, attacks with their odds, delays, rounds, morale, undo.

Every view finds the encounter through ``encounter_for_user`` (the campaign's referee and its
players; anyone else gets 404). The referee acts for every fighter; a player acts only for
their own character, on its turn (the services refuse anything else, with the reason). Every
action is a POST form that works without JavaScript (it redirects back with a message); with
htmx it swaps the ``encounter`` region in place, the outcome where the button was. Phones keep
up by polling the ``live`` region (turn order, the player's own state, the log), which answers
204 with no body while the encounter's version is the one the page has; the action panel is
never polled, so a half-filled attack form survives every poll of the same turn.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from characters.core.forms import first_problem, natural_number
from characters.core.refused import keep_refused_form, refused_form
from characters.core.requests import AuthenticatedHttpRequest
from characters.core.selectors import campaign_for_user, is_referee
from characters.core.services import Refused
from characters.encounters import forms as encounter_forms
from characters.encounters import panels, selectors, services, t4, twod6
from characters.encounters.selectors import Board, Row, encounter_for_user
from characters.encounters.t4_forms import InitiativeForm, T4AttackForm
from characters.encounters.t4_forms import SurpriseForm as T4SurpriseForm
from characters.encounters.twod6_forms import PreparedForm, TwoD6AttackForm
from characters.models import Combatant, CombatSystem, Encounter, EncounterEntry

PAGE = "characters/encounters/encounter.html"
# Each system's attack form.
ATTACK_FORMS: dict[str, type[encounter_forms.TargetedForm]] = {
    CombatSystem.FFA: encounter_forms.AttackForm,
    CombatSystem.T4: T4AttackForm,
    CombatSystem.TWOD6: TwoD6AttackForm,
}
# A message that carries an action's outcome to the page without JavaScript, and its entry.
OUTCOME_TAG = "encounter-outcome"
ENTRY_TAG = "entry:"


@login_required
@require_http_methods(["GET", "POST"])
def encounter_new(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The referee picks who fights: the party, groups of the campaign's NPCs, animals."""
    campaign = campaign_for_user(request, pk, referee=True)
    pcs, npcs = selectors.party_and_npcs(campaign)
    form = encounter_forms.StartForm(campaign, pcs, npcs, request.POST or None)
    problem = ""
    if request.method == "POST" and form.is_valid():
        try:
            encounter = services.start_encounter(
                campaign=campaign,
                by=request.user,
                name=form.cleaned_data["name"],
                groups=form.groups(),
                combat_system=form.cleaned_data["combat_system"],
            )
        except Refused as refused:
            problem = str(refused)
        else:
            messages.success(request, f"{encounter.name} is set: throw initiative to begin.")
            return redirect("encounter_detail", encounter.pk)
    status = 400 if form.errors or problem else 200
    context = {"campaign": campaign, "form": form, "problem": problem or first_problem(form)}
    return render(request, "characters/encounters/encounter_new.html", context, status=status)


@dataclass(frozen=True)
class Outcome:
    """What the last action did, shown where its button was."""

    message: str = ""
    error: str = ""
    entry: Any = None
    conflict: bool = False


def _live_context(
    request: AuthenticatedHttpRequest, encounter: Encounter, state: Board
) -> dict[str, Any]:
    """What the polled region shows: the turn order, the user's own fighters and the log."""
    user_id = request.user.pk
    referee = is_referee(encounter.campaign, user_id)
    leaders = {row.pk for row in state.leaders.values() if row is not None}
    # T4's movement phase goes lowest first (III.1); every other list highest first.
    shown = reversed(state.rows) if state.phase == t4.MOVEMENT else state.rows
    return {
        "leaders": leaders,
        "encounter": encounter,
        "campaign": encounter.campaign,
        "board": state,
        "rows": [
            {"row": row, "mine": row.owned_by(user_id), "sees": referee or row.owned_by(user_id)}
            for row in shown
        ],
        "system": encounter.combat_system,
        "mine": [row for row in state.rows if row.owned_by(user_id)],
        "current": state.current,
        "is_referee": referee,
        "turn_key": state.turn_key,
    }


def _context(
    request: AuthenticatedHttpRequest,
    encounter: Encounter,
    *,
    state: Board | None = None,
    outcome: Outcome | None = None,
    chosen: QueryDict | None = None,
    surprise_typed: QueryDict | None = None,
) -> dict[str, Any]:
    """The page's context: the polled region's and the action panel's. ``state``: the board,
    when the caller has read it already; ``chosen``: an attack form's choices to keep (a
    refused attack's, or one refused for a conflict while it is still the same turn), at the
    version now; ``surprise_typed``: a refused surprise throw's side and DMs, likewise."""
    if state is None:
        state = selectors.board(encounter)
    context = _live_context(request, encounter, state)
    referee, current = context["is_referee"], state.current
    mine = current is not None and current.owned_by(request.user.pk)
    may_act = not state.ended and current is not None and (referee or mine)
    attack_form = None
    form_class = ATTACK_FORMS[encounter.combat_system]
    # A stunned fighter's turn goes to recovering, an attack waiting for a reaction holds
    # the turn: neither gets an attack form.
    waiting = bool(encounter.system_state.get("pending"))
    if may_act and current is not None and not current.condition.stunned and not waiting:
        if chosen is not None:
            data = chosen.copy()
            data["version"] = str(encounter.version)
            kept = form_class(state, current, data, referee=referee)
            attack_form = kept if kept["turn"].value() == state.turn_key else None
        attack_form = attack_form or form_class.as_chosen(state, current, referee=referee)
    outcome = outcome or Outcome()
    planned = None
    if attack_form is not None and current is not None:
        planned = (
            _odds(state, current, attack_form)
            if attack_form.is_valid()
            else {"error": first_problem(attack_form)}
        )
        # A refused attack's reason is its outcome, which takes the focus; the odds just below
        # would say it again. They speak again when a choice changes.
        if outcome.error and planned.get("error") == outcome.error:
            planned = None
    # Thrown once, before initiative: the entries then are few, and all on the page.
    surprise_thrown = any(
        e.kind == EncounterEntry.Kind.SURPRISE and e.undone_at is None for e in state.entries
    )
    surprise_open = referee and encounter.round == 0 and not state.ended and not surprise_thrown
    ffa = encounter.combat_system == CombatSystem.FFA
    no_surprise = services.surprise_refused(state) if surprise_open and ffa else ""
    leaders = state.leaders
    due = services.morale_due(state) if referee and not state.ended else []
    return context | {
        "may_act": may_act,
        "attack_form": attack_form,
        "planned": planned,
        "outcome": outcome,
        "morale_due": [
            {
                "side": side,
                "leader": leader,
                "experience": _has_experience(leader),
                "morale": selectors.morale_odds(state, side),
            }
            for side in due
            for leader in (leaders[side],)
        ],
        "sides": [
            {"side": side, "label": label, "rows": state.fielded(side), "leader": leaders[side]}
            for side, label in Combatant.Side.choices
            if state.side(side)
        ],
        "referee_dm_max": encounter_forms.MAX_REFEREE_DM,
        # What the sheets add to each side's surprise throw, shown before it is thrown.
        "range_dms": [
            {
                "label": label,
                "spotter": services.spotter_of(state, side),
                "dms": services.sheets_range_dms(state, side),
            }
            for side, label in Combatant.Side.choices
        ]
        if surprise_open and ffa and not no_surprise
        else [],
        "waiting_for": services.waiting_for(state) if may_act and ffa else [],
        "surprise_form": (
            _surprise_form(encounter, surprise_typed)
            if surprise_open and ffa and not no_surprise
            else None
        ),
        # A T4 or 2D6 round's own steps (panels.t4_panel, panels.twod6_panel).
        "t4": (
            panels.t4_panel(
                state,
                request.user,
                is_referee=referee,
                surprise_open=surprise_open and not state.ended,
            )
            if encounter.combat_system == CombatSystem.T4 and not state.ended
            else None
        ),
        "twod6": (
            panels.twod6_panel(state, request.user, is_referee=referee)
            if encounter.combat_system == CombatSystem.TWOD6 and not state.ended
            else None
        ),
        # Why the form is not offered; said once, when a refused throw's outcome says it.
        "no_surprise": "" if outcome.error == no_surprise else no_surprise,
        "ending": _ending(encounter) if state.ended else None,
        # What "Undo" takes back, when it is among the lines the page shows: the referee
        # undoes anything, a player what they did.
        "undoable": next(
            (
                e
                for e in state.entries
                if e.undone_at is None and e.kind != EncounterEntry.Kind.UNDO
            ),
            None,
        ),
    }


def _has_experience(leader: Row | None) -> bool:
    """Whether a side's leader has combat experience, as its sheet says."""
    return leader is not None and leader.fighter.combat_experience


def _surprise_form(encounter: Encounter, typed: QueryDict | None) -> encounter_forms.SurpriseForm:
    """The surprise form at the version now, with what a refused throw had typed in it: a
    referee who typed both sides' DMs should not type them again after another tab acted."""
    if typed is None:
        return encounter_forms.SurpriseForm(initial={"version": encounter.version})
    data = typed.copy()
    data["version"] = str(encounter.version)
    return encounter_forms.SurpriseForm(data)


def _ending(encounter: Encounter) -> EncounterEntry | None:
    """The entry that ended the encounter: its detail is the summary an ended page shows."""
    return encounter.entries.filter(kind=EncounterEntry.Kind.END, undone_at__isnull=True).first()


def _odds(state: Board, attacker, form: encounter_forms.TargetedForm) -> dict[str, Any]:
    """The chance on each target (several for a burst at further targets), or why the attack
    would be refused: a target out of reach, too few rounds left. Under T4 and 2D6 the plan
    with every DM, the statuses of the fight filled in (2D6: as if the target does not react;
    its player sees the odds of each reaction when asked)."""
    order = form.order()
    try:
        if state.system != CombatSystem.FFA:
            round_of = t4 if state.system == CombatSystem.T4 else twod6
            system_plan = round_of.plan(state, attacker, order)
            services.firing(attacker, system_plan.weapon, system_plan.rounds)
            odds = {"plan": system_plan.plan, "system": state.system}
            if isinstance(system_plan, t4.T4Planned):
                # A burst's throws: the chance of each and of at least one hit.
                odds["chance_any"] = system_plan.chance_any
            return odds
        planned = services.plan(state, attacker, order)
        services.firing(attacker, planned.weapon, order.situation.rounds_fired)
    except Refused as refused:
        return {"error": str(refused)}
    first, *others = planned.plans
    return {"plan": first[0], "others": [(target, plan) for plan, target in others]}


# Never shown from the browser's cache, as the play sheet: after Back a cached copy would be
# the encounter as first loaded, with the actions of a turn that has passed.
@never_cache
@login_required
@require_GET
def encounter_detail(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    encounter = encounter_for_user(request, pk)
    outcome = _outcome_from_messages(request, encounter)
    context = _context(
        request,
        encounter,
        outcome=outcome,
        chosen=refused_form(request, form=_kept_form(encounter, "attack")),
        surprise_typed=refused_form(request, form=_kept_form(encounter, "surprise")),
    )
    return render(request, PAGE, context)


@login_required
@require_GET
def encounter_live(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The polled region: 204 and no body while the page has the encounter's version, else
    the turn order, the player's own state and the log (and the action panel, when the turn
    moved on: the form it showed belongs to a turn that is over). The action panel's context
    (the attack form and its odds, morale due, the ending) is worked out only when it comes."""
    encounter = encounter_for_user(request, pk)
    form = encounter_forms.LiveForm(request.GET)
    shown = form.cleaned_data if form.is_valid() else {"v": None, "t": ""}
    if shown["v"] == encounter.version:
        return HttpResponse(status=204)
    state = selectors.board(encounter)
    swap_act = shown["t"] != state.turn_key
    if swap_act:
        context = _context(request, encounter, state=state)
    else:
        context = _live_context(request, encounter, state)
    return render(request, f"{PAGE}#live", context | {"swap_act": swap_act})


@login_required
@require_GET
def encounter_odds(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The attack's exact chance as the form stands, before any die (htmx, on every change)."""
    encounter = encounter_for_user(request, pk)
    state = selectors.board(encounter, entries=0)
    current = state.current
    planned: dict[str, Any] = {"error": "Nobody's turn."}
    if current is not None:
        referee = is_referee(encounter.campaign, request.user.pk)
        form = ATTACK_FORMS[encounter.combat_system](state, current, request.GET, referee=referee)
        if form["turn"].value() not in ("", None, state.turn_key):
            # A panel kept from a turn that is over: its choices were for another fighter.
            planned = {
                "error": "The turn has moved on: these choices were for a turn that is over."
            }
        elif not form.is_valid():
            planned = {"error": first_problem(form)}
        else:
            planned = _odds(state, current, form)
    return render(request, f"{PAGE}#odds", {"planned": planned, "system": state.system})


@login_required
@require_GET
def encounter_morale_odds(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """A side's morale odds as the referee's form stands, before the dice (htmx, on change)."""
    encounter = encounter_for_user(request, pk, referee=True)
    form = encounter_forms.MoraleForm(request.GET)
    if not form.is_valid():
        context: dict[str, Any] = {"error": first_problem(form), "side": form["side"].value()}
    else:
        state = selectors.board(encounter, entries=0)
        side = form.cleaned_data["side"]
        morale = selectors.morale_odds(
            state, side, combat_experience=form.experience(), dm=form.cleaned_data["dm"]
        )
        context = {"side": side, "morale": morale}
    return render(request, f"{PAGE}#morale-odds", {"due": context})


def _respond(
    request: AuthenticatedHttpRequest,
    encounter: Encounter,
    outcome: Outcome,
    chosen: QueryDict | None = None,
    surprise_typed: QueryDict | None = None,
) -> HttpResponse:
    """htmx: the encounter region, the outcome where the button was. Otherwise back to the
    page (Post/Redirect/Get) at the outcome (``#outcome``), which shows there from its
    message, with a refused form's choices kept for it."""
    if request.htmx:
        encounter = Encounter.objects.select_related("campaign").get(pk=encounter.pk)
        context = _context(
            request, encounter, outcome=outcome, chosen=chosen, surprise_typed=surprise_typed
        )
        return render(request, f"{PAGE}#encounter", context)
    tags = OUTCOME_TAG + (f" {ENTRY_TAG}{outcome.entry.pk}" if outcome.entry else "")
    if outcome.error:
        messages.error(request, outcome.error, extra_tags=tags)
        for form, fields in (("attack", chosen), ("surprise", surprise_typed)):
            if fields is not None:
                keep_refused_form(request, form=_kept_form(encounter, form), fields=fields)
    elif outcome.message:
        messages.success(request, outcome.message, extra_tags=tags)
    return redirect(reverse("encounter_detail", args=[encounter.pk]) + "#outcome")


def _kept_form(encounter: Encounter, form: str) -> str:
    """What a refused form of this encounter is kept as, without JavaScript."""
    return f"encounter-{encounter.pk}-{form}"


def _outcome_from_messages(request: AuthenticatedHttpRequest, encounter: Encounter) -> Outcome:
    """The outcome an action without JavaScript left as a message for this page, if any: it
    shows where the button was, like an htmx answer's."""
    for message in messages.get_messages(request):
        tags = message.extra_tags.split()
        if OUTCOME_TAG not in tags:
            continue
        if message.level == messages.ERROR:
            return Outcome(error=str(message))
        pk = next(
            (natural_number(t.removeprefix(ENTRY_TAG)) for t in tags if t.startswith(ENTRY_TAG)),
            None,
        )
        entry = encounter.entries.filter(pk=pk).first() if pk is not None else None
        return Outcome(message=str(message), entry=entry)
    return Outcome()


def _outcome_of(action: Callable[[], Any]) -> Outcome:
    """Run the action; a refusal or a form's problem is the outcome's error, never a 500."""
    try:
        entry = action()
    except services.EncounterConflict as conflict:
        return Outcome(error=str(conflict), conflict=True)
    except Refused as refused:
        return Outcome(error=str(refused))
    except ValidationError as invalid:
        return Outcome(error=" ".join(invalid.messages))
    return Outcome(message=entry.summary, entry=entry)


def _attempt(
    request: AuthenticatedHttpRequest, encounter: Encounter, action: Callable[[], Any]
) -> HttpResponse:
    return _respond(request, encounter, _outcome_of(action))


def _read(form):
    if not form.is_valid():
        raise ValidationError(first_problem(form))
    return form


def _posted(
    request: AuthenticatedHttpRequest,
    pk: int,
    service: Callable[..., EncounterEntry],
    form: type[encounter_forms.VersionForm] = encounter_forms.VersionForm,
    fields: Mapping[str, str] | None = None,
) -> HttpResponse:
    """An action of the encounter ``pk`` read by ``form`` (the page's version, and what else it
    asks): ``service`` is called with the encounter, the user, the version and, for each of
    ``fields`` (the service's keyword: the form's field), what the form read."""
    encounter = encounter_for_user(request, pk)

    def act() -> EncounterEntry:
        data = _read(form(request.POST)).cleaned_data
        chosen = {keyword: data[field] for keyword, field in (fields or {}).items()}
        return service(
            encounter=encounter, by=request.user, expected_version=data["version"], **chosen
        )

    return _attempt(request, encounter, act)


@login_required
@require_POST
def encounter_initiative(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The referee throws initiative: under T4 with the Tactics kept and the quick draws, under
    2D6 with the prepared fighters."""
    encounter = encounter_for_user(request, pk)
    if encounter.combat_system == CombatSystem.FFA:
        return _posted(request, pk, services.throw_initiative)

    def throw() -> EncounterEntry:
        state = selectors.board(encounter, entries=0)
        if encounter.combat_system == CombatSystem.T4:
            form = _read(InitiativeForm(state, request.POST))
            choices = form.choices()
        else:
            form = _read(PreparedForm(state, request.POST))
            choices = {"prepared": set(form.cleaned_data["prepared"])}
        return services.throw_initiative(
            encounter=encounter,
            by=request.user,
            expected_version=form.cleaned_data["version"],
            **choices,
        )

    return _attempt(request, encounter, throw)


@login_required
@require_POST
def encounter_attack(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The fighter whose turn it is attacks; the dice are thrown here."""
    encounter = encounter_for_user(request, pk)
    state = selectors.board(encounter, entries=0)

    def throw():
        version = _read(encounter_forms.VersionForm(request.POST)).cleaned_data["version"]
        # The version and whose turn first: the form offers that fighter's weapons.
        services.refuse_if_stale(encounter, version)
        attacker = services.acting(state, request.user, "attack")
        referee = is_referee(encounter.campaign, request.user.pk)
        form_class = ATTACK_FORMS[encounter.combat_system]
        form = _read(form_class(state, attacker, request.POST, referee=referee))
        return services.attack(
            encounter=encounter, by=request.user, order=form.order(), expected_version=version
        )

    outcome = _outcome_of(throw)
    # A refused attack keeps what was chosen, for the turn it was chosen for.
    return _respond(request, encounter, outcome, request.POST if outcome.error else None)


@login_required
@require_POST
def encounter_turn(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """End the turn, delay, or (the referee) start the next round."""
    return _posted(
        request,
        pk,
        services.take_turn,
        encounter_forms.TurnForm,
        {"action": "action", "after": "after"},
    )


@login_required
@require_POST
def encounter_morale(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    encounter = encounter_for_user(request, pk)

    def test():
        form = _read(encounter_forms.MoraleForm(request.POST))
        data = form.cleaned_data
        return services.throw_morale(
            encounter=encounter,
            by=request.user,
            side=data["side"],
            combat_experience=form.experience(),
            dm=data["dm"],
            expected_version=data["version"],
        )

    return _attempt(request, encounter, test)


@login_required
@require_POST
def encounter_undo(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    return _posted(request, pk, services.undo_last)


@login_required
@require_POST
def encounter_surprise(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The referee has the sides throw for surprise, before initiative."""
    encounter = encounter_for_user(request, pk)

    def throw():
        if encounter.combat_system == CombatSystem.T4:
            sides = _read(T4SurpriseForm(request.POST))
            return services.throw_surprise(
                encounter=encounter,
                by=request.user,
                sides=sides.sides(),
                expected_version=sides.cleaned_data["version"],
            )
        form = _read(encounter_forms.SurpriseForm(request.POST))
        return services.throw_surprise(
            encounter=encounter,
            by=request.user,
            may_be_surprised=form.cleaned_data["may_be_surprised"],
            dms=form.dms(),
            expected_version=form.cleaned_data["version"],
        )

    outcome = _outcome_of(throw)
    return _respond(
        request, encounter, outcome, surprise_typed=request.POST if outcome.error else None
    )


@login_required
@require_http_methods(["GET", "POST"])
def encounter_join(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """Reinforcements: the referee picks who joins the fight under way."""
    encounter = encounter_for_user(request, pk, referee=True)
    pcs, npcs = selectors.party_and_npcs(encounter.campaign)
    present = set(encounter.combatants.values_list("character_id", flat=True))
    pcs = [pc for pc in pcs if pc.pk not in present]
    data = request.POST if request.method == "POST" else None
    form = encounter_forms.JoinForm(
        encounter.campaign, pcs, npcs, data, initial={"version": encounter.version}
    )
    problem = ""
    if request.method == "POST" and form.is_valid():
        try:
            entry = services.add_combatants(
                encounter=encounter,
                by=request.user,
                groups=form.groups(),
                expected_version=form.cleaned_data["version"],
            )
        except Refused as refused:
            problem = str(refused)
        else:
            messages.success(request, entry.summary)
            return redirect("encounter_detail", encounter.pk)
    status = 400 if form.errors or problem else 200
    context = {
        "encounter": encounter,
        "campaign": encounter.campaign,
        "form": form,
        "problem": problem or first_problem(form),
    }
    return render(request, "characters/encounters/encounter_join.html", context, status=status)


@login_required
@require_POST
def encounter_end(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The referee ends the encounter, once confirmed: its summary, then read-only."""
    return _posted(request, pk, services.end_encounter, form=encounter_forms.EndForm)


@login_required
@require_POST
def encounter_alarm(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The referee says surprise is lost."""
    return _posted(request, pk, services.end_surprise)


@login_required
@require_POST
def encounter_leader(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The referee names a side's leader."""
    return _posted(
        request,
        pk,
        services.name_leader,
        encounter_forms.LeaderForm,
        {"side": "side", "combatant": "leader"},
    )
