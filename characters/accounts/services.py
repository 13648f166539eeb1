"""Account writes with a consequence beyond the database: the password-change notice."""

from django.conf import settings
from django.contrib.auth.models import User
from django.core.mail import send_mail
from django.template.loader import render_to_string
from django.utils import timezone

PASSWORD_CHANGED_SUBJECT = "Your Far Future Action password was changed"


def notify_password_changed(*, user: User, address: str) -> bool:
    """Tell ``user`` by e-mail that their password was just changed (from ``address``), so that
    a change they did not make does not go unnoticed. False when the account has no address."""
    if not user.email:
        return False
    body = render_to_string(
        "registration/password_changed_email.txt",
        {"user": user, "address": address or "an unknown address", "when": timezone.now()},
    )
    send_mail(PASSWORD_CHANGED_SUBJECT, body, settings.DEFAULT_FROM_EMAIL, [user.email])
    return True
