"""A tagged PDF's structure tree as a screen reader walks it, read with pikepdf.

:func:`structure` gives the tree as nested :class:`Node`\\ s (tag, attributes, children), and
:func:`untagged_content` the marked content that no element of the tree holds: PDF/UA-1 wants
every mark either in the tree or an artifact (page furniture a reader passes over).
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass, field

import pikepdf


@dataclass
class Node:
    tag: str
    scope: str | None = None
    headers: int = 0  # how many header cells a TD names
    children: list[Node] = field(default_factory=list)

    def walk(self) -> Iterator[Node]:
        yield self
        for child in self.children:
            yield from child.walk()

    def find(self, tag: str) -> list[Node]:
        return [node for node in self.walk() if node.tag == tag]

    def kids(self, tag: str) -> list[Node]:
        return [child for child in self.children if child.tag == tag]


def _node(element: pikepdf.Dictionary, seen: set[tuple[int, int]]) -> Node:
    attributes = element.get("/A")
    scope = headers = None
    if isinstance(attributes, pikepdf.Dictionary):
        scope = str(attributes["/Scope"])[1:] if "/Scope" in attributes else None
        headers = len(attributes["/Headers"]) if "/Headers" in attributes else 0
    node = Node(str(element["/S"])[1:], scope, headers or 0)
    kids = element.get("/K")
    kids = kids if isinstance(kids, pikepdf.Array) else [kids] if kids is not None else []
    for kid in kids:
        if isinstance(kid, pikepdf.Dictionary) and "/S" in kid:
            seen.add(kid.objgen)
            node.children.append(_node(kid, seen))
    return node


def _open(content: bytes) -> pikepdf.Pdf:
    return pikepdf.open(io.BytesIO(content))


def structure(content: bytes) -> Node:
    """The document's structure tree, from its Document element down."""
    pdf = _open(content)
    root = pdf.Root.StructTreeRoot
    return _node(root.K[0] if isinstance(root.K, pikepdf.Array) else root.K, set())


def untagged_content(content: bytes) -> int:
    """How many marked-content sequences with an MCID no element of the tree holds."""
    pdf = _open(content)
    root = pdf.Root.StructTreeRoot
    held: set[tuple[int, int]] = set()  # (page number, MCID)
    pages = {page.objgen: number for number, page in enumerate(pdf.pages)}

    def visit(element: pikepdf.Dictionary, page: int | None) -> None:
        if "/Pg" in element:
            page = pages.get(element.Pg.objgen, page)
        kids = element.get("/K")
        kids = kids if isinstance(kids, pikepdf.Array) else [kids] if kids is not None else []
        for kid in kids:
            if isinstance(kid, int):
                held.add((page, int(kid)))
            elif isinstance(kid, pikepdf.Dictionary) and "/S" in kid:
                visit(kid, page)

    for kid in root.K if isinstance(root.K, pikepdf.Array) else [root.K]:
        visit(kid, None)
    marks = set()
    for number, page in enumerate(pdf.pages):
        for operands, operator in pikepdf.parse_content_stream(page):
            properties = operands[1] if str(operator) == "BDC" else None
            if isinstance(properties, pikepdf.Dictionary) and "/MCID" in properties:
                marks.add((number, int(properties.MCID)))
    return len(marks - held)
