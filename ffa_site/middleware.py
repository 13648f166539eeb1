"""Middleware of the site as a whole."""

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_cache_control

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


def private_for_users(get_response: Callable[[HttpRequest], HttpResponse]):
    """Mark every response to a logged-in user `Cache-Control: private`, so that no shared
    cache (a proxy, a CDN) keeps one person's page for another. Whatever the view said is kept
    (`never_cache` pages stay `no-store`); anonymous pages are left as they were, and static
    files never get here (WhiteNoise, before this, answers them)."""

    def middleware(request: HttpRequest) -> HttpResponse:
        response = get_response(request)
        # After the view: a login has just made the user someone, a logout no one.
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            patch_cache_control(response, private=True)
        return response

    return middleware
