"""Debian's Chromium, as the browser tests and the browser benchmark launch it.

Background networking and component updates are off: this machine's closed network refuses
Chromium's own connections, and a test must talk only to the server it started.
"""

import os
from pathlib import Path

CHROMIUM = Path(os.environ.get("FFA_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
