"""The site's error pages: a 404, a 500 and a refused form in the site's style, saying what a
person can do."""

from django.contrib import messages
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseForbidden,
    HttpResponseNotFound,
)
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.utils.http import url_has_allowed_host_and_scheme

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


# Why a form from a tab left open is refused by the CSRF check, and what to do.
STALE_WHY = (
    "This page was out of date (you logged in or out in another tab since it was loaded, or "
    "its cookies were cleared), so nothing was done."
)
STALE_PAGE = f"{STALE_WHY} Here it is as it stands now; do it again if it still applies."


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """A form refused by the CSRF check, in the site's styles (Django's own page has inline
    styles, which the Content-Security-Policy refuses). From one of the site's own pages (a tab
    left open while the session changed in another): without JavaScript, that page again with
    the refusal among its messages; with htmx, the refusal at the top of the page, with a link
    to reload it, answered 200 so that htmx swaps it in (it swaps no 4xx, and Chromium reports
    any 4xx as a console error). From anywhere else, a 403 page."""
    page = request.headers.get("HX-Current-URL") or request.headers.get("Referer") or ""
    ours = url_has_allowed_host_and_scheme(
        page, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    if not ours:
        body = render_to_string("403_csrf.html", {"message": STALE_PAGE}, request=request)
        return HttpResponseForbidden(body)
    if request.headers.get("HX-Request"):
        body = render_to_string("partials/stale_page.html", {"message": STALE_WHY, "page": page})
        headers = {"HX-Retarget": "#main", "HX-Reswap": "afterbegin show:window:top"}
        return HttpResponse(body, headers=headers)
    messages.error(request, STALE_PAGE)
    return redirect(page)
