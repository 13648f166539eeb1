"""The test tiers' wall time (issues 35 and 40), each run once as a developer runs it, in a
throwaway FFA_VAR_DIR so a run beside other work touches none of its files.

- `make test-fast` (unit and integration, no browser, every core): at most 2 minutes on the
  2-core machine the project is built on.
- The builder's browser tests: at most half the wall time they took before the builder's
  client was redesigned. That baseline is a figure, not a run: the old tests need the old
  client, so they were timed once, on the same machine, at 66fd92b (98 tests, 290 s, the
  tier run alone); the ratio to it is printed beside the new time.

One sample each (a whole tier is minutes), so read them as evidence, not a distribution."""

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.core import Figure

ROOT = Path(__file__).resolve().parents[1]
BUILDER_TESTS_BEFORE_SECONDS = 290.0
FAST_TIER_TARGET_SECONDS = 120.0


def _wall_time(*pytest_args: str) -> float:
    """Seconds for one pytest run of ``pytest_args``, which must pass: a red tier's time means
    nothing."""
    environment = {**os.environ, "FFA_VAR_DIR": tempfile.mkdtemp(prefix="ffa-bench-tiers-")}
    start = time.perf_counter()
    finished = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *pytest_args],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - start
    if finished.returncode != 0:
        raise RuntimeError(f"pytest {' '.join(pytest_args)} failed:\n{finished.stdout[-2000:]}")
    return seconds


def run(quick: bool) -> list[Figure]:
    fast = _wall_time("-n", "auto", "-m", "not browser and not slow")
    figures = [
        Figure(
            "make test-fast (unit + integration, no browser)",
            "s",
            (fast,),
            higher_is_better=False,
            target=FAST_TIER_TARGET_SECONDS,
        )
    ]
    if quick:
        return figures
    builder = _wall_time("tests/browser/builder")
    return [
        *figures,
        Figure("builder browser tests", "s", (builder,), higher_is_better=False),
        Figure(
            "  as a share of their time before the redesign (290 s at 66fd92b)",
            "%",
            (100 * builder / BUILDER_TESTS_BEFORE_SECONDS,),
            higher_is_better=False,
            target=50.0,
        ),
    ]
