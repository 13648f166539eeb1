"""What the play tests read of a character in play: its condition and version, its IP."""

from characters.play import selectors as play_selectors


def condition(character):
    return play_selectors.condition_of(character)[0]


def version(character):
    return play_selectors.condition_of(character)[1]


def ip(character):
    return play_selectors.ip_balance(character)
