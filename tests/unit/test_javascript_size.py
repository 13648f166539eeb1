"""The site's hand-written JavaScript stays small enough to read in one sitting (issue 35): no
file over 400 non-blank lines, the builder's script among them, and 900 in all. The vendored
libraries (static/vendor) are not ours to count."""

from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[2] / "static" / "js"


def _non_blank_lines(path: Path) -> int:
    return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())


def test_no_hand_written_script_passes_400_lines():
    sizes = {path.name: _non_blank_lines(path) for path in SCRIPTS.rglob("*.js")}
    assert "builder.js" in sizes
    assert {name: size for name, size in sizes.items() if size > 400} == {}


def test_the_sites_hand_written_scripts_come_to_at_most_900_lines():
    assert sum(_non_blank_lines(path) for path in SCRIPTS.rglob("*.js")) <= 900
