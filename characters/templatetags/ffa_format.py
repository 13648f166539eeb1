"""Template filters that format figures the same way on every page: credits, odds, times,
weights."""

from datetime import datetime, timedelta
from fractions import Fraction

from django import template
from django.utils import timezone
from django.utils.timesince import timesince

from characters.core import wording
from rules import wording as rules_wording

register = template.Library()


@register.filter
def percent(chance: Fraction | float | None) -> str:
    """``chance|percent``: a chance of 0 to 1 as "58.3%", never certain unless it is."""
    return "" if chance is None else wording.percent(chance)


@register.filter
def credits(amount: int | None) -> str:
    """``amount|credits``: "Cr12,500"; a negative amount gets a typographic minus sign."""
    return "" if amount is None else rules_wording.credits(amount)


# ``amount|signed_credits``: "+Cr1,000", or a minus sign before a payment, for a ledger.
register.filter("signed_credits", rules_wording.signed_credits)
# ``equipment|armor_worn``: the armor worn, each piece with its AV, as the PDF says it too.
register.filter("armor_worn", wording.armor_worn)


@register.filter
def ago(moment: datetime | None) -> str:
    """``moment|ago``: "3 minutes ago", or "just now" within a minute (where Django's
    timesince would say "0 minutes")."""
    if moment is None:
        return ""
    if timezone.now() - moment < timedelta(minutes=1):
        return "just now"
    return f"{timesince(moment)} ago"


@register.filter
def kg(weight: float | None) -> str:
    """``weight|kg``: "0.99 kg", "1.5 kg", "12 kg": to the gram, without trailing zeros."""
    return "" if weight is None else f"{wording.kg(weight)} kg"
