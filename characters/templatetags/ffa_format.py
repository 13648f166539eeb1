"""Template filters that format figures the same way on every page: credits, odds, times."""

from datetime import datetime, timedelta
from fractions import Fraction

from django import template
from django.utils import timezone
from django.utils.timesince import timesince

register = template.Library()


@register.filter
def percent(chance: Fraction | float | None) -> str:
    """``chance|percent``: a chance of 0 to 1 as "58.3%"; "0%" and "100%" only when exact, so a
    test that can still fail (7775 in 7776) never reads as certain."""
    if chance is None:
        return ""
    value = float(chance) * 100
    if value in (0, 100):
        return f"{value:.0f}%"
    value = min(max(value, 0.1), 99.9)
    return f"{value:.1f}%".replace(".0%", "%")


@register.filter
def credits(amount: int | None) -> str:
    """``amount|credits``: "Cr12,500"; a negative amount gets a typographic minus sign."""
    if amount is None:
        return ""
    return f"Cr{amount:,}" if amount >= 0 else f"\u2212Cr{-amount:,}"


@register.filter
def signed_credits(amount: int) -> str:
    """``amount|signed_credits``: "+Cr1,000", or a minus sign before a payment, for a ledger."""
    return f"+Cr{amount:,}" if amount >= 0 else f"\u2212Cr{-amount:,}"


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
    if weight is None:
        return ""
    return f"{round(weight, 3):.3f}".rstrip("0").rstrip(".") + " kg"
