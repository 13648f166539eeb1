"""The builder page reads typed names in its script, without asking the server, as the server
reads them: both are held to the examples of tests/fixtures/typed_names.json (node --test reads
them for the script, tests/js/names.test.js), which `python -m tests.js_fixtures` writes."""

import json

import rules
from tests import js_fixtures


def _stored(path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_catalog_the_script_is_tested_with_is_the_one_the_page_carries():
    assert _stored(js_fixtures.CATALOG) == json.loads(
        json.dumps(rules.catalog().typed_names_index())
    ), "tests/fixtures/names_catalog.json is out of date: run python -m tests.js_fixtures"


def test_the_server_reads_every_typed_example_as_the_script_is_held_to():
    assert _stored(js_fixtures.TYPED_NAMES) == js_fixtures.typed_names(), (
        "tests/fixtures/typed_names.json is out of date: run python -m tests.js_fixtures"
    )
