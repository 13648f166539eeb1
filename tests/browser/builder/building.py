"""Building a character in the browser: typing into the builder and reading what it stored."""

from playwright.sync_api import expect

from characters.models import Character

SAVED = "All changes saved"


def stored() -> dict:
    return Character.objects.get(name="Mara").document


def stored_skill_names() -> list[str]:
    return [skill["skill"] for skill in stored().get("skills", [])]


def enter_in(page, box: str, text: str) -> None:
    """Fill ``box`` with ``text`` and press Enter in it, as a player adds a name."""
    page.locator(box).fill(text)
    page.locator(box).press("Enter")


def add_skills(page, *names: str) -> None:
    for name in names:
        enter_in(page, "[data-add=skill]", name)
    expect(page.locator("[data-skill-row]")).to_have_count(len(names))
    expect(page.locator("[data-save-state]")).to_have_text(SAVED)
