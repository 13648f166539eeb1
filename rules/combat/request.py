"""The parts of the attack command's input every other system reads alike (docs/combat-t4.md
and docs/combat-2d6.md, "The command"): the two characters, the weapon, the range band, the
system named in the input and the dice. A system adds its own keys; every fault of the whole
input is named at once (:class:`~rules.fighters.InputRefused`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from ..fighters import InputRefused, Refusals
from . import reading
from .throws import GivenDice

REQUIRED: tuple[str, ...] = ("attacker", "target", "weapon", "range")
_Attack = TypeVar("_Attack")


def read_request(
    data: Any,
    system: str,
    attack: Callable[..., _Attack],
    *,
    bands: Sequence[str],
    dice_names: Sequence[str],
    readers: Mapping[str, reading.Reader[Any]],
) -> tuple[_Attack, GivenDice | None]:
    """The attack the input describes, built by ``attack`` from every key read: ``attacker``
    and ``target`` as sheets, ``weapon`` (with ``tl``) as a catalog weapon, ``range`` (its
    ``range_band``) one of ``bands``, and the system's own keys by ``readers`` (``situation``,
    the conditions…; a key left out or null keeps the attack's default); and the ``dice`` as
    :class:`GivenDice` (None: the command throws them)."""
    request = reading.obj(data, "")
    refusals = Refusals()
    for key in REQUIRED:
        if request.get(key) is None:
            refusals.add(key, "missing")
    keyed: dict[str, reading.Reader[Any]] = {
        "system": lambda v, f: reading.system_of(v, f, system),
        "attacker": reading.character,
        "target": reading.character,
        "weapon": reading.text,
        "tl": lambda v, f: reading.whole(v, f, least=0, most=99),
        "range": lambda v, f: reading.one_of(v, f, bands),
        "dice": lambda v, f: GivenDice(reading.dice_object(v, f, dice_names)),
        **readers,
    }
    values = reading.read_fields(request, "", keyed, refusals)
    # The weapon is looked up with its TL, once a TL given has been read.
    if "weapon" in values:
        tl_read = request.get("tl") is None or "tl" in values
        name = values["weapon"]
        values["weapon"] = (
            refusals.attempt(reading.weapon, name, "weapon", values.get("tl")) if tl_read else None
        )
    if refusals.found:
        raise InputRefused(refusals.found)
    for key in ("system", "tl"):
        values.pop(key, None)
    dice = values.pop("dice", None)
    values["range_band"] = values.pop("range")
    return attack(**values), dice
