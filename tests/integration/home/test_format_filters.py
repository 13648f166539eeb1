"""The template filters that word figures for every page."""

from datetime import timedelta
from fractions import Fraction

import pytest
from django.utils import timezone

from characters.templatetags.ffa_format import ago, credits, kg, percent


@pytest.mark.parametrize(
    ("chance", "shown"),
    [
        (Fraction(0), "0%"),
        (Fraction(1), "100%"),
        (Fraction(7, 12), "58.3%"),
        (Fraction(1, 2), "50%"),
        (Fraction(7775, 7776), "99.9%"),  # Skill-5 against TN 2 can still fail
        (Fraction(1, 7776), "0.1%"),  # and a long shot can still come off
        (None, ""),
    ],
)
def test_a_chance_reads_as_certain_or_hopeless_only_when_it_is(chance, shown):
    assert percent(chance) == shown


@pytest.mark.parametrize(
    ("weight", "shown"),
    [
        (0.99, "0.99 kg"),
        (1.5, "1.5 kg"),
        (12.0, "12 kg"),
        (0.0004, "0 kg"),
        (1234.25, "1234.25 kg"),
    ],
)
def test_a_weight_reads_to_the_gram_without_trailing_zeros(weight, shown):
    assert kg(weight) == shown


def test_credits_have_thousands_separators_and_a_true_minus():
    assert (credits(100_000), credits(-2_500), credits(None)) == ("Cr100,000", "\u2212Cr2,500", "")


def test_a_moment_under_a_minute_old_was_just_now_and_an_older_one_says_how_long_ago():
    now = timezone.now()
    assert ago(now - timedelta(seconds=20)) == "just now"
    assert ago(now - timedelta(minutes=3, seconds=5)) == "3\xa0minutes ago"
    assert ago(None) == ""
