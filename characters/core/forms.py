"""Whole numbers as users and URLs type them."""

# Nine digits stay below PostgreSQL's integer limit, so no id or figure read here can overflow a
# column or a query; Python's int() also refuses digit strings past a few thousand characters.
MAX_DIGITS = 9


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
