"""Forms for the campaign pages. They read and validate input; the services do the writing."""

from typing import Any

from django import forms
from django.core.validators import MaxValueValidator

import rules

from .models import Campaign


def _limit_budget(field: forms.IntegerField) -> None:
    """The catalog's highest budget, checked on the server and hinted to the browser."""
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

    name = forms.CharField(max_length=100)
    pc_budget = forms.IntegerField(
        label="Point budget for player characters",
        min_value=0,
        initial=100,
        help_text="The rulebook's is 100. NPCs keep their own budgets.",
    )
    one_trait_per_term = forms.BooleanField(
        label="At least one trait per term served (the rulebook's optional rule)",
        required=False,
        initial=True,
    )
    psionics_allowed = forms.BooleanField(label="Psionics allowed", required=False, initial=True)
    max_former_rank = forms.TypedChoiceField(
        label="Highest former rank",
        coerce=int,
        choices=[(rank, str(rank)) for rank in range(7)],
        initial=6,
    )
    open_services = forms.MultipleChoiceField(
        label="Services open to players",
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="Tick none to open every service.",
    )
    page_size = forms.ChoiceField(label="Page size for PDFs", choices=Campaign.PageSize.choices)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["open_services"].choices = _service_choices()
        _limit_budget(self.fields["pc_budget"])

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

    name = forms.CharField(max_length=100)
    budget = forms.IntegerField(
        min_value=0,
        initial=25,
        help_text="About 25 for an average citizen, 50 for an experienced mercenary.",
    )
    species = forms.ChoiceField(choices=())

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cat = rules.catalog()
        self.fields["species"].choices = [(key, s.name) for key, s in cat.species.items()]
        _limit_budget(self.fields["budget"])
