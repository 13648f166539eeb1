"""Whether the tests run under CI, where a missing tool must fail a test rather than skip it."""

import os


def running_in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}
