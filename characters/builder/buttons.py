"""What the builder's buttons do to the form when the page has no script: the server applies
the button pressed (add or remove a row, step an attribute, Enter) and draws the page again,
unsaved until Save. With the script the page does the same itself, at once.

Adding a skill by name reads it as :func:`resolve_skill` does; the page's script reads names
the same way (static/js/builder/names.js), and both are held to one table of examples
(tests/fixtures/typed_names.json).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from itertools import count
from typing import TypeVar

from characters.builder.form_document import BuilderForm, ItemRow, SkillRow, TraitRow
from characters.core.forms import whole_number
from rules import NotationError, catalog, parse_skill, parse_trait
from rules.model import control_by_default


def apply_action(form: BuilderForm, action: str) -> BuilderForm:
    """Apply a button's action, such as ``add_skill``, ``add_skill:Pilot``, ``remove_trait:<key>``
    or ``step:STR:-1``, to the form.

    ``enter`` is the form's default button, what Enter in a text field presses: it adds what
    the add-a-skill or add-from-notation box holds, and otherwise changes nothing."""
    verb, _, argument = action.partition(":")
    if verb == "enter":
        if form.new_skill:
            verb = "add_skill"
        elif form.trait_notation:
            verb = "add_trait_notation"
    handler = _ACTIONS.get(verb)
    if handler is not None:
        handler(form, argument)
    return form


def _add_skill(form: BuilderForm, argument: str) -> None:
    wanted = argument or form.new_skill
    try:
        row = resolve_skill(wanted, key=new_key(form.skills))
    except ValueError:
        form.errors["new-skill"], form.skill_suggestions = why_not_added("new-skill", wanted)
        return
    form.skills.append(row)
    form.new_skill = ""


def why_not_added(box: str, text: str) -> tuple[str, tuple[str, ...]]:
    """What an add box (``new-skill`` or ``trait-notation``) says of what it holds: why it adds
    nothing, and the names it may stand for; nothing when it adds a row. The page's script adds
    what it can read itself and asks here about the rest."""
    if box == "trait-notation":
        try:
            parse_trait(text)
        except NotationError as error:
            return (str(error) if text else ""), ()
        return "", ()
    if not text.strip():
        # A row without a name would have no box to type one into, and is never stored.
        return "Type a skill's name or pick one from the list first.", ()
    try:
        resolve_skill(text)
    except UnknownSkill as unknown:
        return str(unknown), unknown.suggestions
    except ValueError as unfit:
        return str(unfit), ()
    return "", ()


class UnknownSkill(ValueError):
    """A typed skill the catalog lacks, with the names it may stand for."""

    def __init__(self, text: str, skill: str) -> None:
        super().__init__(f"{text!r} is not a skill in the catalog.")
        self.suggestions = catalog().skills_like(skill)


# The level of a skill in the rulebook's notation, with the specialties after it if any.
_SKILL_LEVEL = re.compile(r"-\s*\d+\s*(?:\([^()]*\))?$")


def resolve_skill(text: str, *, key: str = "") -> SkillRow:
    """The row a typed skill stands for: a name from the catalog, or one written in the
    rulebook's notation as the sheet shows it ("Language (Vilani)", "Blade Combat (swords)-1",
    "Pilot-2 (small craft)"). Raises ValueError saying what the catalog does not have."""
    cat = catalog()
    definition = cat.find_skill(text)
    if definition is not None:
        return SkillRow(key=key, skill=definition.name)
    try:
        # Without a level ("Language (Vilani)"), the level a new row starts at.
        entry = parse_skill(text if _SKILL_LEVEL.search(text) else f"{text}-1")
    except NotationError:
        raise UnknownSkill(text, text) from None
    definition = cat.find_skill(entry.skill)
    if definition is None:
        raise UnknownSkill(text, entry.skill)
    cascade = entry.cascade or ""
    if cascade and not definition.open:
        known = definition.find_cascade(cascade) if definition.is_cascade else None
        if known is None and definition.is_spec:
            example = f"{definition.name}-2 ({definition.specialties[0].name})"
            raise ValueError(
                f"{definition.name} has no cascade; its specialties follow the level: {example}."
            )
        if known is None:
            raise ValueError(f"{definition.name} has no cascade {cascade!r}.")
        cascade = known
    specialties = []
    for specialty in entry.specialties:
        known = definition.find_specialty(specialty)
        if known is None:
            raise ValueError(f"{definition.name} has no specialty {specialty!r}.")
        specialties.append(known)
    return SkillRow(
        key=key,
        skill=definition.name,
        cascade=cascade,
        level=str(entry.level),
        specialties=specialties,
    )


def _add_trait(form: BuilderForm, argument: str) -> None:
    trait_type, level, frequency = ([*argument.split(":"), "", "", ""])[:3]
    form.traits.append(
        TraitRow(
            key=new_key(form.traits),
            type=trait_type or "PP",
            level=level,
            frequency=frequency,
            control=control_by_default(trait_type),
        )
    )


def _add_derived_trait(form: BuilderForm, argument: str) -> None:
    form.traits.append(
        TraitRow(
            key=new_key(form.traits),
            type=argument or "PP",
            derived={"DEF": "1" if argument != "PF" else "-1"},
        )
    )


def _add_example_trait(form: BuilderForm, argument: str) -> None:
    example = next((t for t in catalog().example_traits if t["name"] == argument), None)
    if example is not None:
        form.traits.append(
            TraitRow(
                key=new_key(form.traits),
                type=example["type"],
                name=example["name"],
                level=example["level"],
                frequency=example["frequency"],
            )
        )


def _add_trait_notation(form: BuilderForm, argument: str) -> None:
    notation = argument or form.trait_notation
    if not notation:
        return
    try:
        trait = parse_trait(notation)
    except NotationError:
        form.errors["trait-notation"] = why_not_added("trait-notation", notation)[0]
        return
    form.traits.append(
        TraitRow(
            key=new_key(form.traits),
            type=trait.type,
            name=trait.name,
            level=trait.level or "",
            frequency=trait.frequency or "",
            control=trait.control,
            derived={code: str(amount) for code, amount in trait.derived},
        )
    )
    form.trait_notation = ""


def _add_item(form: BuilderForm, argument: str) -> None:
    form.items.append(ItemRow(key=new_key(form.items)))


# What each button's verb does to the form; the argument follows the verb after a colon.
_ACTIONS: dict[str, Callable[[BuilderForm, str], None]] = {
    "add_skill": _add_skill,
    "step": lambda form, argument: _step_attribute(form, *argument.partition(":")[::2]),
    "remove_skill": lambda form, argument: _remove(form.skills, argument),
    "add_trait": _add_trait,
    "add_derived_trait": _add_derived_trait,
    "add_example_trait": _add_example_trait,
    "add_trait_notation": _add_trait_notation,
    "remove_trait": lambda form, argument: _remove(form.traits, argument),
    "add_item": _add_item,
    "remove_item": lambda form, argument: _remove(form.items, argument),
}


def _step_attribute(form: BuilderForm, code: str, delta: str) -> None:
    """One level up or down from what the field holds (a number or a hex digit), as the page's
    steppers do: within the purchase range a step stays inside it, from outside it only goes
    back towards it, and a field that holds no level starts again at the average."""
    cat = catalog()
    raw = form.attributes.get(code)
    if raw is None or code not in cat.attribute_order or delta not in ("1", "-1"):
        return
    level = cat.from_hex(raw) if len(raw) == 1 else whole_number(raw)
    if level is None:
        form.attributes[code] = str(cat.limits.attribute_average)
        return
    kind = form.values.get("kind") or "pc"
    if kind not in ("pc", "npc"):
        kind = "pc"
    highest = cat.purchase_maxima(kind)[cat.attribute_order.index(code)]
    step = int(delta)
    if (step > 0 and level >= highest) or (step < 0 and level <= cat.limits.purchase_min):
        return
    form.attributes[code] = str(level + step)


Row = TypeVar("Row", SkillRow, TraitRow, ItemRow)


def _remove(rows: list[Row], key: str) -> None:
    rows[:] = [row for row in rows if row.key != key]


def new_key(rows: Sequence[SkillRow | TraitRow | ItemRow]) -> str:
    """A key no row of the section has: the page's own keys, and the positions the server gives
    the rows of a stored document, are other keys."""
    taken = {row.key for row in rows}
    return next(key for key in map(str, count(len(rows))) if key not in taken)
