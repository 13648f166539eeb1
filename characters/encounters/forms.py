"""Every input of an encounter page, read by a form whose errors name their field.

The attack's situation is a set of chips (radio buttons and checkboxes): its choices are the
engine's vocabularies (``rules.combat``), so a page offers only what the engine can read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from django import forms

import rules
from characters.core.forms import MAX_VERSION, VersionField, WholeNumberField
from characters.encounters.selectors import Board, Row, weapon_key
from characters.encounters.services import EITHER, MAX_GROUP, AttackOrder, Group
from characters.models import Campaign, Character, Combatant, CombatSystem
from rules.combat import Situation, Weapon

# The app's guards for the situation's figures and the animals' weights, not the rulebook's.
MAX_AIM_TURNS = 6
MAX_EXTRA_ACTIONS = 3
MAX_REFEREE_DM = 12
MAX_SQUARES_BETWEEN = 20
MAX_ANIMAL_KG = 100_000
ANIMAL_ROWS = 3
NONE = ""


def plus_or_minus(label: str, most: int) -> WholeNumberField:
    """A whole number of either sign, at most ``most`` either way: 0 unless given."""
    return WholeNumberField(label=label, minimum=-most, maximum=most, default=0, required=False)


def referee_dm(label: str) -> WholeNumberField:
    """A DM the referee adds, of either sign: 0 unless given."""
    return plus_or_minus(label, MAX_REFEREE_DM)


def zero_or_more(label: str, most: int) -> WholeNumberField:
    """A count or a measure from 0 to ``most``: 0 unless given."""
    return WholeNumberField(label=label, minimum=0, maximum=most, default=0, required=False)


def checkboxes(
    label: str, choices: Any = (), *, coerce: Any = str, name: str | None = None
) -> forms.TypedMultipleChoiceField:
    """Any of ``choices`` ticked as checkboxes, none unless ticked (fighters by id: ``coerce``
    int, the form offering the board's); its errors call the field ``name``, else its label."""
    return forms.TypedMultipleChoiceField(
        label=label,
        choices=choices,
        coerce=coerce,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        error_messages=named(name or label),
    )


def named(label: str) -> dict[str, str]:
    """Error messages that name their field, for Django's own fields."""
    return {
        "required": f"{label}: choose one.",
        "invalid_choice": f"{label}: choose one of those offered (%(value)s is not).",
        "invalid_pk_value": f"{label}: choose from the list (%(pk)s is not in it).",
        "max_length": f"{label}: at most %(limit_value)d characters.",
    }


def _choices(vocabulary, none: str | None = None) -> list[tuple[str, str]]:
    """A vocabulary as choices, each word its own label; ``none`` first for "the ordinary case"."""
    words = [(word, word.capitalize()) for word in vocabulary]
    return [(NONE, none), *words] if none is not None else words


def _side(chosen: str) -> str:
    """The side a group fights on: the opposition unless the referee chose otherwise."""
    return chosen or Combatant.Side.OPPOSITION


class GroupsForm(forms.Form):
    """Who fights: the party's characters, how many of each NPC and of up to ``ANIMAL_ROWS``
    kinds of animal, and on which side each group fights. ``party_chosen``: whether the party
    is ticked to begin with (a new encounter's is; reinforcements are chosen one by one)."""

    party_chosen = True
    party = forms.ModelMultipleChoiceField(
        label="Party",
        queryset=Character.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        error_messages=named("Party") | {"invalid_choice": "Party: choose from the list."},
    )

    def __init__(
        self,
        campaign: Campaign,
        pcs: list[Character],
        npcs: list[Character],
        *args: Any,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.campaign = campaign
        self.npcs = npcs
        party = cast(forms.ModelMultipleChoiceField, self.fields["party"])
        party.queryset = Character.objects.filter(pk__in=[c.pk for c in pcs])
        self.fields["party"].initial = [c.pk for c in pcs] if self.party_chosen else []
        sides = Combatant.Side.choices
        for npc in npcs:
            self.fields[f"npc-{npc.pk}"] = zero_or_more(f"How many {npc.name}", MAX_GROUP)
            self.fields[f"npc-{npc.pk}-side"] = forms.ChoiceField(
                label=f"{npc.name}'s side",
                choices=sides,
                initial=Combatant.Side.OPPOSITION,
                required=False,
                error_messages=named(f"{npc.name}'s side"),
            )
        for n in range(ANIMAL_ROWS):
            self.fields[f"animal-{n}-type"] = forms.ChoiceField(
                label=f"Animal {n + 1}",
                choices=_choices(rules.combat.ANIMAL_TYPES, "None"),
                required=False,
                error_messages=named(f"Animal {n + 1}"),
            )
            self.fields[f"animal-{n}-weight"] = WholeNumberField(
                label=f"Animal {n + 1}'s weight (kg)",
                minimum=1,
                maximum=MAX_ANIMAL_KG,
                required=False,
            )
            self.fields[f"animal-{n}-count"] = WholeNumberField(
                label=f"How many of animal {n + 1}",
                minimum=1,
                maximum=MAX_GROUP,
                default=1,
                required=False,
            )
            self.fields[f"animal-{n}-side"] = forms.ChoiceField(
                label=f"Animal {n + 1}'s side",
                choices=sides,
                initial=Combatant.Side.OPPOSITION,
                required=False,
                error_messages=named(f"Animal {n + 1}'s side"),
            )

    def npc_rows(self) -> list[tuple[Character, forms.BoundField, forms.BoundField]]:
        return [(npc, self[f"npc-{npc.pk}"], self[f"npc-{npc.pk}-side"]) for npc in self.npcs]

    def animal_rows(self) -> list[list[forms.BoundField]]:
        return [
            [self[f"animal-{n}-{part}"] for part in ("type", "weight", "count", "side")]
            for n in range(ANIMAL_ROWS)
        ]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        for n in range(ANIMAL_ROWS):
            if data.get(f"animal-{n}-type") and data.get(f"animal-{n}-weight") is None:
                self.add_error(
                    f"animal-{n}-weight", f"Animal {n + 1}'s weight (kg): give the animal's weight."
                )
        return data

    def groups(self) -> list[Group]:
        data = self.cleaned_data
        groups = [Group(1, Combatant.Side.PARTY, character=pc) for pc in data["party"]]
        for npc in self.npcs:
            if data[f"npc-{npc.pk}"]:
                groups.append(
                    Group(data[f"npc-{npc.pk}"], _side(data[f"npc-{npc.pk}-side"]), character=npc)
                )
        for n in range(ANIMAL_ROWS):
            if data[f"animal-{n}-type"]:
                groups.append(
                    Group(
                        data[f"animal-{n}-count"],
                        _side(data[f"animal-{n}-side"]),
                        animal_type=data[f"animal-{n}-type"],
                        weight_kg=float(data[f"animal-{n}-weight"]),
                    )
                )
        return groups


class StartForm(GroupsForm):
    """A new encounter: its name, the combat system it fights under (the campaign's unless the
    referee chooses another for this fight) and who fights."""

    field_order = ["name", "combat_system", "party"]
    name = forms.CharField(
        label="Name",
        max_length=100,
        error_messages=named("Name") | {"required": "Name: give the encounter a name."},
    )
    combat_system = forms.ChoiceField(
        label="Combat system",
        choices=CombatSystem.choices,
        widget=forms.RadioSelect,
        required=False,
        error_messages=named("Combat system"),
    )

    def __init__(self, campaign: Campaign, *args: Any, **kwargs: Any) -> None:
        super().__init__(campaign, *args, **kwargs)
        self.fields["combat_system"].initial = campaign.combat_system

    def clean_combat_system(self) -> str:
        """The system chosen; the campaign's when the form does not say."""
        return self.cleaned_data["combat_system"] or self.campaign.combat_system


class VersionForm(forms.Form):
    """An action with nothing to choose: the version of the encounter the page showed."""

    version = VersionField()


class JoinForm(GroupsForm):
    """Reinforcements: who joins the fight (party characters not in it yet, more of an NPC,
    animals), at the version of the encounter the page showed."""

    party_chosen = False
    version = VersionField()


# Who the referee says may be surprised.
SURPRISABLE = [*Combatant.Side.choices, (EITHER, "Either side")]


class SurpriseForm(VersionForm):
    """The surprise throw: the side that may be surprised, and the referee's DM for each
    side's AWA test (terrain, armor, the Survival or Tactics a wary side may throw)."""

    may_be_surprised = forms.ChoiceField(
        label="May be surprised",
        choices=SURPRISABLE,
        initial=EITHER,
        widget=forms.RadioSelect,
        error_messages=named("May be surprised"),
    )
    dm_party = referee_dm("The party's DM")
    dm_opposition = referee_dm("The opposition's DM")

    def dms(self) -> dict[str, int]:
        return {side: self.cleaned_data[f"dm_{side}"] for side in Combatant.Side.values}


class TurnForm(VersionForm):
    action = forms.ChoiceField(
        label="Action",
        choices=[
            ("pass", "End the turn"),
            ("delay", "Delay"),
            ("recover", "Recover from the stun"),
            ("next_round", "Next round"),
            # T4 and 2D6 (docs/encounters.md).
            ("hold", "Hold the action"),
            ("act_now", "Act now"),
            ("done_moving", "Done moving"),
            ("aim", "Aim"),
        ],
        error_messages=named("Action"),
    )
    # Whom a delaying fighter acts after (a combatant's id; none: the next who can act), or who
    # acts now (a fighter holding its action, or delaying).
    after = WholeNumberField(label="Act after", minimum=1, maximum=MAX_VERSION, required=False)


# Whether a side has combat experience for its morale test: as its leader's sheet says, or
# the referee's word either way (reading 28).
AS_THE_SHEET, YES, NO = "sheet", "yes", "no"
EXPERIENCE = {AS_THE_SHEET: None, YES: True, NO: False}


class MoraleForm(VersionForm):
    side = forms.ChoiceField(
        label="Side", choices=Combatant.Side.choices, error_messages=named("Side")
    )
    combat_experience = forms.ChoiceField(
        label="Combat experience",
        choices=[(AS_THE_SHEET, "As the leader's sheet says"), (YES, "Yes"), (NO, "No")],
        initial=AS_THE_SHEET,
        required=False,
        error_messages=named("Combat experience"),
    )
    dm = referee_dm("Referee's DM")

    def experience(self) -> bool | None:
        return EXPERIENCE[self.cleaned_data["combat_experience"] or AS_THE_SHEET]


class LeaderForm(VersionForm):
    """The referee names a side's leader (a combatant of that side, by its id)."""

    side = forms.ChoiceField(
        label="Side", choices=Combatant.Side.choices, error_messages=named("Side")
    )
    leader = WholeNumberField(label="Leader", minimum=1, maximum=MAX_VERSION)


class EndForm(VersionForm):
    """Ending the encounter, confirmed: a single tap does not end a fight."""

    confirm = forms.BooleanField(
        label="End it",
        error_messages={
            "required": 'End the encounter: confirm it with "Yes, end it"; nothing was ended.'
        },
    )


class LiveForm(forms.Form):
    """A poll: the version of the encounter the page shows (a missing one is never current),
    and whose turn its action panel is for."""

    v = WholeNumberField(label="Version", minimum=0, maximum=MAX_VERSION, required=False)
    # Whose turn the page shows ("round-combatant"): another means the action panel is stale.
    t = forms.CharField(label="Turn", max_length=40, required=False)


def chips(label: str, choices=(), *, required: bool = True, coerce=str) -> forms.TypedChoiceField:
    """A choice drawn as chips (radio buttons): its errors name the field."""
    return forms.TypedChoiceField(
        label=label,
        choices=choices,
        coerce=coerce,
        required=required,
        empty_value=None if coerce is int else "",
        widget=forms.RadioSelect,
        error_messages=named(label),
    )


def _bursts(firing: Sequence[tuple[str, tuple[int, ...]]]) -> list[tuple[int, str]]:
    """A single shot, then every burst of the weapons (name, the bursts the engine offers for
    it). A burst that not all of those with autofire fire names the ones that do: a page
    without JavaScript offers them all at once, and the form refuses one the chosen weapon
    does not fire."""
    automatic = [(name, bursts) for name, bursts in firing if bursts]
    choices = [(0, "Single shot")]
    for rounds in sorted({n for _, bursts in automatic for n in bursts}):
        names = [name for name, bursts in automatic if rounds in bursts]
        which = "" if len(names) == len(automatic) else f" ({', '.join(names)})"
        choices.append((rounds, f"{rounds} rounds{which}"))
    return choices


class WeaponChips(forms.RadioSelect):
    """The weapon chips, each with the bursts its weapon fires (``data-bursts``, rounds apart
    by spaces), so that encounter.js offers only those, and the range band its attack is first
    offered at (``data-band``), which the range follows until one is chosen."""

    def __init__(self, bursts: dict[str, tuple[int, ...]], bands: dict[str, str]) -> None:
        super().__init__()
        self.bursts = bursts
        self.bands = bands

    def create_option(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        option = super().create_option(*args, **kwargs)
        key = str(option["value"])
        option["attrs"]["data-bursts"] = " ".join(map(str, self.bursts.get(key, ())))
        option["attrs"]["data-band"] = self.bands.get(key, "")
        return option


def _counts(maximum: int) -> list[tuple[int, str]]:
    return [(n, str(n)) for n in range(maximum + 1)]


class TargetedForm(VersionForm):
    """What every system's attack form asks first: the target, the weapon and the range band,
    with the turn it was filled in for and the referee's DM. The other side's fighters come
    first, in turn order; one's own side after it, named as such (a shot into a melee may still
    hit a friend). A fighter out of action is no target (reading 16): the referee alone may
    choose one, for a coup de grâce. Each weapon chip names the bursts it fires and the band its
    attack is first offered at (``WeaponChips``); a system's form says which (``bursts_of``,
    ``band_of``) and from which ``BANDS``."""

    BANDS: tuple[str, ...] = rules.combat.RANGE_BANDS
    target = chips("Target", coerce=int)
    weapon = chips("Weapon")
    range_band = chips("Range")
    # The turn the form was filled in for: after a conflict its choices are kept for that turn.
    turn = forms.CharField(label="Turn", max_length=40, required=False, widget=forms.HiddenInput)
    dm = referee_dm("Referee's DM")

    def __init__(
        self, board: Board, attacker: Row, data: Any = None, *, referee: bool = False
    ) -> None:
        super().__init__(data)
        others = [row for row in board.rows if row.pk != attacker.pk]
        targets = sorted(others, key=lambda row: row.combatant.side == attacker.combatant.side)
        standing = [row for row in targets if not row.out_of_action]
        self.finishing = [row for row in targets if row.out_of_action] if referee else []
        self.target_rows = {row.pk: row for row in targets}

        def named_row(row: Row) -> tuple[int, str]:
            own = " (own side)" if row.combatant.side == attacker.combatant.side else ""
            state = f" ({row.states[0][1].lower()})" if row.out_of_action else ""
            surprised = " (surprised)" if row.surprised and not row.out_of_action else ""
            return row.pk, f"{row.combatant.name}{own}{surprised}{state}"

        self.standing_choices = [named_row(row) for row in standing]
        self.finishing_choices = [named_row(row) for row in self.finishing]
        target = cast(forms.ChoiceField, self.fields["target"])
        target.choices = [*self.standing_choices, *self.finishing_choices]
        cast(forms.ChoiceField, self.fields["range_band"]).choices = _choices(self.BANDS)
        weapons = attacker.fighter.weapons
        self.weapons = {weapon_key(weapon): weapon for weapon in weapons}
        self.weapon_bursts = {key: self.bursts_of(weapon) for key, weapon in self.weapons.items()}
        self.weapon_bands = {
            key: self.band_of(weapon, attacker) for key, weapon in self.weapons.items()
        }
        weapon_field = cast(forms.ChoiceField, self.fields["weapon"])
        weapon_field.widget = WeaponChips(self.weapon_bursts, self.weapon_bands)
        weapon_field.choices = [(key, weapon.name) for key, weapon in self.weapons.items()]
        # The first standing enemy, the first weapon and the ordinary case are chosen already.
        enemies = [
            row.pk
            for row in targets
            if row.combatant.side != attacker.combatant.side and not row.out_of_action
        ]
        first = weapon_key(weapons[0]) if weapons else None
        self.initial = {
            "version": board.encounter.version,
            "turn": board.turn_key,
            "target": enemies[0] if enemies else None,
            "weapon": first,
            "range_band": self.weapon_bands[first] if first is not None else self.BANDS[0],
            "dm": 0,
        }

    def bursts_of(self, weapon: Weapon) -> tuple[Any, ...]:
        """What the autofire chips offer for ``weapon`` (none: it has no autofire)."""
        return ()

    def band_of(self, weapon: Weapon, attacker: Row) -> str:
        """The band ``weapon``'s attack is first offered at."""
        return self.BANDS[0]

    @classmethod
    def as_chosen(cls, board: Board, attacker: Row, *, referee: bool = False) -> Any:
        """The form bound to its initial choices: a page shows their odds before any change."""
        fresh = cls(board, attacker, referee=referee)
        data = {name: "" if value is None else str(value) for name, value in fresh.initial.items()}
        return cls(board, attacker, data, referee=referee)

    @property
    def range_chosen(self) -> bool:
        """Whether the range is other than the chosen weapon's usual band (a kept form's, chosen
        by hand): encounter.js then leaves it when the weapon changes."""
        weapon = self["weapon"].value()
        return self.is_bound and self["range_band"].value() != self.weapon_bands.get(weapon)

    def order(self) -> Any:
        """The attack as the system's services take it."""
        raise NotImplementedError

    def coup_de_grace(self) -> bool:
        """Whether the referee chose a target out of action."""
        chosen = self.target_rows.get(self.cleaned_data["target"])
        return chosen is not None and chosen.out_of_action

    def more_chosen(self) -> bool:
        """Whether any of the rarer parts (``MORE``, the referee's DM) is set apart from the
        ordinary case (the page then shows them unfolded). Each field compares what it reads,
        so a DM left out (only the referee's page has the field) is its default 0."""
        if not self.is_bound:
            return False
        return any(name in self.changed_data for name in (*self.MORE, "dm"))

    MORE: tuple[str, ...] = ()

    def more_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in self.MORE]


class AttackForm(TargetedForm):
    """One FFA attack by the fighter whose turn it is: target, weapon, range band and the
    situation's DMs, all as chips (the referee may add a DM of their own)."""

    cover = chips("Cover", _choices(rules.combat.COVER, "None"), required=False)
    lighting = chips("Lighting", _choices(rules.combat.LIGHTING, "Daylight"), required=False)
    visibility = chips("Visibility", _choices(rules.combat.VISIBILITY, "Clear"), required=False)
    movement = chips("Attacker's movement", _choices(rules.combat.MOVEMENTS))
    facing = chips("Facing the target's", _choices(rules.combat.FACINGS))
    aim_turns = chips("Turns aimed", _counts(MAX_AIM_TURNS), coerce=int)
    extra_actions = chips("Further actions this turn", _counts(MAX_EXTRA_ACTIONS), coerce=int)
    autofire_rounds = chips("Autofire", coerce=int, required=False)
    also = checkboxes("Further targets", coerce=int)
    squares_between = zero_or_more("Squares between the targets", MAX_SQUARES_BETWEEN)
    target_surprised = forms.BooleanField(label="Target surprised", required=False)

    # The rarer parts of the situation, folded away on a page until one is changed.
    MORE = ("lighting", "visibility", "movement", "facing", "aim_turns", "extra_actions")

    def __init__(
        self, board: Board, attacker: Row, data: Any = None, *, referee: bool = False
    ) -> None:
        super().__init__(board, attacker, data, referee=referee)
        cast(forms.ChoiceField, self.fields["also"]).choices = self.standing_choices
        self.bursts = _bursts(
            [(weapon.name, self.weapon_bursts[key]) for key, weapon in self.weapons.items()]
        )
        cast(forms.ChoiceField, self.fields["autofire_rounds"]).choices = self.bursts
        self.initial.update(
            aim_turns=0,
            extra_actions=0,
            autofire_rounds=0,
            squares_between=0,
            movement=rules.combat.MOVEMENTS[0],
            facing=rules.combat.FACINGS[0],
            **dict.fromkeys(("cover", "lighting", "visibility"), NONE),
        )

    def bursts_of(self, weapon: Weapon) -> tuple[int, ...]:
        return rules.combat.autofire_bursts(weapon)

    def band_of(self, weapon: Weapon, attacker: Row) -> str:
        return rules.combat.usual_band(weapon, attacker.fighter)

    @property
    def offers_autofire(self) -> bool:
        return len(self.bursts) > 1

    @property
    def rounds_per_target(self) -> int:
        """One target per so many rounds of a burst (reading 18)."""
        return int(rules.combat.combat_tables()["autofire"]["rounds_per_step"])

    @property
    def offers_further_targets(self) -> bool:
        """Whether a burst of these weapons reaches a second target, and there is one."""
        most = max((rounds for rounds, _ in self.bursts), default=0)
        return most > self.rounds_per_target and len(self.standing_choices) > 1

    def more_chosen(self) -> bool:
        return super().more_chosen() or bool(self.is_bound and self.data.get("target_surprised"))

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        key, rounds = data.get("weapon", ""), data.get("autofire_rounds")
        if key not in self.weapons or not rounds:
            return data
        weapon, bursts = self.weapons[key], self.weapon_bursts[key]
        if rounds in bursts:
            return data
        if bursts:
            *most, last = map(str, bursts)
            listed = f"{', '.join(most)} or {last}" if most else last
            problem = (
                f"the {weapon.name} fires bursts of {listed} rounds, not {rounds}: choose one "
                "of those or a single shot"
            )
        else:
            problem = f"the {weapon.name} has no autofire: choose a single shot"
        self.add_error("autofire_rounds", f"Autofire: {problem}.")
        return data

    def order(self) -> AttackOrder:
        data = self.cleaned_data
        situation = Situation(
            movement=data["movement"],
            aim_turns=data["aim_turns"],
            cover=data["cover"] or None,
            lighting=data["lighting"] or None,
            visibility=data["visibility"] or None,
            facing=data["facing"],
            target_surprised=data["target_surprised"],
            extra_actions=data["extra_actions"],
            autofire_rounds=data["autofire_rounds"] or 0,
            squares_between_targets=data["squares_between"],
            dm=data["dm"],
        )
        return AttackOrder(
            data["target"],
            data["weapon"],
            data["range_band"],
            situation,
            tuple(data["also"]),
            coup_de_grace=self.coup_de_grace(),
        )
