"""Every Python module fits in one's head: none passes 800 lines (migrations aside, which Django
writes). A module that grows past it is split along the walls it already draws (a package
whose ``__init__`` exports the same names; docs/development.md, "Module layout")."""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MOST_LINES = 800


# Not the project's: environments, installed packages, caches and collected files.
SKIPPED = {"node_modules", "staticfiles", "var", "build", "dist", "migrations"}


def _python_modules() -> list[Path]:
    modules = []
    for folder, subfolders, files in os.walk(ROOT):
        subfolders[:] = [
            name
            for name in subfolders
            if not name.startswith(".") and name not in SKIPPED and not name.endswith(".egg-info")
        ]
        modules.extend(Path(folder) / name for name in files if name.endswith(".py"))
    return modules


def test_no_python_module_passes_800_lines():
    modules = _python_modules()
    too_long = {
        str(path.relative_to(ROOT)): lines
        for path in modules
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MOST_LINES
    }
    assert len(modules) > 100  # the walk found the project
    assert too_long == {}
