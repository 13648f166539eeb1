"""Throttling of the account pages: logins (django-axes and a slowdown per account) and
signups (a counter per address).

Logins are limited three ways (docs/features/accounts.md says why):

- an account from one address, and one address over all accounts: AXES_FAILURE_LIMIT wrong
  passwords lock that pair, or that address, for AXES_COOLOFF_TIME (django-axes);
- an account over all addresses together: past LOGIN_SLOWDOWN_AFTER wrong passwords in the
  cool-off time, each further attempt from an address the account has not logged in from must
  wait twice as long as the one before (`login_wait`). Never a lockout: a stranger's guesses
  cannot keep the owner out, and no number of addresses buys a stranger more than a few dozen
  guesses an hour.

All of them key an address on the client's, as `client_address` reads it; behind a load
balancer set FFA_TRUSTED_PROXY_COUNT so that it is the visitor's, not the balancer's.
"""

import hashlib
import ipaddress
import math
import time
from collections.abc import Callable
from typing import Any

from axes.backends import AxesStandaloneBackend
from axes.exceptions import AxesBackendPermissionDenied
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.core.cache import caches
from django.db.models import Max, Sum
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

LOCKED_OUT_MESSAGE = (
    "Too many failed logins for this account or from this address: logging in is refused "
    "for {minutes} minutes after the last attempt. An administrator can lift this sooner."
)
SLOWED_MESSAGE = (
    "This account has had many failed logins from other places, so logins to it from a new "
    "place are slowed down: try again in {seconds} seconds. A network you have logged in from "
    "before is not slowed."
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
        wait = login_wait(request, username)
        if wait > 0:
            # As axes does for a lockout: the password is not checked, the refusal is not
            # counted as a failure, and AxesMiddleware answers with `locked_out` below.
            request.login_wait_seconds = wait
            request.axes_locked_out = True
            raise AxesBackendPermissionDenied("logins to this account are slowed down")
        return super().authenticate(request, username=username, password=password, **kwargs)


def login_wait(request: HttpRequest, username: str | None) -> int:
    """Seconds a login to ``username`` from this request's address must still wait; 0 when its
    password may be checked now.

    Counted over every address: the failures for the account within the cool-off time. Up to
    LOGIN_SLOWDOWN_AFTER of them nothing waits; past that, each attempt waits 2, 4, 8… seconds
    (at most the cool-off time) after the last failure. An address the account has logged in
    from before never waits: the owner is slowed by no one else's guesses.
    """
    if not username:
        return 0
    cooloff = settings.AXES_COOLOFF_TIME
    recent = AccessAttempt.objects.filter(
        username=username, attempt_time__gte=timezone.now() - cooloff
    ).aggregate(failures=Sum("failures_since_start"), last=Max("attempt_time"))
    over = (recent["failures"] or 0) - settings.LOGIN_SLOWDOWN_AFTER
    if over < 0 or is_known_address(username, client_address(request)):
        return 0
    delay = min(2.0 ** min(over + 1, 32), cooloff.total_seconds())
    waited = (timezone.now() - recent["last"]).total_seconds()
    return max(0, math.ceil(delay - waited))


def remember_login_address(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any):
    """On every login (the user_logged_in signal): this address is one the account uses."""
    if request is not None:
        caches["throttle"].set(
            _known_address_key(user.get_username(), client_address(request)),
            True,
            timeout=settings.LOGIN_KNOWN_ADDRESS_DAYS * 24 * 3600,
        )


def is_known_address(username: str, address: str) -> bool:
    return bool(caches["throttle"].get(_known_address_key(username, address)))


def _known_address_key(username: str, address: str) -> str:
    # Hashed: a cache key has a bounded length and alphabet, a username does not.
    digest = hashlib.sha256(f"{username}\0{address}".encode()).hexdigest()
    return f"login-known:{digest}"


def locked_out(
    request: HttpRequest, original_response: HttpResponse | None, credentials: dict | None
) -> HttpResponse:
    """The lockout page: the login form again, with the reason above it, as 429."""
    username = (credentials or {}).get("username") or request.POST.get("username", "")
    form = AuthenticationForm(request, initial={"username": username})
    wait = getattr(request, "login_wait_seconds", 0)
    if wait:
        message = SLOWED_MESSAGE.format(seconds=wait)
    else:
        minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
        message = LOCKED_OUT_MESSAGE.format(minutes=minutes)
    context = {
        "form": form,
        "next": request.POST.get("next", request.GET.get("next", "")),
        "locked_out": message,
    }
    response = render(request, "registration/login.html", context, status=429)
    response["Retry-After"] = str(wait or int(settings.AXES_COOLOFF_TIME.total_seconds()))
    return response


SIGNUP_WINDOW_SECONDS = 3600


def throttle_signups(get_response: Callable[[HttpRequest], HttpResponse]):
    """Refuse (429) a signup form posted from an address that has posted it
    SIGNUP_LIMIT_PER_HOUR times this hour, valid or not: each post costs a password hash and
    each success an account. Counted per clock hour, in the "throttle" cache."""

    def middleware(request: HttpRequest) -> HttpResponse:
        if request.method == "POST" and request.path_info == reverse("signup"):
            key = signup_counter(client_address(request))
            if count(key, window_seconds=SIGNUP_WINDOW_SECONDS) > settings.SIGNUP_LIMIT_PER_HOUR:
                return signup_refused(request)
        return get_response(request)

    return middleware


def signup_counter(address: str) -> str:
    """The throttle cache's key that counts this clock hour's signups from ``address``."""
    return window_key("signup", address, SIGNUP_WINDOW_SECONDS)


def window_key(kind: str, who: str, window_seconds: int) -> str:
    """The throttle cache's key that counts ``kind`` for ``who`` in the current clock window."""
    return f"{kind}:{who}:{int(time.time() // window_seconds)}"


def seconds_left_in_window(window_seconds: int) -> int:
    return max(1, math.ceil(window_seconds - time.time() % window_seconds))


def count(key: str, *, window_seconds: int, amount: int = 1) -> int:
    """Add ``amount`` to the count kept under ``key`` in the "throttle" cache (shared by every
    worker, and with Redis by every app server) and return the new total."""
    cache = caches["throttle"]
    cache.add(key, 0, timeout=window_seconds)
    try:
        return cache.incr(key, amount)
    except ValueError:  # expired between add and incr: this one starts a new count
        cache.set(key, amount, timeout=window_seconds)
        return amount


def signup_refused(request: HttpRequest) -> HttpResponse:
    body = render_to_string(
        "throttled.html", {"title": "Sign up", "message": SIGNUP_REFUSED_MESSAGE}, request=request
    )
    response = HttpResponse(body, status=429)
    response["Retry-After"] = str(SIGNUP_WINDOW_SECONDS)
    return response
