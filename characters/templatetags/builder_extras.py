from typing import Any

from django import template

register = template.Library()


@register.filter
def get_item(mapping: Any, key: str) -> Any:
    """``mapping|get_item:key``: a dictionary look-up with a variable key (None when absent)."""
    return mapping.get(key) if hasattr(mapping, "get") else None


@register.filter
def get_hex(catalog: Any, level: int) -> str:
    """``cat|get_hex:level``: the hex digit of an attribute level."""
    return catalog.to_hex(level)
