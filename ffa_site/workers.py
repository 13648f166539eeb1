"""How many gunicorn workers an app server runs, for gunicorn.conf.py and the settings alike.

Plain Python (gunicorn's master reads it before Django is set up).
"""

import os

# Gunicorn kills a worker that has not answered for this long; the PDF time budget
# (settings.PDF_TIME_BUDGET_SECONDS) stays well under it, so a render is stopped long before.
WORKER_TIMEOUT_SECONDS = 30
# What one sync worker takes with WeasyPrint loaded and a large party PDF made (about 170 MB
# measured), with room to spare: the default never starts more than the memory holds.
WORKER_MEMORY_BYTES = 256 * 1024 * 1024


def web_concurrency() -> int:
    """WEB_CONCURRENCY when set; else gunicorn's advice for sync workers, two per CPU this
    process may run on plus one, as far as the machine's memory holds them.

    Two per CPU, because a sync worker waiting on the database leaves its CPU to another, and
    because a worker making a PDF must leave others free to answer /healthz and the pages.
    """
    configured = os.environ.get("WEB_CONCURRENCY", "").strip()
    if configured:
        if not configured.isdigit() or int(configured) < 1:
            raise ValueError(f"WEB_CONCURRENCY must be a positive number; got {configured!r}.")
        return int(configured)
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return max(1, min(2 * cpu_count() + 1, memory // WORKER_MEMORY_BYTES))


def cpu_count() -> int:
    """The CPUs this process may run on (a container's share, where the system says so)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def pdf_render_slots() -> int:
    """How many PDFs one app server renders at once: half its CPUs (a render keeps one busy)
    or half its workers, whichever is fewer, and at least one; the rest answer the pages."""
    return max(1, min(cpu_count(), web_concurrency()) // 2)
