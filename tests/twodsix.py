"""Checks a Foundry actor against the Twodsix data model kept in tests/fixtures/twodsix/.

The schema there is written down from Twodsix's own source (its version, commit and the files
each part comes from are in the file). :func:`twodsix_problems` lists every way an actor departs
from it: a field missing, a field Twodsix does not have (Foundry drops it without a word), a
wrong type, and the links Twodsix follows at the table: a characteristic found by its short label,
a skill's characteristic, each weapon's skill and the actor's Untrained skill by item ``_id``, and
a damage formula a weapon rolls.
"""

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

SCHEMA_PATH = Path(__file__).parent / "fixtures" / "twodsix" / "schema-7.5.2.json"
ACTOR_KEYS = {"name", "type", "img", "system", "items", "effects", "prototypeToken", "flags"}
ITEM_KEYS = {"_id", "name", "type", "system", "effects", "flags"}

# What Foundry's Roll parses for a weapon's damage: dice (2d6, 1D6) and whole numbers joined by
# + - * /, in brackets or not.
_TERM = r"\(*\s*(?:\d*[dD]\d+|\d+)\s*\)*"
ROLL_FORMULA = re.compile(rf"^\s*{_TERM}(?:[-+*/]\s*{_TERM})*$")

PYTHON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "html": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "object": (dict,),
}


@cache
def schema() -> dict[str, Any]:
    return json.loads(SCHEMA_PATH.read_text())


def _resolve(field: Any) -> Any:
    if isinstance(field, str) and field.startswith("#"):
        return schema()["definitions"][field[1:]]
    return field


def field_problems(value: Any, field: Any, path: str) -> list[str]:
    """Where ``value`` departs from a field of the schema."""
    field = _resolve(field)
    if isinstance(field, dict) and "object" in field:
        fields = field["object"]
        if not isinstance(value, dict):
            return [f"{path}: an object expected, got {value!r}"]
        problems = [f"{path}.{key}: missing" for key in fields if key not in value]
        problems += [f"{path}.{key}: not a Twodsix field" for key in value if key not in fields]
        for key in fields.keys() & value.keys():
            problems += field_problems(value[key], fields[key], f"{path}.{key}")
        return problems
    if isinstance(field, dict) and "array" in field:
        if not isinstance(value, list):
            return [f"{path}: a list expected, got {value!r}"]
        return [
            p
            for i, v in enumerate(value)
            for p in field_problems(v, field["array"], f"{path}[{i}]")
        ]
    rule = {"type": field} if isinstance(field, str) else field
    if value is None:
        return [] if rule.get("nullable") else [f"{path}: {rule['type']} expected, got None"]
    # A bool is an int to Python, never a number to Foundry's NumberField.
    wrong_bool = isinstance(value, bool) and rule["type"] != "boolean"
    if wrong_bool or not isinstance(value, PYTHON_TYPES[rule["type"]]):
        return [f"{path}: {rule['type']} expected, got {value!r}"]
    if rule["type"] == "integer" and "min" in rule and value < rule["min"]:
        return [f"{path}: at least {rule['min']}, got {value!r}"]
    if rule.get("blank") is False and value == "":
        return [f"{path}: may not be blank"]
    return []


def item_schema(item_type: str) -> dict[str, Any] | None:
    parts = schema()["itemTypes"].get(item_type)
    if parts is None:
        return None
    fields: dict[str, Any] = {}
    for part in parts:
        fields |= schema()["definitions"][part]
    return {"object": fields}


def _link_problems(actor: dict[str, Any]) -> list[str]:
    """The links Twodsix follows: short labels, item ids, the Untrained skill, damage."""
    rules = schema()
    problems = []
    short_labels = rules["characteristicShortLabels"]
    for key, characteristic in actor["system"]["characteristics"].items():
        if characteristic.get("key") != key:
            problems.append(f"system.characteristics.{key}.key: {characteristic.get('key')!r}")
        if characteristic.get("shortLabel") != short_labels.get(key):
            problems.append(
                f"system.characteristics.{key}.shortLabel: Twodsix finds it as "
                f"{short_labels.get(key)!r}, got {characteristic.get('shortLabel')!r}"
            )
    items = actor["items"]
    ids = [item.get("_id") for item in items]
    pattern = re.compile(rules["documentId"])
    problems += [
        f"items[{i}]._id: {item_id!r} is not a Foundry id"
        for i, item_id in enumerate(ids)
        if not isinstance(item_id, str) or not pattern.match(item_id)
    ]
    problems += [f"_id {item_id!r} used twice" for item_id in set(ids) if ids.count(item_id) > 1]
    skills = {item.get("_id"): item for item in items if item.get("type") == "skills"}
    allowed = {*short_labels.values(), rules["skillCharacteristicNone"]}
    for item in skills.values():
        if item["system"].get("characteristic") not in allowed:
            problems.append(
                f"skill {item['name']!r}: characteristic {item['system'].get('characteristic')!r} "
                "is no Twodsix short label"
            )
    scope, flag = rules["untrainedSkillFlag"]
    untrained = skills.get(actor["system"].get("untrainedSkill"))
    if untrained is None:
        problems.append("system.untrainedSkill: names no skill item of the actor")
    elif not untrained.get("flags", {}).get(scope, {}).get(flag):
        problems.append(f"system.untrainedSkill: {untrained['name']!r} lacks flags.{scope}.{flag}")
    for item in items:
        if item.get("type") != "weapon":
            continue
        system = item["system"]
        if system.get("skill") not in skills:
            problems.append(
                f"weapon {item['name']!r}: skill {system.get('skill')!r} is no skill _id"
            )
        damage = system.get("damage")
        if (
            not isinstance(damage, str)
            or damage.strip() in ("", "0")
            or not ROLL_FORMULA.match(damage)
        ):
            problems.append(f"weapon {item['name']!r}: damage {damage!r} is no formula to roll")
    return problems


def twodsix_problems(actor: dict[str, Any]) -> list[str]:
    """Every way ``actor`` departs from Twodsix's data model and links."""
    problems = [f"{key}: missing" for key in ACTOR_KEYS - actor.keys()]
    expected_type = schema()["actor"]["type"]
    if actor.get("type") != expected_type:
        problems.append(f"type: {expected_type} expected, got {actor.get('type')!r}")
    problems += field_problems(actor["system"], {"object": schema()["actor"]["fields"]}, "system")
    for index, item in enumerate(actor["items"]):
        path = f"items[{index}] {item.get('name')!r}"
        problems += [f"{path}.{key}: missing" for key in ITEM_KEYS - item.keys()]
        # Foundry stores an item with a blank name and lists it as an empty row.
        if not isinstance(item.get("name"), str) or not item["name"].strip():
            problems.append(f"{path}.name: may not be blank")
        fields = item_schema(item.get("type"))
        if fields is None:
            problems.append(f"{path}: item type {item.get('type')!r} is not one exported")
            continue
        problems += field_problems(item["system"], fields, f"{path}.system")
        if item["system"]["type"] != item["type"]:
            problems.append(f"{path}.system.type: {item['system']['type']!r}")
    if not problems:
        problems += _link_problems(actor)
    return problems
