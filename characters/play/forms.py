"""Forms of the play sheet: damage and healing, action tests, improvement points and credits.

They read and bound every input; the services decide what the rules allow. Each form's errors
are sentences naming the field (``first_problem``), shown at the top of the play region.
"""

from __future__ import annotations

from typing import Any, cast

from django import forms

import rules
from characters.core.forms import VersionField, WholeNumberField, first_problem, natural_number
from characters.models import Campaign, Character, CreditEntry, DiceRoll, ImprovementEntry
from characters.play import services
from rules import NotationError
from rules.wording import did_you_mean

# Bounds of what a person types; the rules have no such figures.
MAX_WOUND_INDEX = 99
MAX_TECH_LEVEL = 99
MAX_ROW_INDEX = 999
# A level the engine judges (and names the rule a level above its maximum breaks).
MAX_LEVEL = 99

CONDITION_ACTIONS = (
    "damage",
    "end_stun",
    "dying_turn",
    "bleed",
    "stabilise",
    "treat",
    "recover",
    "clear",
)
WOUND_ACTIONS = frozenset({"bleed", "stabilise", "treat", "clear"})
CREDIT_ACTIONS = ("income", "expense", "buy", "give_up")
# The spend form's value for a flaw of the species package: this prefix and the flaw's name.
PACKAGE_FLAW = "package:"


def _action_field(actions: tuple[str, ...]) -> forms.ChoiceField:
    return forms.ChoiceField(
        choices=[(action, action) for action in actions],
        error_messages={
            "invalid_choice": "Unknown action '%(value)s'.",
            "required": "Choose what to record.",
        },
    )


def _rule(form: forms.Form, name: str) -> str:
    field = form.fields[name]
    return field.rule if isinstance(field, WholeNumberField) else f"{field.label}: required."


def _text(label: str, max_length: int | None, **kwargs: Any) -> forms.CharField:
    return forms.CharField(
        label=label,
        max_length=max_length,
        required=False,
        error_messages={"max_length": f"{label}: at most {max_length:,} characters."},
        **kwargs,
    )


def _test_figure(label: str, **kwargs: Any) -> WholeNumberField:
    limit = services.MAX_TEST_FIGURE
    return WholeNumberField(label=label, minimum=-limit, maximum=limit, **kwargs)


class ConditionForm(forms.Form):
    """Damage and healing: ``action`` says which, and which of the fields it needs."""

    action = _action_field(CONDITION_ACTIONS)
    play_version = VersionField()
    # A blow of 0 would be logged as one that landed; it changes nothing to record.
    amount = WholeNumberField(
        label="Damage", minimum=1, maximum=services.MAX_DAMAGE, required=False
    )
    form = _text("Form", 1)
    damage_type = _text("Damage type", 1)
    armor = WholeNumberField(
        label="Armor", minimum=0, maximum=services.MAX_DAMAGE, default=0, required=False
    )
    wound = WholeNumberField(label="Wound", minimum=0, maximum=MAX_WOUND_INDEX, required=False)
    care = _text("Care", 20)
    periods = WholeNumberField(
        label="Periods",
        minimum=1,
        maximum=services.MAX_RECOVERY_PERIODS,
        default=1,
        required=False,
    )
    # Medical care: the character's own skill, or another medic's.
    skill = _text("Skill", 40)
    medic = _text("Medic", 10)
    attribute = _text("Attribute", 3)
    medic_level = WholeNumberField(
        label="Medic's skill level",
        minimum=0,
        maximum=rules.dice.MAX_ENUMERATED_DICE,
        required=False,
    )
    medic_dm = _test_figure("Medic's attribute DM", default=0, required=False)
    medic_species = _text("Medic's species", 40)
    medic_xeno = WholeNumberField(
        label="Medic's Xeno Medicine level",
        minimum=0,
        maximum=rules.dice.MAX_ENUMERATED_DICE,
        required=False,
    )
    supplies = _text("Supplies", 20)
    tl = WholeNumberField(label="Tech level", minimum=0, maximum=MAX_TECH_LEVEL, required=False)
    unsanitary = forms.BooleanField(required=False)
    dm = _test_figure("Other DM", default=0, required=False)

    def __init__(self, *args: Any, party: Any = None, **kwargs: Any) -> None:
        """``party``: the characters who may be chosen as the medic (``party_medics``)."""
        super().__init__(*args, **kwargs)
        self.party = party if party is not None else Character.objects.none()

    def clean_medic(self) -> str | Character:
        """ "own" (the patient), "other" (a medic described by the figures below) or the id of a
        character of the party, read as that character."""
        chosen = self.cleaned_data["medic"] or "own"
        if chosen in ("own", "other"):
            return chosen
        pk = natural_number(chosen)
        medic = self.party.filter(pk=pk).first() if pk is not None else None
        if medic is None:
            raise forms.ValidationError(
                "Medic: choose the patient, someone in the party, or another medic."
            )
        return medic

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        action = data.get("action")
        if action == "damage" and data.get("amount") is None and "amount" not in self.errors:
            self.add_error("amount", _rule(self, "amount"))
        if action in WOUND_ACTIONS and data.get("wound") is None and "wound" not in self.errors:
            self.add_error("wound", _rule(self, "wound"))
        return data

    def medical_options(self) -> dict[str, Any]:
        data = self.cleaned_data
        attribute = data["attribute"] or rules.governing_attribute(services.MEDICAL)
        if isinstance(data["medic"], Character):
            medic = services.Medic(own=False, attribute=attribute, character=data["medic"])
        elif data["medic"] == "own":
            medic = services.Medic(own=True, attribute=attribute)
        else:
            medic = services.Medic(
                own=False,
                skill_level=data["medic_level"],
                attribute_dm=data["medic_dm"],
                species=data["medic_species"] or None,
                xeno_medicine=data["medic_xeno"],
            )
        return {
            "medic": medic,
            "supplies": data["supplies"] or "kit",
            "tl": data["tl"],
            "unsanitary": data["unsanitary"],
            "dm": data["dm"],
        }


class UndoForm(forms.Form):
    """Undo the last change of the condition, from the page that showed it."""

    play_version = VersionField()


class TestPlanForm(forms.Form):
    """An action test as the dice roller describes it: attribute, skill, TN and DMs."""

    skill = _text("Skill", 100)
    other_skill = _text("Skill", 60)
    attribute = _text("Attribute", 3)
    tn = WholeNumberField(label="TN", minimum=1, maximum=services.MAX_TEST_FIGURE)
    dm = _test_figure("DM", default=0, required=False)
    purpose = _text("Purpose", DiceRoll._meta.get_field("purpose").max_length)

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if data.get("skill") == "other" and not data.get("other_skill", "").strip():
            self.add_error("other_skill", "Name the skill the character lacks.")
        return data

    def plan(self) -> services.TestPlan:
        data = self.cleaned_data
        # "skill::cascade", or "skill::cascade::specialty" for a test the specialty is in.
        skill, _, rest = data["skill"].partition("::")
        cascade, _, specialty = rest.partition("::")
        if data["skill"] == "other":
            skill, cascade, specialty = data["other_skill"].strip(), "", ""
        return services.TestPlan(
            attribute=data["attribute"],
            tn=data["tn"],
            dm=data["dm"],
            skill=skill or None,
            cascade=cascade or None,
            specialty=specialty or None,
        )


class AwardForm(forms.Form):
    """Improvement points the referee awards, and what for."""

    amount = WholeNumberField(label="IP", minimum=1, maximum=services.MAX_IP_AWARD)
    reason = _text("Reason", ImprovementEntry._meta.get_field("reason").max_length)


class CampaignAwardForm(AwardForm):
    """The same award to several characters of one campaign at once."""

    character: forms.ModelMultipleChoiceField[Character] = forms.ModelMultipleChoiceField(
        queryset=Character.objects.none(),
        error_messages={
            "required": "Choose the characters to award improvement points to.",
            "invalid_choice": "Choose the characters to award improvement points to.",
            "invalid_pk_value": "Choose the characters to award improvement points to.",
        },
    )

    def __init__(self, *args: Any, campaign: Campaign, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        chosen = cast("forms.ModelMultipleChoiceField[Character]", self.fields["character"])
        chosen.queryset = campaign.characters.order_by("name")


class SpendForm(forms.Form):
    """What the owner buys with improvement points: ``purchase`` names the kind."""

    purchase = _text("Purchase", 20)
    skill = _text("Skill", 100)
    cascade = _text("Cascade", 60)
    specialty = _text("Specialty", 120)
    to_level = forms.CharField(required=False, max_length=9)
    notation = _text("Notation", 60)
    name = _text("Name", 200)
    trait = _text("Trait", 120)
    attribute = _text("Attribute", 3)

    def _level(self, label: str) -> int:
        field = WholeNumberField(label=label, minimum=0, maximum=MAX_LEVEL)
        return field.read(self.cleaned_data["to_level"])  # type: ignore[return-value]

    def _index(self, label: str) -> int:
        field = WholeNumberField(label=label, minimum=0, maximum=MAX_ROW_INDEX)
        return field.read(self.cleaned_data["trait"])  # type: ignore[return-value]

    def described_purchase(self) -> rules.play.Purchase:
        """The purchase described; raises ValidationError naming what is missing."""
        readers = {
            "raise_skill": self._raise_skill,
            "new_skill": self._new_skill,
            "add_specialty": self._add_specialty,
            "add_perk": self._add_perk,
            "raise_perk": lambda: rules.RaisePerk(
                self._index("Perk"), self.cleaned_data["to_level"]
            ),
            "buy_off_flaw": self._buy_off_flaw,
            "raise_attribute": self._raise_attribute,
        }
        reader = readers.get(self.cleaned_data["purchase"])
        if reader is None:
            raise forms.ValidationError("Choose what to buy.")
        return reader()

    def _raise_skill(self) -> rules.play.Purchase:
        skill, _, cascade = self.cleaned_data["skill"].partition("::")
        if not skill:
            raise forms.ValidationError("Choose a skill to raise.")
        return rules.RaiseSkill(skill, cascade or None, self._level(f"New {skill} level"))

    def _new_skill(self) -> rules.play.Purchase:
        skill = self.cleaned_data["skill"].strip()
        definition = rules.catalog().find_skill(skill) if skill else None
        if definition is None:
            near = did_you_mean(rules.catalog().skills_like(skill)) if skill else ""
            raise forms.ValidationError(f"Name a skill from the rulebook's list.{near}")
        cascade = self.cleaned_data["cascade"].strip() or None
        return rules.RaiseSkill(definition.name, cascade, self._level(f"{definition.name} level"))

    def _add_specialty(self) -> rules.play.Purchase:
        skill, _, specialty = self.cleaned_data["specialty"].partition("::")
        if not specialty:
            raise forms.ValidationError("Choose a specialty.")
        return rules.AddSpecialty(skill, specialty)

    def _add_perk(self) -> rules.play.Purchase:
        try:
            trait = rules.parse_trait(
                self.cleaned_data["notation"], self.cleaned_data["name"].strip()
            )
        except NotationError as error:
            raise forms.ValidationError(str(error)) from None
        if not trait.name:
            raise forms.ValidationError("Give the perk a name.")
        return rules.AddPerk(trait)

    def _buy_off_flaw(self) -> rules.play.Purchase:
        chosen = self.cleaned_data["trait"]
        if chosen.startswith(PACKAGE_FLAW):
            return rules.BuyOffPackageFlaw(chosen.removeprefix(PACKAGE_FLAW))
        return rules.BuyOffFlaw(self._index("Flaw"))

    def _raise_attribute(self) -> rules.play.Purchase:
        code = self.cleaned_data["attribute"]
        return rules.RaiseAttribute(code, self._level(f"New {code or 'attribute'} level"))


class DecisionForm(forms.Form):
    """The referee's decision on a request (or the owner's withdrawal)."""

    decision = _text("Decision", 10)
    ip = WholeNumberField(label="IP cost", minimum=1, maximum=services.MAX_IP_PRICE, required=False)
    comment = _text("Comment", ImprovementEntry._meta.get_field("reason").max_length)


class CreditsForm(forms.Form):
    """An entry in the credits ledger: income, an expense, gear bought or given up."""

    action = _action_field(CREDIT_ACTIONS)
    amount = WholeNumberField(
        label="Credits", minimum=0, maximum=services.MAX_CREDITS, required=False
    )
    note = _text("Note", CreditEntry._meta.get_field("note").max_length)
    item = _text("Item", 120)
    quantity = WholeNumberField(
        label="Quantity",
        minimum=1,
        maximum=services.MAX_GEAR_QUANTITY,
        default=1,
        required=False,
    )
    price = WholeNumberField(label="Price", minimum=0, maximum=services.MAX_CREDITS, required=False)

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        action = data.get("action")
        if action in ("income", "expense") and "amount" not in self.errors and not data["amount"]:
            self.add_error("amount", "Credits: give an amount above 0.")
        if action in ("buy", "give_up") and not data.get("item", "").partition("|")[0]:
            self.add_error("item", "Choose an item.")
        return data

    def item_and_tl(self) -> tuple[str, int | None]:
        return item_and_tl(self.cleaned_data["item"])


def item_and_tl(key: str) -> tuple[str, int | None]:
    """An item as a form names it (``item_key``: "name|tl")."""
    name, _, tl = key.partition("|")
    tl_field = WholeNumberField(
        label="Tech level", minimum=0, maximum=MAX_TECH_LEVEL, required=False
    )
    return name, tl_field.read(tl)


class WearForm(forms.Form):
    """The armor the character wears now: ``worn`` holds each piece ticked (of ``pieces``, the
    armor it carries, named as forms name an item); ``action`` "wear" wears them, "as_marked"
    goes back to what the character document marks worn."""

    play_version = VersionField()
    action = _action_field(("wear", "as_marked"))
    worn = forms.MultipleChoiceField(
        required=False,
        error_messages={"invalid_choice": "Armor worn: choose armor the character carries."},
    )

    def __init__(self, *args: Any, pieces: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.MultipleChoiceField, self.fields["worn"]).choices = [(p, p) for p in pieces]

    def pieces(self) -> list[tuple[str, int | None]] | None:
        """The pieces to wear (None: as the character document marks them)."""
        if self.cleaned_data["action"] == "as_marked":
            return None
        return [item_and_tl(key) for key in self.cleaned_data["worn"]]


# The heaviest gravity the sheet takes, in g: far past any world a character walks on.
GRAVITY_MAX = 10.0


class WorldForm(forms.Form):
    """The world the play sheet's load figures are for: its gravity in g, or its size (a number
    or a hex digit); 1 g when neither is given."""

    gravity = forms.FloatField(
        required=False,
        min_value=0,
        max_value=GRAVITY_MAX,
        error_messages={
            "invalid": f"Gravity: give a number of g from 0 to {GRAVITY_MAX:g}.",
            "min_value": f"Gravity: give a number of g from 0 to {GRAVITY_MAX:g}.",
            "max_value": f"Gravity: give a number of g from 0 to {GRAVITY_MAX:g}.",
        },
    )
    size = forms.CharField(required=False, max_length=2)

    def world_gravity(self) -> tuple[float, str]:
        """The gravity in g, and what could not be read (the figures are then for 1 g)."""
        if not self.is_valid():
            return 1.0, first_problem(self)
        if self.cleaned_data["gravity"] is not None:
            return float(self.cleaned_data["gravity"]), ""
        size = self.cleaned_data["size"].strip()
        if not size:
            return 1.0, ""
        level = natural_number(size) if size.isdecimal() else rules.catalog().from_hex(size)
        if level is None:
            return 1.0, "World size: give a number or a hex digit (0-9, A-H)."
        return rules.world_gravity(level), ""
