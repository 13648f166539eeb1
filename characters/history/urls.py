"""History, restoring, the recently deleted characters and share links:
/characters/<pk>/history/…, /characters/deleted/, /characters/<pk>/undelete/,
/characters/<pk>/share/… and /s/<token>/."""

from django.urls import path

from . import views

urlpatterns = [
    path("characters/deleted/", views.character_trash, name="character_trash"),
    path("characters/<id:pk>/history/", views.character_history, name="character_history"),
    path(
        "characters/<id:pk>/history/<id:number>/",
        views.character_revision,
        name="character_revision",
    ),
    path(
        "characters/<id:pk>/history/<id:number>/restore/",
        views.character_restore,
        name="character_restore",
    ),
    path(
        "characters/<id:pk>/undelete/",
        views.character_undelete,
        name="character_undelete",
    ),
    path("characters/<id:pk>/share/", views.character_share, name="character_share"),
    path(
        "characters/<id:pk>/share/<id:link>/revoke/",
        views.character_share_revoke,
        name="character_share_revoke",
    ),
    path("s/<token:token>/", views.shared_sheet, name="shared_sheet"),
    path("s/<token:token>/sheet.pdf", views.shared_sheet_pdf, name="shared_sheet_pdf"),
]
