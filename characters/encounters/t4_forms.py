"""The inputs of a T4 encounter (docs/combat-t4.md): the attack's chips, initiative's once-asked
Tactics split and quick draws, a fighter's movement and action status, the surprise throw's
facts the sheets cannot give. Their vocabularies are the T4 engine's."""

from __future__ import annotations

from typing import Any, cast

from django import forms

from characters.core.forms import MAX_VERSION, WholeNumberField
from characters.encounters import t4
from characters.encounters.forms import (
    NONE,
    TargetedForm,
    VersionForm,
    _choices,
    checkboxes,
    chips,
    plus_or_minus,
    zero_or_more,
)
from characters.encounters.selectors import Board, Row
from characters.models import Combatant
from rules.combat import Weapon
from rules.combat.figures import weapon_figures
from rules.combat.t4.locations import BODY_PARTS
from rules.combat.t4.plan import (
    ACCESSORIES,
    AIMED,
    AUTOFIRE,
    BANDS,
    COVERS,
    HANDS,
    LIGHTING,
    MOVEMENTS,
    SNIPE,
    TARGET_SIZES,
    T4Situation,
)

# The app's guards, not the seed's: rows moved on the location chart, animals with a side.
MOST_ROWS_MOVED = 5
MOST_ANIMALS = 99
# The usual band of a shot: where most fights are shot at (Difficult, 2.5D).
USUAL_SHOT = "short"


class T4AttackForm(TargetedForm):
    """One T4 attack: its target, weapon, range band and routine, and what the statuses of the
    movement phase do not say (cover, lighting, accessories, a weakened blow...). The statuses
    set the movement DMs themselves (``t4.plan``)."""

    BANDS = BANDS
    routine = chips(
        "Routine",
        [(NONE, "Snapshot or strike"), (AIMED, "Aimed"), (SNIPE, "Snipe")],
        required=False,
    )
    autofire_rounds = chips("Autofire", coerce=int, required=False)
    cover = chips("Cover", _choices(COVERS, "None"), required=False)
    cover_regions = checkboxes(
        "The cover hides", [(part, part.capitalize()) for part in BODY_PARTS]
    )
    concealed = forms.BooleanField(label="Target concealed", required=False)
    lighting = chips("Lighting", _choices(LIGHTING, "Daylight"), required=False)
    target_size = chips("Target size", _choices(TARGET_SIZES, "Human-sized"), required=False)
    into_melee = forms.BooleanField(label="Firing into hand-to-hand", required=False)
    accessories = checkboxes("Accessories", [(name, name) for name in ACCESSORIES])
    drew_this_round = forms.BooleanField(label="Drew and fires this round", required=False)
    pistol_braced = forms.BooleanField(label="Pistol braced with both hands", required=False)
    two_weapons = chips("Two weapons", _choices(HANDS, "One weapon"), required=False)
    location_skew = plus_or_minus(
        "Aimed snapshot: rows moved (minus: toward the head)", MOST_ROWS_MOVED
    )
    snipe_shift = plus_or_minus("Snipe: rows moved after a hit", MOST_ROWS_MOVED)
    weakened = forms.BooleanField(label="Weakened blow", required=False)
    to_stun = forms.BooleanField(label="To stun", required=False)
    pure_defense = forms.BooleanField(label="Target in pure defense", required=False)
    keep_turn = forms.BooleanField(label="Attack another target this round", required=False)

    # The yes-or-no parts of MORE, drawn as one group of chips.
    FLAGS = (
        "concealed",
        "into_melee",
        "drew_this_round",
        "pistol_braced",
        "weakened",
        "to_stun",
        "pure_defense",
    )
    MORE = (
        "lighting",
        "target_size",
        "two_weapons",
        "location_skew",
        "snipe_shift",
        "cover_regions",
        "accessories",
        *FLAGS,
    )

    def __init__(
        self, board: Board, attacker: Row, data: Any = None, *, referee: bool = False
    ) -> None:
        super().__init__(board, attacker, data, referee=referee)
        bursts = sorted({n for rounds in self.weapon_bursts.values() for n in rounds})
        cast(forms.ChoiceField, self.fields["autofire_rounds"]).choices = [
            (0, "Single shot"),
            *((n, f"{n} rounds") for n in bursts),
        ]
        self.offers_autofire = bool(bursts)
        self.initial.update(
            routine=NONE,
            autofire_rounds=0,
            location_skew=0,
            snipe_shift=0,
            **dict.fromkeys(("cover", "lighting", "target_size", "two_weapons"), NONE),
        )

    def bursts_of(self, weapon: Weapon) -> tuple[int, ...]:
        return tuple(sorted(weapon_figures(weapon).t4.autofire))

    def band_of(self, weapon: Weapon, attacker: Row) -> str:
        """A strike at contact; a shot at short range where the weapon reaches it, else at
        the farthest band it reaches."""
        if weapon.melee:
            return BANDS[0]
        reached = weapon_figures(weapon).t4.bands or BANDS[:1]
        return USUAL_SHOT if USUAL_SHOT in reached else reached[-1]

    def flag_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in self.FLAGS]

    def order(self) -> t4.T4Order:
        data = self.cleaned_data
        burst = data["autofire_rounds"] or None
        situation = T4Situation(
            cover=data["cover"] or None,
            cover_regions=frozenset(data["cover_regions"]),
            concealed=data["concealed"],
            into_melee=data["into_melee"],
            lighting=data["lighting"] or None,
            target_size=data["target_size"] or None,
            burst=burst,
            accessories=frozenset(data["accessories"]),
            pistol_braced=data["pistol_braced"],
            drew_this_round=data["drew_this_round"],
            two_weapons=data["two_weapons"] or None,
            location_skew=data["location_skew"],
            snipe_shift=data["snipe_shift"],
            weakened=data["weakened"],
            to_stun=data["to_stun"],
            pure_defense=data["pure_defense"],
            dm=data["dm"],
        )
        routine = AUTOFIRE if burst else (data["routine"] or None)
        return t4.T4Order(
            data["target"],
            data["weapon"],
            data["range_band"],
            routine,
            situation,
            keep_turn=data["keep_turn"],
            coup_de_grace=self.coup_de_grace(),
        )


class InitiativeForm(VersionForm):
    """A T4 round's initiative: the Tactics points each fighter keeps for initiative, asked at
    its first throw (``tactics-<id>``), and who draws quickly this round."""

    quick_draw = checkboxes("Quick draw this round (DM -3)", coerce=int, name="Quick draw")

    def __init__(self, board: Board, data: Any = None) -> None:
        super().__init__(data, initial={"version": board.encounter.version})
        able = [row for row in board.rows if not row.out_of_action]
        cast(forms.ChoiceField, self.fields["quick_draw"]).choices = [
            (row.pk, row.combatant.name) for row in able
        ]
        self.asked = [row for row in able if t4.asks_tactics(row)]
        for row in self.asked:
            level = t4.tactics_level(row)
            self.fields[f"tactics-{row.pk}"] = WholeNumberField(
                label=f"{row.combatant.name}: Tactics kept for initiative (of {level})",
                minimum=0,
                maximum=level,
                default=level,
                required=False,
            )
            self.initial[f"tactics-{row.pk}"] = level

    def tactics_fields(self) -> list[forms.BoundField]:
        return [self[f"tactics-{row.pk}"] for row in self.asked]

    def choices(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "tactics_kept": {row.pk: data[f"tactics-{row.pk}"] for row in self.asked},
            "quick_draw": set(data["quick_draw"]),
        }


class StatusForm(VersionForm):
    """A fighter's movement and action status for the round (T4's movement phase)."""

    combatant = WholeNumberField(label="Fighter", minimum=1, maximum=MAX_VERSION)
    movement = chips("Movement", [(m, m.capitalize()) for m in MOVEMENTS])
    action = chips("Action", [(a, a.capitalize()) for a in t4.ACTIONS])


class SurpriseForm(VersionForm):
    """What each side's T4 surprise throw counts that the sheets cannot say (II.2)."""

    def __init__(self, data: Any = None, **kwargs: Any) -> None:
        super().__init__(data, **kwargs)
        for side, label in Combatant.Side.choices:
            self.fields[f"{side}-vehicle"] = forms.BooleanField(
                label=f"{label}: in a vehicle", required=False
            )
            self.fields[f"{side}-animals"] = zero_or_more(f"{label}: animals with it", MOST_ANIMALS)
            self.fields[f"{side}-all_pouncers"] = forms.BooleanField(
                label=f"{label}: all pouncers", required=False
            )

        self.initial.update({f"{side}-animals": 0 for side in Combatant.Side.values})

    def side_fields(self) -> list[tuple[str, list[forms.BoundField]]]:
        return [
            (label, [self[f"{side}-{part}"] for part in t4.SURPRISE_CHOICES])
            for side, label in Combatant.Side.choices
        ]

    def sides(self) -> dict[str, dict[str, Any]]:
        data = self.cleaned_data
        return {
            side: {part: data[f"{side}-{part}"] for part in t4.SURPRISE_CHOICES}
            for side in Combatant.Side.values
        }
