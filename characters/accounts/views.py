"""Accounts: signing up and changing a password. Logging in and out are Django's own views
(ffa_site/urls.py)."""

from django.contrib import messages
from django.contrib.auth import login, update_session_auth_hash
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import PasswordChangeForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_protect
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods

from characters.accounts import services
from characters.accounts.forms import SignupForm
from characters.core.requests import AuthenticatedHttpRequest
from ffa_site.throttling import client_address


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("home")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome aboard, {user.username}.")
        return redirect("home")
    return render(request, "registration/signup.html", {"form": form})


@sensitive_post_parameters()
@csrf_protect
@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def password_change(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The new password replaces the old one, the user stays logged in here (other sessions
    end), and the account's e-mail address, if it has one, is told of the change."""
    form = PasswordChangeForm(request.user, request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        update_session_auth_hash(request, user)
        services.notify_password_changed(user=user, address=client_address(request))
        return redirect("password_change_done")
    return render(request, "registration/password_change_form.html", {"form": form})
