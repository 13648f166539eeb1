"""The site under gunicorn, the production app server, on a loopback port: for a benchmark,
and for the tests that run several app servers side by side."""

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def gunicorn(
    var_dir: str,
    *,
    workers: int | None = None,
    settings_module: str = "bench.settings",
    environment: Mapping[str, str] | None = None,
) -> Iterator[int]:
    """Serve the site on 127.0.0.1 with gunicorn.conf.py, as `make serve` does, and ``workers``
    sync workers (by default as many as `make serve` starts); yields the port.

    The development settings with DEBUG off (production's would redirect plain HTTP to HTTPS),
    by default plus bench.urls' do-nothing views, on a throwaway SQLite database unless
    ``environment`` names another (DATABASE_URL). The server's own log (warnings and errors:
    every PDF the limits refuse is one) goes to server.log in ``var_dir``, not the terminal,
    where it would bury the figures; it is quoted when the server does not start.
    """
    port = free_port()
    server_environment = {
        **os.environ,
        "FFA_VAR_DIR": var_dir,
        "DJANGO_SETTINGS_MODULE": settings_module,
        "DJANGO_DEBUG": "0",
    }
    server_environment.pop("DATABASE_URL", None)
    server_environment.update(environment or {})
    command = [sys.executable, "-m", "gunicorn", "ffa_site.wsgi", "--config", "gunicorn.conf.py",
               "--bind", f"127.0.0.1:{port}", "--log-level", "warning"]  # fmt: skip
    if workers is not None:
        command += ["--workers", str(workers)]
    log_path = Path(var_dir) / "server.log"
    log = log_path.open("ab")
    server = subprocess.Popen(
        command, cwd=ROOT, env=server_environment, stdout=log, stderr=subprocess.STDOUT
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    told = log_path.read_text(errors="replace")[-2000:]
                    raise RuntimeError(f"gunicorn did not start:\n{told}") from None
                time.sleep(0.1)
        yield port
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
