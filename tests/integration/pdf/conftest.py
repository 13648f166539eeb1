"""The fixtures the tests of this folder share."""

import shutil

import pytest

from characters.models import Character
from characters.play import services as play_services
from tests.ci import running_in_ci
from tests.integration.pdf.rendered import stored_pilot


@pytest.fixture
def pilot_in_play(db) -> Character:
    """The pilot after shopping in play: a rifle (Cr220, 4 kg), a TL 8 vacc suit (Cr10,000,
    10 kg) and two cold weather clothing (Cr400, 8 kg) bought, the pistol sold for Cr100."""
    pilot = stored_pilot()
    for item, tl, quantity in (
        ("Rifle", None, 1),
        ("Vacc suit", 8, 1),
        ("Cold weather clothing", None, 2),
    ):
        play_services.buy_gear(character=pilot, by=pilot.owner, item=item, tl=tl, quantity=quantity)
    play_services.give_up_gear(character=pilot, by=pilot.owner, item="Automatic pistol", price=100)
    return pilot


IN_CI = running_in_ci()
POPPLER = ("pdftotext", "pdfinfo", "pdfimages", "pdfdetach", "pdffonts")


@pytest.fixture
def poppler() -> None:
    missing = [tool for tool in POPPLER if shutil.which(tool) is None]
    if missing and IN_CI:
        pytest.fail(f"{', '.join(missing)} missing: CI must install poppler-utils")
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed (apt-get install poppler-utils)")
