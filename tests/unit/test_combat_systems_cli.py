"""``python -m rules attack --system t4|2d6``: the JSON result, FFA unchanged without the
option, one line naming every faulty field, and no traceback for any input at all."""

import contextlib
import copy
import io
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.cli import main

from .test_combat_cli import _paths, _put
from .test_hostile_documents import json_values

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "fixtures" / "combat_systems"
CASE_NAMES = sorted(p.stem for p in CASES.glob("*.json") if ".expected" not in p.name)
T4_SHOT = json.loads((CASES / "t4-aimed-pistol-through-a-jack.json").read_text())
TWOD6_SHOT = json.loads((CASES / "2d6-aimed-pistol-through-a-jack.json").read_text())


def command(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "rules", "attack", *args],
        capture_output=True,
        text=True,
        input=stdin,
        cwd=ROOT,
        check=False,
    )


def in_process(request, *options: str) -> tuple[int, str, str]:
    """The command run in this process on ``request`` written to a file: status, out, err."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8") as f:
        json.dump(request, f)
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(["attack", *options, f.name])
    finally:
        os.unlink(f.name)
    return status, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("name", CASE_NAMES)
def test_each_hand_worked_case_gives_the_figures_worked_out_from_the_seed(name):
    # Each case's .expected.json says how it was worked out ("worked").
    request = json.loads((CASES / f"{name}.json").read_text())
    expected = json.loads((CASES / f"{name}.expected.json").read_text())
    status, out, err = in_process(request, "--system", request["system"])
    assert status == 0, err
    result = json.loads(out)
    assert {key: result[key] for key in expected if key != "worked"} == {
        key: value for key, value in expected.items() if key != "worked"
    }


def test_a_t4_shot_prints_its_json_and_exits_0():
    result = command("--system", "t4", "-", stdin=json.dumps(T4_SHOT))
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert (out["system"], out["hits"][0]["armor"]["name"]) == ("t4", "Jack (TL 1)")
    assert (out["hits"][0]["dice_after_armor"], out["hits"][0]["blunt_trauma"]) == (1, 1)
    assert out["condition_after"]["damage"]["DEX"] == 5


def test_without_dice_the_command_throws_them():
    request = {key: value for key, value in TWOD6_SHOT.items() if key != "dice"}
    status, out, _ = in_process(request, "--system", "2d6")
    assert status == 0
    assert len(json.loads(out)["attacks"][0]["dice"]) == 2


def test_without_the_option_the_command_is_ffa_and_the_input_may_say_so():
    request = {key: T4_SHOT[key] for key in ("attacker", "target", "weapon", "range")}
    request.update(system="ffa", dice=[4])  # Handgun-1: one die
    status, out, err = in_process(request)
    assert status == 0, err
    assert "tn" in json.loads(out)  # the FFA result
    status, _, err = in_process({**request, "system": "t4"})
    assert status == 2
    assert err.count("\n") == 1
    assert "system: an FFA attack reads 'ffa' here" in err


def test_the_inputs_system_must_agree_with_the_option():
    status, _, err = in_process({**T4_SHOT, "system": "2d6"}, "--system", "t4")
    assert status == 2
    assert "system: is '2d6'; a t4 fight reads 't4' here" in err
    assert in_process({**T4_SHOT, "system": "t4"}, "--system", "t4")[0] == 0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"range": "close"},
            "range: unknown 'close'; use one of contact, very short, short, medium, long, very "
            "long",
        ),
        ({"weapon": "Blaster"}, "weapon: no weapon is called 'Blaster' in the weapons tables"),
        ({"routine": "spray"}, "routine: unknown 'spray'"),
        (
            {"target": {"animal": {"type": "hunter", "weight_kg": 50}}},
            "target.animal: animals fight only under FFA in this version",
        ),
        (
            {"target_condition": {"system": "2d6"}},
            "target_condition.system: is '2d6'; a t4 fight reads 't4' here",
        ),
        (
            {"target_condition": {"damage": {"STR": -1}}},
            "target_condition.damage.STR: must be between 0 and 1000, not -1",
        ),
        ({"situation": {"cover": "wall"}}, "situation.cover: unknown 'wall'; use one of partial"),
        (
            {"dice": {"attack": [[7, 1, 1]]}},
            "dice.attack[0][0]: must be a die, a whole number from 1 to 6",
        ),
        (
            {"dice": {"attack": [[2, 3, 4]], "location": [[3, 4]], "damage": [[5, 5]]}},
            "dice.damage[0]: 1 die needed, got 2",
        ),
        ({"allocation": ["SOC"]}, "allocation[0]: unknown 'SOC'"),
        ({"attacker": None}, "attacker: missing"),
    ],
)
def test_malformed_t4_input_exits_2_with_one_line_naming_the_field(change, message):
    status, out, err = in_process({**T4_SHOT, **change}, "--system", "t4")
    assert (status, out) == (2, "")
    assert err.count("\n") == 1
    assert message in err


def test_every_fault_is_named_at_once_in_one_line():
    request = {**T4_SHOT, "range": "close", "situation": {"movement": "flying", "spin": 1}}
    status, _, err = in_process(request, "--system", "t4")
    assert status == 2
    assert err.count("\n") == 1
    for field in ("range:", "situation.movement:", "situation.spin: unknown key"):
        assert field in err


def test_a_2d6_band_the_weapon_cannot_reach_is_refused():
    status, _, err = in_process({**TWOD6_SHOT, "range": "distant"}, "--system", "2d6")
    assert status == 2
    assert (
        "range: the Automatic pistol (TL 6) (Pistol) attacks at personal, close, short, "
        "medium, long; not at distant" in err
    )


def test_a_file_that_is_not_json_exits_2():
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write("{not json")
    try:
        result = command("--system", "t4", f.name)
    finally:
        os.unlink(f.name)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1


# -- any input at all --------------------------------------------------------------------------


T4_FULL = {
    **T4_SHOT,
    "situation": {
        "movement": "stationary",
        "cover": "partial",
        "cover_regions": ["leg"],
        "accessories": ["Electronic sights"],
        "target_weapon": "Cutlass",
        "dm": 1,
    },
    "target_condition": {
        "damage": {"STR": 1},
        "stun": {"END": 1},
        "bleeding": [{"location": "Neck", "effect": "Throat", "per_round": 1}],
        "injuries": [{"location": "Knee", "effect": "Fall"}],
    },
    "allocation": ["STR", "END"],
}
TWOD6_FULL = {
    **TWOD6_SHOT,
    "situation": {
        "fire": "single",
        "cover": "1/2",
        "target_reaction": "dodge",
        "target_weapon": "Cutlass",
        "characteristic": "DEX",
        "overflow_to": "STR",
    },
    "target_condition": {"system": "2d6", "damage": {"END": 2}},
}


@st.composite
def spoiled_requests(draw):
    system, request = draw(st.sampled_from([("t4", T4_FULL), ("2d6", TWOD6_FULL)]))
    request = copy.deepcopy(request)
    for _ in range(draw(st.integers(1, 3))):
        paths = tuple(_paths(request)) if isinstance(request, (dict, list)) else ((),)
        request = _put(request, draw(st.sampled_from(paths)), draw(json_values))
    return system, request


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spoiled_requests())
def test_any_json_anywhere_is_resolved_or_refused_on_one_line_without_a_traceback(case):
    system, request = case
    status, out, err = in_process(request, "--system", system)
    if status == 0:
        assert json.loads(out)["system"] == system
    else:
        assert (status, out) == (2, "")
        assert err.count("\n") == 1
        assert "Traceback" not in err
