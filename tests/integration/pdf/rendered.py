"""Rendering sheets for the PDF tests, and reading the PDF back: its text, its pages, what
overlaps."""

import re
import subprocess
from pathlib import Path

from characters.builder import services as builder_services
from characters.models import Character
from characters.pdf import rendering as pdf_rendering
from characters.pdf import sheet as pdf_sheet
from tests.factories import UserFactory
from tests.integration import sheet_documents as docs

STATIC = Path(__file__).resolve().parents[3] / "static"


def poppler_tool(tool: str, *options: str, content: bytes, tmp_path: Path) -> str:
    """What a poppler-utils tool prints about a PDF."""
    path = tmp_path / "sheet.pdf"
    path.write_bytes(content)
    output = ["-"] if tool == "pdftotext" else []
    result = subprocess.run(
        [tool, *options, str(path), *output], capture_output=True, text=True, check=True
    )
    return result.stdout


def pdf_text(content: bytes, tmp_path: Path) -> str:
    """The PDF's text in drawing order, whitespace collapsed, words split at a line end rejoined."""
    raw = poppler_tool("pdftotext", "-raw", content=content, tmp_path=tmp_path)
    raw = raw.replace("\u200b", "")  # the renderer's break opportunities in long words
    return " ".join(re.sub(r"-\n", "-", raw).split())


def page_count(content: bytes, tmp_path: Path) -> int:
    info = poppler_tool("pdfinfo", content=content, tmp_path=tmp_path)
    return int(re.search(r"^Pages:\s+(\d+)", info, re.MULTILINE).group(1))


def render(*documents: dict, page_size: str = "letter", **extras) -> pdf_rendering.RenderedPdf:
    return pdf_rendering.render_sheets(
        [pdf_sheet.sheet_for_document(document, **extras) for document in documents],
        page_size=page_size,
    )


def _assert_nothing_overlaps_or_leaves_the_page(content: bytes, tmp_path: Path) -> None:
    """Every word inside its page, and no two words on top of each other."""
    xml = poppler_tool("pdftotext", "-bbox", content=content, tmp_path=tmp_path)
    for page in re.finditer(r'<page width="([\d.]+)" height="([\d.]+)">(.*?)</page>', xml, re.S):
        width, height = float(page.group(1)), float(page.group(2))
        word = r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">(.*?)</'
        boxes = [
            (float(x0), float(y0), float(x1), float(y1), text)
            for x0, y0, x1, y1, text in re.findall(word, page.group(3))
        ]
        assert boxes
        for x0, y0, x1, y1, text in boxes:
            assert x0 >= 0, text
            assert y0 >= 0, text
            assert x1 <= width, text
            assert y1 <= height, text
        for i, (ax0, ay0, ax1, ay1, a) in enumerate(boxes):
            for bx0, by0, bx1, by1, b in boxes[i + 1 :]:
                across = min(ax1, bx1) - max(ax0, bx0)
                down = min(ay1, by1) - max(ay0, by0)
                # Glyph boxes of neighbouring lines may touch; text drawn over text does not.
                assert across <= 1 or down <= 0.35 * min(ay1 - ay0, by1 - by0), (a, b)


def stored_pilot() -> Character:
    """The navy pilot stored for a player: Cr80,000 mustering-out cash, an automatic pistol
    (Cr200) bought at creation, so Cr79,800 left; STR 6, so unencumbered up to 12 kg."""
    owner = UserFactory(username="player1")
    return builder_services.create_character(owner=owner, document=docs.navy_pilot())
