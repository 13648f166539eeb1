"""Reads of share links."""

from characters.models import ShareLink


def shared_link(token: str) -> ShareLink | None:
    """The active link with this token to a character that exists, or None."""
    return (
        ShareLink.objects.select_related("character", "character__campaign")
        .filter(token=token, revoked_at__isnull=True, character__deleted_at__isnull=True)
        .first()
    )
