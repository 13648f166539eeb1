"""Forms for the campaign pages. They read and validate input; the services do the writing."""

from typing import Any

from django import forms
from django.core.validators import MaxValueValidator

import rules
from characters.models import Campaign
from rules.document import NAME_MAX


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
    page_size = forms.ChoiceField(label="Page size for PDFs", choices=Campaign.PageSize.choices)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        limits = rules.catalog().limits
        self.fields["open_services"].choices = _service_choices()
        _budget_field(
            self.fields["pc_budget"],
            initial=limits.default_budget,
            help_text=f"The rulebook's is {limits.default_budget}. NPCs keep their own budgets.",
        )
        rank = self.fields["max_former_rank"]
        rank.choices = [(level, str(level)) for level in range(limits.rank_max + 1)]
        rank.initial = limits.rank_max

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
        }
        return cls(data, initial=initial)


class NpcForm(forms.Form):
    """A new NPC in a campaign: the referee chooses any budget."""

    name = forms.CharField(max_length=NAME_MAX)
    budget = forms.IntegerField(min_value=0)
    species = forms.ChoiceField(choices=())

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cat = rules.catalog()
        limits = cat.limits
        self.fields["species"].choices = [(key, s.name) for key, s in cat.species.items()]
        _budget_field(
            self.fields["budget"],
            initial=limits.npc_citizen_budget,
            help_text=f"About {limits.npc_citizen_budget} for an average citizen, "
            f"{limits.npc_mercenary_budget} for an experienced mercenary.",
        )
