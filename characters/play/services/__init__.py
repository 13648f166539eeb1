"""Writes for a character in play: damage and healing, action tests, improvement points and
credits. Views change play data only through here.

Like ``services``, every function takes keyword arguments only and runs in one transaction, so
a refused action (``Refused``, its message for the user) writes nothing. Every rule is the
engine's (``rules.play``, ``rules.dice``): these functions read the character's report, call
the engine, and store what it returns.

Concurrency. Every write locks the character's row first, so two requests about the same
character (two tabs, the player and the referee) run one after the other and neither loses
the other's record. Actions on the condition also name the ``PlayState.version`` the page
showed; when the condition moved on since (another tab recorded a blow, healed a wound),
``PlayConflict`` refuses the action instead of applying it to a condition nobody saw.

Dice. Every test is thrown on the server with ``characters.core.dice`` (the operating
system's randomness); every function that throws takes ``rng`` so tests can pass a seeded one.

Every action appends a line to the character's log (``CharacterEvent``). Every change of the
condition is kept as a ``ConditionChange`` (before and after), so the last one can be undone
(``undo_last_condition_change``, for the play sheet and any other feature that changes a
condition through these services).
"""

from __future__ import annotations

from characters.core.services import Refused
from characters.play.services.action_tests import (
    PlannedTest,
    TestPlan,
    cannot_act,
    plan_test,
    roll_action_test,
    skill_line,
)
from characters.play.services.care import (
    MEDICAL,
    MEDICAL_SKILLS,
    SURGERY,
    Medic,
    clear_wound,
    recover,
    stabilise_wound,
    treat_wound,
)
from characters.play.services.condition import (
    PlayConflict,
    PlayResult,
    Undone,
    bleed,
    blow,
    dying_turn,
    end_stun,
    locked_play_state,
    take_damage,
    undo_condition_change,
    undo_last_condition_change,
)
from characters.play.services.gear import (
    WORN_PROBLEMS,
    buy_gear,
    give_up_gear,
    keep_rounds_loaded,
    record_credits,
    wear_armor,
)
from characters.play.services.improvement import (
    award_improvement_points,
    award_improvement_points_to_each,
    decide_request,
    spend_improvement_points,
)
from characters.play.services.limits import (
    INPUT_MAXIMA,
    MAX_CREDITS,
    MAX_DAMAGE,
    MAX_GEAR_QUANTITY,
    MAX_IP_AWARD,
    MAX_IP_PRICE,
    MAX_RECOVERY_PERIODS,
    MAX_TEST_FIGURE,
)

# Every write of play, for the views, the encounters, the campaigns and the tests.
__all__ = [
    "INPUT_MAXIMA",
    "MAX_CREDITS",
    "MAX_DAMAGE",
    "MAX_GEAR_QUANTITY",
    "MAX_IP_AWARD",
    "MAX_IP_PRICE",
    "MAX_RECOVERY_PERIODS",
    "MAX_TEST_FIGURE",
    "MEDICAL",
    "MEDICAL_SKILLS",
    "SURGERY",
    "WORN_PROBLEMS",
    "Medic",
    "PlannedTest",
    "PlayConflict",
    "PlayResult",
    "Refused",
    "TestPlan",
    "Undone",
    "award_improvement_points",
    "award_improvement_points_to_each",
    "bleed",
    "blow",
    "buy_gear",
    "cannot_act",
    "clear_wound",
    "decide_request",
    "dying_turn",
    "end_stun",
    "give_up_gear",
    "keep_rounds_loaded",
    "locked_play_state",
    "plan_test",
    "record_credits",
    "recover",
    "roll_action_test",
    "skill_line",
    "spend_improvement_points",
    "stabilise_wound",
    "take_damage",
    "treat_wound",
    "undo_condition_change",
    "undo_last_condition_change",
    "wear_armor",
]
