"""Counts in the engine's messages, agreeing in number: "1 term needs", "2 terms need"."""


def plural(count: int, word: str, plural_form: str | None = None) -> str:
    """``count`` and the word in the form that count takes: "1 point", "3 points"."""
    return f"{count} {word}" if count == 1 else f"{count} {plural_form or word + 's'}"


def verb(count: int, singular: str, plural_form: str) -> str:
    """The form of a verb whose subject is ``count`` things: "is" for 1, "are" for more."""
    return singular if count == 1 else plural_form


def any_of(names: tuple[str, ...]) -> str:
    """Names to choose from, the last joined by "or": "C, E or G"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def did_you_mean(names: tuple[str, ...]) -> str:
    """A sentence offering the names a misspelling may stand for ("Did you mean Pilot?"),
    empty when there are none."""
    return f" Did you mean {any_of(names)}?" if names else ""


# The signs of arithmetic a page shows a person: the minus and times signs, not "-" and "x".
MINUS = "\u2212"
TIMES = "\u00d7"


def credits(amount: int) -> str:
    """An amount of credits as every page, sheet and message writes it: "Cr12,500"; a debt
    gets the minus sign (not a hyphen) before the "Cr"."""
    return f"Cr{amount:,}" if amount >= 0 else f"{MINUS}Cr{-amount:,}"


def signed_credits(amount: int) -> str:
    """An entry of a credits ledger: "+Cr1,000", or the minus sign for a payment."""
    return f"+{credits(amount)}" if amount >= 0 else credits(amount)
