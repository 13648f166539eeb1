"""The rules engine: time to check a character in-process, and the CLI's throughput.

Target: checking the navy-pilot worked example takes at most 50 us in-process. The
"interpreter reference" (summing range(100)) is printed beside it so a figure from a slow
machine can be compared with one from a fast machine as a ratio.
"""

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.core import Figure
from rules import check, check_document, parse_document

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT.parent / "shared" / "spec" / "examples"
# The navy pilot of the shared examples, kept here too so the bench runs without shared/.
NAVY_PILOT = {
    "format": "ffa-character/1",
    "name": "Ensign Mara Tolven",
    "budget": 100,
    "homeworld": "Regina",
    "service": "navy",
    "terms": 3,
    "rank": 2,
    "attributes": {"STR": 6, "DEX": "B", "END": 7, "INT": 9, "PRE": 7, "AWA": 9, "EDU": "A",
                   "SOC": 8, "EXP": 9},
    "skills": [
        {"skill": "Pilot", "level": 3, "specialties": ["small craft"]},
        {"skill": "Navigation", "level": 2},
        {"skill": "Vacc Suit", "level": 1},
        {"skill": "Gunnery", "level": 2, "specialties": ["ship's lasers"]},
        {"skill": "Handgun", "level": 1},
        {"skill": "Gambling", "level": 1},
        {"skill": "Area Knowledge", "cascade": "Regina", "level": 5},
        {"skill": "Carousing", "level": 0},
        {"skill": "Engineering", "level": 0},
    ],
    "traits": [
        {"type": "PP", "level": "E", "frequency": "O", "name": "Combat experience"},
        {"type": "PF", "level": "H", "frequency": "S", "name": "Reckless in a cockpit"},
        {"type": "MP", "level": "E", "frequency": "S", "name": "TAS membership"},
    ],
    "mustering_out": {"rolls": [6, 3, 4]},
    "equipment": [{"item": "Automatic pistol", "quantity": 1}],
}  # fmt: skip


def _microseconds(name: str, operation, *, calls: int, rounds: int) -> Figure:
    for _ in range(calls):
        operation()
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(calls):
            operation()
        samples.append((time.perf_counter() - start) / calls * 1e6)
    return Figure(name, "us", tuple(samples), higher_is_better=False)


def _cli_throughput(count: int, rounds: int) -> Figure:
    documents = [p for p in EXAMPLES.glob("*.json") if not p.name.endswith(".expected.json")]
    bodies = [json.loads(p.read_text()) for p in documents] or [NAVY_PILOT]
    samples = []
    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for index in range(count):
            path = Path(folder) / f"character-{index}.json"
            path.write_text(
                json.dumps(dict(bodies[index % len(bodies)], name=f"Traveller {index}"))
            )
            paths.append(str(path))
        for _ in range(rounds):
            start = time.perf_counter()
            result = subprocess.run(
                [sys.executable, "-m", "rules", "check", *paths],
                capture_output=True, cwd=ROOT, check=False,
            )  # fmt: skip
            elapsed = time.perf_counter() - start
            assert result.returncode in (0, 1), result.stderr[:300]
            assert len(json.loads(result.stdout)) == count
            samples.append(count / elapsed)
    return Figure(f"python -m rules check, {count} documents in one run", "docs/s", tuple(samples))


def run(quick: bool) -> list[Figure]:
    calls, rounds = (500, 5) if quick else (5000, 15)
    character = parse_document(NAVY_PILOT)
    assert check(character).valid
    report = check(character)
    return [
        _microseconds(
            "check(navy pilot), parsed character",
            lambda: check(character),
            calls=calls,
            rounds=rounds,
        ),
        _microseconds(
            "check_document(navy pilot), parse + check",
            lambda: check_document(NAVY_PILOT),
            calls=calls,
            rounds=rounds,
        ),
        _microseconds(
            "report.as_dict() (JSON-ready report)", report.as_dict, calls=calls, rounds=rounds
        ),
        _microseconds(
            "interpreter reference: sum(range(100))",
            lambda: sum(range(100)),
            calls=calls * 10,
            rounds=rounds,
        ),
        _cli_throughput(1000, 2 if quick else 5),
    ]
