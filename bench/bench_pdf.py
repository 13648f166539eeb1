"""The PDF character sheet: render times, with a minimal WeasyPrint page for scale.

Targets: one sheet at most 10 times the minimal page, a party of six at most 1.5 s, a cached
repeat at most 20 ms. The minimal page (one paragraph, WeasyPrint's defaults) is measured in
the same rounds as the sheet, one after the other, so a busy machine slows both alike and the
ratio stays meaningful. Uncached figures clear the sheet cache before every render.
"""

import statistics
import time
from collections.abc import Callable

from bench.core import Figure, setup_django

MINIMAL_PAGE = (
    '<html lang="en"><p>Far Future Action: one paragraph on one page, for scale.</p></html>'
)


def _interleaved(
    operations: dict[str, Callable[[], object]], *, rounds: int, warmup: int = 1
) -> dict[str, tuple[float, ...]]:
    """Milliseconds per call of each operation, the operations taking turns within each round."""
    for _ in range(warmup):
        for operation in operations.values():
            operation()
    samples: dict[str, list[float]] = {name: [] for name in operations}
    for _ in range(rounds):
        for name, operation in operations.items():
            start = time.perf_counter()
            operation()
            samples[name].append((time.perf_counter() - start) * 1000)
    return {name: tuple(values) for name, values in samples.items()}


def run(quick: bool) -> list[Figure]:
    setup_django()
    import weasyprint

    from characters.pdf import rendering as pdf_rendering
    from characters.pdf import sheet as pdf_sheet
    from tests.integration import sheet_documents

    one = [pdf_sheet.sheet_for_document(sheet_documents.navy_pilot())]
    longest = [pdf_sheet.sheet_for_document(sheet_documents.longest())]
    largest = [pdf_sheet.sheet_for_document(sheet_documents.largest_legal())]
    party = [pdf_sheet.sheet_for_document(document) for document in sheet_documents.party(6)]
    rounds = 5 if quick else 15

    def minimal_page() -> None:
        # Tagged like the sheets, so the ratio compares like with like.
        weasyprint.HTML(string=MINIMAL_PAGE).write_pdf(pdf_variant="pdf/ua-1")

    def one_sheet() -> None:
        pdf_rendering.clear_cache()
        pdf_rendering.render_sheets(one)

    def longest_sheet() -> None:
        pdf_rendering.clear_cache()
        pdf_rendering.render_sheets(longest)

    def largest_sheet() -> None:
        pdf_rendering.clear_cache()
        pdf_rendering.render_sheets(largest)

    def party_of_six() -> None:
        pdf_rendering.clear_cache()
        pdf_rendering.render_sheets(party)

    samples = _interleaved(
        {"minimal": minimal_page, "sheet": one_sheet}, rounds=rounds * 2, warmup=2
    )
    samples |= _interleaved(
        {"longest": longest_sheet, "largest": largest_sheet, "party": party_of_six},
        rounds=max(3, rounds // 2),
    )

    pdf_rendering.render_sheets(one)  # into the cache

    def cached_repeat() -> None:
        # A fresh Sheet each time, as a request would build it: the cost is hashing the input.
        result = pdf_rendering.render_sheets(
            [pdf_sheet.sheet_for_document(sheet_documents.navy_pilot())]
        )
        assert result.from_cache

    samples |= _interleaved({"cached": cached_repeat}, rounds=rounds * 4)

    ratios = tuple(
        sheet / minimal for sheet, minimal in zip(samples["sheet"], samples["minimal"], strict=True)
    )
    ratio_of_medians = statistics.median(samples["sheet"]) / statistics.median(samples["minimal"])
    return [
        Figure("minimal one-paragraph WeasyPrint page", "ms", samples["minimal"], False),
        Figure("one sheet, uncached (typical PC, 2 pages)", "ms", samples["sheet"], False),
        Figure("longest realistic character, uncached", "ms", samples["longest"], False),
        Figure(
            "largest legal character (every bound at its most), uncached",
            "ms",
            samples["largest"],
            False,
            2000,
        ),
        Figure("party of 6, uncached (12 pages)", "ms", samples["party"], False, 1500),
        Figure("cached repeat (hash + LRU hit)", "ms", samples["cached"], False, 20),
        Figure("one sheet / minimal page, per round", "x", ratios, False),
        Figure("one sheet / minimal page, ratio of medians", "x", (ratio_of_medians,), False, 10),
    ]
