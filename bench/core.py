"""Measuring helpers shared by the benchmark suites."""

import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Figure:
    """One measured quantity: several samples of it, summarised by their median."""

    name: str
    unit: str
    samples: tuple[float, ...]
    higher_is_better: bool = True

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


def setup_django() -> None:
    """Configure Django for suites that go through the site (no database is created)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ffa_site.settings")
    import django

    django.setup()
