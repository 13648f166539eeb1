"""What every rule of one check reads and writes: the character's context and the problems
found so far, in the order the sheet shows them."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..catalog import Catalog, Limits, Service, Species
from ..model import Character, HouseRules
from ..report import ERROR, WARNING, Problem


@dataclass(slots=True)
class _Problems:
    """The problems found so far, in the order the sheet shows them."""

    found: list[Problem] = field(default_factory=list)
    errors: int = 0

    def error(self, code: str, path: str, message: str) -> None:
        self.errors += 1
        self.found.append(Problem(code=code, severity=ERROR, path=path, message=message))

    def warning(self, code: str, path: str, message: str) -> None:
        self.found.append(Problem(code=code, severity=WARNING, path=path, message=message))

    def add(self, problems: tuple[Problem, ...]) -> None:
        """Problems a cached rule found (the same ones for the same values)."""
        self.found.extend(problems)
        for problem in problems:
            if problem.severity == ERROR:
                self.errors += 1


@dataclass(slots=True)
class _Context:
    """What every rule of one check reads, and where it records problems."""

    character: Character
    cat: Catalog
    limits: Limits
    rules: HouseRules
    species: Species
    service: Service | None
    problems: _Problems


# The report parts below are pure functions of the catalog and a few small values, and a
# builder's keystroke re-checks a character with nearly all of them the same: each is cached.
# The caches are bounded, as some of the values come from the document.
_CACHE_SIZE = 4096
