"""What the other systems leave to the referee about a weapon (reading X-4)."""

from __future__ import annotations

from ..condition import Event
from ..fighters import Weapon

# The note of plasma and fusion guns (PGMP, FGMP), whose blast FFA reading 15 leaves to the
# referee.
BLAST_NOTE = "HE"


def blast_note(weapon: Weapon) -> bool:
    return BLAST_NOTE in weapon.notes


def blast_event(weapon: Weapon) -> Event:
    """Reading X-4: a plasma or fusion gun hits its target only; its blast is the referee's."""
    return Event("blast", f"the {weapon.label}'s blast around the target is the referee's")
