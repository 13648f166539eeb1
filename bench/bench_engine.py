"""The rules engine: time to check a character in-process, to resolve an attack, and the CLI's
throughput.

Targets (issue 13), for the navy-pilot worked example in-process: ``check`` of a parsed
character at most 30 us; parsing the document and checking it at most 60 us. The
"interpreter reference" (summing range(100)) is printed beside them so a figure from a slow
machine can be compared with one from a fast machine as a ratio, and the instructions each
takes (callgrind, when valgrind is installed) are the same on any machine, busy or not.

Those figures check one document again and again, as the builder does on each keystroke, so the
engine's caches of entries and passes hit. A figure beside them checks documents it has never
seen (the caches miss), as the CLI meets a folder of characters.
"""

import copy
import itertools
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from bench.core import Figure
from rules import check, check_document, parse_document, plan_attack, resolve_attack
from rules.attack_input import read_attack

ROOT = Path(__file__).resolve().parents[1]
# The worked examples are test fixtures in the repository; the bench times the one the issue names.
EXAMPLES = ROOT / "tests" / "fixtures" / "examples"
NAVY_PILOT_PATH = EXAMPLES / "navy-pilot.json"
# A hand-worked attack: a skilled, aimed rifle shot at long range through mesh, a critical wound.
ATTACK_PATH = ROOT / "tests" / "fixtures" / "combat" / "rifle-aimed-at-long-range.json"
CHECK_TARGET_US = 30
PARSE_AND_CHECK_TARGET_US = 60


# A CPU that has been idle runs slower for a fraction of a second once it is busy again (on
# the 2-core development VM, up to 1.7x for a few hundred ms, the interpreter reference too),
# so each figure is warmed up for this long as well as for a round of calls; otherwise the
# first figure measured the ramp-up rather than the code.
WARMUP_SECONDS = 1.0


def _microseconds(
    name: str, operation, *, calls: int, rounds: int, target: float | None = None
) -> Figure:
    deadline = time.perf_counter() + WARMUP_SECONDS
    while True:
        for _ in range(calls):
            operation()
        if time.perf_counter() >= deadline:
            break
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(calls):
            operation()
        samples.append((time.perf_counter() - start) / calls * 1e6)
    return Figure(name, "us", tuple(samples), higher_is_better=False, target=target)


# More documents than any of the engine's caches keeps, so each is checked as never seen.
UNSEEN_DOCUMENTS = 5000


def _unseen_documents(document: dict, count: int) -> Iterator[dict]:
    """``document`` with its homeworld, attributes and skill levels varied ``count`` ways, over
    and over: every cache keyed by what a document holds misses, as on a first check (the
    builder's keystrokes re-check the same entries and hit them)."""
    rng = random.Random(13)
    attributes = list(document["attributes"])
    variants = []
    for index in range(count):
        variant = copy.deepcopy(document)
        variant["homeworld"] = f"World {index}"
        variant["attributes"] = {code: rng.randint(2, 12) for code in attributes}
        for skill in variant["skills"]:
            skill["level"] = rng.randint(0, 3)
        variants.append(variant)
    return itertools.cycle(variants)


def _cli_throughput(count: int, rounds: int) -> Figure:
    documents = [p for p in EXAMPLES.glob("*.json") if not p.name.endswith(".expected.json")]
    bodies = [json.loads(p.read_text()) for p in documents]
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
                capture_output=True,
                cwd=ROOT,
                check=False,
            )
            elapsed = time.perf_counter() - start
            assert result.returncode in (0, 1), result.stderr[:300]
            assert len(json.loads(result.stdout)) == count
            samples.append(count / elapsed)
    return Figure(f"python -m rules check, {count} documents in one run", "docs/s", tuple(samples))


# Runs ``check`` (or ``check_document``) of the document argv[1] argv[2] times after a warm-up.
_CALLGRIND_PROGRAM = """
import json, sys
from rules import check, check_document, parse_document, plan_attack, resolve_attack
from rules.attack_input import read_attack
document = json.loads(open(sys.argv[1]).read())
character = parse_document(document)
operation = check_document if sys.argv[3] == "document" else check
argument = document if sys.argv[3] == "document" else character
for _ in range(100 + int(sys.argv[2])):
    operation(argument)
"""


def _instructions(name: str, what: str, calls: int = 1000) -> Figure | None:
    """Instructions per call, counted by callgrind: unlike wall time, the same on a busy
    machine. The difference of a run with ``calls`` more calls than another."""
    if shutil.which("valgrind") is None:
        print("  (no valgrind: the instruction counts are skipped)")
        return None
    totals = []
    for count in (0, calls):
        command = [
            "valgrind",
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            sys.executable,
            "-c",
            _CALLGRIND_PROGRAM,
            str(NAVY_PILOT_PATH),
            str(count),
            what,
        ]
        result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, check=True)
        found = re.search(r"Collected : (\d+)", result.stderr)
        assert found is not None, result.stderr[-300:]
        totals.append(int(found.group(1)))
    return Figure(name, "instr", ((totals[1] - totals[0]) / calls,), higher_is_better=False)


def run(quick: bool) -> list[Figure]:
    calls, rounds = (500, 5) if quick else (5000, 15)
    navy_pilot = json.loads(NAVY_PILOT_PATH.read_text())
    character = parse_document(navy_pilot)
    assert check(character).valid
    report = check(character)
    plan, dice = read_attack(json.loads(ATTACK_PATH.read_text()))
    assert dice is not None
    assert resolve_attack(plan, dice).hit
    situation = (plan.attacker, plan.weapon, plan.target, plan.range_band, plan.situation)
    unseen = _unseen_documents(navy_pilot, UNSEEN_DOCUMENTS)
    return [
        _microseconds(
            "check(navy pilot), parsed character",
            lambda: check(character),
            calls=calls,
            rounds=rounds,
            target=CHECK_TARGET_US,
        ),
        _microseconds(
            "check_document(navy pilot), parse + check",
            lambda: check_document(navy_pilot),
            calls=calls,
            rounds=rounds,
            target=PARSE_AND_CHECK_TARGET_US,
        ),
        _microseconds(
            "check_document, navy pilot varied: a document never seen (caches miss)",
            lambda: check_document(next(unseen)),
            calls=calls,
            rounds=rounds,
        ),
        _microseconds(
            "report.as_dict() (JSON-ready report)", report.as_dict, calls=calls, rounds=rounds
        ),
        _microseconds(
            "resolve_attack(aimed rifle shot), planned: dice, damage, wound",
            lambda: resolve_attack(plan, dice),
            calls=calls,
            rounds=rounds,
        ),
        _microseconds(
            "plan_attack + resolve_attack (aimed rifle shot), fighters built",
            lambda: resolve_attack(plan_attack(*situation), dice),
            calls=calls,
            rounds=rounds,
        ),
        _microseconds(
            "interpreter reference: sum(range(100))",
            lambda: sum(range(100)),
            calls=calls * 10,
            rounds=rounds,
        ),
        _cli_throughput(1000, 2 if quick else 5),
        *filter(
            None,
            [
                _instructions("check(navy pilot): instructions (callgrind)", "character"),
                _instructions("check_document(navy pilot): instructions (callgrind)", "document"),
            ],
        ),
    ]
