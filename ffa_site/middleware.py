"""Middleware of the site as a whole."""

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

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
