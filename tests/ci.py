"""Whether the tests run under CI, where a missing tool must fail a test rather than skip it,
and every hypothesis test tries its full count of examples."""

import os

# Hypothesis's own default; the profiles of tests/conftest.py are drawn from it.
CI_EXAMPLES = 100


def running_in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def examples(under_ci: int) -> int:
    """How many examples a hypothesis test that sets its own count tries: ``under_ci`` under CI,
    elsewhere as much fewer as the loaded profile tries (tests/conftest.py)."""
    from hypothesis import settings

    return max(1, under_ci * settings.default.max_examples // CI_EXAMPLES)
