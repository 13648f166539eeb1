"""The review workflow on one character:
/characters/<pk>/submit|approve|return|reopen|comment/ (leaving a campaign, detach/, is the
campaigns' own)."""

from django.urls import path

from . import views

urlpatterns = [
    path("characters/<id:pk>/submit/", views.character_submit, name="character_submit"),
    path("characters/<id:pk>/approve/", views.character_approve, name="character_approve"),
    path("characters/<id:pk>/return/", views.character_return, name="character_return"),
    path("characters/<id:pk>/reopen/", views.character_reopen, name="character_reopen"),
    path("characters/<id:pk>/comment/", views.character_comment, name="character_comment"),
]
