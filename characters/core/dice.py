"""Where the server's dice come from, for every feature that throws them (the play sheet's
tests and care, the encounters' rounds)."""

import random


def dice_source() -> random.Random:
    """The operating system's randomness, never a seed a player could predict. Every service
    that throws takes ``rng`` for the tests that call it; a test that drives the pages scripts
    the dice by replacing this function (``monkeypatch.setattr(dice, "dice_source", ...)``)."""
    return random.SystemRandom()
