"""What WeasyPrint's PDF/UA tagging leaves undone, finished before the PDF is written.

WeasyPrint tags the sheet's content from its HTML (h1, h2, table, th, td...), but:

* The page margin boxes (the running footer with the character's name and "Page 1 of 2", the
  "(continued)" heading over a page that starts inside a box) are marked as content that no
  structure element holds. PDF/UA-1 wants page furniture marked as artifacts, so a screen reader
  passes over it: they become ``/Artifact`` sequences, and their orphan tags leave the parent
  tree.
* A TH gets an ID, and each TD the IDs of its headers, but no ``Scope``: a TH in the table's
  head is a column header, one in its body heads its row.

:func:`finish` is given to WeasyPrint as the ``finisher`` of ``write_pdf``: it works on the
pydyf document WeasyPrint built, before it is serialised.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pydyf

ARTIFACT = "/Artifact"
PAGINATION = pydyf.Dictionary({"Type": "/Pagination"})


def finish(document: Any, pdf: pydyf.PDF) -> None:
    """Mark the margin boxes as artifacts and give each TH its scope (WeasyPrint's finisher)."""
    root_reference = pdf.catalog.get("StructTreeRoot")
    if root_reference is None:  # an untagged PDF: nothing to finish
        return
    root = _object(pdf, root_reference)
    reachable = set(_elements(pdf, root["K"]))
    _scope_headers(pdf, reachable)
    parent_tree = _object(pdf, root["ParentTree"])
    nums = parent_tree["Nums"]
    # Nums is [page index, [struct element of MCID 0, of MCID 1...], next page index, ...]; the
    # annotations' entries (a single reference instead of an array) come after the pages'.
    for page_index, page_reference in enumerate(pdf.page_references):
        by_mcid = nums[2 * page_index + 1]
        orphans = {
            mcid
            for mcid, element in enumerate(by_mcid)
            if element != "null" and _number(element) not in reachable
        }
        if not orphans:
            continue
        page = _object(pdf, page_reference)
        _as_artifacts(_object(pdf, page["Contents"]), orphans)
        for mcid in orphans:
            by_mcid[mcid] = "null"


def _number(reference: Any) -> int:
    """The object number of an indirect reference (pydyf writes them as b"12 0 R")."""
    text = reference.decode() if isinstance(reference, bytes) else str(reference)
    return int(text.split()[0])


def _object(pdf: pydyf.PDF, reference: Any) -> Any:
    return pdf.objects[_number(reference)]


def _elements(pdf: pydyf.PDF, kids: Any) -> Iterator[int]:
    """The object numbers of every structure element under ``kids``, depth first."""
    for kid in kids:
        if isinstance(kid, int):  # a marked-content id, not an element
            continue
        number = _number(kid)
        element = pdf.objects[number]
        if isinstance(element, pydyf.Dictionary) and element.get("Type") == "/StructElem":
            yield number
            yield from _elements(pdf, element["K"])


def _scope_headers(pdf: pydyf.PDF, elements: set[int]) -> None:
    for number in elements:
        element = pdf.objects[number]
        if element.get("S") != "/TH":
            continue
        row = _object(pdf, element["P"])
        group = _object(pdf, row["P"])
        scope = "/Column" if group.get("S") == "/THead" else "/Row"
        attributes = element.get("A")
        if attributes is None:
            attributes = element["A"] = pydyf.Dictionary({"O": "/Table"})
        attributes["Scope"] = scope


def _as_artifacts(stream: pydyf.Stream, mcids: set[int]) -> None:
    """Turn the marked-content sequences of ``mcids`` (``/Span <</MCID n>> BDC``) into
    pagination artifacts (``/Artifact <</Type /Pagination>> BDC``)."""
    items = stream.stream
    for index in range(1, len(items) - 1):
        properties = items[index]
        if (
            isinstance(properties, pydyf.Dictionary)
            and properties.get("MCID") in mcids
            and items[index + 1] == b"BDC"
        ):
            items[index - 1] = ARTIFACT
            items[index] = PAGINATION
