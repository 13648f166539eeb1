from django.urls import path

from . import character_views, views

urlpatterns = [
    path("", views.home, name="home"),
    path("characters/", character_views.character_list, name="character_list"),
    path("characters/new/", character_views.character_new, name="character_new"),
    path("characters/import/", character_views.character_import, name="character_import"),
    path("characters/<int:pk>/", character_views.character_detail, name="character_detail"),
    path("characters/<int:pk>/edit/", character_views.character_edit, name="character_edit"),
    path(
        "characters/<int:pk>/preview/", character_views.character_preview, name="character_preview"
    ),
    path(
        "characters/<int:pk>/duplicate/",
        character_views.character_duplicate,
        name="character_duplicate",
    ),
    path("characters/<int:pk>/delete/", character_views.character_delete, name="character_delete"),
    path(
        "characters/<int:pk>/export.json", character_views.character_export, name="character_export"
    ),
    path("characters/<int:pk>/sheet.pdf", character_views.character_pdf, name="character_pdf"),
    path("campaigns/", views.campaign_list, name="campaign_list"),
    path("rules/", views.rules_notes, name="rules_notes"),
]
