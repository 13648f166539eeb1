"""The worked examples of tests/fixtures/examples: the engine must give exactly their reports.

They live in the repository, so a fresh clone runs them; a missing folder fails, never skips.
"""

import json
from pathlib import Path

import pytest

from rules import check_document

EXAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "examples"
DOCUMENTS = sorted(p for p in EXAMPLES.glob("*.json") if not p.name.endswith(".expected.json"))


def test_the_worked_examples_are_found():
    assert len(DOCUMENTS) >= 4, f"expected the worked examples in {EXAMPLES}"


def test_every_example_has_its_expected_report():
    missing = [p.name for p in DOCUMENTS if not p.with_name(f"{p.stem}.expected.json").is_file()]
    assert not missing, f"no expected report for {', '.join(missing)}"


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.stem)
def test_each_example_gives_exactly_its_expected_report(path: Path):
    expected = json.loads(path.with_name(f"{path.stem}.expected.json").read_text())
    report = check_document(json.loads(path.read_text())).as_dict()

    for key in ("upp", "derived", "points", "age_minimum", "valid"):
        assert report[key] == expected[key], key
    for section in ("skills", "mustering_out", "equipment"):
        for key, value in expected.get(section, {}).items():
            assert report[section][key] == value, f"{section}.{key}"
    problems = report["problems"]
    assert sorted({p["code"] for p in problems if p["severity"] == "error"}) == expected["errors"]
    assert (
        sorted({p["code"] for p in problems if p["severity"] == "warning"}) == expected["warnings"]
    )
