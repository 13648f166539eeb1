"""The PDF character sheet: a TAS Form 2 style "Personal Data and History" per character.

One call renders one or several sheets into one PDF (a campaign's party PDF is a list), with
WeasyPrint, from ``templates/characters/pdf/sheets.html`` and ``static/css/sheet.css``::

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
text, so the template is flat and a table row of figures is one run of text on a tab grid (see
below).

Security. Everything the user typed reaches the template as data and is escaped by Django's
autoescape; none of it goes into CSS or a ``style`` attribute. WeasyPrint fetches through
:class:`StaticOnlyFetcher`, which serves ``data:`` URIs and the app's own static files under a
private origin and refuses everything else, so no network request (hence no redirect) is ever
made and no file outside the static directories is ever read.

Time. Bounded documents keep the largest legal sheet near a second (long notes print as running
text, see _notes); on top of that a render has a budget (settings.PDF_TIME_BUDGET_SECONDS, for
the whole PDF) after which it stops and the request gets a 503, so no PDF can hold a web worker
for long whatever gets past the bounds. characters.pdf.guard remembers such a verdict and limits
renders per user and per server, so that looping PDFs cannot hold the workers either.
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
from collections.abc import Iterable, Iterator, Mapping, Sequence
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
from characters.core.selectors import key_skills
from characters.core.wording import (
    MINUS,
    STATE_WORDS,
    TIMES,
    catalog_item,
    credits_figure,
    figure,
    item_label,
    kg,
    signed,
    weapon_lines,
)
from characters.models import Campaign
from characters.pdf import guard, structure
from rules import HouseRules, Report, catalog, check_document, parse_document, play, stat_block
from rules.engine import ENCUMBERED
from rules.fighters import weapon_from_item
from rules.play import Condition, SeverityRules
from rules.report import Equipment, EquipmentLine, SkillLine, TraitLine

# Bump whenever this module changes what a sheet looks like, so cached PDFs and ETags expire.
RENDERER_VERSION: Final = "8"
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
# The skills box prints its table in this many tables side by side.
SKILL_COLUMNS: Final = 3


# Where a pencil sheet leaves a figure to be written in.
PENCIL_BLANK: Final = "____________"


# The trait that makes a character a member of the Travellers' Aid Society.
_TAS_TRAIT: Final = re.compile(r"\btas\b|travell?ers'? aid society", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Sheet:
    """One character to print: its document, the engine's report on it, and what the app knows.

    ``rolls`` are the mustering-out roll records the app keeps, in order, as dicts with ``die``,
    ``modifier``, ``row``, ``credits`` and ``rolled_at``; the sheet prints the report's figures
    and takes the date of each roll from the record at the same position.
    """

    document: Mapping[str, Any]
    report: Report
    rolls: tuple[Mapping[str, Any], ...] = ()
    status: str | None = None
    player: str | None = None
    # The character's state in play; with it the life track shows today's marks and wounds.
    condition: Condition | None = None
    # The engine's penalty for what the character carries in play, shown with the wounds'.
    encumbrance_penalty: int = 0
    # The engine's figures for what a stored character carries now (its creation equipment
    # and the gear its ledger bought or gave up); None prints the document's equipment.
    carried: Equipment | None = None
    # When the credits ledger has entries: the credits the character has now.
    credits_now: int | None = None
    # For pencil: what changes in play (LIF marks, wounds, credits) is left blank.
    pencil: bool = False


@dataclass(frozen=True, slots=True)
class RenderedPdf:
    content: bytes
    etag: str  # a strong ETag, quotes included, ready for the ETag header
    from_cache: bool = False


def sheet_for_document(
    document: Mapping[str, Any],
    *,
    house_rules: HouseRules | None = None,
    rolls: Iterable[Mapping[str, Any]] = (),
    status: str | None = None,
    player: str | None = None,
    condition: Condition | None = None,
) -> Sheet:
    """A sheet for a character document, checked under ``house_rules`` (a campaign's settings).

    Raises rules.MalformedDocument when the document is not a character document of format 1.
    """
    return Sheet(
        document=document,
        report=check_document(document, house_rules=house_rules),
        rolls=tuple(rolls),
        status=status,
        player=player,
        condition=condition,
    )


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
        "sheets": [_sheet_context(sheet) for sheet in sheets],
        "summary": [_summary_row(sheet) for sheet in sheets] if summary else None,
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
        safe_name = re.sub(r"[^\w.-]+", "-", filename).strip("-.") or "character"
        response["Content-Disposition"] = content_disposition(f"{safe_name}.pdf", attachment=False)
    response["ETag"] = etag
    # Private (a sheet is one user's) and revalidated every time, which the ETag makes cheap.
    response["Cache-Control"] = "private, no-cache"
    return response


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


BOX: Final = "\u25a1"  # □, a life box
DASH: Final = "\u2013"  # the en dash of ranges
ZERO_WIDTH_SPACE: Final = "\u200b"
PILCROW: Final = "\u00b6"  # ¶, where a line of long notes ended
# Notes up to this many lines print line by line, as typed (a page holds about 75).
NOTES_LINES_AS_TYPED: Final = 300
_LONG_WORD: Final = re.compile(r"([^\s\u200b]{30})(?=[^\s\u200b])")


def _table(
    css: str,
    columns: Sequence[str],
    rows: Iterable[Sequence[Any]],
    *,
    first: int = 0,
    gaps: Iterable[int] = (),
) -> dict[str, Any]:
    """A table as the template prints it: real rows and cells, so that a screen reader reads it
    as a table (the PDF is tagged: each cell a TD under its column's TH). ``columns`` are the
    column heads; each row's cell at ``first`` is that row's header (the traits box prints the
    notation before the name); ``gaps``: the indexes of rows that start a group."""
    starts = set(gaps)
    printed = [
        {
            "cells": [(_one_line(cell), place == first) for place, cell in enumerate(row)],
            "gap": index in starts,
        }
        for index, row in enumerate(rows)
    ]
    return {"css": css, "columns": tuple(columns), "rows": printed}


def _sheet_context(sheet: Sheet) -> dict[str, Any]:
    report, document = sheet.report, sheet.document
    cat = catalog()
    species = cat.species.get(report.species)
    service = cat.services.get(report.service) if report.service else None
    skills = sorted(report.skills.lines, key=lambda line: line.name.lower())
    equipment = _equipment_now(sheet)
    mustering = report.mustering_out
    return {
        "title": report.name,
        "name": _breakable(report.name),
        "upp": report.upp,
        "byline": _byline(sheet),
        "id_fields": [
            ("2. UPP", report.upp),
            ("3. Noble title", report.noble_title or "—"),
            ("4. Former rank", _rank(report)),
        ],
        "bio_fields": [
            ("5. Species", species.name if species else report.species),
            ("6. Service", service.name if service else (report.service or "—")),
            ("7. Terms served", report.terms),
            ("8. Age", figure(report.age)),
            ("9. Homeworld", document.get("homeworld") or "—"),
        ],
        "attributes": _attribute_table(report),
        "derived": _table(
            "t-derived",
            ("Attribute", "Value", "Name"),
            (
                (code, value, cat.derived_names[code])
                for code, value in report.derived.as_dict().items()
            ),
        ),
        "psionics": _psionics(report),
        "tas": _tas(report),
        "lif": report.derived.LIF,
        "lif_boxes": _lif_boxes(report.derived.LIF),
        "in_play": _in_play(report, sheet.condition, sheet.encumbrance_penalty),
        "wnd": report.derived.WND,
        "wounds": _table(
            "t-wound",
            ("Severity", "Multiple", "Damage", "Effect until stabilised or treated"),
            _wound_rows(report.derived.WND),
        ),
        "skill_tables": [
            _table("t-skill", ("Skill", "Level"), (_skill_row(line) for line in part))
            for part in _columns(skills, SKILL_COLUMNS)
            if part
        ],
        "traits": _table(
            "t-trait", ("Notation", "Trait"), (_trait_row(t) for t in report.traits), first=1
        ),
        "roll_count": len(mustering.rolls),
        "rolls_allowed": mustering.rolls_allowed,
        "rolls": _table(
            "t-roll", ("Roll", "Die", "DM", "Row", "Credits", "Rolled"), _roll_rows(sheet)
        ),
        "money_row": _money_row(sheet),
        "str_dv": report.attribute("STR").dv,
        "weapons": _table(
            "t-weapon",
            (
                "Weapon",
                "TL",
                "DMG",
                "Type",
                "ACC",
                "Rmod",
                "Range",
                "RoF",
                "Ammo",
                "Skill and notes",
            ),
            (
                (
                    w.weapon,
                    w.tl,
                    w.dmg,
                    w.damage_type,
                    w.acc,
                    w.rmod,
                    w.reach,
                    w.rof,
                    w.ammo,
                    " · ".join(w.notes) or "—",
                )
                for w in weapon_lines(equipment)
            ),
        ),
        "armor": _table(
            "t-armor", ("Armor", "TL", "AV", "STR min", "kg", "Notes"), _armor_rows(equipment)
        ),
        "possessions": _table(
            "t-item",
            ("Qty", "TL", "kg", "Cost", "Item"),
            (_possession_row(line) for line in equipment.lines),
            first=4,
        ),
        "load_row": _load_row(equipment),
        "notes": _notes(document.get("notes") or ""),
        "stat_block": _breakable(
            stat_block(
                parse_document(document),
                report._replace(equipment=equipment),
                credits=f"Cr{PENCIL_BLANK}" if sheet.pencil else None,
            )
        ),
        # Errors only: a sheet is for play, and warnings (points unspent...) are the builder's.
        "problems": _breakable(_lines(f"Error: {p.message}" for p in report.errors)),
    }


def _breakable(text: str) -> str:
    """Free text with a place to break in every long word.

    WeasyPrint breaks a word too long for its line anywhere (overflow-wrap), but finding where
    takes it time that grows with the square of the word's length: a 20,000-character word
    would hold a web worker for seconds. A zero-width space every 30 characters is invisible.
    """
    return _LONG_WORD.sub("\\1" + ZERO_WIDTH_SPACE, text)


def _notes(text: str) -> str:
    """The notes as the sheet prints them: as typed, or, past NOTES_LINES_AS_TYPED lines, as
    running text with a pilcrow where each line ended (blank lines dropped).

    Every line is a box WeasyPrint lays out and paginates: notes of 10,000 one-letter lines,
    within the bounds, were 130 pages and seconds of rendering. As running text the most the
    bounds allow fills a few pages, like any other notes of that length.
    """
    lines = text.splitlines()
    if len(lines) > NOTES_LINES_AS_TYPED:
        text = f" {PILCROW} ".join(line.strip() for line in lines if line.strip())
    return _breakable(text)


def _lines(rows: Iterable[str]) -> str:
    return "\n".join(rows)


def _one_line(text: Any) -> str:
    # Line breaks a user typed would stretch a table row; spaces don't.
    return _breakable(" ".join(str(text).split()))


def _byline(sheet: Sheet) -> str:
    report = sheet.report
    parts = [
        "NPC" if report.kind == "npc" else "PC",
        f"{report.points.total} of {report.points.budget} points",
    ]
    if sheet.player:
        parts.append(f"player {sheet.player}")
    if sheet.status:
        parts.append(sheet.status)
    if not report.valid:
        parts.append("does not pass the rules check")
    return _one_line(" · ".join(parts))


def _rank(report: Report) -> str:
    rank = report.rank
    return f"{rank.level} · {rank.title}" if rank.title else str(rank.level)


def _attribute_table(report: Report) -> dict[str, Any]:
    """The attributes in the UPP's order, a gap before each of its groups but the first (body,
    mind, background)."""
    cat = catalog()
    values = {a.code: a for a in report.attributes}
    rows: list[tuple[Any, ...]] = []
    gaps: set[int] = set()
    for group in ("body", "mind", "background"):
        if rows:
            gaps.add(len(rows))
        for code in cat.attribute_groups[group]:
            a = values[code]
            rows.append((code, a.level, a.hex, signed(a.dm), a.dv, cat.attribute_names[code]))
    return _table(
        "t-attr", ("Attr", "Level", "Hex", "DM", "DV", "Attribute"), rows, gaps=sorted(gaps)
    )


def _skill_row(line: SkillLine) -> tuple[str, int]:
    """The skill (its cascade in brackets, then its specialties) and its level."""
    name = f"{line.skill} ({line.cascade})" if line.cascade else line.skill
    if line.specialties:
        name += ": " + ", ".join(line.specialties)
    return (name, line.level)


def _psionics(report: Report) -> str:
    psionics = report.psionics
    if psionics is None:
        return "Not trained."
    talents = ", ".join(f"{name}-{level}" for name, level in psionics.talents) or "no talents"
    return f"PSI {psionics.strength} · trained (maximum {psionics.max_strength}) · {talents}"


def _tas(report: Report) -> str:
    memberships = [trait for trait in report.traits if _TAS_TRAIT.search(trait.name)]
    if not memberships:
        return "Not a member."
    return "Member · " + "; ".join(f"{trait.name} {trait.notation}" for trait in memberships)


def _lif_boxes(lif: int) -> str:
    """The life track: a "□" per LIF point, in groups of five, twenty to a line.

    The boxes are characters of the sheet's font, so the whole track is one run of text, far
    cheaper for WeasyPrint than drawn boxes, and as crisp at any size.
    """
    groups = [BOX * min(5, lif - start) for start in range(0, max(lif, 0), 5)]
    return _lines(" ".join(groups[i : i + 4]) for i in range(0, len(groups), 4))


def _in_play(
    report: Report, condition: Condition | None, encumbrance_penalty: int
) -> dict[str, Any] | None:
    """Today's marks, states and wounds, when the character has been hurt in play.

    Marked boxes are printed one element each ("/" stun, "x" lethal) so they line up with the
    blank boxes; an unhurt sheet keeps the single run of blank boxes, the fast path.
    """
    if condition is None or not (
        condition.stun or condition.lethal or condition.wounds or condition.stunned
    ):
        return None
    marks = play.boxes(condition)
    groups = [marks[start : start + 5] for start in range(0, len(marks), 5)]
    states = [STATE_WORDS[code] for code in play.condition_states(condition)]
    wounds = []
    for wound in condition.wounds:
        care = (
            "treated" if wound.treated else "stabilised" if wound.stabilised else "not stabilised"
        )
        if wound.bleeds and wound.bleeds_left is not None:
            left = play.severity_rules(wound.severity).bleed_time(wound.bleeds_left)
            care += f", bleeds {left} more"
        wounds.append(f"{wound.severity.capitalize()} wound ({wound.damage} damage, {care})")
    effective = play.effective(report, condition, encumbrance_penalty=encumbrance_penalty).derived
    changed = [
        f"{code} {getattr(effective, code)} (from {getattr(report.derived, code)})"
        for code in ENCUMBERED
        if getattr(effective, code) != getattr(report.derived, code)
    ]
    return {
        "rows": [groups[i : i + 4] for i in range(0, len(groups), 4)],
        "lif_now": condition.lif,
        "summary": "; ".join(
            [f"LIF now {condition.lif} of {condition.maximum}", *states, *wounds, *changed]
        ),
    }


def _wound_rows(wnd: int) -> list[tuple[str, str, str, str]]:
    """The wound severities of DAMAGE AND INJURY: one wound's damage in multiples of WND."""
    rows = []
    for band in play.wound_bands(wnd):
        severity = band.severity
        if band.highest is None:
            multiple, damage = f"> {band.above_wnd_multiple}{TIMES}WND", f"{band.lowest}+"
        else:
            multiple = f"≤ {severity.up_to_wnd_multiple}{TIMES}WND"
            high = band.highest
            damage = f"{band.lowest}{DASH}{high}" if band.lowest < high else str(high)
        rows.append((severity.name.capitalize(), multiple, damage, _wound_effect(severity)))
    return rows


def _wound_effect(severity: SeverityRules) -> str:
    parts = []
    stabilised, treated = severity.body_until_stabilised, severity.body_until_treated
    if stabilised != treated:
        parts.append(f"body {signed(stabilised)}, {signed(treated)} once stabilised")
    elif treated:
        parts.append(f"body {signed(treated)} until treated")
    if severity.mind_until_treated:
        parts.append(f"mind tests {signed(severity.mind_until_treated)}")
    if severity.bleed_points and severity.bleed_every is not None:
        every = severity.bleed_every
        per = f"per {every.unit}" if every.count == 1 else f"per {every}"
        lasts = f" for {severity.bleed_lasts}" if severity.bleed_lasts else ""
        parts.append(f"{MINUS}{severity.bleed_points} LIF {per}{lasts}")
    return "; ".join(parts) or "none"


def _columns(items: Sequence[SkillLine], count: int) -> list[list[SkillLine]]:
    """Items split top to bottom into ``count`` columns, the first ones the longest."""
    per_column = max(1, -(-len(items) // count))
    return [list(items[i * per_column : (i + 1) * per_column]) for i in range(count)]


def _trait_row(trait: TraitLine) -> tuple[str, str]:
    details = []
    if trait.control_score is not None:
        details.append(f"control score {trait.control_score}")
    if trait.source == "package":
        details.append("species package")
    return (trait.notation, f"{trait.name} ({', '.join(details)})" if details else trait.name)


def _roll_rows(sheet: Sheet) -> list[tuple[Any, ...]]:
    rows = []
    for index, roll in enumerate(sheet.report.mustering_out.rolls):
        record = sheet.rolls[index] if index < len(sheet.rolls) else {}
        rows.append(
            (
                index + 1,
                roll.die,
                signed(roll.modifier),
                roll.row,
                credits_figure(roll.credits),
                _rolled_at(record.get("rolled_at")),
            )
        )
    return rows


def _rolled_at(value: Any) -> str:
    if value is None or value == "":
        return "—"
    if hasattr(value, "isoformat"):
        return value.isoformat(sep=" ", timespec="minutes")[:16]
    return str(value).replace("T", " ")[:16]


def _summary_row(sheet: Sheet) -> dict[str, Any]:
    """A character's line on the party summary: who, UPP, derived attributes, best skills, the
    weapons it carries with the damage each does a point of effect, and the AV of its armor."""
    report = sheet.report
    equipment = _equipment_now(sheet)
    str_dv = report.attribute("STR").dv
    weapons = []
    for line in equipment.lines:
        item = catalog_item(line)
        if item is not None and item.table in ("melee", "ranged"):
            damage = weapon_from_item(item).damage_per_effect(str_dv)
            weapons.append(f"{line.item} DMG {damage}")
    worn = f" {equipment.armor_worn}" if equipment.armor_worn else ""
    return {
        "name": report.name,
        "player": sheet.player or "",
        "upp": report.upp,
        "derived": _derived_now(sheet),
        "skills": ", ".join(key_skills(report)),
        "weapons": weapons,
        "armor": f"AV {equipment.armor_av}{worn}",
    }


def _derived_now(sheet: Sheet) -> list[str]:
    """The derived attributes as the referee meets the character today: LIF as it stands, and
    each figure its wounds and load move written with the sheet's value beside it."""
    derived = sheet.report.derived
    condition = sheet.condition
    if condition is None:
        return [f"{code} {value}" for code, value in derived.as_dict().items()]
    now = play.effective(
        sheet.report, condition, encumbrance_penalty=sheet.encumbrance_penalty
    ).derived
    figures = []
    for code, value in derived.as_dict().items():
        if code == "LIF" and condition.lif != condition.maximum:
            figures.append(f"LIF {condition.lif} of {condition.maximum}")
        elif getattr(now, code) != value:
            figures.append(f"{code} {getattr(now, code)} (from {value})")
        else:
            figures.append(f"{code} {value}")
    return figures


def _equipment_now(sheet: Sheet) -> Equipment:
    """The equipment the character has now: what it carries, and the credits it has as the
    credits remaining (gear bought in play is paid from the ledger, not from the cash that
    ``Sheet.carried`` counts it against)."""
    creation = sheet.report.equipment
    carried = creation if sheet.carried is None else sheet.carried
    credits = creation.credits_remaining if sheet.credits_now is None else sheet.credits_now
    return carried._replace(credits_remaining=credits)


def _money_row(sheet: Sheet) -> str:
    mustering, equipment = sheet.report.mustering_out, sheet.report.equipment
    creation = (
        f"Mustering-out cash {credits_figure(mustering.credits)} · spent on equipment "
        f"{credits_figure(equipment.cost)}"
    )
    if sheet.pencil:
        return f"{creation} · credits {PENCIL_BLANK}"
    if sheet.credits_now is None:
        return f"{creation} · credits {credits_figure(equipment.credits_remaining)}"
    return (
        f"{creation} · credits after creation {credits_figure(equipment.credits_remaining)} · "
        f"credits now {credits_figure(sheet.credits_now)}"
    )


def _armor_rows(equipment: Equipment) -> list[tuple[str, ...]]:
    """The armor, then its TL, AV, STR minimum, weight and notes."""
    rows: list[tuple[str, ...]] = []
    for line in equipment.lines:
        item = catalog_item(line)
        if item is None or item.table != "armor":
            continue
        figures = item.row
        rows.append(
            (
                item_label(line),
                figure(item.tl),
                figure(figures.get("av")),
                figure(figures.get("str_min")),
                kg(item.weight_kg),
                figure(figures.get("notes")),
            )
        )
    return rows


def _possession_row(line: EquipmentLine) -> tuple[str, ...]:
    name = line.item if line.table is not None else f"{line.item} (not in the catalog)"
    return (
        str(line.quantity),
        figure(line.tl),
        kg(line.weight_kg),
        credits_figure(line.cost),
        name,
    )


def _load_row(equipment: Equipment) -> str:
    if equipment.encumbrance_penalty:
        encumbered = ", ".join(
            f"{code} {value}"
            for code, value in equipment.encumbered_derived.as_dict().items()
            if code in ENCUMBERED
        )
        encumbrance = f"{MINUS}{equipment.encumbrance_penalty} ({encumbered})"
    else:
        encumbrance = "none"
    multiple = catalog().limits.unencumbered_str_multiple
    over = " · OVER CAPACITY" if equipment.over_capacity else ""
    return (
        f"Total {credits_figure(equipment.cost)}, {kg(equipment.load_kg)} kg · unencumbered up to "
        f"{equipment.unencumbered_kg} kg ({multiple} {TIMES} STR) · capacity "
        f"{equipment.capacity_kg} kg (STR²){over} · encumbrance {encumbrance}"
    )
