"""The README and the docs hold together: every link to a file of the repository leads to one,
every anchor names a heading of its page, and every page under docs/ is linked from the README,
so a newcomer reaches each one from there."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
README = ROOT / "README.md"
PAGES = sorted([*ROOT.glob("*.md"), *(ROOT / "docs").rglob("*.md")])

FENCED_CODE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`[^`\n]*`")
# [text](target) and ![alt](target), the target up to a space (a title may follow) or ")".
INLINE_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_LINK = re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$", re.MULTILINE)
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)  # http:, https:, mailto:…


def _prose(page: Path) -> str:
    """The page without its code, where brackets and parentheses are not links."""
    return CODE_SPAN.sub("", FENCED_CODE.sub("", page.read_text()))


def _local_links(page: Path) -> list[str]:
    text = _prose(page)
    targets = INLINE_LINK.findall(text) + REFERENCE_LINK.findall(text)
    return [target for target in targets if not EXTERNAL.match(target)]


def _slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    return {_slug(heading) for heading in HEADING.findall(_prose(page))}


def _where(page: Path, target: str) -> tuple[Path, str]:
    path, _, anchor = target.partition("#")
    return ((page.parent / path).resolve() if path else page), anchor


def test_the_readme_and_the_docs_are_found():
    assert README in PAGES
    assert len([page for page in PAGES if "features" in page.parts]) >= 10


def test_every_local_link_leads_to_a_file_of_the_repository():
    broken = [
        f"{page.relative_to(ROOT)}: {target}"
        for page in PAGES
        for target in _local_links(page)
        if not _where(page, target)[0].exists()
    ]

    assert broken == []


def test_every_anchor_names_a_heading_of_the_page_it_links_to():
    broken = []
    for page in PAGES:
        for target in _local_links(page):
            path, anchor = _where(page, target)
            if anchor and path.suffix == ".md" and path.exists() and anchor not in _anchors(path):
                broken.append(f"{page.relative_to(ROOT)}: {target}")

    assert broken == []


def test_every_docs_page_is_linked_from_the_readme():
    linked = {_where(README, target)[0] for target in _local_links(README)}
    docs = [page for page in PAGES if page.is_relative_to(ROOT / "docs")]

    assert [str(page.relative_to(ROOT)) for page in docs if page not in linked] == []


def test_the_slug_of_a_heading_is_githubs():
    assert _slug("Several app servers: PostgreSQL and Redis") == (
        "several-app-servers-postgresql-and-redis"
    )
    assert _slug("E-mail") == "e-mail"
    assert _slug("Foundry VTT (Twodsix)") == "foundry-vtt-twodsix"


def test_the_readme_stays_a_readme_of_at_most_150_lines():
    # What a feature does belongs in docs/features/, what changed in CHANGELOG.md (issue 40).
    assert len(README.read_text().splitlines()) <= 150
