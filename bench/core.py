"""Measuring helpers shared by the benchmark suites."""

import os
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Figure:
    """One measured quantity: several samples of it, summarised by their median.

    ``target`` is the figure an issue asks for, if any: a floor when higher is better, else a
    ceiling. The median is compared with it; a missed target is reported, never raised, since
    a shared machine's figures are evidence to read, not a test to pass.
    """

    name: str
    unit: str
    samples: tuple[float, ...]
    higher_is_better: bool = True
    target: float | None = None

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def minimum(self) -> float:
        return min(self.samples)

    @property
    def maximum(self) -> float:
        return max(self.samples)

    @property
    def stdev(self) -> float:
        return statistics.stdev(self.samples) if len(self.samples) > 1 else 0.0

    @property
    def meets_target(self) -> bool | None:
        if self.target is None:
            return None
        if self.higher_is_better:
            return self.median >= self.target
        return self.median <= self.target

    @property
    def target_text(self) -> str:
        """E.g. "target <= 50 us: met"; empty without a target."""
        if self.target is None:
            return ""
        bound = ">=" if self.higher_is_better else "<="
        verdict = "met" if self.meets_target else "NOT MET"
        return f"target {bound} {self.target:,g} {self.unit}: {verdict}"

    def as_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "unit": self.unit,
            "median": self.median,
            "min": self.minimum,
            "max": self.maximum,
            "stdev": self.stdev,
            "samples": list(self.samples),
            "higher_is_better": self.higher_is_better,
            "target": self.target,
            "meets_target": self.meets_target,
        }


def rate(
    name: str,
    operation: Callable[[], object],
    *,
    per_round: int,
    rounds: int,
    warmup: int = 1,
    unit: str = "ops/s",
) -> Figure:
    """Calls per second: `rounds` samples, each timing `per_round` calls in a row."""
    for _ in range(warmup):
        for _ in range(per_round):
            operation()
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(per_round):
            operation()
        samples.append(per_round / (time.perf_counter() - start))
    return Figure(name, unit, tuple(samples))


def duration(name: str, operation: Callable[[], object], *, rounds: int, warmup: int = 1) -> Figure:
    """Milliseconds per call, one sample per call."""
    for _ in range(warmup):
        operation()
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        operation()
        samples.append((time.perf_counter() - start) * 1000)
    return Figure(name, "ms", tuple(samples), higher_is_better=False)


def setup_django() -> Path:
    """Django for the benchmarks, on a temporary FFA_VAR_DIR: a throwaway SQLite database (not
    yet migrated) and caches of its own, never the site's var/ or DATABASE_URL. Every suite
    calls this, whichever runs first: settings load once per process, so the first call
    decides for the whole run. Returns that folder (a server started for a suite uses it too)."""
    from django.conf import settings

    if not settings.configured:
        os.environ["FFA_VAR_DIR"] = tempfile.mkdtemp(prefix="ffa-bench-")
        os.environ.pop("DATABASE_URL", None)
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ffa_site.settings")
    import django

    django.setup()
    return Path(settings.VAR_DIR)


def throwaway_database(suite: str) -> Path:
    """``setup_django``, migrated, for a suite that writes test data; returns the folder. A run
    of several suites shares the one database."""
    from django.conf import settings

    var_dir = setup_django()
    database = str(settings.DATABASES["default"].get("NAME", ""))
    if "ffa-bench-" not in database:
        # Only when something other than the benchmarks set Django up in this process.
        raise RuntimeError(
            f"bench {suite} writes test data and will not use the database {database!r}."
        )
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    return var_dir


def bench_user(suite: str, role: str, *, password: str | None = None):
    """A user of ``suite``'s test data, named after the suite: a run of every suite shares one
    throwaway database, so two suites that both made "the referee" would collide."""
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user(f"bench-{suite}-{role}", password=password)
