"""The site's URLs plus two do-nothing views, served only under bench.settings.

They show where a request's time goes between /healthz and the preview: Django's middleware,
CSRF check and form parsing (the anonymous no-op), then the session and user look-ups of a
logged-in request (the logged-in no-op), then the one look-up every view of a character makes
(the access check). The preview adds its own work on top of the last.
"""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.urls import path
from django.views.decorators.http import require_POST

from characters.core.requests import AuthenticatedHttpRequest
from characters.core.selectors import character_for_user
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


@login_required
@require_POST
def access_check(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    request.POST  # noqa: B018
    character_for_user(request, pk, edit=True)
    return HttpResponse(b"ok", content_type="text/plain")


urlpatterns = [
    path("bench/no-op/", anonymous_no_op),
    path("bench/logged-in-no-op/", logged_in_no_op),
    path("bench/access-check/<int:pk>/", access_check),
    *site_urlpatterns,
]
