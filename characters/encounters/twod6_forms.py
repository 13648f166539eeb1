"""The inputs of a 2D6 encounter (docs/combat-2d6.md): the attack's chips (the referee's with
the target's reaction), the prepared fighters of the initiative throw, a reaction, a side's
Tactics, hastening, Leadership. Their vocabularies are the 2D6 engine's."""

from __future__ import annotations

from typing import Any, cast

from django import forms

from characters.core.forms import MAX_VERSION, WholeNumberField
from characters.encounters import twod6
from characters.encounters.forms import (
    NONE,
    TargetedForm,
    VersionForm,
    _choices,
    checkboxes,
    chips,
    zero_or_more,
)
from characters.encounters.selectors import Board, Row
from characters.models import Combatant
from rules.combat import Weapon
from rules.combat.figures import weapon_figures
from rules.combat.twod6.attack import (
    ACCESSORIES,
    BANDS,
    BURST,
    COVERS,
    DARKNESS,
    FULL_AUTO,
    MELEE_CHARACTERISTICS,
    REACTIONS,
    SINGLE,
    SMOKE,
    STANCES,
    TwoD6Situation,
)

# The fire chips' values (encounter.js offers a weapon's from its data-bursts, by the space).
FIRES = {"0": SINGLE, "burst": BURST, "full": FULL_AUTO}
# The app's guard, not the seed's.
MOST_METRES = 1000
USUAL_SHOT = "short"
REACTION_CHOICES = [
    (twod6.ASK, "Its player chooses (yours: none)"),
    (twod6.NO_REACTION, "None"),
    *((name, name.capitalize()) for name in REACTIONS),
]


class TwoD6AttackForm(TargetedForm):
    """One 2D6 attack: target, weapon, range band, fire mode and the battlefield's DMs; the
    referee's form also chooses the target's reaction (a player's attack asks the target's
    player, or the referee, before the dice). Aiming, hastening and reactions come from the
    fight."""

    BANDS = BANDS
    autofire_rounds = chips(
        "Fire", [("0", "Single"), ("burst", "Burst"), ("full", "Full auto")], required=False
    )
    reaction = chips("Target's reaction", REACTION_CHOICES, required=False)
    cover = chips("Cover", _choices(COVERS, "None"), required=False)
    target_stance = chips("Target", [(s, s.capitalize()) for s in STANCES], required=False)
    target_movement_m = zero_or_more("Metres the target moved", MOST_METRES)
    darkness = chips("Darkness", _choices(DARKNESS, "Daylight"), required=False)
    smoke = chips("Smoke", _choices(SMOKE, "None"), required=False)
    weather = forms.BooleanField(label="Extreme weather", required=False)
    into_combat = forms.BooleanField(label="Firing into combat", required=False)
    characteristic = chips(
        "Melee with",
        [(NONE, "The better"), *((c, c) for c in MELEE_CHARACTERISTICS)],
        required=False,
    )
    accessories = checkboxes("Accessories", [(name, name) for name in ACCESSORIES])

    MORE = (
        "target_movement_m",
        "darkness",
        "smoke",
        "characteristic",
        "accessories",
        "weather",
        "into_combat",
    )

    def __init__(
        self, board: Board, attacker: Row, data: Any = None, *, referee: bool = False
    ) -> None:
        super().__init__(board, attacker, data, referee=referee)
        self.referee = referee
        self.offers_autofire = any(self.weapon_bursts.values())
        self.initial.update(
            autofire_rounds="0",
            reaction=twod6.ASK,
            target_stance=STANCES[0],
            target_movement_m=0,
            **dict.fromkeys(("cover", "darkness", "smoke", "characteristic"), NONE),
        )

    def bursts_of(self, weapon: Weapon) -> tuple[str, ...]:
        return ("burst", "full") if weapon_figures(weapon).twod6.auto else ()

    def band_of(self, weapon: Weapon, attacker: Row) -> str:
        """A melee weapon at the band its profile fights best at (Close Quarters personal,
        Extended Reach close); a shot at short range where the profile reaches it."""
        ranges = weapon_figures(weapon).twod6.ranges
        if weapon.melee:
            return max(ranges, key=lambda band: ranges[band])
        return USUAL_SHOT if USUAL_SHOT in ranges else next(iter(ranges))

    def clean_autofire_rounds(self) -> str:
        return self.cleaned_data["autofire_rounds"] or "0"

    def order(self) -> twod6.TwoD6Order:
        data = self.cleaned_data
        situation = TwoD6Situation(
            fire=FIRES[data["autofire_rounds"]],
            cover=data["cover"] or None,
            target_stance=data["target_stance"] or STANCES[0],
            target_movement_m=data["target_movement_m"],
            darkness=data["darkness"] or None,
            smoke=data["smoke"] or None,
            weather=data["weather"],
            into_combat=data["into_combat"],
            characteristic=data["characteristic"] or None,
            accessories=frozenset(data["accessories"]),
            dm=data["dm"],
        )
        # Only the referee chooses a reaction here; a player's attack asks the target's side.
        reaction = (data["reaction"] or twod6.ASK) if self.referee else twod6.ASK
        return twod6.TwoD6Order(
            data["target"],
            data["weapon"],
            data["range_band"],
            situation,
            reaction,
            coup_de_grace=self.coup_de_grace(),
        )


class PreparedForm(VersionForm):
    """2D6 initiative: the fighters the referee marks prepared (an ambush: 12 + DEX DM)."""

    prepared = checkboxes("Prepared (an ambush: 12 + DEX DM)", coerce=int, name="Prepared")

    def __init__(self, board: Board, data: Any = None) -> None:
        super().__init__(data, initial={"version": board.encounter.version})
        cast(forms.ChoiceField, self.fields["prepared"]).choices = [
            (row.pk, row.combatant.name) for row in board.rows if not row.out_of_action
        ]


class ReactForm(VersionForm):
    reaction = chips(
        "Reaction", [(twod6.NO_REACTION, "None"), *((r, r.capitalize()) for r in REACTIONS)]
    )


class SideForm(VersionForm):
    side = chips("Side", Combatant.Side.choices)


class FighterForm(VersionForm):
    """An action about one fighter: hastening it, or leading it (``combatant``: its id)."""

    combatant = WholeNumberField(label="Fighter", minimum=1, maximum=MAX_VERSION)
