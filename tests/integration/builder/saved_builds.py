"""What the builder tests save and read back."""

from django.urls import reverse


def saved_as_you_go(client, character, data: dict):
    """What the builder page posts by itself after an edit (htmx), and the answer."""
    url = reverse("character_edit", args=[character.pk])
    return client.post(url, data, HTTP_HX_REQUEST="true")
