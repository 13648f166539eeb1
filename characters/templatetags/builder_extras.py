from typing import Any

from django import template

from characters.core import equipment

register = template.Library()


@register.filter
def get_item(mapping: Any, key: str) -> Any:
    """``mapping|get_item:key``: a dictionary look-up with a variable key (None when absent)."""
    return mapping.get(key) if hasattr(mapping, "get") else None


@register.filter
def get_hex(catalog: Any, level: int) -> str:
    """``cat|get_hex:level``: the hex digit of an attribute level."""
    return catalog.to_hex(level)


@register.filter
def item_key(line: Any) -> str:
    """``line|item_key``: how a form names an equipment line's item ("name|tl")."""
    return equipment.item_key(line.item, line.tl)
