"""How `make serve` runs gunicorn (gunicorn.conf.py): sync workers, as many as the machine can
run unless WEB_CONCURRENCY says, and a worker timeout the PDF budget stays well under."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from ffa_site.workers import (
    WORKER_MEMORY_BYTES,
    WORKER_TIMEOUT_SECONDS,
    pdf_render_slots,
    web_concurrency,
)

ROOT = Path(__file__).resolve().parents[3]


def gunicorn_config(**env: str) -> dict[str, str]:
    """Gunicorn's settings as it resolves them from gunicorn.conf.py, as `make serve` runs it."""
    environment = {k: v for k, v in os.environ.items() if k != "WEB_CONCURRENCY"} | env
    result = subprocess.run(
        [sys.executable, "-m", "gunicorn", "--config", "gunicorn.conf.py", "--print-config",
         "ffa_site.wsgi"],
        cwd=ROOT, env=environment, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    pairs = (line.split("=", 1) for line in result.stdout.splitlines() if "=" in line)
    return {name.strip(): value.strip() for name, value in pairs}


def test_make_serve_runs_the_workers_the_machine_can_run_not_one():
    config = gunicorn_config()

    assert config["worker_class"] == "sync"  # the PDF budget's timer needs the main thread
    assert int(config["workers"]) == web_concurrency() > 1
    assert int(config["timeout"]) == WORKER_TIMEOUT_SECONDS


def test_web_concurrency_sets_the_workers():
    assert gunicorn_config(WEB_CONCURRENCY="3")["workers"] == "3"


def test_the_default_is_two_workers_a_cpu_and_one_more_as_far_as_memory_holds(monkeypatch):
    monkeypatch.delenv("WEB_CONCURRENCY", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3})
    plenty = {"SC_PAGE_SIZE": 4096, "SC_PHYS_PAGES": 64 * 1024**3 // 4096}
    monkeypatch.setattr(os, "sysconf", plenty.__getitem__)
    assert web_concurrency() == 9

    little = {"SC_PAGE_SIZE": 4096, "SC_PHYS_PAGES": 3 * WORKER_MEMORY_BYTES // 4096}
    monkeypatch.setattr(os, "sysconf", little.__getitem__)
    assert web_concurrency() == 3


@pytest.mark.parametrize("value", ["0", "-2", "many"])
def test_a_web_concurrency_that_is_no_worker_count_is_refused(monkeypatch, value):
    monkeypatch.setenv("WEB_CONCURRENCY", value)

    with pytest.raises(ValueError, match="WEB_CONCURRENCY"):
        web_concurrency()


def test_pdfs_render_on_half_the_cpus_or_half_the_workers_at_most(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)))
    monkeypatch.setenv("WEB_CONCURRENCY", "17")
    assert pdf_render_slots() == 4
    monkeypatch.setenv("WEB_CONCURRENCY", "3")
    assert pdf_render_slots() == 1
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    monkeypatch.setenv("WEB_CONCURRENCY", "1")
    assert pdf_render_slots() == 1  # never none
    assert settings.PDF_RENDER_SLOTS >= 1
