"""Equipment: the items' lines and cost, the armor worn, the load carried and the gravity it
is carried in."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from .. import wording
from ..catalog import Catalog, EquipmentItem, catalog
from ..model import EquipmentEntry
from ..report import AttributeValue, Carrying, Derived, Equipment, EquipmentLine
from .context import _CACHE_SIZE, _Context


def _find_item(ctx: _Context, entry: EquipmentEntry, index: int) -> EquipmentItem | None:
    """The catalog item an entry names, or None with the problem recorded."""
    candidates = ctx.cat.equipment_named(entry.item)
    natural = ctx.cat.natural_weapon_named(entry.item) if not candidates else None
    if natural is not None:
        # The melee table lists it, so "not in the tables" would be untrue.
        ctx.problems.error(
            "unknown_equipment",
            f"equipment[{index}].item",
            f"{natural.name} is a natural weapon, part of a body, and is not bought.",
        )
        return None
    if not candidates:
        ctx.problems.error(
            "unknown_equipment",
            f"equipment[{index}].item",
            f"{entry.item!r} is not in the armor, melee weapon, ranged weapon, ammunition or "
            "accessory tables.",
        )
        return None
    if entry.tl is not None:
        for item in candidates:
            if item.tl == entry.tl:
                return item
        ctx.problems.error(
            "unknown_equipment",
            f"equipment[{index}].tl",
            f"{entry.item} is not in the catalog at TL {entry.tl}; it is at TL "
            f"{_tech_levels(candidates)}.",
        )
        return None
    if len(candidates) > 1:
        ctx.problems.error(
            "ambiguous_equipment",
            f"equipment[{index}].tl",
            f"{entry.item} is in the catalog at {len(candidates)} tech levels (TL "
            f"{_tech_levels(candidates)}); give the tech level.",
        )
        return None
    return candidates[0]


def _tech_levels(items: tuple[EquipmentItem, ...]) -> str:
    return ", ".join(str(item.tl) for item in items)


@lru_cache(maxsize=_CACHE_SIZE)
def _equipment_line(item: EquipmentItem, quantity: int, attack_dm: int) -> EquipmentLine:
    return EquipmentLine(
        item=item.name,
        tl=item.tl,
        table=item.table,
        quantity=quantity,
        cost=(item.cost or 0) * quantity,
        weight_kg=round(item.weight_kg * quantity, 3),
        attack_dm=attack_dm,
    )


def _unknown_line(entry: EquipmentEntry) -> EquipmentLine:
    return EquipmentLine(
        item=entry.item,
        tl=entry.tl,
        table=None,
        quantity=entry.quantity,
        cost=0,
        weight_kg=0.0,
        attack_dm=0,
    )


@dataclass(frozen=True, slots=True)
class WornArmor:
    """The armor a character wears: one body armor, reflec worn under it, a helmet (which FFA
    personal combat never counts: it has no hit locations)."""

    body: EquipmentItem | None = None
    under: EquipmentItem | None = None
    head: EquipmentItem | None = None

    @property
    def pieces(self) -> tuple[EquipmentItem, ...]:
        return tuple(item for item in (self.body, self.under, self.head) if item is not None)


def _best(items: Iterable[EquipmentItem]) -> EquipmentItem | None:
    """The best AV of ``items``, the first listed of equals; None for none."""
    best = None
    for item in items:
        if best is None or (item.av or 0) > (best.av or 0):
            best = item
    return best


def worn_armor(
    entries: Iterable[EquipmentEntry], items: Iterable[EquipmentItem | None]
) -> WornArmor:
    """The armor worn of the armor carried (``items``: the catalog's item of each entry, None
    where it has none). With no armor marked worn, the best body armor carried (the first
    listed of equals); else the armor marked: its body armor (the best, if several are marked,
    which the report refuses), reflec marked with another body armor under it, a helmet."""
    armor = [
        (entry, item)
        for entry, item in zip(entries, items, strict=True)
        if item is not None and item.is_worn_armor
    ]
    if not any(entry.worn for entry, _ in armor):
        return WornArmor(body=_best(item for _, item in armor if item.is_body_armor))
    marked = [item for entry, item in armor if entry.worn]
    outer = _best(item for item in marked if item.is_body_armor and not item.worn_under)
    under = _best(item for item in marked if item.is_body_armor and item.worn_under)
    return WornArmor(
        body=outer or under,
        under=under if outer is not None else None,
        head=_best(item for item in marked if item.is_head_armor),
    )


def _check_worn(
    ctx: _Context, entries: tuple[EquipmentEntry, ...], items: list[EquipmentItem | None]
) -> None:
    """Marks the armor worn cannot carry: a mark on what is not armor, two body armors worn
    at once (but for reflec under another), two helmets."""
    seen: dict[str, EquipmentItem] = {}  # the first marked worn of each place on the body
    for index, (entry, item) in enumerate(zip(entries, items, strict=True)):
        if not entry.worn or item is None or item.row.get("add_on"):
            continue  # an add-on is worn with the armor it fits
        path = f"equipment[{index}].worn"
        if not item.is_worn_armor:
            ctx.problems.error(
                "worn_not_armor", path, f"{item.label} is not armor: only armor is worn."
            )
            continue
        place = "head" if item.is_head_armor else "under" if item.worn_under else "body"
        other = seen.get(place)
        if other is None:
            seen[place] = item
        else:
            one = (
                "one helmet is worn at a time"
                if place == "head"
                else "one body armor is worn at a time (reflec may be worn under it)"
            )
            ctx.problems.error(
                "armor_worn_twice",
                path,
                f"{other.label} and {item.label} are both marked worn; {one}.",
            )


def _equipment(
    ctx: _Context, levels: Mapping[str, AttributeValue], credits: int, derived: Derived
) -> Equipment:
    entries = ctx.character.equipment
    items = [_find_item(ctx, entry, index) for index, entry in enumerate(entries)]
    _check_worn(ctx, entries, items)
    worn = worn_armor(entries, items)
    armor = worn.body
    strength = levels["STR"]
    # Battle dress gives its STR while worn: for the load and for wielding weapons.
    carrying_str = strength.level
    if armor is not None and armor.provides_str is not None:
        carrying_str = max(carrying_str, armor.provides_str)
    weapon_dv = ctx.cat.level_row(carrying_str)[1]
    lines = []
    cost = 0
    load = 0.0
    for index, (entry, item) in enumerate(zip(entries, items, strict=True)):
        if item is None:
            lines.append(_unknown_line(entry))
            continue
        attack_dm = _weapon_str_dm(ctx, item, index, weapon_dv)
        _check_armor_required(ctx, item, index, armor)
        line = _equipment_line(item, entry.quantity, attack_dm)
        lines.append(line)
        cost += line.cost
        load += line.weight_kg
    load = round(load, 3)  # line weights are rounded to grams; so is their sum
    remaining = credits - cost
    if remaining < 0:
        ctx.problems.error(
            "credits_overspent",
            "equipment",
            f"Equipment costs {wording.credits(cost)}, {wording.credits(-remaining)} more than the "
            f"{wording.credits(credits)} from mustering out.",
        )
    # The worn piece its wearer is weakest for (reflec under combat armor: combat armor's).
    heaviest = max(worn.pieces, key=lambda piece: piece.str_min or 0, default=None)
    short = _armor_str_short(ctx, heaviest, items.index(heaviest) if heaviest else 0, strength)
    carry = carrying(carrying_str, cat=ctx.cat)
    penalty = encumbrance_penalty(load, carry)
    if load > carry.unencumbered_kg:
        _warn_encumbered(ctx, load, carry, penalty)
    over = over_capacity(load, carry)
    if over:
        ctx.problems.error(
            "over_capacity",
            "equipment",
            f"The load of {_kg_text(load)} kg is above the carrying capacity of "
            f"{_kg_text(carry.capacity_kg)} kg (STR {carrying_str} squared).",
        )
    lim = ctx.limits
    return Equipment(
        cost=cost,
        credits_remaining=remaining,
        load_kg=load,
        unencumbered_kg=carry.unencumbered_kg,
        capacity_kg=carry.capacity_kg,
        over_capacity=over,
        encumbrance_penalty=penalty,
        encumbered_derived=encumbered(
            derived, penalty + short * lim.armor_derived_per_point, ctx.cat
        ),
        lines=tuple(lines),
        carrying_str=carrying_str,
        lift_kg=carry.lift_kg,
        drag_kg=carry.drag_kg,
        armor_worn=armor.label if armor is not None else None,
        armor_av=(armor.av or 0) if armor is not None else 0,
        armor_under=worn.under.label if worn.under is not None else None,
        armor_under_av=(worn.under.av or 0) if worn.under is not None else 0,
        helmet_worn=worn.head.label if worn.head is not None else None,
        armor_str_short=short,
        armor_body_penalty=short * lim.armor_body_levels_per_point,
    )


def _weapon_str_dm(ctx: _Context, item: EquipmentItem, index: int, str_dv: int) -> int:
    """A weapon's DM to its attacks for a STR DV below its STRmin (a warning says so)."""
    if not item.is_weapon or item.str_min is None or str_dv >= item.str_min:
        return 0
    short = item.str_min - str_dv
    dm = short * ctx.limits.weapon_dm_per_point
    ctx.problems.warning(
        "weapon_str_min",
        f"equipment[{index}]",
        f"{item.label} needs STR DV {item.str_min}; the STR DV that wields it is {str_dv}, "
        f"{short} short, so its attacks take {dm:+d}.",
    )
    return dm


def _check_armor_required(
    ctx: _Context, item: EquipmentItem, index: int, armor: EquipmentItem | None
) -> None:
    """A weapon made to be fired from battle dress (the PGMP-13 and FGMP-14, note "BD") is
    carried to no purpose without it: a warning, not an error, since carrying it breaks no
    rule."""
    required = item.requires_armor
    if required is None or (armor is not None and armor.name == required):
        return
    worn = armor.label if armor is not None else "no armor"
    ctx.problems.warning(
        "battle_dress_required",
        f"equipment[{index}]",
        f"{item.label} is fired only from {required.lower()}, and the character wears {worn}.",
    )


def _armor_str_short(
    ctx: _Context, armor: EquipmentItem | None, index: int, strength: AttributeValue
) -> int:
    """How far the wearer's own STR DV is below the worn armor's STRmin (a warning says what
    that costs)."""
    if armor is None or armor.str_min is None or strength.dv >= armor.str_min:
        return 0
    lim = ctx.limits
    short = armor.str_min - strength.dv
    body = short * lim.armor_body_levels_per_point
    derived = short * lim.armor_derived_per_point
    ctx.problems.warning(
        "armor_str_min",
        f"equipment[{index}]",
        f"{armor.label} needs STR DV {armor.str_min}; STR {strength.level} gives DV "
        f"{strength.dv}, {short} short, so while it is worn STR, DEX and END are {body} "
        f"{'level' if body == 1 else 'levels'} lower and DEF, INI and MOV {derived} lower.",
    )
    return short


def _warn_encumbered(ctx: _Context, load: float, carry: Carrying, penalty: int) -> None:
    step = carry.step_kg
    if penalty:
        effect = f"so DEF, INI and MOV are reduced by {penalty}"
    elif step > 0:
        effect = f"by less than {_kg_text(step)} kg, so DEF, INI and MOV are not reduced yet"
    else:
        effect = "so DEF, INI and MOV are not reduced"
    ctx.problems.warning(
        "encumbered",
        "equipment",
        f"The load of {_kg_text(load)} kg is above {_kg_text(carry.unencumbered_kg)} kg "
        f"({ctx.limits.unencumbered_str_multiple} x STR {carry.strength}), {effect}.",
    )


# The derived attributes a load over the unencumbered limit (or armor too heavy) lowers.
ENCUMBERED = ("DEF", "INI", "MOV")


def encumbered(derived: Derived, penalty: int, cat: Catalog) -> Derived:
    """``derived`` with ``penalty`` off DEF, INI and MOV, down to their floors."""
    if not penalty:
        return derived
    floors = cat.derived_floors
    return derived._replace(
        **{code: max(getattr(derived, code) - penalty, floors[code]) for code in ENCUMBERED}
    )


def carrying(strength: int, gravity: float = 1.0, *, cat: Catalog | None = None) -> Carrying:
    """What STR ``strength`` carries at ``gravity`` (in g).

    At 1 g: STR x 2 kg unencumbered, a step of STR kg per point of encumbrance, STR squared kg
    at most, twice that lifted and twice the lift dragged. Elsewhere STR is divided by the
    gravity for all of them, so each figure is scaled by 1 / gravity, but never past the
    rulebook's 400% of the 1-g figure (a world of no gravity at all included).
    """
    if gravity < 0:
        raise ValueError(f"Gravity {gravity:g} g is negative.")
    if math.isnan(gravity):  # it would compare false with every bound and carry 4 times as much
        raise ValueError("Gravity NaN is not a number of g.")
    return _carrying(cat or catalog(), strength, gravity)


@lru_cache(maxsize=_CACHE_SIZE)
def _carrying(cat: Catalog, strength: int, gravity: float) -> Carrying:
    lim = cat.limits
    most = lim.gravity_max_capacity_multiple
    scale = min(1 / gravity, most) if gravity > 0 else most
    # A STR below 0 (a species package on a level already refused, or injury) carries nothing:
    # squared, STR -1 would carry what STR 1 does, and doubled it would be a negative load.
    carried = max(strength, 0)
    capacity = carried * carried * scale
    lift = capacity * lim.lift_capacity_multiple
    return Carrying(
        strength=strength,
        gravity=gravity,
        scale=_kg(scale),
        unencumbered_kg=_kg(lim.unencumbered_str_multiple * carried * scale),
        step_kg=_kg(carried * scale),
        capacity_kg=_kg(capacity),
        lift_kg=_kg(lift),
        drag_kg=_kg(lift * lim.drag_lift_multiple),
    )


def world_gravity(size: int, *, cat: Catalog | None = None) -> float:
    """A world's gravity (in g) when only its size is known: size / 8."""
    if size < 0:
        raise ValueError(f"World size {size} is negative.")
    return size / (cat or catalog()).limits.gravity_size_divisor


def encumbrance_penalty(load_kg: float, carry: Carrying) -> int:
    """DEF, INI and MOV lost to a load: 1 for each whole step beyond the unencumbered load."""
    load, step = _load_and_step(load_kg, carry)
    if step <= 0:
        return 0
    return max(load // step - catalog().limits.unencumbered_str_multiple, 0)


def over_capacity(load_kg: float, carry: Carrying) -> bool:
    """Whether a load is more than ``carry`` lets the character carry at all."""
    load, step = _load_and_step(load_kg, carry)
    return load > step * max(carry.strength, 0)


def _load_and_step(load_kg: float, carry: Carrying) -> tuple[int, int]:
    """A load (to the gram) and the step of encumbrance, STR / gravity kg, as whole numbers of
    one exact unit: the step is a fraction where the gravity makes it one (STR 1 at 0.6 g:
    5/3 kg), so both are counted in thirds of a gram there.

    The figures are shown to the gram, but a load is weighed against the rulebook's own: with
    the shown ones, 5 kg at 0.6 g is a gram short of 3.333 + 1.667 kg and costs nothing."""
    scale = _exact_scale(carry.gravity, catalog().limits.gravity_max_capacity_multiple)
    grams = round(load_kg * 1000)
    return grams * scale.denominator, max(carry.strength, 0) * 1000 * scale.numerator


@lru_cache(maxsize=_CACHE_SIZE)
def _exact_scale(gravity: float, most: int) -> Fraction:
    """1 / gravity, reading the gravity as the decimal it is written as (0.6 is 3/5, not the
    float nearest it), at most ``most``; a world of no gravity gets the limit."""
    if gravity <= 0:
        return Fraction(most)
    if math.isinf(gravity):
        return Fraction(0)
    return min(1 / Fraction(repr(gravity)), Fraction(most))


def _kg_text(value: float) -> str:
    """A weight in a message, to the gram and never in exponent form: a load of tons is
    "1199880.25 kg", where ``:g`` would write "1.19988e+06"."""
    return f"{value:.3f}".rstrip("0").rstrip(".")


def _kg(value: float) -> float:
    """A weight as the sheet writes it: a whole number where it is one, else to the gram."""
    return int(value) if value == int(value) else round(value, 3)
