"""The PDF's options: its page size and pencil or pen, each over the campaign's default."""

from django import forms

from characters.models import Campaign


class PdfForm(forms.Form):
    size = forms.ChoiceField(choices=Campaign.PageSize.choices, required=False)
    # "1": leave what changes in play blank, for pencil; "0": print it; absent: the campaign's
    # default (pen outside a campaign).
    pencil = forms.TypedChoiceField(
        choices=[("1", "for pencil"), ("0", "as it stands")],
        coerce=lambda value: value == "1",
        empty_value=None,
        required=False,
    )

    def page_size(self, campaign: Campaign | None) -> str:
        """The size asked for (a player in a Letter campaign may still want A4), else the
        campaign's, else US Letter."""
        if self.is_valid() and self.cleaned_data["size"]:
            return str(self.cleaned_data["size"])
        return campaign.page_size if campaign else Campaign.PageSize.LETTER

    def for_pencil(self, campaign: Campaign | None) -> bool:
        """Pencil when asked, else as the campaign prints by default."""
        if self.is_valid() and self.cleaned_data["pencil"] is not None:
            return bool(self.cleaned_data["pencil"])
        return bool(campaign and campaign.pencil_pdfs)
