"""Forms for the campaign pages. They read and validate input; the services do the writing."""

from collections.abc import Collection
from typing import Any, cast

from django import forms
from django.core.validators import MaxValueValidator
from django.db.models import QuerySet

import rules
from characters.core.forms import natural_number
from characters.models import Campaign, Character, CombatSystem


def _budget_field(field: forms.IntegerField, *, initial: int, help_text: str) -> None:
    """A budget field with the catalog's figures: its highest value is checked on the server
    and hinted to the browser."""
    field.initial = initial
    field.help_text = help_text
    limit = rules.catalog().limits.max_budget
    field.max_value = limit
    field.validators.append(MaxValueValidator(limit))
    field.widget.attrs["max"] = limit


def _service_choices() -> list[tuple[str, str]]:
    return [
        (key, f"{service.name} ({service.source})")
        for key, service in rules.catalog().services.items()
    ]


class CampaignForm(forms.Form):
    """A campaign's name and house rules, as the referee sets them."""

    name = forms.CharField(max_length=Campaign._meta.get_field("name").max_length)
    pc_budget = forms.IntegerField(label="Point budget for player characters", min_value=0)
    one_trait_per_term = forms.BooleanField(
        label="At least one trait per term served (the rulebook's optional rule)",
        required=False,
        initial=True,
    )
    psionics_allowed = forms.BooleanField(label="Psionics allowed", required=False, initial=True)
    max_former_rank = forms.TypedChoiceField(label="Highest former rank", coerce=int)
    open_services = forms.MultipleChoiceField(
        label="Services open to players",
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="Tick none to open every service.",
    )
    combat_system = forms.ChoiceField(
        label="Combat system",
        choices=CombatSystem.choices,
        initial=CombatSystem.FFA,
        required=False,
        widget=forms.RadioSelect,
        help_text=(
            "The rules fights run under: FFA's own, or T4 basic combat or 2D6 combat with the "
            "same sheets. An encounter may choose another when it starts. Changing it starts "
            "each character's record of the new system unhurt (nothing converts between "
            "them); fights under way keep theirs."
        ),
    )
    page_size = forms.ChoiceField(label="Page size for PDFs", choices=Campaign.PageSize.choices)
    pencil_pdfs = forms.BooleanField(
        label="PDFs for pencil: leave LIF marks, wounds and credits blank",
        required=False,
        help_text="Each download can still ask for the other kind.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        limits = rules.catalog().limits
        self.fields["combat_system"].error_messages["invalid_choice"] = (
            "Combat system: choose one of those offered."
        )
        cast(forms.ChoiceField, self.fields["open_services"]).choices = _service_choices()
        _budget_field(
            cast(forms.IntegerField, self.fields["pc_budget"]),
            initial=limits.default_budget,
            help_text=f"The rulebook's is {limits.default_budget}. NPCs keep their own budgets.",
        )
        rank = cast(forms.ChoiceField, self.fields["max_former_rank"])
        rank.choices = [(level, str(level)) for level in range(limits.rank_max + 1)]
        rank.initial = limits.rank_max

    def clean_combat_system(self) -> str | None:
        """The system chosen; None when the form did not say (the campaign keeps its own, a new
        one fights under FFA)."""
        return self.cleaned_data["combat_system"] or None

    @classmethod
    def for_campaign(cls, campaign: Campaign, data: Any = None) -> "CampaignForm":
        initial = {
            "name": campaign.name,
            "pc_budget": campaign.pc_budget,
            "one_trait_per_term": campaign.one_trait_per_term,
            "psionics_allowed": campaign.psionics_allowed,
            "max_former_rank": campaign.max_former_rank,
            "open_services": list(campaign.open_services),
            "page_size": campaign.page_size,
            "pencil_pdfs": campaign.pencil_pdfs,
            "combat_system": campaign.combat_system,
        }
        return cls(data, initial=initial)


class NpcForm(forms.Form):
    """A new NPC in a campaign: the referee chooses any budget."""

    name = forms.CharField(max_length=rules.catalog().bounds.name_length)
    budget = forms.IntegerField(min_value=0)
    species = forms.ChoiceField(choices=())

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cat = rules.catalog()
        limits = cat.limits
        species = cast(forms.ChoiceField, self.fields["species"])
        species.choices = [(key, s.name) for key, s in cat.species.items()]
        _budget_field(
            cast(forms.IntegerField, self.fields["budget"]),
            initial=limits.npc_citizen_budget,
            help_text=f"About {limits.npc_citizen_budget} for an average citizen, "
            f"{limits.npc_mercenary_budget} for an experienced mercenary.",
        )


class IdsField(forms.Field):
    """Ids ticked in a list; what is not an id is left out, as a row deleted meanwhile is."""

    widget = forms.SelectMultiple

    def to_python(self, value: Any) -> list[int]:
        values = value if isinstance(value, list | tuple) else []
        return [number for text in values if (number := natural_number(str(text))) is not None]


class AttachForm(forms.Form):
    """The user's own characters to bring into a campaign: of those ticked, the ones it can
    take (a stale or forged id brings nothing)."""

    character = IdsField(required=False)

    def __init__(self, *args: Any, attachable: QuerySet[Character], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.attachable = attachable

    def clean_character(self) -> list[Character]:
        return list(self.attachable.filter(pk__in=self.cleaned_data["character"]))


class PartyViewForm(forms.Form):
    """How the referee's party table is sorted: a column's key, "-" first for descending."""

    sort = forms.CharField(required=False, max_length=20)

    def sort_key(self, known: Collection[str], default: str) -> str:
        sort = self.cleaned_data["sort"] if self.is_valid() else ""
        return sort if sort.lstrip("-") in known else default


class PartyPdfForm(forms.Form):
    """``?all=1``: every player character, not only the approved ones."""

    all = forms.BooleanField(required=False)
