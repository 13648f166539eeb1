"""``python -m rules attack``: the hand-worked cases of tests/fixtures/combat, the errors that
name their field, and any JSON at all read or refused without a traceback."""

import copy
import io
import json
from pathlib import Path
from random import Random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import CombatRefused, InputRefused, cli, resolve_attack
from rules.attack_input import read_attack
from rules.combat import attack_result_as_dict, throw_dice
from tests.ci import examples

from .builders import document
from .command import Finished, run_rules
from .test_hostile_documents import json_values

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "tests" / "fixtures" / "combat"
CASE_NAMES = sorted(
    p.name[: -len(".json")] for p in CASES.glob("*.json") if ".expected" not in p.name
)
COMPARED = ("tn", "dms", "total", "hit", "effect", "fumble", "wound", "chance")


def attack(*args: str, stdin: str = "") -> Finished:
    return run_rules("attack", *args, stdin=stdin)


def test_there_are_hand_worked_cases():
    assert len(CASE_NAMES) >= 6


@pytest.mark.parametrize("name", CASE_NAMES)
def test_each_hand_worked_case_gives_the_result_worked_out_from_the_chapter(name):
    expected = json.loads((CASES / f"{name}.expected.json").read_text())
    plan, dice = read_attack(json.loads((CASES / f"{name}.json").read_text()))
    got = attack_result_as_dict(resolve_attack(plan, dice))
    assert {key: got[key] for key in COMPARED} == {key: expected[key] for key in COMPARED}
    if expected["damage"] is None:
        assert got["damage"] is None
    else:
        assert {k: got["damage"][k] for k in expected["damage"]} == expected["damage"]


def test_the_command_prints_the_json_result_and_exits_zero():
    result = attack(str(CASES / "rifle-aimed-at-long-range.json"))
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert (out["tn"], out["total"], out["hit"], out["effect"]) == (4, 8, True, 4)
    assert out["damage"]["lif"] == 20
    assert out["condition_after"]["lethal"] == 20


def test_the_command_reads_standard_input_and_throws_dice_when_none_are_given():
    case = json.loads((CASES / "punch-through-a-jack.json").read_text())
    del case["dice"]
    result = attack("-", stdin=json.dumps(case))
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert len(out["dice"]) == 1
    assert 1 <= out["dice"][0] <= 6
    assert out["hit"] == (out["dice"][0] >= 3)


def _case(**changes):
    case = json.loads((CASES / "punch-through-a-jack.json").read_text())
    case.update(changes)
    return json.dumps(case)


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"weapon": "Phaser"}, "weapon"),
        ({"weapon": "Laser rifle"}, "tl"),  # made at TL 9 and TL 13
        ({"range": "over there"}, "range"),
        ({"attacker": document(attributes={"DEX": "Q7"})}, "attacker.attributes.DEX"),
        ({"target": {"format": "ffa-character/1"}}, "target.name"),
        ({"dice": [9]}, "dice"),
        ({"dice": "5"}, "dice"),
        ({"situation": {"cover": "wall"}}, "situation.cover"),
        ({"situation": {"aim_turns": "two"}}, "situation.aim_turns"),
        ({"situation": {"hiding": True}}, "situation.hiding"),
        ({"target": {"animal": {"type": "dragon", "weight_kg": 90}}}, "target.animal.type"),
        ({"surprise": True}, "surprise"),
        # Too large for a float: refused by its size, not by a converter's overflow.
        (
            {"target": {"animal": {"type": "hunter", "weight_kg": 10**400}}},
            "target.animal.weight_kg",
        ),
    ],
)
def test_malformed_input_exits_two_with_one_line_naming_the_field(changes, field):
    result = attack("-", stdin=_case(**changes))
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"<stdin>: {field}: "), result.stderr
    assert "Traceback" not in result.stderr


def test_every_missing_wound_field_is_named_in_one_run_on_one_line():
    wounds = [{"severity": "light", "damage": 4, "lethal": 4}, {"severity": "serious"}]
    condition = {"maximum": 23, "wnd": 6, "stun": 0, "wounds": wounds}
    result = attack("-", stdin=_case(target_condition=condition))
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        "<stdin>: target_condition.wounds[1].damage: must be a whole number, not None"
        " | target_condition.wounds[1].lethal: must be a whole number, not None"
        " | target_condition.lethal: must be a whole number, not None"
    ]


def test_faults_in_every_part_of_the_input_are_named_together_in_the_input_order():
    case = json.loads(_case(weapon=7, surprise=True, situation={"cover": None, "hiding": True}))
    del case["range"]
    case["situation"]["aim_turns"] = "two"
    case["target"] = {"animal": {"type": "hunter", "speed": "fast"}}
    with pytest.raises(InputRefused) as refused:
        read_attack(case)
    assert [problem.field for problem in refused.value.problems] == [
        "surprise",
        "range",
        "target.animal.speed",
        "target.animal.weight_kg",
        "weapon",
        "situation.hiding",
        "situation.aim_turns",
    ]


def test_an_attack_the_rules_refuse_is_named_once_the_input_reads():
    result = attack("-", stdin=_case(range="distant"))
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "<stdin>: range: the Hands reaches contact; a target at distant is out of reach"
    ]


def test_text_that_is_not_json_and_a_missing_file_exit_two():
    assert attack("-", stdin="{nope").returncode == 2
    missing = attack("/nonexistent/attack.json")
    assert missing.returncode == 2
    assert missing.stderr.startswith("/nonexistent/attack.json: ")


# -- hostile input -----------------------------------------------------------------------------

FULL = json.loads((CASES / "rifle-aimed-at-long-range.json").read_text())
FULL["target_condition"] = {"maximum": 23, "wnd": 6, "stun": 2, "lethal": 0, "wounds": []}
FULL_ANIMAL = {**FULL, "target": {"animal": {"type": "hunter", "weight_kg": 40, "speed": 2}}}


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*prefix, index))


def _put(doc, path, value):
    if not path:
        return value
    target = doc
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return doc


@st.composite
def spoiled_attacks(draw):
    request = copy.deepcopy(draw(st.sampled_from([FULL, FULL_ANIMAL])))
    for _ in range(draw(st.integers(1, 3))):
        paths = tuple(_paths(request)) if isinstance(request, (dict, list)) else ((),)
        request = _put(request, draw(st.sampled_from(paths)), draw(json_values))
    return request


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spoiled_attacks())
def test_any_json_value_anywhere_is_resolved_or_refused_by_field(request):
    try:
        plan, dice = read_attack(request)
        result = resolve_attack(plan, dice if dice is not None else throw_dice(plan, Random(0)))
    except CombatRefused as error:
        message = str(error)
    else:
        message = None
        json.dumps(attack_result_as_dict(result))
    if message is not None:
        assert message.isprintable(), message


# -- the whole command, in process: no input gives a traceback ----------------------------------

# Every figure the input may hold, and the optional ones it may add: an animal's body, a
# character's skills (with a specialty), armor worn, a thrown spear.
RICH = json.loads(json.dumps(FULL))
RICH["attacker"]["skills"].append(
    {"skill": "Rifleman", "level": 3, "specialties": ["assault rifle"]}
)
RICH["attacker"]["skills"] = RICH["attacker"]["skills"][1:]
RICH["attacker"]["equipment"].append({"item": "Assault rifle", "quantity": 1})
RICH["target"]["equipment"] = [
    {"item": "Combat armor", "tl": 11, "quantity": 1, "worn": True},
    {"item": "Reflec", "quantity": 1, "worn": True},
    {"item": "Helmet", "quantity": 1},
]
RICH["weapon"] = "Assault rifle"
RICH["situation"] = {"aim_turns": 1, "autofire_rounds": 4, "dm": 0, "def_dm": 0}
RICH_ANIMAL = {
    **RICH,
    "target": {
        "animal": {
            "type": "hunter",
            "weight_kg": 40,
            "speed": 1,
            "weapons": ["Teeth"],
            "lif": 20,
            "wnd": 4,
            "tgh": 2,
            "damage": 5,
            "av": 3,
            "armor_modifier": 1,
        }
    },
}
THROWN = {**FULL, "weapon": "Spear (thrown)", "range": "medium", "dice": [4, 6]}
FIGURES = st.integers(-30, 30) | st.sampled_from([-(10**6), -21, -1, 0, 1, 20, 21, 10**6, 2**63])


def _figures(value, prefix=()):
    """The paths of every whole number in ``value``."""
    for path in _paths(value, prefix):
        found = value
        for step in path:
            found = found[step]
        if isinstance(found, int) and not isinstance(found, bool):
            yield path


@st.composite
def attacks_with_any_figures(draw):
    request = copy.deepcopy(draw(st.sampled_from([FULL, FULL_ANIMAL, RICH, RICH_ANIMAL, THROWN])))
    paths = list(_figures(request))
    for _ in range(draw(st.integers(1, 4))):
        request = _put(request, draw(st.sampled_from(paths)), draw(FIGURES))
    if draw(st.booleans()):
        request = _put(request, draw(st.sampled_from(tuple(_paths(request)))), draw(json_values))
    return request


def _run(attack_input, capsys, monkeypatch) -> tuple[int, str, str]:
    sent = json.dumps(attack_input).encode()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(sent)))
    status = cli.main(["attack", "-"])
    out, err = capsys.readouterr()
    return status, out, err


@settings(
    max_examples=600,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(attacks_with_any_figures())
def test_the_command_answers_any_figure_anywhere_with_a_result_or_one_line(
    capsys, monkeypatch, attack_input
):
    status, out, err = _run(attack_input, capsys, monkeypatch)
    if status == 0:
        assert err == ""
        json.loads(out)
    else:
        assert status == 2
        assert out == ""
        assert err.count("\n") == 1, err
        assert err.startswith("<stdin>: ")


@pytest.mark.parametrize(
    ("change", "line"),
    [
        (
            ("attacker", "skills", 0, "level"),
            25,
        ),
        (("attacker", "skills", 0, "level"), -2),
    ],
)
def test_a_skill_level_above_20_or_below_0_is_one_line_naming_the_field(
    change, line, capsys, monkeypatch
):
    request = _put(copy.deepcopy(FULL), change, line)
    status, out, err = _run(request, capsys, monkeypatch)
    assert (status, out) == (2, "")
    assert err == (
        "<stdin>: attacker.skills[0].level: expected a whole number from 0 to 20, got the "
        f"number {line}\n"
    )


@pytest.mark.parametrize(("key", "value"), [("lif", 0), ("lif", -5), ("wnd", 0), ("tgh", -1)])
def test_an_animal_without_a_lif_track_is_one_line_naming_the_field(
    key, value, capsys, monkeypatch
):
    request = copy.deepcopy(FULL_ANIMAL)
    request["target"]["animal"][key] = value
    status, out, err = _run(request, capsys, monkeypatch)
    assert (status, out) == (2, "")
    assert err.startswith(f"<stdin>: target.animal.{key}: an animal's ")
    assert err.count("\n") == 1
