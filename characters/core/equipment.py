"""How every item picker names and lists the catalog's equipment: the builder's rows and the
play sheet's purchases choose from the same options, by the same key."""

from rules import catalog


def item_key(name: str, tl: int | None) -> str:
    return f"{name}|{'' if tl is None else tl}"


_EQUIPMENT_TABLE_LABELS = {
    "armor": "Armor",
    "melee": "Melee weapons",
    "ranged": "Ranged weapons",
    "accessories": "Accessories",
}


def equipment_choices() -> list[tuple[str, list[tuple[str, str]]]]:
    """The catalog's equipment grouped by table, as (item key, "name · TL · price · kg") pairs:
    the options of every item picker (the builder's and the play sheet's)."""
    grouped: dict[str, list[tuple[str, str]]] = {}
    for item in catalog().equipment:
        price = f"Cr{item.cost:,}" if item.cost is not None else "price varies"
        tl = f" · TL {item.tl}" if item.tl is not None else ""
        grouped.setdefault(_EQUIPMENT_TABLE_LABELS.get(item.table, item.table), []).append(
            (item_key(item.name, item.tl), f"{item.name}{tl} · {price} · {item.weight_kg:g} kg")
        )
    return list(grouped.items())
