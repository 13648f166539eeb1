"""The request of a signed-in user, for type checking: ``@login_required`` guarantees it."""

from django.contrib.auth.models import User
from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class AuthenticatedHttpRequest(HttpRequest):
    user: User
    htmx: HtmxDetails
