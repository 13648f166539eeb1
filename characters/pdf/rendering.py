"""The PDF character sheet: a TAS Form 2 style "Personal Data and History" per character.

One call renders one or several sheets into one PDF (a campaign's party PDF is a list), with
WeasyPrint, from ``templates/characters/pdf/sheets.html`` and ``static/css/sheet.css``; what
a sheet prints is ``characters.pdf.sheet``'s, laid out by ``characters.pdf.layout``::

    sheet = sheet_for_document(character.document, house_rules=..., rolls=[...])
    pdf = render_sheets([sheet], page_size="a4")      # pdf.content, pdf.etag
    return pdf_response(request, [sheet], page_size="a4", filename="jamison")  # in a view

Speed. Rendering runs in the long-lived web process, never in a subprocess. WeasyPrint's font
configuration, the parsed stylesheet and the URL fetcher are built once per thread (a font
configuration is not safe to share between threads) and reused. Finished PDFs are kept in
Django's "pdf" cache (settings.CACHES: files shared by a server's workers by default, Redis
shared by every app server when configured) keyed by a SHA-256 of everything that shapes them,
which is also the ETag: an unchanged sheet comes from the cache, and a client holding the ETag
gets a 304 without any rendering. WeasyPrint's time grows with every element and every run of
text, so the template is flat (``characters.pdf.layout``).

Security. Everything the user typed reaches the template as data and is escaped by Django's
autoescape; none of it goes into CSS or a ``style`` attribute. WeasyPrint fetches through
:class:`StaticOnlyFetcher`, which serves ``data:`` URIs and the app's own static files under a
private origin and refuses everything else, so no network request (hence no redirect) is ever
made and no file outside the static directories is ever read.

Time. Bounded documents keep the largest legal sheet near a second (long notes print as running
text: layout.notes_as_printed); on top of that a render has a budget
(settings.PDF_TIME_BUDGET_SECONDS, for the whole PDF) after which it stops and the request gets
a 503, so no PDF can hold a web worker for long whatever gets past the bounds.
characters.pdf.guard remembers such a verdict and limits renders per user and per server, so
that looping PDFs cannot hold the workers either.
"""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import json
import mimetypes
import re
import signal
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final, cast
from urllib.parse import unquote, urlsplit
from urllib.request import DataHandler, Request

import weasyprint
from django.conf import settings
from django.core.cache import caches
from django.http import HttpRequest, HttpResponse
from django.template.backends.django import Template as DjangoBackendTemplate
from django.template.loader import get_template, render_to_string
from django.utils.cache import get_conditional_response
from weasyprint.text.fonts import FontConfiguration
from weasyprint.urls import URLFetcher, URLFetcherResponse

from characters.core.downloads import content_disposition
from characters.models import Campaign
from characters.pdf import guard, structure
from characters.pdf.sheet import Sheet, sheet_context, summary_row

# Bump whenever the code (this module, sheet.py, layout.py) changes what a sheet looks like, so
# cached PDFs and ETags expire; the template, the stylesheet and the fonts are hashed instead.
RENDERER_VERSION: Final = "9"
TEMPLATE: Final = "characters/pdf/sheets.html"
STYLESHEET: Final = "css/sheet.css"


# The only page sizes there are (a campaign's choices): the @page rule is generated from this
# table, never from input.
PAGE_SIZES: Final[Mapping[str, str]] = {
    Campaign.PageSize.LETTER: "letter",
    Campaign.PageSize.A4: "A4",
}


# A private origin for the app's static files. ".invalid" names never resolve (RFC 6761), and the
# fetcher maps this prefix to files itself, so nothing ever goes to the network. An https URL
# rather than a made-up scheme because relative URLs (the fonts in sheet.css) resolve against it.
ASSET_BASE_URL: Final = "https://ffa-static.invalid/static/"
PDF_CACHE: Final = "pdf"  # the alias in settings.CACHES


# A PDF larger than this is not cached: a cache entry is meant for an ordinary party's sheets.
CACHE_MAX_BYTES: Final = 8 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class RenderedPdf:
    content: bytes
    etag: str  # a strong ETag, quotes included, ready for the ETag header
    from_cache: bool = False


def sheets_etag(
    sheets: Sequence[Sheet], *, page_size: str = "letter", summary: bool = False, title: str = ""
) -> str:
    """The ETag of the PDF of these sheets, known without rendering it."""
    return f'"{_cache_key(sheets, _page_size(page_size), summary, title)}"'


def render_sheets(
    sheets: Sequence[Sheet], *, page_size: str = "letter", summary: bool = False, title: str = ""
) -> RenderedPdf:
    """One PDF holding every sheet in order, each starting on a new page; with ``summary``, a
    page first that sums up the party, a row a character. ``title``: the PDF's title (a
    campaign's name, which heads its summary too); else the characters' names. From the cache
    when it is there; raises PdfOverBudget when rendering it takes longer than
    PDF_TIME_BUDGET_SECONDS."""
    if not sheets:
        raise ValueError("render_sheets needs at least one sheet")
    size = _page_size(page_size)
    key = _cache_key(sheets, size, summary, title)
    return _cached(key) or _render(sheets, size, summary, title, key)


def _cached(key: str) -> RenderedPdf | None:
    content = caches[PDF_CACHE].get(key)
    if content is None:
        return None
    return RenderedPdf(content=content, etag=f'"{key}"', from_cache=True)


def _render(sheets: Sequence[Sheet], size: str, summary: bool, title: str, key: str) -> RenderedPdf:
    context = {
        "sheets": [sheet_context(sheet) for sheet in sheets],
        "summary": [summary_row(sheet) for sheet in sheets] if summary else None,
        "title": title,
    }
    html = render_to_string(TEMPLATE, context)
    # One budget for the whole PDF, however many sheets: it must end well before gunicorn's
    # worker timeout would kill the worker (ffa_site.workers).
    with _time_budget(settings.PDF_TIME_BUDGET_SECONDS):
        content = _renderer().write_pdf(html, size)
    if len(content) <= CACHE_MAX_BYTES:
        caches[PDF_CACHE].set(key, content)
    return RenderedPdf(content=content, etag=f'"{key}"')


def pdf_response(
    request: HttpRequest,
    sheets: Sequence[Sheet],
    *,
    page_size: str = "letter",
    filename: str = "character",
    summary: bool = False,
    title: str = "",
) -> HttpResponse:
    """The PDF shown inline, with its ETag; a 304 when the client already has this version;
    a 429 or 503 when characters.pdf.guard keeps it from being rendered now."""
    size = _page_size(page_size)
    key = _cache_key(sheets, size, summary, title)
    etag = f'"{key}"'
    response = get_conditional_response(request, etag=etag)
    if response is None:
        pdf = _cached(key) or _guarded_render(request, sheets, size, summary, title, key)
        if isinstance(pdf, guard.Refusal):
            return _refused_response(request, pdf)
        response = HttpResponse(pdf.content, content_type="application/pdf")
        response["Content-Disposition"] = content_disposition(
            pdf_filename(filename, sheets, size), attachment=False
        )
    response["ETag"] = etag
    # Private (a sheet is one user's) and revalidated every time, which the ETag makes cheap.
    response["Cache-Control"] = "private, no-cache"
    return response


def pdf_filename(stem: str, sheets: Sequence[Sheet], page_size: str) -> str:
    """What the downloaded PDF is called: the stem (a character's or party's name), "pencil"
    for a sheet with the running figures left blank, and the paper, so that the Letter, A4
    and pencil copies of one sheet never overwrite each other in a downloads folder:
    "mara-a4.pdf", "mara-pencil-letter.pdf"."""
    safe_stem = re.sub(r"[^\w.-]+", "-", stem).strip("-.") or "character"
    pencil = "-pencil" if any(sheet.pencil for sheet in sheets) else ""
    return f"{safe_stem}{pencil}-{_page_size(page_size)}.pdf"


def _guarded_render(
    request: HttpRequest, sheets: Sequence[Sheet], size: str, summary: bool, title: str, key: str
) -> RenderedPdf | guard.Refusal:
    """The PDF rendered, unless a verdict or a limit of characters.pdf.guard refuses it."""
    refusal = guard.remembered_refusal(key)
    if refusal is not None:
        return refusal
    with guard.render_allowance(request) as refusal:
        if refusal is not None:
            return refusal
        try:
            return _render(sheets, size, summary, title, key)
        except PdfOverBudget as over:
            return guard.remember_over_budget(key, over.seconds)


class PdfOverBudget(Exception):
    """A render that ran past its time budget and was stopped."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"The PDF took longer than {seconds:g} s to make and was stopped.")
        self.seconds = seconds


def _refused_response(request: HttpRequest, refusal: guard.Refusal) -> HttpResponse:
    body = render_to_string(
        "throttled.html", {"title": "PDF", "message": refusal.message}, request=request
    )
    response = HttpResponse(body, status=refusal.status)
    response["Retry-After"] = str(refusal.retry_after)
    return response


@contextmanager
def _time_budget(seconds: float) -> Iterator[None]:
    """Raise PdfOverBudget in the render once ``seconds`` have passed.

    A real-time timer signal does it, which only the main thread of a process can receive: the
    production server (gunicorn's sync workers) runs each request there. Elsewhere (the
    development server's threads) the render runs without a budget.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise PdfOverBudget(seconds)

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    except PdfOverBudget:
        # The renderer was stopped halfway: build a fresh one for the next render.
        _local.renderer = None
        raise
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def clear_cache() -> None:
    """Forget every cached PDF (benchmarks and tests measure uncached renders with it)."""
    caches[PDF_CACHE].clear()


class UnsafeURL(ValueError):
    """A URL the sheet renderer refuses to fetch."""


class StaticOnlyFetcher(URLFetcher):
    """Serves ``data:`` URIs and files inside the static directories; refuses everything else.

    WeasyPrint calls :meth:`fetch` for every stylesheet, font, image and attachment. Remote URLs
    (so redirects too), ``file:`` URLs and every other scheme raise :class:`UnsafeURL`, which
    WeasyPrint logs and skips: the resource is simply left out of the PDF.
    """

    def __init__(self, roots: Sequence[tuple[str, Path]] | None = None) -> None:
        # fetch() below replaces the base class's fetching entirely; the base class is kept
        # because WeasyPrint reads its settings (such as fail_on_errors) from the fetcher.
        super().__init__(allowed_protocols=(), allow_redirects=False, fail_on_errors=False)
        self._roots = tuple(roots) if roots is not None else static_roots()

    def fetch(self, url: str, headers: Mapping[str, str] | None = None) -> URLFetcherResponse:
        if url[:5].lower() == "data:":
            return _data_response(url)
        path = self.static_path(url)
        content_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        return URLFetcherResponse(url, path.read_bytes(), {"Content-Type": content_type})

    def static_path(self, url: str) -> Path:
        """The static file an asset URL names, or UnsafeURL when it names none."""
        if not url.startswith(ASSET_BASE_URL):
            raise UnsafeURL(f"the sheet renderer fetches only its own static files, not {url!r}")
        relative = unquote(urlsplit(url).path).removeprefix(urlsplit(ASSET_BASE_URL).path)
        if "\x00" in relative or relative.startswith("/"):
            raise UnsafeURL(f"not a static file path: {url!r}")
        for prefix, root in self._roots:
            if prefix:
                if not relative.startswith(prefix + "/"):
                    continue
                inside = relative.removeprefix(prefix + "/")
            else:
                inside = relative
            # Resolve first (symbolic links and ".." included), then insist on the root.
            candidate = (root / inside).resolve()
            if candidate.is_relative_to(root) and candidate.is_file():
                return candidate
        raise UnsafeURL(f"no such static file: {url!r}")


def static_roots() -> tuple[tuple[str, Path], ...]:
    """The app's static directories (STATICFILES_DIRS) as (URL prefix, resolved directory)."""
    roots = []
    for entry in settings.STATICFILES_DIRS:
        prefix, directory = entry if isinstance(entry, list | tuple) else ("", entry)
        roots.append((str(prefix).strip("/"), Path(directory).resolve()))
    return tuple(roots)


def _data_response(url: str) -> URLFetcherResponse:
    # The standard library's data: URI parser; it reads nothing but the URL itself.
    response = DataHandler().data_open(Request(url))
    content_type = response.headers.get("Content-Type", "text/plain")
    return URLFetcherResponse(url, response.read(), {"Content-Type": content_type})


class _Renderer:
    """WeasyPrint's reusable parts: font configuration, parsed stylesheets, fetcher, images."""

    def __init__(self) -> None:
        self.fetcher = StaticOnlyFetcher()
        self.font_config = FontConfiguration()
        self.stylesheet = weasyprint.CSS(
            url=ASSET_BASE_URL + STYLESHEET, url_fetcher=self.fetcher, font_config=self.font_config
        )
        self.page_rules = {
            key: weasyprint.CSS(string=f"@page {{ size: {size}; }}", font_config=self.font_config)
            for key, size in PAGE_SIZES.items()
        }
        # Images decoded once and kept between renders (only the app's own can get in here).
        self.image_cache: dict[str, Any] = {}

    def write_pdf(self, html: str, page_size: str) -> bytes:
        document = weasyprint.HTML(string=html, base_url=ASSET_BASE_URL, url_fetcher=self.fetcher)
        with _collector_paused():
            return document.write_pdf(
                stylesheets=[self.stylesheet, self.page_rules[page_size]],
                font_config=self.font_config,
                cache=self.image_cache,
                # Tagged (PDF/UA): a screen reader reads the sheet in order, headings as
                # headings, tables as tables; structure.finish marks the page furniture as
                # artifacts and gives table headers their scope.
                pdf_variant="pdf/ua-1",
                finisher=structure.finish,
            )


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Hold the cyclic garbage collector off while WeasyPrint builds its many short-lived boxes.

    They die by reference counting; without this the collector scans them, and the whole web
    process's heap with them, several times a render, for nothing. It runs again afterwards.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


_local = threading.local()


def _renderer() -> _Renderer:
    renderer = getattr(_local, "renderer", None)
    if renderer is None:
        renderer = _local.renderer = _Renderer()
    return renderer


def _page_size(page_size: str) -> str:
    key = page_size.strip().lower()
    if key not in PAGE_SIZES:
        raise ValueError(f"page size must be one of {sorted(PAGE_SIZES)}, not {page_size!r}")
    return key


def _cache_key(
    sheets: Sequence[Sheet], page_size: str, summary: bool = False, title: str = ""
) -> str:
    # The report is hashed as well as the document: it also depends on the campaign's house
    # rules and on the rules data, and a change to either must give a new PDF.
    payload = {
        "renderer": RENDERER_VERSION,
        "weasyprint": weasyprint.__version__,
        "assets": _assets_digest(),
        "page_size": page_size,
        "summary": summary,
        "title": title,
        "sheets": [
            {
                "document": sheet.document,
                "report": sheet.report.as_dict(),
                "rolls": sheet.rolls,
                "status": sheet.status,
                "player": sheet.player,
                "condition": dataclasses.asdict(sheet.condition) if sheet.condition else None,
                "encumbrance_penalty": sheet.encumbrance_penalty,
                "carried": sheet.carried.as_dict() if sheet.carried is not None else None,
                "credits_now": sheet.credits_now,
                "record": sheet.record,
                "pencil": sheet.pencil,
            }
            for sheet in sheets
        ],
    }
    canonical = json.dumps(
        payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


@cache
def _assets_digest() -> str:
    """A hash of the sheet templates, the stylesheet and the fonts, read once per process."""
    digest = hashlib.sha256()
    template = cast(DjangoBackendTemplate, get_template(TEMPLATE))
    template_dir = Path(template.origin.name).parent
    stylesheet = StaticOnlyFetcher().static_path(ASSET_BASE_URL + STYLESHEET)
    font_dir = stylesheet.parent.parent / "fonts"
    for path in (*sorted(template_dir.glob("*.html")), stylesheet, *sorted(font_dir.iterdir())):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()
