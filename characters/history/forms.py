"""What the history pages read: the revision to compare with, and the version a restore saw."""

from typing import Any

from django import forms

from characters.core.forms import MAX_VERSION, VersionField, WholeNumberField


class CompareForm(forms.Form):
    """``?from=N``: the revision to compare with (by default the one before)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # "from" is a Python keyword, so the field is added by name.
        self.fields["from"] = WholeNumberField(
            label="Revision", minimum=1, maximum=MAX_VERSION, required=False
        )


class RestoreForm(forms.Form):
    """A restore carries the version its page showed: a page that fell behind restores nothing."""

    version = VersionField()
