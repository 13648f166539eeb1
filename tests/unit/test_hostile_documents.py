"""Hostile documents: any JSON value in any field is either read or refused as malformed.

A document comes from anyone (an import, the command line, the API), so whatever JSON it
holds, reading it raises nothing but MalformedDocument, and a document that is read gives a
report that can be written out as JSON, text and a stat block.
"""

import copy
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import MalformedDocument, check, decode_json, normalise_document, parse_document
from rules.cli import text_summary
from rules.statblock import stat_block
from tests.ci import examples

from .builders import document

# A document with every field and every kind of entry, for the fuzz to spoil one place at a time.
FULL = document(
    kind="pc",
    budget=100,
    species="vargr",
    homeworld="Regina",
    native_language="Gvegh",
    native_culture="Vargr society",
    service="navy",
    terms=2,
    rank=1,
    age=30,
    skills=[
        {"skill": "Pilot", "level": 2, "specialties": ["small craft"]},
        {"skill": "Blade Combat", "cascade": "swords", "level": 1},
    ],
    traits=[
        {"type": "PP", "level": "C", "frequency": "R", "name": "Keen"},
        {"type": "PF", "name": "Slow", "derived": {"MOV": -1}},
    ],
    package_flaws_bought_off=["Racial pride"],
    psionics={"strength": 2, "talents": {"Telepathy": 1}},
    mustering_out={"rolls": [3, 4]},
    equipment=[{"item": "Dagger", "quantity": 1}],
    house_rules={"one_trait_per_term": True},
    notes="notes",
)


def _paths(value, prefix=()):
    """Every place in ``value`` a value can be put: each key and index, and the whole."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*prefix, index))


PATHS = tuple(_paths(FULL))

odd_numbers = st.sampled_from(
    [2**53 - 1, 2**53, -(2**53), 10**400, -(10**400), 10**4299, 1e300, float("nan"), float("inf")]
)
odd_text = st.sampled_from(["²", "①", "٣", "\ud800", "\x00", "", " ", "7", "F", "I", "0", "-3"])
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | odd_numbers
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
    | odd_text
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.text(max_size=6) | odd_text, children, max_size=3)
    ),
    max_leaves=8,
)


def _put(doc, path, value):
    if not path:
        return value
    target = doc
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return doc


@st.composite
def spoiled_documents(draw):
    doc = copy.deepcopy(FULL)
    for _ in range(draw(st.integers(1, 3))):
        paths = tuple(_paths(doc)) if isinstance(doc, (dict, list)) else ((),)
        doc = _put(doc, draw(st.sampled_from(paths)), draw(json_values))
    return doc


def _report_everything(doc) -> None:
    """Read ``doc`` as every entry point does; a document that is read must report fully."""
    try:
        character = parse_document(doc)
    except MalformedDocument as error:
        message = str(error)
    else:
        message = None
    if message is not None:
        assert message.isprintable(), message
        return
    report = check(character)
    json.dumps(report.as_dict(), ensure_ascii=False).encode("utf-8")
    text_summary(report).encode("utf-8")
    stat_block(character, report).encode("utf-8")
    assert normalise_document(normalise_document(doc)) == normalise_document(doc)


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spoiled_documents())
def test_any_json_value_anywhere_is_read_or_refused_as_malformed(doc):
    _report_everything(doc)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spoiled_documents())
def test_any_json_text_is_decoded_and_read_or_refused_as_malformed(doc):
    try:
        text = json.dumps(doc)
    except ValueError:  # an integer Python will not write out: the decoder has its own test
        return
    try:
        decoded = decode_json(text.encode("utf-8", "surrogatepass"))
    except MalformedDocument:
        return
    _report_everything(decoded)


@settings(max_examples=examples(200), deadline=None)
@given(st.sampled_from(PATHS[1:]), json_values)
def test_each_field_on_its_own_takes_any_json_value(path, value):
    _report_everything(_put(copy.deepcopy(FULL), path, value))
