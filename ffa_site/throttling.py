"""Throttling of the account pages: logins (django-axes) and signups (a counter per address).

Both key an address on the client's, as `client_address` reads it; behind a load balancer set
FFA_TRUSTED_PROXY_COUNT so that it is the visitor's, not the balancer's, for everyone.
"""

import ipaddress
import time
from collections.abc import Callable

from axes.backends import AxesStandaloneBackend
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.core.cache import caches
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse

LOCKED_OUT_MESSAGE = (
    "Too many failed logins for this account or from this address: logging in is refused "
    "for {minutes} minutes after the last attempt. An administrator can lift this sooner."
)
SIGNUP_REFUSED_MESSAGE = (
    "Too many signups from this address in the last hour. Try again later, or ask someone who "
    "runs this site to create your account."
)


def client_address(request: HttpRequest) -> str:
    """The visitor's address: the connection's own, or, behind FFA_TRUSTED_PROXY_COUNT proxies
    that each append the address they were connected from to X-Forwarded-For, the entry the
    outermost of them appended. Entries to the left of it are whatever the client sent, so they
    are never believed."""
    count = settings.TRUSTED_PROXY_COUNT
    if count > 0:
        forwarded = [a.strip() for a in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
        forwarded = [a for a in forwarded if a]
        # Only an address: axes stores it in an address column, which PostgreSQL checks.
        if len(forwarded) >= count and _is_address(forwarded[-count]):
            return forwarded[-count]
    return request.META.get("REMOTE_ADDR", "")


def _is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


class LoginThrottleBackend(AxesStandaloneBackend):
    """django-axes' backend, for calls of `authenticate` that come with a request.

    Every login page (the site's, the admin's) passes its request, and is throttled. Code that
    authenticates without one (Django's test client `login`, a management command) has no
    address to count and no page to show a lockout on: axes would raise there, this lets the
    next backend decide, as if axes were not installed.
    """

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


def locked_out(
    request: HttpRequest, original_response: HttpResponse | None, credentials: dict | None
) -> HttpResponse:
    """The lockout page: the login form again, with the reason above it, as 429."""
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    username = (credentials or {}).get("username") or request.POST.get("username", "")
    form = AuthenticationForm(request, initial={"username": username})
    context = {
        "form": form,
        "next": request.POST.get("next", request.GET.get("next", "")),
        "locked_out": LOCKED_OUT_MESSAGE.format(minutes=minutes),
    }
    return render(request, "registration/login.html", context, status=429)


SIGNUP_WINDOW_SECONDS = 3600


def throttle_signups(get_response: Callable[[HttpRequest], HttpResponse]):
    """Refuse (429) a signup form posted from an address that has posted it
    SIGNUP_LIMIT_PER_HOUR times this hour, valid or not: each post costs a password hash and
    each success an account. Counted per clock hour, in the "throttle" cache."""
    cache = caches["throttle"]

    def middleware(request: HttpRequest) -> HttpResponse:
        if request.method == "POST" and request.path_info == reverse("signup"):
            key = signup_counter(client_address(request))
            cache.add(key, 0, timeout=SIGNUP_WINDOW_SECONDS)
            try:
                posts = cache.incr(key)
            except ValueError:  # expired between add and incr: this post starts a new count
                cache.set(key, 1, timeout=SIGNUP_WINDOW_SECONDS)
                posts = 1
            if posts > settings.SIGNUP_LIMIT_PER_HOUR:
                return signup_refused(request)
        return get_response(request)

    return middleware


def signup_counter(address: str) -> str:
    """The throttle cache's key that counts this clock hour's signups from ``address``."""
    return f"signup:{address}:{int(time.time() // SIGNUP_WINDOW_SECONDS)}"


def signup_refused(request: HttpRequest) -> HttpResponse:
    body = render_to_string(
        "throttled.html", {"title": "Sign up", "message": SIGNUP_REFUSED_MESSAGE}, request=request
    )
    response = HttpResponse(body, status=429)
    response["Retry-After"] = str(SIGNUP_WINDOW_SECONDS)
    return response
