"""Credits and gear in play: the credits ledger, gear bought and given up, and the armor worn."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F

import rules
from characters.core.selectors import character_report
from characters.core.services import Refused, lock_character, log_event
from characters.models import Character, CharacterEvent, CreditEntry, PlayState
from characters.play.selectors import carried_equipment, credit_balance, gear_key, worn_marked
from characters.play.services.condition import locked_play_state
from characters.play.services.limits import MAX_CREDITS, MAX_GEAR_QUANTITY
from rules import Report, parse_document
from rules.catalog import EquipmentItem
from rules.report import Equipment
from rules.wording import signed_credits


def _credit_entry(
    character: Character,
    *,
    by: User | None,
    amount: int,
    note: str,
    item: str = "",
    tl: int | None = None,
    quantity: int = 0,
    report: Report | None = None,
) -> CreditEntry:
    note = note.strip()
    if not note:
        raise Refused("Say what the credits were for.")
    if abs(amount) > MAX_CREDITS:
        raise Refused(f"At most Cr{MAX_CREDITS:,} in one entry.")
    if amount < 0:
        balance = credit_balance(character, report)
        if balance + amount < 0:
            raise Refused(f"Not enough credits: Cr{-amount:,} needed, Cr{balance:,} left.")
    entry = CreditEntry.objects.create(
        character=character,
        amount=amount,
        note=note[:200],
        item=item,
        tl=tl,
        quantity=quantity,
        actor=by,
    )
    log_event(
        character,
        kind=CharacterEvent.Kind.CREDITS,
        by=by,
        # Gear given away or moved for nothing changes no credits: "+Cr0" would say it did.
        detail=f"{signed_credits(amount)}: {note}" if amount else note,
    )
    return entry


@transaction.atomic
def record_credits(*, character: Character, by: User | None, amount: int, note: str) -> CreditEntry:
    """Credits received (positive) or paid for something that is not gear (negative)."""
    locked = lock_character(character)
    if amount == 0:
        raise Refused("An amount of Cr0 changes nothing.")
    return _credit_entry(locked, by=by, amount=amount, note=note)


def _catalog_item(item: str, tl: int | None) -> EquipmentItem:
    cat = rules.catalog()
    found = cat.equipment_item(item, tl)
    if found is not None:
        return found
    candidates = cat.equipment_named(item)
    if not candidates:
        raise Refused(f"{item!r} is not in the equipment tables.")
    levels = ", ".join(str(c.tl) for c in candidates)
    raise Refused(f"{candidates[0].name} comes at TL {levels}: choose one.")


@transaction.atomic
def buy_gear(
    *,
    character: Character,
    by: User | None,
    item: str,
    tl: int | None = None,
    quantity: int = 1,
    price: int | None = None,
    note: str = "",
) -> CreditEntry:
    """Buy catalog gear in play: paid from the credits (the catalog's price unless ``price``
    says what was paid), carried from now on and weighed in the load."""
    locked = lock_character(character)
    found = _catalog_item(item, tl)
    if not 1 <= quantity <= MAX_GEAR_QUANTITY:
        raise Refused(f"Buy 1 to {MAX_GEAR_QUANTITY:,} at a time.")
    if price is None:
        if found.cost is None:
            raise Refused(f"{found.name} has no list price: say what was paid.")
        price = found.cost * quantity
    if price < 0:
        raise Refused("A price is Cr0 or more.")
    label = f"{found.name}{f' x{quantity}' if quantity > 1 else ''}"
    return _credit_entry(
        locked,
        by=by,
        amount=-price,
        note=note.strip() or f"Bought {label}",
        item=found.name,
        tl=found.tl,
        quantity=quantity,
    )


@transaction.atomic
def give_up_gear(
    *,
    character: Character,
    by: User | None,
    item: str,
    tl: int | None = None,
    quantity: int = 1,
    price: int = 0,
    note: str = "",
) -> CreditEntry:
    """Sell (for ``price``), lose or use up gear the character carries, creation equipment
    included; the document is left as it was (the ledger records what went)."""
    locked = lock_character(character)
    found = _catalog_item(item, tl)
    if quantity < 1 or price < 0:
        raise Refused("Give up 1 or more, for Cr0 or more.")
    key = (found.name, found.tl)
    carried = sum(
        entry.quantity
        for entry in carried_equipment(locked)
        if gear_key(entry.item, entry.tl) == key
    )
    if quantity > carried:
        raise Refused(f"{locked.name} carries {carried} {found.name}, not {quantity}.")
    label = f"{found.name}{f' x{quantity}' if quantity > 1 else ''}"
    verb = f"Sold {label} for Cr{price:,}" if price else f"Gave up {label}"
    return _credit_entry(
        locked,
        by=by,
        amount=price,
        note=note.strip() or verb,
        item=found.name,
        tl=found.tl,
        quantity=-quantity,
    )


# What a play sheet may say about the armor worn; the engine's problems with it refuse it.
WORN_PROBLEMS = ("worn_not_armor", "armor_worn_twice")


def _worn_words(equipment: Equipment) -> str:
    """The armor worn in words: "Combat armor (TL 11), with Reflec (TL 10) under it, and a
    Helmet (TL 5)"."""
    if equipment.armor_worn is None and equipment.helmet_worn is None:
        return "no armor"
    parts = [equipment.armor_worn or "no body armor"]
    if equipment.armor_under:
        parts[0] += f", with {equipment.armor_under} under it"
    if equipment.helmet_worn:
        parts.append(f"a {equipment.helmet_worn}")
    return " and ".join(parts)


@transaction.atomic
def wear_armor(
    *,
    character: Character,
    by: User | None,
    worn: Sequence[tuple[str, int | None]] | None,
    expected_version: int | None = None,
) -> str:
    """The armor the character wears now, chosen on the play sheet: ``worn`` holds the
    catalog's (name, TL) of each piece worn (empty: none); None goes back to what the character
    document marks worn. Refused when it does not carry a piece, or the engine refuses the
    choice (two body armors at once, a mark on what is not armor). The play state's version
    rises: a damage form shown with the armor worn before is refused, as for a blow. Returns
    what the character wears now, in words."""
    locked = lock_character(character)
    state = locked_play_state(locked, character_report(locked), expected_version)
    keys = None if worn is None else [gear_key(name, tl) for name, tl in worn]
    carried = carried_equipment(locked, worn=worn_marked(locked) if keys is None else set(keys))
    carried_keys = {gear_key(entry.item, entry.tl) for entry in carried}
    for name, _tl in keys or ():
        if (name, _tl) not in carried_keys:
            raise Refused(f"{locked.name} does not carry {name}.")
    checked = rules.check(replace(parse_document(locked.document), equipment=tuple(carried)))
    refused = [p.message for p in checked.problems if p.code in WORN_PROBLEMS]
    if refused:
        raise Refused(" ".join(refused))
    PlayState.objects.filter(pk=state.pk).update(
        worn=None if keys is None else [list(key) for key in keys], version=F("version") + 1
    )
    now = _worn_words(checked.equipment)
    told = f"Wears {now}, as the character sheet marks it." if keys is None else f"Wears {now}."
    log_event(locked, kind=CharacterEvent.Kind.PLAY, by=by, detail=told)
    return told


@transaction.atomic
def keep_rounds_loaded(*, character: Character, loaded: dict[str, int]) -> None:
    """The rounds left in the magazine loaded in each of the character's weapons (by weapon
    key), kept with its play state: they are the character's, and its next encounter starts
    from them. Not a change of the condition: a page's version is left as it is."""
    locked = lock_character(character)
    state = locked_play_state(locked, character_report(locked), None)
    PlayState.objects.filter(pk=state.pk).update(loaded=dict(loaded))
