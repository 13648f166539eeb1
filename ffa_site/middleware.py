"""Middleware of the site as a whole."""

import logging
from collections.abc import Callable
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import resolve_url
from django.template.loader import render_to_string
from django.utils.cache import patch_cache_control
from django.utils.http import url_has_allowed_host_and_scheme
from django_htmx.http import HttpResponseClientRedirect

from rules import MalformedDocument

logger = logging.getLogger(__name__)

HEALTHZ_PATH = "/healthz"


def healthz(get_response: Callable[[HttpRequest], HttpResponse]):
    """Answer the load balancer's `/healthz` with `200 ok` before anything else runs.

    It sits first in MIDDLEWARE so that the probe needs no valid Host header, is not redirected
    to HTTPS, and never opens a session or a database connection.
    """

    def middleware(request: HttpRequest) -> HttpResponse:
        if request.path_info == HEALTHZ_PATH:
            return HttpResponse(b"ok", content_type="text/plain; charset=utf-8")
        return get_response(request)

    return middleware


def permissions_policy(get_response: Callable[[HttpRequest], HttpResponse]):
    """Send a Permissions-Policy that refuses the browser features the site never uses
    (settings.PERMISSIONS_POLICY_REFUSED): a script that got in could not turn them on."""
    header = ", ".join(f"{feature}=()" for feature in settings.PERMISSIONS_POLICY_REFUSED)

    def middleware(request: HttpRequest) -> HttpResponse:
        response = get_response(request)
        response.headers.setdefault("Permissions-Policy", header)
        return response

    return middleware


def refuse_oversized_bodies(get_response: Callable[[HttpRequest], HttpResponse]):
    """Answer 413 to a request whose Content-Length is over MAX_REQUEST_BYTES, before any of
    its body is read: not a 500 upload read whole and then refused, nor a 400 from Django's
    own limit halfway through parsing it. A body without a Content-Length is never read by
    Django at all (WSGI gives it none), so the header is all there is to check."""

    def middleware(request: HttpRequest) -> HttpResponse:
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0  # Django reads a malformed length as none, and so reads no body
        if length > settings.MAX_REQUEST_BYTES:
            body = render_to_string(
                "413.html", {"limit_kb": settings.MAX_IMPORT_BYTES // 1000, "path": request.path}
            )
            # No Connection header (WSGI leaves hop-by-hop headers to the server): gunicorn's
            # sync workers close every connection after its response anyway.
            return HttpResponse(body, status=413)
        return get_response(request)

    return middleware


def private_for_users(get_response: Callable[[HttpRequest], HttpResponse]):
    """Mark every response to a logged-in user `Cache-Control: private, no-store`: no shared
    cache (a proxy, a CDN) keeps one person's page for another, and no browser keeps it on disk
    for the next person at a shared computer. What else the view said is kept (a PDF's
    `no-cache` and ETag); anonymous pages are left as they were, and static files never get
    here (WhiteNoise, before this, answers them).

    An answer to a post is only private: no cache keeps it anyway, and a browser keeps no page
    for Back whose own requests were answered no-store (the builder saves with posts)."""

    def middleware(request: HttpRequest) -> HttpResponse:
        response = get_response(request)
        # After the view: a login has just made the user someone, a logout no one.
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            if request.method == "POST":
                patch_cache_control(response, private=True)
            else:
                patch_cache_control(response, private=True, no_store=True)
        return response

    return middleware


def htmx_to_the_login_page(get_response: Callable[[HttpRequest], HttpResponse]):
    """Send the whole page to the login page when an htmx request finds its session ended.

    htmx follows the redirect itself and would swap the login page, header and all, into the
    region it updates (the play sheet, an encounter's turn order every 3 s), and that login
    would lead back to the request's own URL, an action's that only takes posts. The page goes
    to the login instead (HX-Redirect), to come back to the page it was on.
    """

    def middleware(request: HttpRequest) -> HttpResponse:
        response = get_response(request)
        login = resolve_url(settings.LOGIN_URL)
        if (
            request.headers.get("HX-Request") != "true"
            or response.status_code != 302
            or urlsplit(response["Location"]).path != login
        ):
            return response
        page = request.headers.get("HX-Current-URL", "")
        if not url_has_allowed_host_and_scheme(page, allowed_hosts={request.get_host()}):
            return HttpResponseClientRedirect(login)
        back = urlsplit(page)._replace(scheme="", netloc="").geturl()
        return HttpResponseClientRedirect(redirect_to_login(back)["Location"])

    return middleware


class UnreadableStoredDocument:
    """A page of a character whose stored document the rules engine cannot read (left by an older
    version of the site, or changed by hand in the database) says so and where to mend it, rather
    than answering with a server error; the refusal is logged for the site's admins. Documents
    coming in (an import, a save) are read, and refused with a message, by their own views."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, MalformedDocument):
            return None
        logger.error(
            "A stored character document cannot be read at %s: %s", request.path, exception
        )
        body = render_to_string(
            "unreadable_document.html", {"problem": str(exception)}, request=request
        )
        return HttpResponse(body, status=200)
