"""The sheet's options: the PDF's page size, when no campaign sets it."""

from django import forms

from characters.models import Campaign


class PdfForm(forms.Form):
    size = forms.ChoiceField(choices=Campaign.PageSize.choices, required=False)

    def page_size(self) -> str:
        """The size asked for, or US Letter when none (or none we print) is."""
        if self.is_valid() and self.cleaned_data["size"]:
            return str(self.cleaned_data["size"])
        return Campaign.PageSize.LETTER
