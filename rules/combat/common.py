"""What T4 and 2D6 check and report alike about an attack."""

from __future__ import annotations

from ..condition import Event
from ..fighters import CombatRefused, Weapon
from .sheet import FighterSheet

# The note of plasma and fusion guns (PGMP, FGMP), whose blast FFA reading 15 leaves to the
# referee.
BLAST_NOTE = "HE"


def refuse_unless(allowed: bool, field: str, message: str) -> None:
    """An attack the rules do not allow is refused, naming the field that makes it so."""
    if not allowed:
        raise CombatRefused(field, message)


def check_able(attacker: FighterSheet, weapon: Weapon, why_not: str | None) -> None:
    """An attacker out of action (``why_not``: dead, unconscious, stunned) does not attack; a
    weapon made for battle dress is fired from it only (FFA reading 25)."""
    refuse_unless(why_not is None, "attacker", f"{attacker.name} is {why_not} and cannot attack")
    required = weapon.requires_armor
    refuse_unless(
        required is None or attacker.wears(required),
        "weapon",
        f"the {weapon.label} is fired only from {str(required).lower()}",
    )


def blast_note(weapon: Weapon) -> bool:
    return BLAST_NOTE in weapon.notes


def blast_event(weapon: Weapon) -> Event:
    """Reading X-4: a plasma or fusion gun hits its target only; its blast is the referee's."""
    return Event("blast", f"the {weapon.label}'s blast around the target is the referee's")
