"""The rules engine is plain Python: the site and the CLI call it; it calls neither."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


# In an interpreter of its own: this one has Django loaded for the other tiers.
def test_the_rules_package_imports_nothing_from_django():
    probe = (
        "import sys, rules; rules.check_document; "
        "print(sorted(m for m in sys.modules if m.startswith('django')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert result.stdout.strip() == "[]"
