"""The site under gunicorn, the production app server, on a loopback port for a benchmark."""

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def gunicorn(var_dir: str, *, workers: int) -> Iterator[int]:
    """Serve the site on 127.0.0.1 with ``workers`` sync workers; yields the port.

    The development settings with DEBUG off (production's would redirect plain HTTP to HTTPS),
    plus bench.urls' do-nothing views. Access logging is off so that the terminal is not
    flooded.
    """
    port = _free_port()
    environment = {
        **os.environ,
        "FFA_VAR_DIR": var_dir,
        "DJANGO_SETTINGS_MODULE": "bench.settings",
        "DJANGO_DEBUG": "0",
    }
    environment.pop("DATABASE_URL", None)
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "ffa_site.wsgi", "--bind", f"127.0.0.1:{port}",
         "--workers", str(workers), "--log-level", "warning"],
        cwd=ROOT, env=environment,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("gunicorn did not start") from None
                time.sleep(0.1)
        yield port
    finally:
        server.terminate()
        server.wait(timeout=30)
