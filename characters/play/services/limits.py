"""Guards of the app against slips of the keyboard, not rules: the most a play sheet's input
takes, which its forms and the inputs' max attributes read."""

from __future__ import annotations

import rules

# Guards of the app against slips of the keyboard, not rules; the play sheet's inputs read them.
MAX_IP_AWARD = 100
MAX_IP_PRICE = 1000  # what a referee may set an unpriced purchase at
MAX_CREDITS = 100_000_000
MAX_RECOVERY_PERIODS = 100
MAX_TEST_FIGURE = 30  # a test's TN at most, and its DM of either sign
MAX_GEAR_QUANTITY = 1000
MAX_DAMAGE = 999  # a blow's damage, and the armor it meets


# The same guards as the play sheet's inputs write them in their max attributes.
INPUT_MAXIMA = {
    "ip_award": MAX_IP_AWARD,
    "ip_price": MAX_IP_PRICE,
    "recovery_periods": MAX_RECOVERY_PERIODS,
    "gear_quantity": MAX_GEAR_QUANTITY,
    "damage": MAX_DAMAGE,
    "test_figure": MAX_TEST_FIGURE,
    "dice": rules.dice.MAX_ENUMERATED_DICE,
}
