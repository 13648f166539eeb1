"""The site's error pages: a 404 and a 500 in the site's style, saying what a person can do."""

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotFound
from django.template.loader import render_to_string

GENERIC_NOT_FOUND = (
    "There is nothing here, or nothing you may see: a character or campaign that is not yours "
    "looks the same as one that does not exist."
)


class NotFoundForPeople(Http404):
    """A 404 whose message is written for the person who asked (a revoked share link says so).
    Any other 404 shows the generic message, so no model or query is named."""


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    message = str(exception) if isinstance(exception, NotFoundForPeople) else GENERIC_NOT_FOUND
    body = render_to_string("404.html", {"message": message}, request=request)
    return HttpResponseNotFound(body)
