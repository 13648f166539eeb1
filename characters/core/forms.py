"""Reading numbers as people and URLs type them: one field and one rule for every form.

Every form's error is a whole sentence that names its field ("Damage: enter a whole number
from 0 to 999."), so a page can show it on its own, in a message or beside the field.
"""

from typing import Any

from django import forms
from django.core.exceptions import ValidationError

# Nine digits stay below PostgreSQL's integer limit, so no id or figure read here can overflow a
# column or a query; Python's int() also refuses digit strings past a few thousand characters.
MAX_DIGITS = 9
MAX_VERSION = 10**MAX_DIGITS - 1


def whole_number(text: str) -> int | None:
    """The whole number ``text`` spells, a minus sign allowed; None when it spells none or has
    more than ``MAX_DIGITS`` digits. ``str.isdigit`` is no test for this: it accepts "²", which
    ``int`` refuses."""
    text = text.strip()
    digits = text.removeprefix("-")
    if not digits.isdecimal() or len(digits) > MAX_DIGITS:
        return None
    return int(text)


def natural_number(text: str) -> int | None:
    """As :func:`whole_number`, for 0 or more only (ids, indexes, tech levels)."""
    number = whole_number(text)
    return number if number is not None and number >= 0 else None


class WholeNumberField(forms.Field):
    """A whole number from ``minimum`` to ``maximum`` typed by a person. Empty is None when the
    field is not required (``default`` then stands in), and an error when it is: falling back
    to an old value would act on something the person no longer sees in the field."""

    widget: type[forms.Widget] = forms.NumberInput

    def __init__(
        self, *, minimum: int, maximum: int, default: int | None = None, **kwargs: Any
    ) -> None:
        self.minimum, self.maximum, self.default = minimum, maximum, default
        super().__init__(**kwargs)

    @property
    def rule(self) -> str:
        return f"{self.label}: enter a whole number from {self.minimum} to {self.maximum}."

    def to_python(self, value: Any) -> int | None:
        text = "" if value is None else str(value).strip()
        if not text:
            return self.default
        number = whole_number(text)
        if number is None or not self.minimum <= number <= self.maximum:
            raise ValidationError(self.rule, code="invalid")
        return number

    def validate(self, value: Any) -> None:
        if value is None and self.required:
            raise ValidationError(self.rule, code="required")

    def widget_attrs(self, widget: forms.Widget) -> dict[str, Any]:
        return {**super().widget_attrs(widget), "min": self.minimum, "max": self.maximum}

    def read(self, text: str) -> int | None:
        """The number in ``text`` outside a form (the builder's rows); raises ValidationError."""
        return self.clean(text)


class VersionField(WholeNumberField):
    """The version a page was built from: a write from a page that fell behind is refused as a
    conflict, never applied over what it did not see (the optimistic lock)."""

    widget = forms.HiddenInput

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("label", "Version")
        super().__init__(minimum=0, maximum=MAX_VERSION, **kwargs)


def first_problem(form: forms.Form) -> str:
    """The form's first error, a sentence that names its field."""
    for errors in form.errors.values():
        for error in errors:
            return str(error)
    return ""
