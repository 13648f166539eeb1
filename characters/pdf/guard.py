"""What keeps PDF rendering from holding the web workers, checked before every render (a PDF
from the cache is never held back):

- a PDF stopped by its time budget is remembered by its content hash, and refused at once for
  PDF_REFUSAL_MEMORY_SECONDS (503) instead of being rendered again to be stopped again;
- one user (or, through a share link, one address) has one render at a time, and at most
  PDF_RENDER_SECONDS_PER_USER seconds of rendering every PDF_RENDER_WINDOW_SECONDS (429): the
  time a worker spent, whatever the PDF (a party of heavy sheets costs what it takes);
- an app server renders at most PDF_RENDER_SLOTS PDFs at once, so its other workers and CPUs
  are free for the pages and /healthz (503).

The counts live in the "throttle" cache and the verdicts in the "pdf" cache (files shared by
a server's workers, or Redis shared by every app server). The slots are locks on files of this
server, which the system releases when a worker is killed.
"""

from __future__ import annotations

import contextlib
import fcntl
import math
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.core.cache import caches
from django.http import HttpRequest

from ffa_site import throttling

MINUTE = 60


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a PDF is not rendered now: the answer's status, message and Retry-After."""

    status: int
    message: str
    retry_after: int


def remembered_refusal(key: str) -> Refusal | None:
    """A refusal when the PDF with this content hash was stopped by its budget lately."""
    budget = caches["pdf"].get(_verdict_key(key))
    if budget is None:
        return None
    return _over_budget(budget)


def remember_over_budget(key: str, seconds: float) -> Refusal:
    """Remember that the PDF with this content hash ran past its budget of ``seconds``."""
    caches["pdf"].set(_verdict_key(key), seconds, timeout=settings.PDF_REFUSAL_MEMORY_SECONDS)
    return _over_budget(seconds)


def _verdict_key(key: str) -> str:
    return f"over-budget:{key}"


def _over_budget(seconds: float) -> Refusal:
    minutes = max(1, settings.PDF_REFUSAL_MEMORY_SECONDS // MINUTE)
    return Refusal(
        status=503,
        message=(
            f"Making this PDF took longer than {seconds:g} seconds, so it was stopped, and it "
            f"will not be tried again for {minutes} minutes unless something on it changes. "
            "A party with many long sheets prints best one sheet at a time, from each sheet's "
            "page."
        ),
        retry_after=settings.PDF_REFUSAL_MEMORY_SECONDS,
    )


@contextlib.contextmanager
def render_allowance(request: HttpRequest) -> Iterator[Refusal | None]:
    """None while this request may render a PDF (the user's render and the server's slot are
    held until the block ends, and the time it takes is charged to the user); else why not."""
    who = _renderer_of(request)
    used_up = _time_used_up(who)
    if used_up is not None:
        yield used_up
        return
    with _one_at_a_time(who) as mine, _render_slot() as slot:
        if not mine:
            yield Refusal(
                status=429,
                message="Another PDF of yours is being made right now. Try again when it is ready.",
                retry_after=5,
            )
        elif slot is None:
            yield Refusal(
                status=503,
                message="The server is busy making other PDFs. Try again in a few seconds.",
                retry_after=5,
            )
        else:
            started = time.monotonic()
            try:
                yield None
            finally:
                _charge(who, time.monotonic() - started)


def _renderer_of(request: HttpRequest) -> str:
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return f"user:{user.pk}"
    return f"address:{throttling.client_address(request)}"


def _render_time_key(who: str) -> str:
    return throttling.window_key("pdf-ms", who, settings.PDF_RENDER_WINDOW_SECONDS)


def _charge(who: str, seconds: float) -> None:
    """Count ``seconds`` of rendering (in whole milliseconds, as caches count) to ``who``."""
    window = settings.PDF_RENDER_WINDOW_SECONDS
    throttling.count(_render_time_key(who), window_seconds=window, amount=math.ceil(seconds * 1000))


def _time_used_up(who: str) -> Refusal | None:
    """A refusal when ``who`` has had PDF_RENDER_SECONDS_PER_USER of rendering this window
    (so the first PDF of a window, however long, always gets its turn)."""
    used_ms = caches["throttle"].get(_render_time_key(who)) or 0
    if used_ms < settings.PDF_RENDER_SECONDS_PER_USER * 1000:
        return None
    window = settings.PDF_RENDER_WINDOW_SECONDS
    return Refusal(
        status=429,
        message=(
            f"Your PDFs have taken {used_ms / 1000:.0f} seconds to make in the last "
            f"{window // MINUTE} minutes, the most they may. A PDF you opened before still "
            "opens at once; new ones can be made again in a few minutes."
        ),
        retry_after=throttling.seconds_left_in_window(window),
    )


@contextlib.contextmanager
def _one_at_a_time(who: str) -> Iterator[bool]:
    """Whether this is ``who``'s only render in progress; held until the block ends (and at
    most a little past the time budget, should the worker die holding it)."""
    cache = caches["throttle"]
    key = f"pdf-rendering:{who}"
    mine = cache.add(key, True, timeout=int(settings.PDF_TIME_BUDGET_SECONDS) + 5)
    try:
        yield mine
    finally:
        if mine:
            cache.delete(key)


@contextlib.contextmanager
def _render_slot() -> Iterator[int | None]:
    """One of this server's PDF_RENDER_SLOTS render slots (its number), or None when every
    one is taken: an exclusive lock on a file of the slot, which dies with its process."""
    folder = Path(settings.VAR_DIR) / "pdf-slots"
    folder.mkdir(parents=True, exist_ok=True)
    for number in range(settings.PDF_RENDER_SLOTS):
        descriptor = os.open(folder / f"slot-{number}", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(descriptor)
            continue
        try:
            yield number
        finally:
            os.close(descriptor)  # closing the file releases the lock
        return
    yield None
