"""The worked examples of ../shared/spec/examples: the engine must give exactly their reports."""

import json
from pathlib import Path

import pytest

from rules import check_document
from tests.ci import running_in_ci

EXAMPLES = Path(__file__).resolve().parents[2].parent / "shared" / "spec" / "examples"
DOCUMENTS = sorted(p for p in EXAMPLES.glob("*.json") if not p.name.endswith(".expected.json"))

if not DOCUMENTS and not running_in_ci():
    pytest.skip(
        f"the shared examples are not beside this checkout ({EXAMPLES})", allow_module_level=True
    )


def test_the_shared_examples_are_found():
    assert len(DOCUMENTS) >= 4, f"expected the worked examples in {EXAMPLES}"


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
