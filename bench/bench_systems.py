"""The other combat systems (issue 38): one T4 attack and one 2D6 attack, in-process, from
sheets already read (as an encounter page asks the odds and resolves a throw) and from the
command's JSON (as ``python -m rules attack --system`` does, the documents checked too).

The attacks are two of the command tests' hand-worked cases (tests/fixtures/combat_systems):
Mara Tolven's aimed automatic pistol at a Vargr corsair in a jack, at short range. The FFA
attack of bench_engine beside them is the scale to read them against, with the interpreter
reference printed there."""

import json
from pathlib import Path

from bench.bench_engine import _microseconds
from bench.core import Figure
from rules.combat.t4.command import read_t4_attack
from rules.combat.t4.plan import plan_t4_attack
from rules.combat.t4.resolve import resolve_t4_attack
from rules.combat.twod6.attack import plan_2d6_attack, resolve_2d6_attack
from rules.combat.twod6.command import read_2d6_attack

ROOT = Path(__file__).resolve().parents[1]
# The command tests' hand-worked cases.
CASES = ROOT / "tests" / "fixtures" / "combat_systems"
T4_SHOT = json.loads((CASES / "t4-aimed-pistol-through-a-jack.json").read_text())
TWOD6_SHOT = json.loads((CASES / "2d6-aimed-pistol-through-a-jack.json").read_text())


def run(quick: bool) -> list[Figure]:
    calls, rounds = (200, 5) if quick else (2000, 15)
    t4_attack, t4_dice = read_t4_attack(T4_SHOT)
    twod6_attack, twod6_dice = read_2d6_attack(TWOD6_SHOT)
    assert t4_dice is not None
    assert twod6_dice is not None
    assert resolve_t4_attack(plan_t4_attack(t4_attack), t4_dice).hit
    assert resolve_2d6_attack(plan_2d6_attack(twod6_attack), twod6_dice).hits
    return [
        _microseconds(
            "T4: plan + resolve (aimed pistol shot), sheets read",
            lambda: resolve_t4_attack(plan_t4_attack(t4_attack), t4_dice),
            calls=calls,
            rounds=rounds,
        ),
        _microseconds(
            "2D6: plan + resolve (aimed pistol shot), sheets read",
            lambda: resolve_2d6_attack(plan_2d6_attack(twod6_attack), twod6_dice),
            calls=calls,
            rounds=rounds,
        ),
        _microseconds(
            "T4: the command's JSON read (two documents checked), planned, resolved",
            lambda: resolve_t4_attack(plan_t4_attack(read_t4_attack(T4_SHOT)[0]), t4_dice),
            calls=calls // 10,
            rounds=rounds,
        ),
        _microseconds(
            "2D6: the command's JSON read (two documents checked), planned, resolved",
            lambda: resolve_2d6_attack(plan_2d6_attack(read_2d6_attack(TWOD6_SHOT)[0]), twod6_dice),
            calls=calls // 10,
            rounds=rounds,
        ),
    ]
