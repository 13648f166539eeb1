"""What a downloaded sheet or document is called."""

from django.utils.http import content_disposition_header
from django.utils.text import slugify


def download_stem(name: str, fallback: str) -> str:
    """A file name (without its extension) from a character's or campaign's name. Letters
    outside ASCII are kept: a name in Greek or Japanese would otherwise be a bare fallback, and
    a referee printing the party would get several "character.pdf"."""
    return slugify(name, allow_unicode=True) or fallback


def content_disposition(filename: str, *, attachment: bool) -> str:
    """The Content-Disposition header for ``filename``: a quoted name when it is ASCII, else
    filename* in UTF-8."""
    header = content_disposition_header(attachment, filename)
    assert header is not None  # None only for an inline response without a name
    return header
