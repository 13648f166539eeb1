"""The account forms: signing up, with an optional e-mail address for notices."""

from django import forms
from django.contrib.auth.forms import UserCreationForm, UsernameField
from django.contrib.auth.models import User


class SignupForm(UserCreationForm):
    email = forms.EmailField(
        required=False,
        label="E-mail (optional)",
        help_text="Only to tell you when your password changes; never shown to anyone.",
    )

    class Meta:
        model = User
        fields = ("username", "email")
        field_classes = {"username": UsernameField}
