"""The site's URLs plus two do-nothing views, served only under bench.settings.

They show where a request's time goes between /healthz and the preview: Django's middleware,
CSRF check and form parsing (the anonymous no-op), then the session and user look-ups of a
logged-in request (the logged-in no-op). The preview adds its own work on top of the latter.
"""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.urls import path
from django.views.decorators.http import require_POST

from ffa_site.urls import urlpatterns as site_urlpatterns


@require_POST
def anonymous_no_op(request: HttpRequest) -> HttpResponse:
    request.POST  # noqa: B018 -- parse the form, as the preview does
    return HttpResponse(b"ok", content_type="text/plain")


@login_required
@require_POST
def logged_in_no_op(request: HttpRequest) -> HttpResponse:
    request.POST  # noqa: B018
    return HttpResponse(b"ok", content_type="text/plain")


urlpatterns = [
    path("bench/no-op/", anonymous_no_op),
    path("bench/logged-in-no-op/", logged_in_no_op),
    *site_urlpatterns,
]
