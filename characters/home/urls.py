"""The home page and the rules notes."""

from django.urls import path

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("rules/", views.rules_notes, name="rules_notes"),
]
