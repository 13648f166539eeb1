"""What the encounter page's action panel shows of a T4 or a 2D6 round, before anything is
thrown: the forms each step asks for (initiative, the movement statuses, a reaction, Tactics,
hastening, Leadership) and the odds and DMs of every throw, for the referee and for each player
as far as their own fighters go. Reads only; the views render it and the services act."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User

from characters.encounters import t4, twod6
from characters.encounters.selectors import Board, Row
from characters.encounters.t4_forms import InitiativeForm, StatusForm, SurpriseForm
from characters.encounters.twod6_forms import PreparedForm
from characters.models import Combatant
from rules.combat.t4 import round as t4_round
from rules.combat.twod6.attack import TABLES as TWOD6_TABLES


def _controls(row: Row, user: User, is_referee: bool) -> bool:
    return is_referee or row.owned_by(user.pk)


def t4_panel(state: Board, user: User, *, is_referee: bool, surprise_open: bool) -> dict[str, Any]:
    """A T4 round's panel: the surprise throw (its DMs and each side's chance), initiative's
    DMs for each fighter and its form, the movement statuses each may set, the held actions."""
    phase = t4.phase(state)
    able = [row for row in state.rows if not row.out_of_action]
    panel: dict[str, Any] = {"phase": phase, "held": [], "statuses": []}
    if surprise_open:
        sides = t4.surprise_sides(state)
        odds = t4.surprise_odds(sides)
        panel["surprise"] = {
            "form": SurpriseForm(initial={"version": state.encounter.version}),
            "sides": [
                {
                    "label": Combatant.Side(side.name).label,
                    "dms": t4_round.surprise_dms(side),
                    "chance": odds[side.name],
                }
                for side in sides
            ],
        }
    if phase == t4.INITIATIVE and is_referee:
        panel["initiative_form"] = InitiativeForm(state)
        panel["initiative_dms"] = [(row, t4.initiative_dms(state, row)) for row in able]
    if phase == t4.MOVEMENT:
        # The movement phase goes lowest first (III.1).
        for row in reversed(state.rows):
            if row.out_of_action or not _controls(row, user, is_referee):
                continue
            initial = {
                "version": state.encounter.version,
                "combatant": row.pk,
                "movement": t4.movement_of(row),
                "action": t4.action_of(row),
            }
            panel["statuses"].append((row, StatusForm(initial=initial), t4.able(row)))
    if phase == t4.COMBAT:
        panel["held"] = [row for row in t4.held(state) if _controls(row, user, is_referee)]
    return panel


def twod6_panel(state: Board, user: User, *, is_referee: bool) -> dict[str, Any]:
    """A 2D6 round's panel: the prepared fighters of the initiative throw, each side's Tactics
    check (its commander, DMs and chance), hastening, an attack waiting for the user's
    reaction (with the odds of each), the delaying fighters, Leadership's allies and odds."""
    encounter = state.encounter
    panel: dict[str, Any] = {"hasten": [], "delaying": [], "tactics": []}
    if encounter.round == 0 and is_referee:
        panel["prepared_form"] = PreparedForm(state)
    if is_referee:
        for side in twod6.tactics_open(state):
            preview = twod6.tactics_preview(state, side)
            if preview is not None:
                leader, dms = preview
                panel["tactics"].append(
                    {
                        "side": side,
                        "label": Combatant.Side(side).label,
                        "commander": leader,
                        "dms": dms,
                        "chance": twod6.check_odds(dms),
                    }
                )
    if encounter.round and not twod6.round_begun(state):
        panel["hasten"] = [
            row
            for row in state.rows
            if _controls(row, user, is_referee)
            and (initiative := twod6.initiative_of(row)) is not None
            and not initiative.hastened
            and not row.out_of_action
        ]
        panel["hasty"] = TWOD6_TABLES["hasty"]
    waiting = twod6.pending(state)
    if waiting is not None:
        panel["pending"] = _pending(state, waiting, user, is_referee)
    panel["delaying"] = [row for row in twod6.delaying(state) if _controls(row, user, is_referee)]
    current = state.current
    if current is not None and waiting is None:
        panel["turn"] = {
            "aim": int(current.state.get("aim", 0)),
            "minors": int(current.state.get("minors", 0)),
            "reactions": int(current.state.get("reactions", 0)),
            "allies": [
                row
                for row in state.side(current.combatant.side)
                if row.pk != current.pk and not row.out_of_action
            ],
            "leadership_dms": twod6.leadership_preview(current),
        }
        panel["turn"]["leadership_chance"] = twod6.check_odds(panel["turn"]["leadership_dms"])
    return panel


def _pending(state: Board, waiting: dict[str, Any], user: User, is_referee: bool) -> dict[str, Any]:
    attacker = state.row(int(waiting["attacker"]))
    order = twod6.TwoD6Order.from_dict(waiting["order"], twod6.ASK)
    target = state.row(order.target)
    answers = target is not None and _controls(target, user, is_referee)
    odds = (
        twod6.reaction_odds(state, attacker, order)
        if answers and attacker is not None and target is not None
        else []
    )
    return {
        "attacker": attacker,
        "target": target,
        "weapon": order.weapon.split("|")[0],
        "range_band": order.range_band,
        "answers": answers,
        "odds": odds,
        "for_player": target is not None and not target.owned_by(user.pk) and is_referee,
    }
